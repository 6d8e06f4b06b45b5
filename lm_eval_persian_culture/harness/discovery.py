"""Glue between the pack and lm-eval's task index (include paths, entry points), and the patches
of lm-eval's task index and stderr that ``harness.patches.install_into_lm_eval()`` applies.
"""

from __future__ import annotations

import contextlib
import fnmatch
import functools
import inspect
import logging
import os
from collections.abc import Iterable, Iterator
from pathlib import Path

from lm_eval_persian_culture import TASKS_DIR
from lm_eval_persian_culture.harness import compat

ENTRY_POINT_GROUP = "lm_eval.tasks"

log = logging.getLogger(__name__)
_builtin_index_skipped = False  # set by skip_builtin_index() for a run that asks only for pack tasks


@functools.lru_cache(maxsize=None)
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


def _patch_task_manager() -> None:
    """Make every ``lm_eval.tasks.TaskManager(...)`` also index the pack, exactly once.

    The pack counts among lm-eval's default tasks: ``include_defaults=False`` passed by the caller
    means "only the folders I name", exactly as without the pack (lm-eval's own test of that flag).
    Switched off, with one warning, where TaskManager lacks ``include_path`` / ``include_defaults``.
    """
    try:
        from lm_eval.tasks import manager

        cls = manager.TaskManager
    except (ImportError, AttributeError):
        compat.switch_off("task discovery (plain lm_eval finding the pack)", "lm_eval.tasks.manager.TaskManager")
        return
    if getattr(cls.__init__, "_persian_culture_patched", False):
        return
    missing = compat.has_parameters(cls.__init__, "include_path", "include_defaults")
    if missing:
        compat.switch_off("task discovery (plain lm_eval finding the pack)", missing)
        return
    original = cls.__init__
    signature = inspect.signature(original)

    @functools.wraps(original)
    def __init__(self, *args, **kwargs):
        try:  # bind so include_path is found however it was passed (keyword or positional)
            bound = signature.bind(self, *args, **kwargs)
        except TypeError:
            return original(self, *args, **kwargs)  # a wrong call gets lm-eval's own error
        explicit_defaults = "include_defaults" in bound.arguments
        if explicit_defaults and not bound.arguments["include_defaults"]:
            return original(*bound.args, **bound.kwargs)  # the caller's folders alone, as lm-eval
        bound.arguments["include_path"] = with_pack_path(bound.arguments.get("include_path"))
        if _builtin_index_skipped and not explicit_defaults:
            bound.arguments["include_defaults"] = False
        original(*bound.args, **bound.kwargs)

    __init__._persian_culture_patched = True
    cls.__init__ = __init__


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


def _patch_pack_stderr() -> None:
    """The pack's aggregations keep lm-eval 0.4.13's stderr, "N/A", wherever lm-eval would bootstrap them.

    lm-eval 0.5 bootstraps EVERY aggregation other than ``mean`` (100,000 resamples, in a process
    pool that must pickle the function): the pack's aggregations are closures and partials over
    lambdas (they cannot be pickled: every pack task crashed after generating), and each of its
    ~300 metrics would cost seconds to minutes of resampling. 0.4.13 bootstraps only its own listed
    metrics, so this patch only switches itself on where lm-eval bootstraps a function it does not
    know, and only for the pack's own functions: built-in tasks keep lm-eval's stderr.
    """
    try:
        import lm_eval.api.metrics as metrics
    except ImportError:
        return
    original = getattr(metrics, "stderr_for_metric", None)
    if getattr(original, "_persian_culture_patched", False):
        return
    if compat.has_parameters(original, "metric", "bootstrap_iters"):
        return  # no stderr_for_metric of this shape: nothing of lm-eval's to keep away from
    try:
        bootstraps_unknown = original(metric=lambda xs: 0.0, bootstrap_iters=10) is not None
    except Exception:  # noqa: BLE001
        bootstraps_unknown = False
    if not bootstraps_unknown:
        return  # 0.4.13: unknown aggregations already get "N/A"

    @functools.wraps(original)
    def stderr_for_metric(metric, bootstrap_iters):
        if is_pack_function(metric):
            return None  # "N/A", as under 0.4.13
        return original(metric=metric, bootstrap_iters=bootstrap_iters)

    stderr_for_metric._persian_culture_patched = True
    metrics.stderr_for_metric = stderr_for_metric
