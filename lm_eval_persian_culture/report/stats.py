"""Uncertainty for reported scores: Wilson intervals for accuracies, a cluster bootstrap for derived figures.

lm-eval 0.4.13 reports "N/A" stderr for custom aggregations, so the report computes its own:

* :func:`wilson_interval` for a proportion k/n (well behaved at 0, 1 and small n, unlike the normal
  approximation);
* :func:`bootstrap_interval` for anything else (acquiescence bias, the factual-conceptual gap, the gender
  gap, macro accuracy): resample *clusters* of per-doc records with replacement (a DivanBench item under its
  five prompts, a positive/negative pair, a gender pair stay together) and recompute the task's own
  aggregation, so the interval is the one of the statistic the paper reports.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Hashable, Sequence

from lm_eval_persian_culture.scoring.proportions import Z95, wilson_interval  # noqa: F401 (moved down: tasks use it)


def _finite(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def bootstrap_interval(
    records: Sequence,
    statistic: Callable[[list], float],
    cluster_of: Callable[[object], Hashable] | None = None,
    resamples: int = 1000,
    seed: int = 0,
    level: float = 0.95,
) -> tuple[float, float]:
    """Percentile interval of ``statistic`` over resampled clusters of ``records``.

    Resamples whose statistic is undefined (NaN, e.g. no intact pair drawn) are dropped; (nan, nan)
    when fewer than half of the resamples are defined or there are fewer than two clusters.
    """
    clusters: dict[Hashable, list] = {}
    for i, rec in enumerate(records):
        clusters.setdefault(cluster_of(rec) if cluster_of else i, []).append(rec)
    groups = list(clusters.values())
    if len(groups) < 2:
        return math.nan, math.nan
    rng = random.Random(seed)
    values = []
    for _ in range(resamples):
        sample = [rec for g in rng.choices(groups, k=len(groups)) for rec in g]
        value = statistic(sample)
        if _finite(value):
            values.append(float(value))
    if len(values) < resamples / 2:
        return math.nan, math.nan
    values.sort()
    alpha = (1 - level) / 2
    return _quantile(values, alpha), _quantile(values, 1 - alpha)


def _quantile(sorted_values: Sequence[float], q: float) -> float:
    """Linear interpolation between closest ranks (numpy's default 'linear' method)."""
    pos = q * (len(sorted_values) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)
