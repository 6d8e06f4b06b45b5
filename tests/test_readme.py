"""The README's commands are what CI and users actually run."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _bash_blocks(text: str) -> list[str]:
    return re.findall(r"```bash\n(.*?)```", text, flags=re.S)


def test_ci_runs_exactly_the_readme_test_command():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    test_cmd = next(b.strip() for b in _bash_blocks(readme) if "pytest" in b)
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    ci_commands = [line for line in ci.splitlines() if line.strip() and not line.startswith(("#", "set ", "cd "))]
    assert test_cmd.splitlines() == ci_commands
    # both lm-eval versions the README names: the whole suite, then the marked subset under 0.5
    assert (
        "pytest" in ci_commands[0]
        and "-m lmeval05" in ci_commands[1]
        and "lm-eval==0.5.0.dev1" in (REPO / ".ci" / "venv-lm-eval-0.5").read_text(encoding="utf-8")
    )


def test_readme_catalogue_names_every_pack_group():
    from lm_eval_persian_culture.harness.discovery import pack_task_names

    readme = (REPO / "README.md").read_text(encoding="utf-8")
    import lm_eval_persian_culture as pack

    tm = pack.task_manager(include_defaults=False)
    for group in tm.all_groups:
        assert f"`{group}`" in readme, group
    assert set(tm.all_groups) <= set(pack_task_names())


def test_readme_main_job_needs_no_key_and_names_an_open_judge_other_than_the_model():
    """The first of "The two commands": open model, open local judge (hf:...), pack tasks, no key."""
    import json
    import shlex

    from lm_eval_persian_culture.harness.discovery import pack_task_names
    from lm_eval_persian_culture.judge import JudgeSettings, check_not_self_judge

    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme.split("## The two commands", 1)[1]
    main_job = _bash_blocks(section)[0].strip()
    run = shlex.split(main_job.split("&& lm_eval run", 1)[1])
    args: dict[str, str | None] = {}
    for i, token in enumerate(run):
        if token.startswith("--"):
            value = run[i + 1] if i + 1 < len(run) and not run[i + 1].startswith("--") else None
            args[token] = value
    assert args["--model"] == "hf" and "--apply_chat_template" in args
    assert set(args["--tasks"].split(",")) == {"taarof_expected", "divan_binary"}
    assert set(args["--tasks"].split(",")) <= set(pack_task_names())
    metadata = json.loads(args["--metadata"])
    judge = JudgeSettings.from_settings(metadata)
    assert judge.is_local and judge.local_model  # in-process: no server, no API key
    assert "OPENAI_API_KEY" not in main_job and "judge_base_url" not in metadata
    model_args = dict(kv.split("=", 1) for kv in args["--model_args"].split(","))
    check_not_self_judge(judge, model_args)  # raises if the judge were the evaluated model
