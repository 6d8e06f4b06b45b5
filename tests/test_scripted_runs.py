"""The shared helper of the scripted lm-eval runs (tests/scripted_runs.py) reads a task's row and samples
under lm-eval 0.4's plain names and 0.5's ``<group>::<task>`` member names alike."""

from __future__ import annotations

import pytest

from tests.scripted_runs import metrics, result_key, samples

ROW = {"alias": " - cac_japan", "range_accuracy,extract": 0.5, "range_accuracy_stderr,extract": "N/A"}
V04 = {"results": {"cac": {"range_accuracy,extract": 0.4}, "cac_japan": ROW}, "samples": {"cac_japan": [{"doc_id": 0}]}}
V05 = {
    "results": {"cac": {"range_accuracy,extract": 0.4}, "cac::cac_japan": ROW},
    "samples": {"cac::cac_japan": [{"doc_id": 0}]},
}


@pytest.mark.parametrize("results", [V04, V05], ids=["lm-eval 0.4", "lm-eval 0.5"])
@pytest.mark.parametrize("name", ["cac_japan", "cac::cac_japan"])
def test_a_member_is_found_by_plain_or_group_name(results, name):
    assert metrics(results, name) == {"range_accuracy": 0.5}
    assert samples(results, name) == [{"doc_id": 0}]
    assert metrics(results, "cac") == {"range_accuracy": 0.4}


def test_a_member_of_two_groups_must_be_named_with_its_group():
    results = {"results": {"g1::t": {"a,x": 1.0}, "g2::t": {"a,x": 0.0}}}
    with pytest.raises(KeyError, match="several groups"):
        result_key(results, "t")
    assert metrics(results, "g2::t") == {"a": 0.0}
    with pytest.raises(KeyError, match="not in results"):
        result_key(results, "u")


def test_a_group_member_name_finds_its_benchmark():
    from lm_eval_persian_culture.tasks._benchmark import benchmark_of

    assert benchmark_of("cac::cac_japan").name == benchmark_of("cac_japan").name == "cac"
    assert benchmark_of("mmlu::mmlu_anatomy") is None
