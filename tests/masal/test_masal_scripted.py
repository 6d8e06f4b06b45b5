"""MasalBench through the real lm-eval harness with a scripted model on the project's fixture: accuracy, the
literal-trap rate and the other per-role pick rates equal the figures worked out by hand (masal_testlib)."""

from __future__ import annotations

import pytest
from masal_testlib import EXPECTED, REPLIES, evaluate, metrics

from lm_eval_persian_culture.scoring.records import decode_record as rec

pytestmark = pytest.mark.lmeval05  # also run under lm-eval 0.5 (.ci/run): its group::task names


@pytest.fixture(scope="module")
def run():
    return evaluate(["masal"])


@pytest.mark.parametrize("task", sorted(EXPECTED))
def test_metrics_equal_the_hand_figures(run, task):
    got = metrics(run, task)
    assert set(got) == set(EXPECTED[task])
    for name, value in EXPECTED[task].items():
        assert got[name] == pytest.approx(value), name


def test_every_item_is_scored_once_and_the_record_names_the_picked_role(run):
    samples = {s["doc"]["id"]: s for task in run["samples"] for s in run["samples"][task]}
    assert set(samples) == set(REPLIES)
    # the filter's record: the reply as the model gave it and the option read (ج spelled C), by the rules
    record = rec(samples["contextual-0002"]["filtered_resps"][0])
    assert record == {"reply": "پاسخ: ج", "answer": "C", "read_by": "rule"}
    assert rec(samples["contextual-0004"]["filtered_resps"][0])["answer"] is None  # the hedge
    assert samples["contextual-0001"]["accuracy"]["picked_role"] == "Literal Trap"
    assert samples["cross_cultural-0002"]["accuracy"]["picked_role"] == "Equivalent"  # read by the option's text


def test_the_prompt_is_the_question_column_verbatim(run):
    for task in run["samples"]:
        for s in run["samples"][task]:
            assert s["arguments"][0][0] == s["doc"]["question"]
            assert s["target"] == s["doc"]["letters"][s["doc"]["answer_index"]]


def test_the_group_reports_each_task_apart(run):
    # no aggregate over the two tasks: the paper reports them apart
    assert "masal" in run["results"] and "accuracy,extract" not in run["results"]["masal"]
    config = next(v for k, v in run["configs"].items() if k.split("::")[-1] == "masal_contextual")  # 0.5: group::task
    assert config["metadata"]["deviations"]
