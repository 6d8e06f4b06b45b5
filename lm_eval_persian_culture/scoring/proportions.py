"""Intervals for proportions k/n, shared by the report (accuracies) and TaarofBench's judge check
(agreement with human labels). Pure functions: lm-eval 0.5 may call aggregations many times."""

from __future__ import annotations

import math

Z95 = 1.959963984540054


def wilson_interval(k: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of the proportion k/n; (nan, nan) when n is 0."""
    if n <= 0:
        return math.nan, math.nan
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)
