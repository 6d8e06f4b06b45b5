"""GhazalBench through the real lm-eval harness (scripted replies), reading the release from a local data dir.

The suite member ``ghazal_core`` with ``--limit 4``: the first four items of each of its four tasks, each given a
reply of a known kind; every expected figure below is worked out by hand from those kinds.
"""

from __future__ import annotations

import pytest

from lm_eval_persian_culture.scoring.records import decode_record
from tests.scripted_runs import evaluate, metrics


def reply(doc: dict, prompt: str) -> str:
    """Item i (0-3, in release order: couplet i+1 of ghazal 2 for both poets) of each task gets the i-th kind."""
    i = doc["couplet"] - 1
    if doc["cue"] == "name":  # completion
        gold = doc["gold"]
        return [
            f"<answer>{gold}</answer>",  # Complete
            # three letters replaced: more than the 1 edit a gold under 40 characters allows, and at most 20% of
            # a gold of 15+ characters: Partial
            f"<answer>{'ژژژ' + gold[3:]}</answer>",
            gold,  # no tags: a format error, scored Non-Retrieval
            f"<answer>{doc['first']}</answer>",  # the first hemistich back: Non-Retrieval
        ][i]
    # recognition: the right letter, the same-ghazal distractor's, the same-poet distractor's, no letter
    role = ["Correct", "Same Ghazal", "Same Poet", None][i]
    return doc["letters"][doc["roles"].index(role)] if role else "نمی‌دانم"


@pytest.fixture(scope="module")
def run(shared_data):
    if not (shared_data / "ghazal" / "completionQsHafez.xlsx").is_file():
        pytest.skip("../shared/data/ghazal is missing")
    return evaluate(["ghazal_core"], reply, shared_data, limit=4)


def test_first_items_are_couplets_one_to_four(run):
    for task in ("ghazal_completion_hafez_name", "ghazal_recognition_saadi_baseline"):
        docs = [s["doc"] for s in run["samples"][task]]
        assert [(d["poem"], d["couplet"]) for d in docs] == [(2, 1), (2, 2), (2, 3), (2, 4)]
        assert all(d["provenance"].startswith("local:") and "/ghazal/" in d["provenance"] for d in docs)


@pytest.mark.parametrize("task", ["ghazal_completion_hafez_name", "ghazal_completion_saadi_name"])
def test_completion_rates(run, task):
    m = metrics(run, task)
    assert m["complete_rate"] == pytest.approx(1 / 4)  # item 1
    assert m["partial_rate"] == pytest.approx(1 / 4)  # item 2
    assert m["non_retrieval_rate"] == pytest.approx(2 / 4)  # items 3 and 4
    assert m["format_error_rate"] == pytest.approx(1 / 4)  # item 3


@pytest.mark.parametrize("task", ["ghazal_recognition_hafez_baseline", "ghazal_recognition_saadi_baseline"])
def test_recognition_accuracy_and_picks(run, task):
    m = metrics(run, task)
    assert m["accuracy"] == pytest.approx(1 / 4)
    assert m["picked_same_ghazal_rate"] == pytest.approx(1 / 4)
    assert m["picked_same_poet_rate"] == pytest.approx(1 / 4)
    assert m["invalid_rate"] == pytest.approx(1 / 4) and m["llm_extracted_rate"] == 0
    records = [decode_record(s["filtered_resps"][0]) for s in run["samples"][task]]
    assert [r["read_by"] for r in records] == ["rule", "rule", "rule", None]


def test_suite_member_pools_each_setting_over_its_own_items(run):
    m = metrics(run, "ghazal_core_completion")  # 8 completion items: 2 Complete, 2 format errors
    assert m["complete_rate"] == pytest.approx(2 / 8) and m["format_error_rate"] == pytest.approx(2 / 8)
    assert m["non_retrieval_rate"] == pytest.approx(4 / 8) and "accuracy" not in m
    m = metrics(run, "ghazal_core_recognition")  # 8 recognition items: 2 right
    assert m["accuracy"] == pytest.approx(2 / 8) and "complete_rate" not in m
    assert metrics(run, "ghazal_core") == {}  # completion and recognition are never pooled into one figure
