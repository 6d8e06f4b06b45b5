"""Accepted ranges (mu ± 0.674 sigma, ends rounded) on hand-worked cases; the sigma and tie rules."""

from __future__ import annotations

import itertools
import math

import pytest

from lm_eval_persian_culture.tasks.cac.ranges import (
    Z_QUARTILE,
    accepted_range,
    round_lower_end,
    round_upper_end,
    spread,
)


def test_the_papers_constant_and_example():
    assert Z_QUARTILE == 0.674
    # sec. 4: "if the accepted stylistic range is [1.25, 2.67], then predictions of 1, 2, or 3 are correct"
    assert (round_lower_end(1.25), round_upper_end(2.67)) == (1, 3)


# (picks, sigma, expected first..last); the arithmetic by hand in the comment
CASES = [
    # zero variance: all agree -> sigma 0, the range is the pick itself
    ((2, 2, 2), "sample", (2, 2)),
    ((5, 5, 5), "population", (5, 5)),
    ((4,), "sample", (4, 4)),  # one annotator: sample sigma undefined, taken as 0
    # {1,2,3}: mu 2; sample s = sqrt((1+0+1)/2) = 1 -> 2 ± 0.674 = [1.326, 2.674] -> 1..3
    ((1, 2, 3), "sample", (1, 3)),
    # population s = sqrt(2/3) = 0.8165 -> ± 0.5503 = [1.450, 2.550] -> 1..3
    ((1, 2, 3), "population", (1, 3)),
    # {1,2,5}: mu 8/3 = 2.667; squares 25/9 + 4/9 + 49/9 = 78/9
    #   sample s = sqrt(78/18) = 2.0817 -> ± 1.4031 = [1.264, 4.070] -> 1..4
    #   population s = sqrt(78/27) = 1.6997 -> ± 1.1456 = [1.521, 3.812] -> 2..4
    ((1, 2, 5), "sample", (1, 4)),
    ((1, 2, 5), "population", (2, 4)),
    # {2,2,3}: mu 7/3, sample s = sqrt((1/9+1/9+4/9)/2) = 0.5774 -> ± 0.3891 = [1.944, 2.722] -> 2..3
    ((2, 2, 3), "sample", (2, 3)),
    # {1,5,5}: mu 11/3, sample s = sqrt(96/18) = 2.3094 -> ± 1.5565 = [2.110, 5.223] -> 2..5 (6 clipped away)
    ((1, 5, 5), "sample", (2, 5)),
    # picks spread over the whole scale, {1,2,3,4,5}: mu 3
    #   sample s = sqrt(10/4) = 1.5811 -> ± 1.0657 = [1.934, 4.066] -> 2..4
    #   population s = sqrt(2) = 1.4142 -> ± 0.9532 = [2.047, 3.953] -> 2..4
    ((1, 2, 3, 4, 5), "sample", (2, 4)),
    ((1, 2, 3, 4, 5), "population", (2, 4)),
    # {1,5}: mu 3; sample s = sqrt(8) = 2.828 -> ± 1.906 = [1.094, 4.906] -> 1..5
    #   population s = 2 -> ± 1.348 = [1.652, 4.348] -> 2..4
    ((1, 5), "sample", (1, 5)),
    ((1, 5), "population", (2, 4)),
    # {1,1,1,5}: mu 2; sample s = sqrt(12/3) = 2 -> ± 1.348 = [0.652, 3.348] -> 1..3
    ((1, 1, 1, 5), "sample", (1, 3)),
]


@pytest.mark.parametrize("picks, sigma, expected", CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_accepted_range_hand_worked(picks, sigma, expected):
    r = accepted_range(picks, sigma=sigma)
    assert (r.first, r.last) == expected
    assert r.accepted == tuple(range(expected[0], expected[1] + 1))
    assert all(r.accepts(p) == (expected[0] <= p <= expected[1]) for p in range(1, 6))
    assert not r.accepts(None)


def test_continuous_ends_and_sigma_values():
    r = accepted_range((1, 2, 5), sigma="sample")
    assert r.mean == pytest.approx(8 / 3)
    assert r.sigma == pytest.approx(math.sqrt(78 / 18))
    assert (r.low, r.high) == (
        pytest.approx(8 / 3 - 0.674 * math.sqrt(78 / 18)),
        pytest.approx(8 / 3 + 0.674 * math.sqrt(78 / 18)),
    )
    assert spread((1, 2, 5), "population") == pytest.approx(math.sqrt(78 / 27))


def test_zero_variance_is_exact():
    r = accepted_range((3, 3, 3))
    assert r.sigma == 0.0 and r.low == r.high == 3.0 and r.accepted == (3,)


def test_ties_at_half_round_outward():
    assert round_lower_end(1.5) == 1 and round_upper_end(2.5) == 3
    assert round_lower_end(2.5) == 2 and round_upper_end(3.5) == 4  # no parity effect (Python's round: 2, 4)
    assert round_lower_end(1.51) == 2 and round_upper_end(2.49) == 2  # not ties
    assert round_lower_end(1.49) == 1 and round_upper_end(2.51) == 3
    # floating-point noise around a tie still counts as the tie
    assert round_lower_end(0.1 + 0.2 + 1.2) == 1  # 1.5000000000000002
    assert round_upper_end(2.5 - 4e-16) == 3
    # a tie through the whole computation: {1,3}, population s = 1, z = 0.5 -> [1.5, 2.5] -> 1..3
    r = accepted_range((1, 3), sigma="population", z=0.5)
    assert (r.low, r.high) == (1.5, 2.5) and (r.first, r.last) == (1, 3)


def test_bad_input():
    with pytest.raises(ValueError, match="outside the scale"):
        accepted_range((1, 6))
    with pytest.raises(ValueError, match="no picks"):
        accepted_range(())
    with pytest.raises(ValueError, match="sigma='std'"):
        accepted_range((1, 2), sigma="std")


def test_the_papers_example_fixes_rounding_not_sigma():
    """No set of 2..24 picks on the 1-5 scale gives [1.25, 2.67] (to two decimals) under either
    sigma, so the example is illustrative: it shows the rounding, it cannot tell which sigma."""
    for n in range(2, 25):
        for picks in itertools.combinations_with_replacement(range(1, 6), n):
            mean = sum(picks) / n
            squares = sum((p - mean) ** 2 for p in picks)
            for ddof in (0, 1):
                s = math.sqrt(squares / (n - ddof))
                low, high = mean - 0.674 * s, mean + 0.674 * s
                assert not (round(low, 2) == 1.25 and round(high, 2) == 2.67), (picks, ddof)
