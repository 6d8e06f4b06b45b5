"""Whether an lm-eval index entry is the pack's (decided by where its config lives, never by a name prefix), and
"did you mean" among the pack's names."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from pathlib import Path

from lm_eval_persian_culture.harness import compat
from lm_eval_persian_culture.tasks._benchmark import TASKS_DIR


def in_pack(path: Path | None) -> bool:
    """Whether a task config lives in the pack's task folder."""
    if path is None:
        return False
    try:
        Path(path).resolve().relative_to(TASKS_DIR.resolve())
        return True
    except ValueError:
        return False


def pack_names(task_manager) -> list[str]:
    """Pack tasks and groups in a TaskManager's index (the candidates for "did you mean")."""
    from lm_eval.tasks._index import Kind

    return sorted(
        name
        for name, entry in compat.task_index(task_manager).items()
        if entry.kind != Kind.TAG and in_pack(entry.yaml_path)
    )


def suggest(name: str, candidates: Iterable[str]) -> str:
    """' (did you mean X?)' for the closest candidate, or ''."""
    close = difflib.get_close_matches(name, list(candidates), n=1, cutoff=0.6)
    return f" (did you mean {close[0]}?)" if close else ""
