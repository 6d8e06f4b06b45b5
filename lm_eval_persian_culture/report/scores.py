"""One row per (run, task, metric): the reported value, its n and a 95% interval.

Accuracies that are plain proportions get a Wilson interval from k = value x n. Derived figures
(acquiescence bias, the factual-conceptual gap, the gender gap, macro accuracy, means over prompts) get
a cluster bootstrap over items from the logged samples, recomputed with the task's own aggregation
function, so the interval belongs to exactly the statistic in the results; without samples they get none
(said in the table). lm-eval's own numeric stderr is kept when it reports one.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

from lm_eval_persian_culture.report.benchmarks import (
    SIGNED_METRICS,
    SPREAD_SUFFIXES,
    benchmark_of,
    breakdown_of,
    headline_metrics,
    is_breakdown,
)
from lm_eval_persian_culture.report.runs import Run
from lm_eval_persian_culture.report.stats import bootstrap_interval, wilson_interval
from lm_eval_persian_culture.tasks._benchmark import task_yamls
from lm_eval_persian_culture.tasks._taskgen import is_signed

CLUSTER_FIELDS = ("pair_id", "item_id", "conversation_id")


@dataclass
class Score:
    run: Run
    task: str
    metric: str
    value: float
    n: int | None = None
    low: float = math.nan
    high: float = math.nan
    method: str = ""  # "wilson", "bootstrap", "stderr" or "" (no interval)
    spread: float | None = None  # DivanBench: std over the five system prompts
    is_group: bool = False

    @property
    def has_interval(self) -> bool:
        return math.isfinite(self.low) and math.isfinite(self.high)


def _number(x) -> float | None:
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return None
    return float(x) if math.isfinite(x) else None


def task_metrics(run: Run, task: str) -> dict[str, tuple[str, float]]:
    """metric -> (filter, value) for the numeric metrics of a task (spreads and stderrs left out)."""
    out: dict[str, tuple[str, float]] = {}
    for key, value in run.results.get(task, {}).items():
        metric, _, filt = key.partition(",")
        number = _number(value)
        if not filt or number is None or metric.endswith(SPREAD_SUFFIXES):
            continue
        out.setdefault(metric, (filt, number))
    return out


@cache
def aggregation_for(task: str, metric: str) -> Callable | None:
    """The task's own aggregation function for a metric (from its YAML), or None."""
    path = task_yamls().get(task)
    if path is None:
        return None
    from lm_eval.tasks._yaml_loader import load_yaml

    cfg = load_yaml(path, resolve_func=True, recursive=True)
    for entry in cfg.get("metric_list") or []:
        if entry.get("metric") == metric and callable(entry.get("aggregation")):
            return entry["aggregation"]
    return None


def _cluster(sample: dict):
    doc = sample.get("doc") or {}
    for name in CLUSTER_FIELDS:
        value = doc.get(name)
        if value not in (None, ""):
            return f"{name}:{value}"
    return f"doc:{sample.get('doc_id')}"


def _proportion_n(run: Run, task: str, metric: str, samples: list[dict] | None) -> int | None:
    """How many docs the proportion is over: judged docs for judged tasks (all docs for a rule that
    counts unjudged ones as 0, such as TaarofBench's accuracy_paper), else all docs."""
    bench = benchmark_of(task)
    if bench is not None and metric in bench.over_all_items:
        return len(samples) if samples is not None else run.n_samples(task)
    if samples is not None:
        values = [s.get(metric) for s in samples]
        if all(isinstance(v, dict) and "verdict" in v for v in values):
            return sum(1 for v in values if v["verdict"] is not None)
        if all(_number(v) is not None for v in values):
            return len(values)
    n = run.n_samples(task)
    if n is None:
        return None
    errors = _number(
        run.results.get(task, {}).get(
            next((k for k in run.results.get(task, {}) if k.startswith("judge_errors,")), ""), None
        )
    )
    return n - int(errors or 0) if metric == "accuracy" else n


def score(run: Run, task: str, metric: str, resamples: int = 1000) -> Score | None:
    metrics = task_metrics(run, task)
    if metric not in metrics:
        return None
    filt, value = metrics[metric]
    result = Score(run, task, metric, value, is_group=task in run.groups)
    spread = _number(run.results[task].get(f"{metric}_std,{filt}"))
    result.spread = spread
    bench = benchmark_of(task)
    if metric == "judge_errors" or metric.endswith("invalid_rate"):
        result.n = run.n_samples(task)
        return result
    if result.is_group:
        subtasks = run.groups.get(task, [])
        sizes = [run.n_samples(t) for t in subtasks]
        result.n = sum(sizes) if sizes and all(s is not None for s in sizes) else None
        if bench and metric in bench.proportions and result.n:
            result.low, result.high = wilson_interval(round(value * result.n), result.n)
            result.method = "wilson"
        return result
    samples = run.samples(task)
    if bench and metric in bench.proportions:
        n = _proportion_n(run, task, metric, samples)
        if n:
            result.n = n
            result.low, result.high = wilson_interval(round(value * n), n)
            result.method = "wilson"
            return result
    # n counts items (clusters: an item under its prompts, a pair), the unit the bootstrap resamples
    result.n = len({_cluster(s) for s in samples}) if samples else run.n_samples(task)
    aggregate = aggregation_for(task, metric) if samples else None
    if aggregate is not None:
        # doc order: a data-parallel run logs its samples rank by rank, and the bootstrap draws clusters by position
        rows = sorted((s for s in samples if s.get("filter", filt) == filt and metric in s),
                      key=lambda s: s.get("doc_id", 0))  # fmt: skip
        records = [(s[metric], _cluster(s)) for s in rows]
        recomputed = aggregate([r for r, _ in records])
        if _number(recomputed) is not None and abs(recomputed - value) < 1e-9:
            result.low, result.high = bootstrap_interval(
                records,
                lambda sample: aggregate([r for r, _ in sample]),
                cluster_of=lambda rc: rc[1],
                resamples=resamples,
            )
            result.method = "bootstrap"
            if result.has_interval and result.low == result.high:
                _degenerate_bootstrap(result)
            return result
    stderr = _number(run.results[task].get(f"{metric}_stderr,{filt}"))
    if stderr is not None:
        result.low, result.high = value - 1.96 * stderr, value + 1.96 * stderr
        result.method = "stderr"
    return result


def _degenerate_bootstrap(result: Score) -> None:
    """Every item scored alike (all wrong, all unreadable): resampling items can only give the same value,
    so the percentile bootstrap collapses to [v, v], which reads as certainty from a handful of items.
    A rate at 0 or 1 gets the Wilson interval of 0/n or n/n over its items (as a plain 0/n accuracy
    would); anything else gets no interval rather than a false one."""
    signed = result.metric in SIGNED_METRICS or (
        result.run is not None and is_signed(result.metric, result.run.task_metadata(result.task))
    )
    if not signed and result.n and result.value in (0.0, 1.0):
        result.low, result.high = wilson_interval(round(result.value * result.n), result.n)
        result.method = "wilson"
    else:
        result.low = result.high = math.nan
        result.method = ""


def run_scores(run: Run, resamples: int = 1000) -> list[Score]:
    """Headline scores of every task and group of a run (pack tasks by their benchmark's table)."""
    out = []
    for task in run.results:
        available = list(task_metrics(run, task))
        for metric in headline_metrics(task, available):
            s = score(run, task, metric, resamples)
            if s is not None:
                out.append(s)
    return out


def breakdown_scores(run: Run, task: str) -> list[Score]:
    """Per-category / per-topic accuracies with Wilson intervals where the samples give n."""
    out = []
    samples = run.samples(task)
    for metric, (_filt, value) in task_metrics(run, task).items():
        if not is_breakdown(task, metric):
            continue
        s = Score(run, task, metric, value)
        if samples is not None:
            n = _breakdown_n(samples, task, metric)
            if n:
                s.n = n
                s.low, s.high = wilson_interval(round(value * n), n)
                s.method = "wilson"
        out.append(s)
    return out


def metric_records(samples: list[dict], task: str, metric: str) -> list[dict] | None:
    """The per-doc records that feed a metric: for a per-topic/category/country metric the records tagged
    with that value, else all; None when the samples do not log records for it."""
    from lm_eval_persian_culture.scoring.aggregations import slug

    records = [s.get(metric) for s in samples]
    if not records or not all(isinstance(r, dict) for r in records):
        return None
    kind = breakdown_of(task, metric)
    if kind is None:
        return records
    suffix = metric[len(kind[0]) :]
    keep = []
    for rec in records:
        tags = list(rec.get("topics") or []) + [
            rec.get(k) for k in ("category", "country", "stylistic_axis", "relationship")
        ]
        if any(t and slug(str(t)) == suffix for t in tags):
            keep.append(rec)
    return keep


def _breakdown_n(samples: list[dict], task: str, metric: str) -> int | None:
    """Docs behind a per-topic/category/country accuracy: records tagged with that value (judged ones only)."""
    records = metric_records(samples, task, metric)
    if records is None:
        return None
    return sum(1 for rec in records if rec.get("verdict", 0) is not None) or None
