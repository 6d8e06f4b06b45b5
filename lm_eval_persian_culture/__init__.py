"""lm-eval-persian-culture: Persian-culture benchmarks as an lm-evaluation-harness task pack.

Public entry points:
    tasks_dir()      -- folder to pass to ``lm_eval --include_path``
    task_manager()   -- a ``lm_eval.tasks.TaskManager`` that knows the pack's tasks
"""

from __future__ import annotations

from lm_eval_persian_culture._version import __version__
from lm_eval_persian_culture.tasks._benchmark import TASKS_DIR, tasks_dir


def task_manager(include_path=None, include_defaults: bool = True, **kwargs):
    """Return an ``lm_eval.tasks.TaskManager`` with the pack's tasks added (see ``harness.discovery``)."""
    from lm_eval_persian_culture.harness.discovery import pack_task_manager

    return pack_task_manager(include_path=include_path, include_defaults=include_defaults, **kwargs)


__all__ = ["TASKS_DIR", "tasks_dir", "task_manager", "__version__"]
