"""Accepted ranges of annotator ratings and range accuracy (CAC, Havaldar et al. 2025, sec. 3).

CAC does not average its annotators' picks into one gold label. For each conversation and
country it takes the mean ``mu`` and standard deviation ``sigma`` of the picks and accepts
``mu ± 0.674 sigma`` (the 25th-75th percentiles of a normal distribution); "after rounding
for direct comparison", a prediction is correct when it lies in the rounded range: the
paper's example ``[1.25, 2.67]`` accepts 1, 2 and 3.

Choices the paper leaves open, made here explicitly (see tasks/cac/README.md):

* **sigma**: the *sample* standard deviation (n - 1) by default. The paper treats the
  ratings as "independent draws from an approximately normal distribution" whose central
  50% the range should cover: that is an estimate of the underlying distribution's spread
  from a sample, for which the n - 1 estimator is the standard one. Its example range
  cannot settle the question: no set of 2 to 24 picks on a 1-5 scale gives [1.25, 2.67]
  under either estimator (tests/cac/test_cac_ranges.py enumerates them), so the example only
  fixes the rounding rule. ``sigma="population"`` (n; numpy's default) is available.
* **zero variance** (all annotators agree, or one annotator): sigma = 0 and the range is
  that single pick. With one pick the sample sigma is undefined and also taken as 0.
* **ties at .5**: the ends are rounded *outward* (lower end x.5 -> x, upper end x.5 ->
  x + 1), so a pick exactly half a step outside the continuous range counts, on both
  sides alike. Python's ``round`` (half to even) would accept [1.5, 2.5] -> {2} but
  [2.5, 3.5] -> {2, 3, 4}, depending on parity; half-up would shift every tie upward.
  Ends within 1e-9 of .5 count as ties (floating-point noise).
* the rounded range is clipped to the rating scale.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

Z_QUARTILE = 0.674  # the paper's constant: Phi^-1(0.75) = 0.6745, printed as 0.674
SIGMAS = ("sample", "population")
_TIE_EPS = 1e-9


def round_lower_end(x: float) -> int:
    """Nearest integer; an exact .5 goes down (outward for a lower end)."""
    return math.floor(x + 0.5 - _TIE_EPS)


def round_upper_end(x: float) -> int:
    """Nearest integer; an exact .5 goes up (outward for an upper end)."""
    return math.ceil(x - 0.5 + _TIE_EPS)


def spread(picks: Sequence[int], sigma: str = "sample") -> float:
    """Standard deviation of the picks; 0 when they all agree or there is only one."""
    if sigma not in SIGMAS:
        raise ValueError(f"sigma={sigma!r}: expected one of {list(SIGMAS)}")
    n = len(picks)
    if n == 0:
        raise ValueError("no picks: an accepted range needs at least one annotator")
    if n == 1 or all(p == picks[0] for p in picks):
        return 0.0  # zero variance, explicitly: no floating-point residue
    mean = sum(picks) / n
    squares = sum((p - mean) ** 2 for p in picks)
    return math.sqrt(squares / (n - 1 if sigma == "sample" else n))


@dataclass(frozen=True)
class AcceptedRange:
    """``mean ± z * sigma`` of the picks, and the integers it accepts after rounding."""

    mean: float
    sigma: float
    low: float  # continuous ends
    high: float
    first: int  # smallest accepted pick (rounded, clipped to the scale)
    last: int  # largest accepted pick

    def accepts(self, pick: int | None) -> bool:
        return pick is not None and self.first <= pick <= self.last

    @property
    def accepted(self) -> tuple[int, ...]:
        return tuple(range(self.first, self.last + 1))


def accepted_range(
    picks: Sequence[int],
    sigma: str = "sample",
    z: float = Z_QUARTILE,
    scale: tuple[int, int] = (1, 5),
) -> AcceptedRange:
    """The accepted range of one set of annotator picks (see the module docstring)."""
    picks = [int(p) for p in picks]
    for p in picks:
        if not scale[0] <= p <= scale[1]:
            raise ValueError(f"pick {p} is outside the scale {scale[0]}-{scale[1]}")
    mean = sum(picks) / len(picks) if picks else math.nan
    sd = spread(picks, sigma)
    if sd == 0.0:  # zero variance: the range is the single agreed pick
        return AcceptedRange(mean, 0.0, mean, mean, picks[0], picks[0])
    low, high = mean - z * sd, mean + z * sd
    first = max(scale[0], round_lower_end(low))
    last = min(scale[1], round_upper_end(high))
    return AcceptedRange(mean, sd, low, high, first, last)


__all__ = [
    "SIGMAS",
    "Z_QUARTILE",
    "AcceptedRange",
    "accepted_range",
    "round_lower_end",
    "round_upper_end",
    "spread",
]
