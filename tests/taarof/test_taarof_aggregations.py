"""TaarofBench's aggregations on records worked out by hand."""

from __future__ import annotations

import math

from lm_eval_persian_culture.tasks.taarof.aggregations import (
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


def prec(verdict, raw, **kw):
    """A record as judged_record builds it: verdict from the pack's parser, raw judge answer."""
    return {**rec(verdict, **kw), "judged": raw is not None, "paper_yes": int(raw is not None and "Yes" in raw)}


def test_accuracy_paper_divides_by_all_items_and_counts_yes_anywhere():
    from lm_eval_persian_culture.tasks.taarof.aggregations import judge_accuracy_paper

    items = [
        prec(1, "Yes"),
        prec(0, "No."),
        prec(None, "It depends... Yes, partly"),  # unparseable for the pack, 'Yes' for the script
        prec(None, None),  # judge call failed: 0 in the paper's rule
        prec(1, "Yes."),
    ]
    assert judge_accuracy_paper(items) == 3 / 5
    assert judge_accuracy(items) == 2 / 3  # the pack's rule: judged items only
    assert math.isnan(judge_accuracy_paper([prec(None, None)]))  # judging disabled: no score


def test_field_accuracies_split_by_type():
    from lm_eval_persian_culture.tasks.taarof.aggregations import make_field_accuracies

    aggs = make_field_accuracies("type", {"acc_e": "taarof-expected", "acc_n": "non-taarof"})
    items = [{**rec(1), "type": "taarof-expected"}, {**rec(0), "type": "taarof-expected"},
             {**rec(None), "type": "taarof-expected"}, {**rec(1), "type": "non-taarof"}]  # fmt: skip
    assert aggs["acc_e"](items) == 1 / 2
    assert aggs["acc_n"](items) == 1.0


def test_exact_mcnemar_p_by_hand():
    from lm_eval_persian_culture.tasks.taarof.aggregations import exact_mcnemar_p

    # b=1, c=5, n=6: P(X<=1) = (C(6,0)+C(6,1))/2^6 = 7/64; two-sided 14/64 = 0.21875
    assert exact_mcnemar_p(1, 5) == 14 / 64
    assert exact_mcnemar_p(5, 1) == 14 / 64
    # b=0, c=6: 2 * 1/64 = 0.03125
    assert exact_mcnemar_p(0, 6) == 2 / 64
    # b=c: the tail reaches past the middle; capped at 1
    assert exact_mcnemar_p(3, 3) == 1.0
    assert exact_mcnemar_p(0, 0) == 1.0
    # b=2, c=10, n=12: (1 + 12 + 66)/4096 * 2 = 158/4096
    assert exact_mcnemar_p(2, 10) == 158 / 4096


def test_exact_mcnemar_matches_scipy_when_installed():
    stats = __import__("pytest").importorskip("scipy.stats")
    from lm_eval_persian_culture.tasks.taarof.aggregations import exact_mcnemar_p

    for b, c in [(1, 5), (0, 6), (3, 3), (2, 10), (7, 20), (14, 1)]:
        assert math.isclose(exact_mcnemar_p(b, c), stats.binomtest(b, b + c, 0.5).pvalue, rel_tol=1e-9)


def test_gender_paired_test_counts_discordant_intact_pairs():
    from lm_eval_persian_culture.tasks.taarof.aggregations import make_paired_test_aggregations

    aggs = make_paired_test_aggregations(("female", "male"), prefix="gender")
    assert sorted(aggs) == ["gender_discordant_female", "gender_discordant_male", "gender_mcnemar_p"]
    items = [
        rec(1, group="female", pair=0), rec(0, group="male", pair=0),   # female only
        rec(1, group="female", pair=1), rec(0, group="male", pair=1),   # female only
        rec(1, group="female", pair=2), rec(1, group="male", pair=2),   # concordant
        rec(0, group="female", pair=3), rec(1, group="male", pair=3),   # male only
        rec(1, group="female", pair=4), rec(None, group="male", pair=4),  # unjudged: dropped
        rec(1, group="female", pair=5),                                  # split by --limit: dropped
    ]  # fmt: skip
    assert aggs["gender_discordant_female"](items) == 2
    assert aggs["gender_discordant_male"](items) == 1
    # n=3, min=1: 2 * (1 + 3)/8 = 1.0
    assert aggs["gender_mcnemar_p"](items) == 1.0
