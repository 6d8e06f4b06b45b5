"""What the pack needs from lm-eval's internals, checked by feature rather than by version number.

The pack patches lm-eval in four places (``TaskManager.__init__``, ``simple_evaluate``, the ``run``
and ``validate`` subcommands). lm-eval 0.4.13 and 0.5.0.dev1 both have what each patch needs, but
a later lm-eval may rename any of it (0.5 already renamed ``TaskManager.task_index`` to
``_task_index``). Each patch asks this module whether what it needs is there; where it is not, the
patch switches itself off with ONE warning naming what still works, and lm-eval runs as if the
pack were not installed. Nothing here may raise inside lm-eval.
"""

from __future__ import annotations

import inspect
import warnings
from collections.abc import Callable, Mapping
from typing import Any

STILL_WORKS = (
    'lm-eval itself is unaffected, and the pack\'s tasks still run with --include_path "$(lm-eval-persian tasks-dir)"'
)


class PackSwitchedOffWarning(RuntimeWarning):
    """A patch of lm-eval switched itself off: the installed lm-eval lacks what it needs."""


_switched_off: dict[str, str] = {}


def switch_off(patch: str, missing: str) -> None:
    """Record that ``patch`` is off in this process; warn once per patch."""
    if patch in _switched_off:
        return
    _switched_off[patch] = missing
    warnings.warn(
        f"lm-eval-persian-culture: {patch} is switched off: the installed lm-eval lacks {missing}; {STILL_WORKS}",
        PackSwitchedOffWarning,
        stacklevel=3,
    )


def is_off(patch: str) -> bool:
    return patch in _switched_off


def has_parameters(fn: Any, *names: str) -> str | None:
    """None when ``fn`` is callable and accepts every parameter in ``names``; else what is missing."""
    if not callable(fn):
        return f"a callable {getattr(fn, '__qualname__', fn)!r}"
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return f"an inspectable signature for {getattr(fn, '__qualname__', fn)!r}"
    absent = [n for n in names if n not in params]
    return f"parameter(s) {', '.join(absent)} of {fn.__qualname__}" if absent else None


def task_index(task_manager: Any) -> Mapping | None:
    """A TaskManager's index {name: Entry with .kind, .yaml_path, .tags}, or None if it has none we know.

    lm-eval 0.4.13: ``task_index``; 0.5.0.dev1: ``_task_index`` (same Entry objects).
    """
    for attr in ("task_index", "_task_index"):
        index = getattr(task_manager, attr, None)
        if isinstance(index, Mapping):
            return index
    return None


def index_kinds() -> Any | None:
    """lm-eval's ``Kind`` enum (TASK, GROUP, TAG) of its task index, or None."""
    try:
        from lm_eval.tasks._index import Kind
    except ImportError:
        return None
    return Kind if all(hasattr(Kind, k) for k in ("TASK", "GROUP", "TAG")) else None


def yaml_loader() -> Callable | None:
    """lm-eval's own YAML loader (``!function`` and ``include:`` resolved as lm-eval resolves them)."""
    try:
        from lm_eval.tasks._yaml_loader import load_yaml
    except ImportError:
        return None
    return load_yaml if has_parameters(load_yaml, "resolve_func") is None else None


def preflight_missing() -> str | None:
    """What the pre-flight needs to read lm-eval's index, or None when all of it is there."""
    if index_kinds() is None:
        return "lm_eval.tasks._index.Kind (TASK, GROUP, TAG)"
    if yaml_loader() is None:
        return "lm_eval.tasks._yaml_loader.load_yaml(resolve_func=...)"
    return None
