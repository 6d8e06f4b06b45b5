"""The report's reading of the benchmark folders' declarations (``tasks/<benchmark>/benchmark.py``): which
metrics a table shows, which metrics are breakdowns, which may be negative.

Nothing here names a benchmark: a new folder is reported with no edit. Tasks no folder declares still get
their metrics reported (every numeric metric that is not a breakdown or a spread).
"""

from __future__ import annotations

from lm_eval_persian_culture.tasks._benchmark import Benchmark, benchmark_of, benchmarks, signed_metrics

SPREAD_SUFFIXES = ("_std", "_stderr")
# Differences that may be negative, as each benchmark declares them (a task's metadata.signed_metrics says so
# too, for runs that record it).
SIGNED_METRICS = signed_metrics()


def headline_metrics(task: str, available: list[str]) -> list[str]:
    """The metrics a table shows for this task: its benchmark's headline metrics it reports, in that order (a task
    no folder declares: its first three metrics that are not spreads)."""
    bench = benchmark_of(task)
    if bench is None:
        return [m for m in available if not m.endswith(SPREAD_SUFFIXES)][:3]
    first = [m for m in bench.headline if m in available]
    return first


def breakdown_of(task: str, metric: str) -> tuple[str, str] | None:
    """(prefix, label) when the metric breaks the task down by topic, category, country, ..."""
    bench = benchmark_of(task)
    if bench is None or metric in bench.headline:
        return None
    return next(((p, label) for p, label in bench.breakdowns if metric.startswith(p)), None)


def is_breakdown(task: str, metric: str) -> bool:
    return breakdown_of(task, metric) is not None


__all__ = [
    "SIGNED_METRICS",
    "SPREAD_SUFFIXES",
    "Benchmark",
    "benchmark_of",
    "benchmarks",
    "breakdown_of",
    "headline_metrics",
    "is_breakdown",
]
