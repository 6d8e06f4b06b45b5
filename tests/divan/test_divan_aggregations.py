"""DivanBench's per-prompt and paired aggregations (tasks/divan/aggregations.py) and the shared rates under them."""

from __future__ import annotations

import math

import pytest

from lm_eval_persian_culture.scoring.aggregations import per_group_rate, rate
from lm_eval_persian_culture.tasks.divan.aggregations import (
    group_differences,
    intact_pairs_by_group,
    make_spread_aggregations,
    paired_side_rates,
    std_or_nan,
)


def rec(prompt, pair, polarity, correct):
    return {"prompt_id": prompt, "pair_id": pair, "polarity": polarity, "correct": correct}


ITEMS = [
    rec(1, "a", "positive", 1), rec(1, "a", "negative", 0),
    rec(1, "b", "positive", 1), rec(1, "b", "negative", 1),
    rec(2, "a", "positive", 0), rec(2, "a", "negative", 1),
    rec(2, "b", "positive", 1),  # split: b's negative missing under prompt 2
]  # fmt: skip


def test_std_population_and_sample():
    assert std_or_nan([1, 3]) == 1.0
    assert std_or_nan([1, 3], ddof=1) == pytest.approx(math.sqrt(2))
    assert std_or_nan([5]) == 0.0 and math.isnan(std_or_nan([5], ddof=1)) and math.isnan(std_or_nan([]))


def test_per_group_rate_and_rate():
    assert per_group_rate(ITEMS, "correct") == {1: 0.75, 2: pytest.approx(2 / 3)}
    assert per_group_rate(ITEMS, "correct", where=lambda it: it["polarity"] == "negative") == {1: 0.5, 2: 1.0}
    assert rate(ITEMS, "correct") == pytest.approx(5 / 7)
    assert math.isnan(rate([], "correct"))


def test_intact_pairs_and_side_rates():
    pairs = intact_pairs_by_group(ITEMS)
    assert set(pairs[1]) == {"a", "b"} and set(pairs[2]) == {"a"}
    assert paired_side_rates(ITEMS, "correct") == {
        1: {"positive": 1.0, "negative": 0.5},
        2: {"positive": 0.0, "negative": 1.0},
    }
    duplicated = ITEMS + [rec(1, "a", "positive", 0)]
    assert set(intact_pairs_by_group(duplicated)[1]) == {"b"}


def test_spread_aggregations_and_differences():
    aggs = make_spread_aggregations("score", lambda items: per_group_rate(items, "correct"))
    assert aggs["score"](ITEMS) == pytest.approx((0.75 + 2 / 3) / 2)
    assert aggs["score_std"](ITEMS) == pytest.approx((0.75 - 2 / 3) / 2)
    assert aggs["score"].__name__ == "score" and aggs["score_std"].__name__ == "score_std"
    assert math.isnan(aggs["score"]([]))
    assert group_differences({1: 0.9, 2: 0.5}, {1: 0.4}) == {1: pytest.approx(0.5)}
    before = [dict(it) for it in ITEMS]
    aggs["score"](ITEMS)
    assert ITEMS == before  # pure
