"""Shared aggregations on records worked out by hand."""

from __future__ import annotations

import math

from lm_eval_persian_culture.aggregations import (
    judge_accuracy,
    judge_error_count,
    make_group_aggregations,
    make_topic_aggregations,
)


def rec(verdict, topics=(), group=None, pair=None):
    return {"verdict": verdict, "topics": list(topics), "group": group, "pair": pair}


def test_accuracy_excludes_unjudged_and_counts_them():
    items = [rec(1), rec(0), rec(None), rec(1), rec(None)]
    assert judge_accuracy(items) == 2 / 3
    assert judge_error_count(items) == 2
    assert math.isnan(judge_accuracy([rec(None)]))


def test_topic_accuracy_counts_multi_topic_docs_in_each_topic():
    aggs = make_topic_aggregations(["Gift", "Payment", "Offering food/drink"])
    assert sorted(aggs) == ["accuracy_topic_gift", "accuracy_topic_offering_food_drink", "accuracy_topic_payment"]
    items = [rec(1, ["Gift", "Payment"]), rec(0, ["Gift"]), rec(0, ["Payment"]), rec(None, ["Payment"])]
    assert aggs["accuracy_topic_gift"](items) == 1 / 2  # docs 0, 1
    assert aggs["accuracy_topic_payment"](items) == 1 / 2  # docs 0, 2 (3 unjudged)
    assert math.isnan(aggs["accuracy_topic_offering_food_drink"](items))


def test_gender_metrics_use_intact_pairs_only():
    aggs = make_group_aggregations(("female", "male"), gap_name="gender_gap")
    items = [
        rec(1, group="female", pair=0), rec(0, group="male", pair=0),   # intact: F=1 M=0
        rec(1, group="female", pair=1), rec(1, group="male", pair=1),   # intact: F=1 M=1
        rec(0, group="female", pair=2), rec(None, group="male", pair=2),  # male unjudged: dropped
        rec(1, group="female", pair=3),                                  # split by --limit: dropped
    ]  # fmt: skip
    assert aggs["accuracy_female"](items) == 1.0  # pairs 0, 1
    assert aggs["accuracy_male"](items) == 0.5
    assert aggs["gender_gap"](items) == 0.5
    assert math.isnan(aggs["gender_gap"](items[-1:]))
