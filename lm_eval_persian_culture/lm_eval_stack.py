"""What a filter can learn about the lm-eval run it is called in, that lm-eval does not hand it:
read from lm-eval's call stack, in this one module (the bottom of the package: ``judge/``, ``scoring``
and the benchmarks' ``tasks/`` may all use it).

lm-eval passes a filter its replies and docs only. The frames read here (lm-eval 0.4.13 and 0.5):

* ``lm_eval.evaluator.evaluate`` -- its locals ``system_instruction``, ``apply_chat_template``
  (:func:`lm_eval_context`) and ``lm`` (``lm.world_size``: :func:`lm_eval_world_size`);
* ``lm_eval.api.filter`` (``FilterEnsemble.apply``) -- its local ``instances``, whose ``args[0]`` is the
  rendered prompt of each doc (:func:`lm_eval_context`);
* ``apply_filters`` (``ConfigurableTask.apply_filters``) -- its ``self``, the running task: its
  ``config.task`` (:func:`current_task_name`), ``config.metadata`` (:func:`running_task_metadata`) and
  itself (:func:`running_task`: the jury adds its per-judge metrics to its aggregations).

Every reader is best effort: where a later lm-eval changes its call stack, the frame is not found and
the reader returns None, so the caller skips what needed it (a check not run, a name or an entry left
out), never reports something wrong.
"""

from __future__ import annotations

import logging
import sys

logger = logging.getLogger("lm_eval_persian_culture")


def lm_eval_context(n_docs: int, *, start_depth: int = 1) -> tuple[dict | None, list[str] | None]:
    """(evaluate()'s system_instruction / apply_chat_template, or None) and the rendered
    prompt of each doc (FilterEnsemble.apply's instances, or None).

    lm-eval 0.4.13 calls a custom filter from FilterEnsemble.apply(instances) under evaluate().
    """
    context, prompts = None, None
    frame = sys._getframe(start_depth)
    try:
        for _ in range(24):
            if frame is None:
                break
            module = frame.f_globals.get("__name__", "")
            if prompts is None and module == "lm_eval.api.filter" and "instances" in frame.f_locals:
                instances = frame.f_locals["instances"]
                try:
                    rendered = [inst.args[0] for inst in instances]
                    if len(rendered) == n_docs:
                        prompts = [p if isinstance(p, str) else str(p) for p in rendered]
                except (AttributeError, IndexError, TypeError):
                    pass
            if module == "lm_eval.evaluator" and frame.f_code.co_name == "evaluate":
                loc = frame.f_locals
                context = {
                    "system_instruction": loc.get("system_instruction"),
                    "apply_chat_template": loc.get("apply_chat_template"),
                }
                break
            frame = frame.f_back
    finally:
        del frame
    if context is None or prompts is None:
        logger.debug("lm-eval call stack not recognised; run-time prompt checks skipped")
    return context, prompts


def lm_eval_world_size() -> int | None:
    """``lm.world_size`` of the lm-eval evaluation running on this call stack; None outside one.

    Read from lm-eval's ``evaluate`` frame because filters are given no model: it is what decides
    whether this process got its own shard of the docs (> 1) or all of them (1).
    """
    frame = sys._getframe(1)
    try:
        while frame is not None:
            if frame.f_code.co_name == "evaluate" and frame.f_globals.get("__name__") == "lm_eval.evaluator":
                size = getattr(frame.f_locals.get("lm"), "world_size", None)
                return size if isinstance(size, int) else None
            frame = frame.f_back
    finally:
        del frame
    return None


def current_task_name() -> str | None:
    """The lm-eval task whose filters are running (ConfigurableTask.apply_filters on the stack)."""
    frame = sys._getframe(1)
    try:
        while frame is not None:
            if frame.f_code.co_name == "apply_filters":
                task = frame.f_locals.get("self")
                name = getattr(getattr(task, "config", None), "task", None)
                if isinstance(name, str):
                    return name
            frame = frame.f_back
    finally:
        del frame
    return None


def running_task_metadata(start_depth: int = 1) -> dict | None:
    """The ``config.metadata`` dict of the task whose filters are running, or None.

    lm-eval dumps a task's config metadata into the results JSON after filtering, so what a
    filter writes there is recorded with the results. lm-eval passes filters no task: it is found
    on the call stack (``Task.apply_filters``); a later lm-eval that calls filters differently
    gets None (and the caller's entry is missing from the results, never wrong).
    """
    frame = sys._getframe(start_depth)
    try:
        while frame is not None:
            task = frame.f_locals.get("self") if frame.f_code.co_name == "apply_filters" else None
            metadata = getattr(getattr(task, "config", None), "metadata", None)
            if isinstance(metadata, dict):
                return metadata
            frame = frame.f_back
        return None
    finally:
        del frame


def running_task(start_depth: int = 1):
    """The task whose filters are running (``Task.apply_filters``'s ``self``), or None.

    The jury registers its per-judge metrics on it (their names depend on the jury, so no YAML can list
    them); a later lm-eval that calls filters differently gets None and those metrics are left out."""
    frame = sys._getframe(start_depth)
    try:
        while frame is not None:
            if frame.f_code.co_name == "apply_filters" and "self" in frame.f_locals:
                return frame.f_locals["self"]
            frame = frame.f_back
        return None
    finally:
        del frame


__all__ = ["current_task_name", "lm_eval_context", "lm_eval_world_size", "running_task", "running_task_metadata"]
