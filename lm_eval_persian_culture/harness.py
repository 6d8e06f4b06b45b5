"""Glue between the pack and lm-eval's task index (include paths, entry points)."""

from __future__ import annotations

import inspect
import os
from pathlib import Path

from lm_eval_persian_culture import TASKS_DIR

ENTRY_POINT_GROUP = "lm_eval.tasks"


def lm_eval_discovers_entry_points() -> bool:
    """True when the installed lm-eval indexes the ``lm_eval.tasks`` entry-point group itself.

    lm-eval 0.4.13 does not (PR #4015 proposes it). If a later release does, the pack is
    already in its index and adding our folder as an include path would index it twice.
    """
    try:
        import lm_eval.tasks.manager as manager

        source = inspect.getsource(manager)
    except (ImportError, OSError, TypeError):
        return False
    return "entry_points" in source and ENTRY_POINT_GROUP in source


def _split_paths(include_path) -> list[str]:
    if include_path is None:
        return []
    items = include_path if isinstance(include_path, (list, tuple)) else [include_path]
    out: list[str] = []
    for item in items:
        # lm-eval's help text promises "a:b" but 0.4.13 treats it as one path; honour it here.
        out.extend(p for p in str(item).split(os.pathsep) if p)
    return out


def with_pack_path(include_path=None) -> list[str] | None:
    """The user's include paths with the pack's folder put first (user's tasks override ours).

    The pack folder is added once, whatever spelling the user gave it, and not at all when
    lm-eval discovers the pack through its entry point.
    """
    user = _split_paths(include_path)
    pack = TASKS_DIR.resolve()
    user = [p for p in user if Path(p).resolve() != pack]
    if lm_eval_discovers_entry_points():
        return user or None
    return [str(pack), *user]
