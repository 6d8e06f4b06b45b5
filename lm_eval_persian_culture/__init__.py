"""lm-eval-persian-culture: Persian-culture benchmarks as an lm-evaluation-harness task pack.

Public entry points:
    tasks_dir()      -- folder to pass to ``lm_eval --include_path``
    task_manager()   -- a ``lm_eval.tasks.TaskManager`` that knows the pack's tasks
"""

from __future__ import annotations

from lm_eval_persian_culture._version import __version__
from lm_eval_persian_culture.tasks._benchmark import TASKS_DIR


def tasks_dir() -> str:
    """Absolute path of the folder that holds the pack's task YAMLs."""
    return str(TASKS_DIR)


def task_manager(include_path=None, include_defaults: bool = True, **kwargs):
    """Return an ``lm_eval.tasks.TaskManager`` with the pack's tasks added.

    ``include_path`` (a path or list of paths) is honoured and indexed after the pack,
    so a user's own task of the same name wins, as with lm-eval's own ``--include_path``.
    Everything else is passed through (``metadata=``, ``include_defaults=``...).
    """
    from lm_eval.tasks import TaskManager

    from lm_eval_persian_culture.harness import with_pack_path

    return TaskManager(
        include_path=with_pack_path(include_path),
        include_defaults=include_defaults,
        **kwargs,
    )


__all__ = ["TASKS_DIR", "tasks_dir", "task_manager", "__version__"]
