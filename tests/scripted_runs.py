"""Real lm-eval runs with scripted replies over a benchmark's fixtures: the shared part of each
benchmark's testlib (which adds its fixtures folder, its scripted reply and its defaults)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

import lm_eval

import lm_eval_persian_culture as pack
from lm_eval_persian_culture.testing.scripted_lm import ScriptedLM


def task_manager(data_dir: Path, **metadata):
    """The pack's tasks alone (no built-in index), reading their data from ``data_dir``."""
    return pack.task_manager(include_defaults=False, metadata={"data_dir": str(data_dir), **metadata})


def evaluate(
    tasks: Iterable[str],
    reply: Callable[[dict, str], str],
    data_dir: Path,
    lm=None,
    metadata: Mapping | None = None,
    **kwargs,
) -> dict:
    """``simple_evaluate`` with ``ScriptedLM(reply)`` (or ``lm``), samples logged, no bootstrap."""
    kwargs.setdefault("log_samples", True)
    return lm_eval.simple_evaluate(
        model=lm if lm is not None else ScriptedLM(reply),
        tasks=list(tasks),
        task_manager=task_manager(data_dir, **(metadata or {})),
        bootstrap_iters=0,
        **kwargs,
    )


def result_key(results: dict, task: str, part: str = "results") -> str:
    """The key of ``task`` in ``results[part]`` ("results", "samples", "configs", "n-samples", ...): the task's
    own name (lm-eval 0.4, and 0.5 for a task run on its own), or lm-eval 0.5's ``<group>::<task>`` for a
    group's member. A name given as ``group::task`` is also found under the plain name (0.4)."""
    entries = results[part]
    if task in entries:
        return task
    plain = task.rsplit("::", 1)[-1]
    if plain in entries:
        return plain
    found = [key for key in entries if key.rsplit("::", 1)[-1] == plain]
    if len(found) == 1:
        return found[0]
    if found:
        raise KeyError(f"{task!r} is a member of several groups in results[{part!r}]: {found}; name one as group::task")
    raise KeyError(f"{task!r} is not in results[{part!r}] (keys: {sorted(entries)})")


def metrics(results: dict, task: str) -> dict[str, float]:
    """{metric: value} of one task's or group's results row (filter suffix and stderr dropped); ``task`` may be a
    plain name or lm-eval 0.5's ``group::task`` (see :func:`result_key`)."""
    row = results["results"][result_key(results, task)]
    return {k.split(",")[0]: v for k, v in row.items() if "," in k and "_stderr" not in k}


def samples(results: dict, task: str) -> list[dict]:
    """The logged samples of one task, plain name or ``group::task``."""
    return results["samples"][result_key(results, task, "samples")]


def judge_metadata(server, cache_dir: Path, **more) -> dict:
    """--metadata for a run judged (or read) by a local FakeOpenAIServer, with its own judge cache."""
    return {"judge_model": "fake-judge", "judge_base_url": server.base_url, "judge_cache_dir": str(cache_dir), **more}
