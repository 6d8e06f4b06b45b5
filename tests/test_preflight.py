"""Nothing lost, nothing late: the pre-flight before the model loads, one message and exit status 2
for errors a user can fix, generations kept when the judge fails, and ``rejudge`` from samples.

CLI tests run the real ``lm-eval-persian`` (and plain ``lm_eval`` where the startup hook is there)
in a subprocess; judges are the local OpenAI-compatible server over real HTTP.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from lm_eval_persian_culture.testing.openai_server import FakeOpenAIServer

BIN = Path(sys.executable).parent
# A model path that cannot load: reaching it would fail with an OSError from transformers.
NO_MODEL = "/nonexistent/model-that-would-be-a-15GB-download"


def cli(*args: str, env: dict | None = None, exe: str = "lm-eval-persian", timeout: int = 900):
    full_env = {**os.environ, "LMEVAL_LOG_LEVEL": "WARNING", **(env or {})}
    for key, value in list(full_env.items()):
        if value is None:
            del full_env[key]
    return subprocess.run([str(BIN / exe), *args], capture_output=True, text=True, env=full_env, timeout=timeout)


def message_lines(proc) -> list[str]:
    """The user-facing message: stderr from its first line ('pre-flight:' / 'Tasks not found' / path)."""
    return [line for line in proc.stderr.splitlines() if line.strip()]


def first_line(proc, start: str) -> str:
    """The line of stderr where the message starts (asserted to exist)."""
    for line in proc.stderr.splitlines():
        if line.startswith(start):
            return line
    raise AssertionError(f"no line starting with {start!r} in stderr:\n{proc.stderr[-3000:]}")


def assert_no_traceback(proc) -> None:
    assert "Traceback (most recent call last)" not in proc.stderr, proc.stderr[-3000:]


def judge_yes_no(prompt: str, body: dict) -> str:
    """Scripted judge (taarof-expected rows 0-3): necklace Yes, ran into No, hung out Yes, cash unparseable."""
    if "necklace" in prompt or "hung out" in prompt:
        return "Yes"
    if "offered cash" in prompt:
        return "It depends on the context."
    return "No."


@pytest.fixture()
def judge_server():
    with FakeOpenAIServer(answer=judge_yes_no, models=("judge-model",)) as server:
        yield server


def meta(**settings) -> str:
    return json.dumps(settings)


# --------------------------------------------------------------------------- validate / pre-flight
@pytest.mark.lmeval05  # also run under lm-eval 0.5 (.ci/run)
def test_validate_lists_every_problem_in_one_message(shared_data, tmp_path):
    """No judge and DivanBench's data missing: both in one message, exit 2 (was: 'All tasks found and valid')."""
    proc = cli("validate", "--tasks", "taarof,divan_binary", "--metadata", meta(data_dir=str(shared_data)))
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert_no_traceback(proc)
    lines = message_lines(proc)
    assert lines[0] == "pre-flight: 2 problems found before loading the model (nothing was generated):"
    assert lines[1].startswith("  1. judge [taarof_expected, taarof_non_taarof]: This task is scored by an LLM judge")
    data = [line for line in lines if line.startswith("  2. data [divan_binary]:")]
    assert data and f"{shared_data}/divan/binary.jsonl: not found" in data[0]
    assert "All tasks found and valid" not in proc.stdout


@pytest.mark.lmeval05  # also run under lm-eval 0.5 (.ci/run)
def test_validate_says_what_it_checked(shared_data, judge_server):
    proc = cli(
        "validate", "--tasks", "taarof_expected",
        "--metadata", meta(data_dir=str(shared_data), judge_model="judge-model", judge_base_url=judge_server.base_url),
        env={"OPENAI_API_KEY": "sk-test-not-for-local-servers"},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (
        f"warning: judge_base_url {judge_server.base_url} is not OpenAI's API, yet the judge would send it "
        "your $OPENAI_API_KEY" in proc.stderr
    )
    assert "sk-test-not-for-local-servers" not in proc.stdout + proc.stderr
    out = proc.stdout
    assert "pre-flight checked 1 pack task(s): taarof_expected" in out
    assert "taarof_expected: settings and data ok (test: 311 docs from local:" in out
    assert f"judge judge-model at {judge_server.base_url}: reachable, model listed" in out
    assert out.rstrip().endswith("All tasks found and valid")
    assert judge_server.request_count == 0  # GET /models only: no judging was paid for


def test_misspelt_task_suggests_the_closest_pack_task():
    for args in (
        ["validate", "--tasks", "taarof_expcted"],
        ["run", "--model", "hf", "--model_args", f"pretrained={NO_MODEL}", "--tasks", "taarof_expcted,divan_binray"],
    ):
        proc = cli(*args)
        assert proc.returncode == 2, proc.stderr[-3000:]
        assert_no_traceback(proc)
        expected = "Tasks not found: taarof_expcted (did you mean taarof_expected?)"
        if args[0] == "run":
            expected += ", divan_binray (did you mean divan_binary?)"
        assert first_line(proc, "Tasks not found") == expected
        assert message_lines(proc)[-1] == expected  # the last thing printed


def test_judge_url_refusing_connections_is_found_at_preflight(shared_data):
    proc = cli(
        "validate", "--tasks", "taarof_expected",
        "--metadata", meta(data_dir=str(shared_data), judge_model="judge-model",
                           judge_base_url="http://127.0.0.1:1/v1"),
    )  # fmt: skip
    assert proc.returncode == 2
    assert_no_traceback(proc)
    lines = message_lines(proc)
    assert lines[0] == "pre-flight: 1 problem found before loading the model (nothing was generated):"
    assert lines[1].startswith(
        "  1. judge [taarof_expected]: cannot connect to the judge at http://127.0.0.1:1/v1 (judge_base_url):"
    )


def test_judge_model_not_served_is_found_at_preflight(judge_server):
    from lm_eval_persian_culture.harness.preflight import PreflightReport, check_judge
    from lm_eval_persian_culture.judge import JudgeSettings

    report = PreflightReport()
    check_judge(JudgeSettings(model="judge-modle", base_url=judge_server.base_url), report, ["taarof_expected"])
    [problem] = report.problems
    assert (problem.kind, problem.tasks) == ("judge", ["taarof_expected"])
    assert problem.message == (
        f"judge_model 'judge-modle' is not among the models served at {judge_server.base_url}: judge-model "
        "(did you mean judge-model?)"
    )
    assert judge_server.request_count == 0


def test_judge_config_error_and_missing_data_in_one_message(tmp_path):
    """JudgeConfigError (no key for the OpenAI judge) and DataNotFoundError, both named, in one run."""
    (tmp_path / "taarof").mkdir()
    proc = cli(
        "validate", "--tasks", "taarof_non_taarof",
        "--metadata", meta(data_dir=str(tmp_path), judge_model="gpt-4"), env={"OPENAI_API_KEY": None},
    )  # fmt: skip
    assert proc.returncode == 2
    assert_no_traceback(proc)
    lines = message_lines(proc)
    assert lines[0] == "pre-flight: 2 problems found before loading the model (nothing was generated):"
    assert lines[1].startswith(
        "  1. judge [taarof_non_taarof]: judge_model='gpt-4' talks to the OpenAI API, but $OPENAI_API_KEY is not set."
    )
    assert lines[2] == (
        f"  2. data [taarof_non_taarof]: {tmp_path}/taarof/non-taarof.jsonl: not found. The data dir {tmp_path} "
        "must hold taarof/non-taarof.jsonl (<data_dir>/<benchmark>/<file>, see the Data table in docs/data.md); "
        "unset data_dir/PERSIAN_CULTURE_DATA_DIR to "
        "read the online release instead."
    )


def test_data_schema_error_names_file_row_and_field(shared_data, tmp_path):
    (tmp_path / "taarof").mkdir()
    rows = [json.loads(line) for line in (shared_data / "taarof" / "non-taarof.jsonl").read_text().splitlines()[:3]]
    rows[2]["Setting"] = "Party"
    (tmp_path / "taarof" / "non-taarof.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    proc = cli(
        "validate", "--tasks", "taarof_non_taarof", "--metadata", meta(data_dir=str(tmp_path), judge_model="none")
    )
    assert proc.returncode == 2
    assert first_line(proc, "  1.") == (
        f"  1. data [taarof_non_taarof]: {tmp_path}/taarof/non-taarof.jsonl: row 3: field 'Setting' has value "
        "'Party', expected one of ['Casual', 'Formal', 'Social']"
    )


def test_default_key_sent_to_a_local_server_is_warned_about(judge_server, monkeypatch):
    from lm_eval_persian_culture.harness.preflight import PreflightReport, check_judge
    from lm_eval_persian_culture.judge import JudgeSettings

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-for-local-servers")
    report = PreflightReport()
    check_judge(JudgeSettings(model="judge-model", base_url=judge_server.base_url), report)
    [warning] = report.warnings
    assert warning.startswith(
        f"judge_base_url {judge_server.base_url} is not OpenAI's API, yet the judge would send it your $OPENAI_API_KEY"
    )
    assert "sk-test" not in warning
    for quiet in (
        JudgeSettings(model="judge-model", base_url=judge_server.base_url, api_key_env="LOCAL_JUDGE_KEY"),
        JudgeSettings(model="gpt-4", base_url="https://api.openai.com/v1/"),
    ):
        report = PreflightReport()
        check_judge(quiet, report)
        assert report.warnings == []
    monkeypatch.delenv("OPENAI_API_KEY")
    report = PreflightReport()  # nothing to leak when the variable is unset
    check_judge(JudgeSettings(model="judge-model", base_url=judge_server.base_url), report)
    assert report.warnings == []


def test_local_hf_judge_checks_only_its_directory(tmp_path):
    from lm_eval_persian_culture.harness.preflight import PreflightReport, check_judge
    from lm_eval_persian_culture.judge import JudgeSettings

    report = PreflightReport()
    check_judge(JudgeSettings(model=f"hf:{tmp_path}/missing-judge"), report, ["taarof_expected"])
    assert [p.message for p in report.problems] == [
        f"judge_model=hf:{tmp_path}/missing-judge: the local directory {tmp_path}/missing-judge does not exist"
    ]
    report = PreflightReport()
    check_judge(JudgeSettings(model=f"hf:{tmp_path}"), report)
    check_judge(JudgeSettings(model="hf:Qwen/Qwen2.5-7B-Instruct"), report)
    assert report.problems == []
    assert report.checked == [
        f"local judge hf:{tmp_path}: directory present",
        "local judge hf:Qwen/Qwen2.5-7B-Instruct: loaded in-process at judging time (not probed)",
    ]


def test_debug_shows_the_traceback(tmp_path):
    for args, env in (([], {"LMEVAL_LOG_LEVEL": "DEBUG"}), (["--verbosity", "DEBUG"], {})):
        proc = cli("report", str(tmp_path / "nowhere"), *args, env=env)
        assert proc.returncode != 0
        assert "Traceback (most recent call last)" in proc.stderr
        assert f"ReportInputError: {tmp_path}/nowhere: no such file or folder" in proc.stderr


# --------------------------------------------------------------------------- before the model loads
def unloadable_model(tmp_path: Path) -> Path:
    """A folder the pre-flight accepts as a model (it is there) that transformers would fail to load."""
    folder = tmp_path / "unloadable-model"
    folder.mkdir(exist_ok=True)
    (folder / "config.json").write_text("not a config")
    return folder


def test_preflight_runs_before_the_model_loads_cli(shared_data, tmp_path):
    """The judge is missing and the model cannot load: the pre-flight stops the run first."""
    out = tmp_path / "OUT"
    model = unloadable_model(tmp_path)
    proc = cli(
        "run", "--model", "hf", "--model_args", f"pretrained={model}", "--tasks", "taarof_expected",
        "--limit", "2", "--output_path", str(out), "--metadata", meta(data_dir=str(shared_data)),
    )  # fmt: skip
    assert proc.returncode == 2, proc.stderr[-3000:]
    assert_no_traceback(proc)
    lines = message_lines(proc)
    start = lines.index("pre-flight: 1 problem found before loading the model (nothing was generated):")
    assert lines[start + 1].startswith("  1. judge [taarof_expected]: This task is scored by an LLM judge")
    assert lines[-1].strip().startswith("To only generate (no scores)")  # the message is the last thing printed
    assert "unloadable-model" not in proc.stderr  # never tried to load it
    assert not out.exists()


@pytest.fixture()
def installed(monkeypatch):
    """patches.install_preflight() in this process, undone afterwards (other tests see plain lm-eval)."""
    import lm_eval.evaluator

    from lm_eval_persian_culture.harness import patches, preflight

    monkeypatch.setattr(sys, "meta_path", list(sys.meta_path))
    monkeypatch.setattr(lm_eval.evaluator, "simple_evaluate", lm_eval.evaluator.simple_evaluate)
    for name, attr in (("lm_eval._cli.run", "Run"), ("lm_eval._cli.validate", "Validate")):
        if name in sys.modules:
            cls = getattr(sys.modules[name], attr)
            for method in ("_execute", "_add_args"):
                if method in cls.__dict__:
                    monkeypatch.setattr(cls, method, cls.__dict__[method])
    patches.install_preflight()
    patches.install_preflight()  # idempotent
    wrapped = lm_eval.evaluator.simple_evaluate
    assert wrapped._persian_culture_preflight and not hasattr(wrapped.__wrapped__, "_persian_culture_preflight")
    return preflight


def test_preflight_runs_before_the_model_loads_python_api(shared_data, installed):
    import lm_eval

    import lm_eval_persian_culture as pack

    preflight = installed
    with pytest.raises(preflight.PreflightError) as caught:
        lm_eval.simple_evaluate(
            model="hf", model_args=f"pretrained={NO_MODEL}", tasks=["taarof_expected", "taarof_expcted"],
            task_manager=pack.task_manager(include_defaults=False, metadata={"data_dir": str(shared_data)}),
        )  # fmt: skip
    kinds = [(p.kind, p.tasks) for p in caught.value.problems]
    assert kinds == [("task", []), ("judge", ["taarof_expected"]), ("model", [])]  # the model is checked, not loaded
    assert (
        caught.value.problems[2].message == f"--model_args pretrained={NO_MODEL}: no such folder ({NO_MODEL}), "
        "and not a hub id like org/name"
    )
    assert caught.value.problems[0].message == "task 'taarof_expcted' not found (did you mean taarof_expected?)"


def test_plain_lm_eval_runs_the_preflight_when_the_hook_is_installed(shared_data, tmp_path):
    probe = cli("validate", "--tasks", "taarof_expected", exe="lm_eval")
    if "Tasks not found" in probe.stdout + probe.stderr:
        pytest.skip("the startup hook that makes plain lm_eval find the pack is not installed")
    model = unloadable_model(tmp_path)
    proc = cli(
        "run", "--model", "hf", "--model_args", f"pretrained={model}", "--tasks", "taarof_expected",
        "--metadata", meta(data_dir=str(shared_data)), exe="lm_eval",
    )  # fmt: skip
    assert proc.returncode == 2, proc.stderr[-3000:]
    assert_no_traceback(proc)
    lines = message_lines(proc)
    assert "pre-flight: 1 problem found before loading the model (nothing was generated):" in lines
    assert lines[-1].strip().startswith("To only generate (no scores)")  # last line printed
    assert "unloadable-model" not in proc.stderr


# --------------------------------------------------------------------------- report inputs
# Each bad input to `report` (missing path, truncated results file, samples file, a JSON that is not
# a results file) is tested in tests/report/test_report_e2e.py::test_report_input_errors_are_one_line_exit_2.


# --------------------------------------------------------------------------- judge dies mid-way
def _run_taarof(tiny_model, shared_data, out: Path, server, cache: Path, _log_samples=True, **extra):
    return cli(
        "run", "--model", "hf", "--model_args", f"pretrained={tiny_model},dtype=float32", "--device", "cpu",
        "--tasks", "taarof_expected", "--limit", "4", "--apply_chat_template", "--output_path", str(out),
        "--gen_kwargs", "max_gen_toks=8",  # the scripted judge reads the scenario, not the reply
        "--metadata", meta(data_dir=str(shared_data), judge_model="judge-model", judge_base_url=server.base_url,
                           judge_api_key_env="MY_JUDGE_KEY", judge_cache_dir=str(cache), judge_concurrency=1,
                           judge_max_retries=1, **extra),
        *(["--log_samples"] if _log_samples else []),
    )  # fmt: skip


def _latest(out: Path, pattern: str) -> Path:
    return max(out.rglob(pattern), key=lambda p: p.name)


def _scores(results: dict, task: str = "taarof_expected") -> dict:
    return {k: v for k, v in results["results"][task].items() if k.endswith(",judge")}


@pytest.mark.e2e
def test_judge_dying_midway_keeps_generations_and_rejudge_restores_the_scores(shared_data, tiny_model, tmp_path):
    # 1. the uninterrupted run
    with FakeOpenAIServer(answer=judge_yes_no, models=("judge-model",)) as server:
        proc = _run_taarof(tiny_model, shared_data, tmp_path / "A", server, tmp_path / "cache-A",
                           judge_max_error_rate=0.5)  # fmt: skip
        assert proc.returncode == 0, proc.stderr[-3000:]
        full = json.loads(_latest(tmp_path / "A", "results_*.json").read_text())
        # by hand from the scripted judge: rows 0 and 2 Yes, row 1 No, row 3 unparseable
        assert _scores(full)["accuracy,judge"] == pytest.approx(2 / 3)
        assert _scores(full)["judge_errors,judge"] == 1

        # rejudge with the same judge: every verdict from the cache, the same scores, a new file beside the old;
        # only row 3's unreadable answer (never cached) is asked again (once: at temperature 0 no re-asks)
        before = server.request_count
        proc = cli("rejudge", str(tmp_path / "A"))
        assert proc.returncode == 0, proc.stderr[-3000:]
        assert server.request_count == before + 1
        files = sorted((tmp_path / "A").rglob("results_*.json"))
        assert len(files) == 2 and files[0].parent == files[1].parent
        again = json.loads(_latest(tmp_path / "A", "results_*.json").read_text())
        assert _scores(again) == _scores(full)
        assert again["rejudge"]["from"] == files[0].name

    # 2. the judge dies after two answers (concurrency 1: rows 0 and 1 judged, rows 2 and 3 lost)
    answered = []

    def dying_judge(prompt: str, body: dict) -> str:
        answered.append(prompt)
        if len(answered) == 2:
            server.fail_next(10**6, kind="drop")  # from now on every connection is dropped unanswered
        return judge_yes_no(prompt, body)

    with FakeOpenAIServer(answer=dying_judge, models=("judge-model",)) as server:
        proc = _run_taarof(tiny_model, shared_data, tmp_path / "B", server, tmp_path / "cache-B",
                           judge_max_error_rate=0.2)  # fmt: skip
    assert proc.returncode == 2, proc.stderr[-3000:]
    assert_no_traceback(proc)
    lines = message_lines(proc)
    head = [line for line in lines if line.startswith("judge failed on 1 task")]
    assert head, proc.stderr[-3000:]
    assert (
        lines[-1] == f"Re-score the saved replies once the judge works, without generating again: "
        f"lm-eval-persian rejudge {tmp_path / 'B'}"
    )
    partial = json.loads(_latest(tmp_path / "B", "results_*.json").read_text())
    # scores of the judged items: row 0 Yes, row 1 No -> 1/2; rows 2 and 3 have no verdict
    assert _scores(partial)["accuracy,judge"] == pytest.approx(1 / 2)
    assert _scores(partial)["judge_errors,judge"] == 2
    [failure] = partial["judge_failures"]
    assert failure["task"] == "taarof_expected" and failure["no_verdict"] == 2 and failure["items"] == 4
    samples = [
        json.loads(line) for line in _latest(tmp_path / "B", "samples_taarof_expected_*.jsonl").read_text().splitlines()
    ]
    assert [s["doc_id"] for s in samples] == [0, 1, 2, 3]
    assert all(s["resps"][0][0] == json.loads(s["filtered_resps"][0])["response"] for s in samples)

    # 3. the judge is back (another server): rejudge B's samples -> the uninterrupted run's scores
    with FakeOpenAIServer(answer=judge_yes_no, models=("judge-model",)) as server:
        # the dying run allowed 20% unscored; the full run has 1 unparseable answer in 4, as run A had
        # (4 replies; the unreadable one is not re-asked at temperature 0)
        proc = cli("rejudge", str(tmp_path / "B"),
                   "--metadata", meta(judge_base_url=server.base_url, judge_max_error_rate=0.5))  # fmt: skip
        assert proc.returncode == 0, proc.stderr[-3000:]
        assert server.request_count == 4
    rejudged = json.loads(_latest(tmp_path / "B", "results_*.json").read_text())
    assert _scores(rejudged) == _scores(full)
    assert "judge_failures" not in rejudged
    assert rejudged["rejudge"]["judge"]["base_url"] == server.base_url
    new_samples = [
        json.loads(line) for line in _latest(tmp_path / "B", "samples_taarof_expected_*.jsonl").read_text().splitlines()
    ]
    assert [s["resps"] for s in new_samples] == [s["resps"] for s in samples]
    assert [s["arguments"] for s in new_samples] == [s["arguments"] for s in samples]


@pytest.mark.e2e
def test_judge_failure_without_log_samples_still_writes_the_samples(shared_data, tiny_model, tmp_path):
    with FakeOpenAIServer(answer=judge_yes_no, models=("judge-model",)) as server:
        server.fail_next(10**6, kind="500")
        proc = _run_taarof(tiny_model, shared_data, tmp_path / "C", server, tmp_path / "cache-C",
                           judge_max_error_rate=0.2, _log_samples=False)  # fmt: skip
    assert proc.returncode == 2, proc.stderr[-3000:]
    assert first_line(proc, "judge failed on 1 task").startswith("judge failed on 1 task: results")
    results_file = _latest(tmp_path / "C", "results_*.json")
    results = json.loads(results_file.read_text())
    assert "samples" not in results and results["judge_failures"][0]["no_verdict"] == 4
    stamp = results_file.name[len("results_") : -len(".json")]
    samples_file = results_file.with_name(f"samples_taarof_expected_{stamp}.jsonl")
    assert len(samples_file.read_text().splitlines()) == 4


def test_rejudge_without_samples_says_so(tmp_path):
    run = tmp_path / "OUT" / "model"
    run.mkdir(parents=True)
    results = {"results": {"taarof_expected": {}}, "configs": {"taarof_expected": {"metadata": {}}},
               "group_subtasks": {"taarof_expected": []}}  # fmt: skip
    (run / "results_2026-01-01T00-00-00.json").write_text(json.dumps(results))
    proc = cli("rejudge", str(tmp_path / "OUT"))
    assert proc.returncode == 2
    assert_no_traceback(proc)
    assert message_lines(proc)[0].startswith(
        f"{run}/samples_taarof_expected_2026-01-01T00-00-00.jsonl: not found. rejudge needs the samples"
    )


def test_rejudge_loads_whole_groups_when_all_their_tasks_are_judged():
    from lm_eval_persian_culture.harness.rejudge import top_level_specs

    results = {"group_subtasks": {
        "taarof": ["taarof_expected", "taarof_non_taarof"], "taarof_expected": [], "taarof_non_taarof": [],
        "mixed": ["taarof_fa", "arc_easy"], "taarof_fa": [], "arc_easy": [],
    }}  # fmt: skip
    judged = ["taarof_expected", "taarof_non_taarof", "taarof_fa"]
    assert top_level_specs(results, judged) == ["taarof", "taarof_fa"]


def test_install_is_cheap_enough_for_a_startup_hook():
    """install_preflight() may run when lm_eval is imported: it must not import the judge, torch or lm-eval's
    evaluator."""
    code = (
        "import sys, lm_eval_persian_culture.harness.patches as p; p.install_preflight(); p.install_preflight(); "
        "heavy = [m for m in ('openai', 'torch', 'lm_eval', 'lm_eval.evaluator', 'transformers') if m in sys.modules]; "
        "print(heavy); import lm_eval.evaluator as e; print(e.simple_evaluate._persian_culture_preflight)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["[]", "True"]


# --------------------------------------------------------------------------- offline: no retries, the model checked
def _closed_port() -> int:
    import socket

    with socket.socket() as s:  # a port nothing listens on: connecting is refused at once
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _unreachable_hub(tmp_path) -> dict:
    """The hub unreachable (HF_ENDPOINT on a closed local port), no offline switch set, an empty hub cache."""
    return {
        "HF_ENDPOINT": f"http://127.0.0.1:{_closed_port()}", "HF_HOME": str(tmp_path / "hf-home"),
        "HF_HUB_CACHE": None, "HF_HUB_OFFLINE": None, "HF_DATASETS_OFFLINE": None, "TRANSFORMERS_OFFLINE": None,
    }  # fmt: skip


def test_offline_run_with_unreachable_model_and_judge_stops_at_preflight_without_retries(shared_data, tmp_path):
    """Was: ~25 s of hub retries, then a ~90-line transformers traceback from the evaluated model."""
    env = _unreachable_hub(tmp_path)
    proc = cli(
        "run", "--model", "hf", "--model_args", "pretrained=acme/no-such-model-here", "--tasks", "taarof_expected",
        "--limit", "2", "--output_path", str(tmp_path / "OUT"),
        "--metadata", meta(data_dir=str(shared_data), judge_model="hf:acme/no-such-judge"), env=env,
    )  # fmt: skip
    assert proc.returncode == 2, proc.stderr[-3000:]
    assert_no_traceback(proc)
    assert "Retrying" not in proc.stderr and "retry" not in proc.stderr.lower()
    port = env["HF_ENDPOINT"].rsplit(":", 1)[1]
    said = f"pre-flight: the Hugging Face hub cannot be reached (127.0.0.1:{port}: "
    [network] = [line for line in proc.stderr.splitlines() if line.startswith(said)]  # said once
    assert "this run is offline (HF_HUB_OFFLINE=1 and HF_DATASETS_OFFLINE=1 set for it, so nothing retries)" in network
    lines = message_lines(proc)
    start = lines.index("pre-flight: 2 problems found before loading the model (nothing was generated):")
    judge, model = lines[start + 1 :]
    assert judge.startswith(
        "  1. judge [taarof_expected]: judge_model=hf:acme/no-such-judge: not a local folder, not in the Hugging Face "
        f"cache ({tmp_path}/hf-home/hub), and the hub cannot be reached (127.0.0.1:{port}: "
    )
    assert model.startswith(
        "  2. model: --model_args pretrained=acme/no-such-model-here: not a local folder, not in the Hugging Face "
        f"cache ({tmp_path}/hf-home/hub), and the hub cannot be reached (127.0.0.1:{port}: "
    )
    assert model.endswith(
        "Download it where there is a network (`huggingface-cli download acme/no-such-model-here`) or give a "
        "local folder"
    )
    assert not (tmp_path / "OUT").exists()


def test_offline_hub_dataset_fails_once_without_datasets_retrying(tmp_path, tiny_model):
    """DivanBench read from the hub with the hub unreachable: was five retries (~25 s) by `datasets`."""
    proc = cli(
        "validate", "--tasks", "divan_binary", "--model_args", f"pretrained={tiny_model}",
        "--metadata", meta(divan_llm_extractor=False), env=_unreachable_hub(tmp_path),
    )  # fmt: skip
    assert proc.returncode == 2, proc.stderr[-3000:]
    assert_no_traceback(proc)
    assert "Retrying" not in proc.stderr
    lines = message_lines(proc)
    assert lines[0].startswith("pre-flight: the Hugging Face hub cannot be reached (127.0.0.1:")
    assert lines[1] == "pre-flight: 1 problem found before loading the model (nothing was generated):"
    assert lines[2].startswith("  1. data [divan_binary]: DivanBench binary items: could not read hf:divanbench/")


def test_evaluated_model_is_found_as_the_judge_model_is(tmp_path, monkeypatch):
    """A folder, a cached snapshot (any revision the cache holds), or the hub when reachable; else one line."""
    from huggingface_hub import constants

    from lm_eval_persian_culture.data import hub
    from lm_eval_persian_culture.harness.preflight import PreflightReport, check_evaluated_model

    cache = tmp_path / "hub"
    snapshot = cache / "models--acme--cached" / "snapshots" / ("a" * 40)
    snapshot.mkdir(parents=True)
    (snapshot / "config.json").write_text("{}")
    (cache / "models--acme--cached" / "refs").mkdir()
    (cache / "models--acme--cached" / "refs" / "main").write_text("a" * 40)
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(cache))
    offline = hub.HubState(False, "HF_HUB_OFFLINE set", by_user=True)
    monkeypatch.setattr(hub, "hub_state", lambda probe_fn=None: offline)
    report = PreflightReport()
    check_evaluated_model(report, "hf", f"pretrained={tmp_path}")
    check_evaluated_model(report, "hf", "pretrained=acme/cached")
    check_evaluated_model(report, "vllm", "pretrained=acme/cached,revision=" + "a" * 40)
    check_evaluated_model(report, "hf", "pretrained=acme/cached,tokenizer=acme/cached")
    (tmp_path / "model.gguf").write_bytes(b"GGUF")  # a single-file checkpoint (vLLM, llama.cpp) is a local path too
    check_evaluated_model(report, "vllm", f"pretrained={tmp_path}/model.gguf")
    assert report.problems == []
    assert report.checked == [
        f"evaluated model pretrained={tmp_path}: local path",
        "evaluated model pretrained=acme/cached: in the hub cache",
        "evaluated model pretrained=acme/cached: in the hub cache",
        "evaluated model pretrained=acme/cached: in the hub cache",
        f"evaluated model pretrained={tmp_path}/model.gguf: local path",
    ]
    for args, message in (
        ("pretrained=acme/cached,revision=v2", "--model_args pretrained=acme/cached: not a local folder"),
        ("pretrained=acme/absent,tokenizer=acme/cached", "--model_args pretrained=acme/absent: not a local folder"),
        ("pretrained=acme/cached,tokenizer=acme/tok", "--model_args tokenizer=acme/tok: not a local folder"),
        (f"pretrained={tmp_path}/nowhere", f"--model_args pretrained={tmp_path}/nowhere: no such folder"),
    ):
        report = PreflightReport()
        check_evaluated_model(report, "hf", args)
        [problem] = report.problems
        assert (problem.kind, problem.message.split(" (")[0].split(",")[0]) == ("model", message), problem.message
    # reachable hub: asked once whether it has the model
    monkeypatch.setattr(hub, "hub_state", lambda probe_fn=None: hub.HubState(True, "reachable"))
    asked = []
    monkeypatch.setattr(hub, "hub_model_problem", lambda repo, rev: asked.append(repo) or "is not on the hub")
    report = PreflightReport()
    check_evaluated_model(report, "hf", "pretrained=acme/typo")
    assert [p.message for p in report.problems] == ["--model_args pretrained=acme/typo: acme/typo is not on the hub"]
    assert asked == ["acme/typo"]


def test_hub_state_is_found_once_and_offline_switches_are_undone(monkeypatch):
    from lm_eval_persian_culture.data import hub

    monkeypatch.setattr(hub, "_state", {})
    for var in hub.OFFLINE_ENV:
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{_closed_port()}")
    probes = []

    def probe(url):
        probes.append(url)
        return hub.probe(url, timeout=1.0)

    first = hub.hub_state(probe)
    assert not first.reachable and not first.by_user and "ConnectionRefusedError" in first.why
    assert hub.hub_state(probe) is first and len(probes) == 1  # once per process
    import datasets.config
    from huggingface_hub import constants

    undo = hub.go_offline()
    assert os.environ["HF_HUB_OFFLINE"] == os.environ["HF_DATASETS_OFFLINE"] == "1"
    assert constants.HF_HUB_OFFLINE and datasets.config.HF_HUB_OFFLINE
    assert hub.hub_state(probe) is first  # still the probed reason, not "HF_HUB_OFFLINE set"
    undo()
    assert "HF_HUB_OFFLINE" not in os.environ and not constants.HF_HUB_OFFLINE and not datasets.config.HF_HUB_OFFLINE
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    assert hub.hub_state(probe) == hub.HubState(False, "HF_DATASETS_OFFLINE set", by_user=True)
    assert len(probes) == 1  # a switch the user set is believed, nothing probed


def test_a_mistyped_data_dir_is_one_no_such_folder_line(tmp_path):
    """Was: one "<file>: not found" line per file of every benchmark named."""
    wrong = tmp_path / "dtaa"
    proc = cli("validate", "--tasks", "taarof,divan_binary,percul_en", "--metadata", meta(data_dir=str(wrong)))
    assert proc.returncode == 2
    assert_no_traceback(proc)
    lines = message_lines(proc)
    data = [line for line in lines if " data [" in line]
    assert data == [
        f"  2. data [taarof_expected, taarof_non_taarof, divan_binary, percul_en]: data_dir {wrong}: no such folder "
        "(set by data_dir (--metadata)); it must hold <benchmark>/<file> (`lm-eval-persian data` shows each "
        "benchmark's layout)"
    ]
    assert not any("not found" in line for line in lines)
    proc = cli("validate", "--tasks", "divan_binary", env={"PERSIAN_CULTURE_DATA_DIR": str(wrong)})
    assert f"  1. data [divan_binary]: data_dir {wrong}: no such folder (set by $PERSIAN_CULTURE_DATA_DIR)" in (
        proc.stderr
    )
