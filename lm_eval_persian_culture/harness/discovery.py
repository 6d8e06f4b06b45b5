"""Glue between the pack and lm-eval's task index: the pack's folder on the include path (or lm-eval's
entry point), which requested names are the pack's, and whether a run may skip lm-eval's built-in index.
The patches that use these (``TaskManager``, ``stderr_for_metric``) are in ``harness.patches``.
"""

from __future__ import annotations

import contextlib
import fnmatch
import functools
import logging
import os
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

from lm_eval_persian_culture.tasks._benchmark import TASKS_DIR

ENTRY_POINT_GROUP = "lm_eval.tasks"

log = logging.getLogger(__name__)
_builtin_index_skipped = False  # set by skip_builtin_index() for a run that asks only for pack tasks


# lm-eval's own discovery of installed task packages, found by FEATURE, never by reading its source text:
# a function that lists the task folders of installed plugins (open PR #4015 adds
# ``lm_eval.tasks.manager.discover_plugin_task_paths``), or the task entry-point group among the plugin groups
# lm-eval declares (as #4013/#4014 did for models, filters, metrics and aggregations in ``lm_eval.api.registry``).
TASK_DISCOVERY_FUNCTIONS = (
    ("lm_eval.tasks.manager", "discover_plugin_task_paths"),
    ("lm_eval.tasks", "discover_plugin_task_paths"),
    ("lm_eval.api.registry", "discover_plugin_task_paths"),
)
PLUGIN_GROUP_MODULES = ("lm_eval.api.registry", "lm_eval.plugins", "lm_eval.tasks.manager")


def _module(name: str):
    import importlib

    try:
        return importlib.import_module(name)
    except Exception:  # noqa: BLE001 - an lm-eval without it
        return None


def _strings(value) -> set[str]:
    if isinstance(value, str):
        return {value}
    if isinstance(value, Mapping):
        return {v for v in [*value.keys(), *value.values()] if isinstance(v, str)}
    if isinstance(value, (list, tuple, set, frozenset)):
        return {v for v in value if isinstance(v, str)}
    return set()


def declared_plugin_groups() -> set[str]:
    """The entry-point groups lm-eval declares it reads: module-level constants named like a plugin or
    entry-point group (``PLUGIN_GROUPS``, ``ENTRY_POINT_GROUP``, ...) in the modules that load plugins."""
    found: set[str] = set()
    for name in PLUGIN_GROUP_MODULES:
        module = _module(name)
        for attr, value in vars(module).items() if module is not None else ():
            if attr.isupper() and any(word in attr for word in ("GROUP", "ENTRY_POINT", "PLUGIN")):
                found |= _strings(value)
    return found


@functools.cache
def lm_eval_discovers_entry_points() -> bool:
    """True when the installed lm-eval indexes installed task packages (the ``lm_eval.tasks`` entry-point
    group) itself: the pack is then in its index already, and adding our folder as an include path would
    index every task twice. lm-eval 0.4.13 and 0.5.0.dev1 do not."""
    for module_name, attr in TASK_DISCOVERY_FUNCTIONS:
        discover = getattr(_module(module_name), attr, None)
        if not callable(discover):
            continue
        try:
            paths = discover()
        except TypeError:  # it wants arguments we cannot guess: the feature is there, and our entry point too
            return True
        except Exception as err:  # noqa: BLE001 - a discovery that fails finds nothing: index ourselves
            log.debug("lm-eval's %s.%s failed: %s", module_name, attr, err)
            return False
        try:
            return any(Path(p).resolve() == TASKS_DIR.resolve() for p in paths or ())
        except TypeError:
            return False
    return ENTRY_POINT_GROUP in declared_plugin_groups()


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


@functools.lru_cache(maxsize=1)
def pack_index_names() -> frozenset[str]:
    """Every task, group and tag the pack's own folder defines (its index alone: ~0.1 s)."""
    from lm_eval.tasks import TaskManager

    tm = TaskManager(include_path=[str(TASKS_DIR.resolve())], include_defaults=False)
    return frozenset(tm.all_subtasks) | frozenset(tm.all_groups) | frozenset(tm.all_tags)


def names_pack_tasks(names: Iterable) -> bool:
    """True when a requested name is a task, group or tag of the pack, a pattern matching one, or a
    YAML path inside the pack's folder. Only then does the pack's CLI handling apply: a run naming
    built-in tasks alone gets lm-eval's own behaviour (exit codes, messages), as without the pack."""
    wanted = [str(n).strip() for n in names if isinstance(n, (str, Path)) and str(n).strip()]
    if not wanted:
        return False
    ours = pack_index_names()
    for name in wanted:
        if name in ours or fnmatch.filter(ours, name):
            return True
        if name.endswith((".yaml", ".yml")):
            try:
                Path(name).resolve().relative_to(TASKS_DIR.resolve())
                return True
            except ValueError:
                continue
    return False


def only_pack_tasks(names: Iterable[str], include_path=None) -> bool:
    """True when every name is a task, group or tag of the pack or of the user's ``include_path``
    folders (built-in names and YAML paths are not)."""
    wanted = {str(n).strip() for n in names if str(n).strip()}
    if not wanted or lm_eval_discovers_entry_points():
        return False
    if wanted <= pack_index_names():
        return True
    if not _split_paths(include_path):
        return False
    from lm_eval.tasks import TaskManager

    # The pack's folder and the user's own: ~0.1 s, against ~10 s for lm-eval's whole index.
    tm = TaskManager(include_path=with_pack_path(include_path), include_defaults=False)
    return wanted <= set(tm.all_subtasks) | set(tm.all_groups) | set(tm.all_tags)


def misspelt_pack_names(names: Iterable[str], include_path=None) -> list[str]:
    """The requested names that are surely no task, when every unknown name is such: in neither the
    pack's nor the user's folders, close to a pack task's name (a typo), and in the text of no
    built-in YAML (a task, group or tag name is written in its YAML). Saying so needs ~2 s of
    reading files, not lm-eval's ~10 s index of its built-ins. Empty when any unknown name may be
    a built-in task or a pattern: lm-eval's own index decides then."""
    import re

    from lm_eval.tasks import TaskManager

    from lm_eval_persian_culture.harness.catalogue import pack_names, suggest

    wanted = [str(n).strip() for n in names if str(n).strip()]
    if not wanted or lm_eval_discovers_entry_points():
        return []
    if set(wanted) <= pack_index_names():
        return []  # all the pack's own (the common case): no index to build
    tm = TaskManager(include_path=with_pack_path(include_path), include_defaults=False)
    known = set(tm.all_subtasks) | set(tm.all_groups) | set(tm.all_tags)
    unknown = [n for n in wanted if n not in known]
    if not unknown or any(set(n) & set("*?[") or n.endswith((".yaml", ".yml")) or os.sep in n for n in unknown):
        return []
    candidates = pack_names(tm)
    if not all(suggest(n, candidates) for n in unknown):
        return []
    import lm_eval

    pattern = re.compile(b"|".join(rb"(?<![\w.-])" + re.escape(n.encode()) + rb"(?![\w.-])" for n in unknown))
    for dirpath, _, files in os.walk(Path(lm_eval.__file__).parent / "tasks"):
        for name in files:
            if name.endswith((".yaml", ".yml")) and pattern.search(Path(dirpath, name).read_bytes()):
                return []
    return unknown


@contextlib.contextmanager
def skip_builtin_index(names: Iterable[str], include_path=None) -> Iterator[bool]:
    """Inside, TaskManagers built without an explicit ``include_defaults`` skip lm-eval's own
    ~14,700 tasks when ``names`` are all pack (or include_path) tasks: indexing them costs ~10 s
    per run and no requested task is among them. Yields whether it skips."""
    global _builtin_index_skipped
    skip = not _builtin_index_skipped and only_pack_tasks(names, include_path)
    if skip:
        log.info("only pack tasks requested: lm-eval's index of its built-in tasks is skipped")
        _builtin_index_skipped = True
    try:
        yield skip or _builtin_index_skipped
    finally:
        if skip:
            _builtin_index_skipped = False


def builtin_index_skipped() -> bool:
    """Inside :func:`skip_builtin_index` for a pack-only run: TaskManagers skip lm-eval's built-in tasks."""
    return _builtin_index_skipped


def is_pack_function(fn) -> bool:
    """Is ``fn`` (or the function a ``functools.partial`` wraps) defined by the pack or its task files?"""
    while isinstance(fn, functools.partial):
        fn = fn.func
    module = str(getattr(fn, "__module__", "") or "")
    if module.split(".")[0] == "lm_eval_persian_culture":
        return True
    try:  # task utils.py files, which lm-eval loads by path and names by it
        Path(module).resolve().relative_to(TASKS_DIR.resolve())
        return True
    except (ValueError, OSError):
        return False


def pack_task_manager(include_path=None, include_defaults: bool = True, **kwargs):
    """Return an ``lm_eval.tasks.TaskManager`` with the pack's tasks added.

    ``include_path`` (a path or list of paths) is honoured and indexed after the pack,
    so a user's own task of the same name wins, as with lm-eval's own ``--include_path``.
    Everything else is passed through (``metadata=``, ``include_defaults=``...).
    """
    from lm_eval.tasks import TaskManager

    return TaskManager(
        include_path=with_pack_path(include_path),
        include_defaults=include_defaults,
        **kwargs,
    )


def pack_task_names() -> list[str]:
    """Every task and group the pack defines (tags excluded), sorted."""
    tm = pack_task_manager(include_defaults=False)
    return sorted(set(tm.all_subtasks) | set(tm.all_groups))
