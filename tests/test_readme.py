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
    assert test_cmd in ci.splitlines()


def test_readme_catalogue_names_every_pack_group():
    from lm_eval_persian_culture.catalogue import pack_task_names

    readme = (REPO / "README.md").read_text(encoding="utf-8")
    import lm_eval_persian_culture as pack

    tm = pack.task_manager(include_defaults=False)
    for group in tm.all_groups:
        assert f"`{group}`" in readme, group
    assert set(tm.all_groups) <= set(pack_task_names())
