"""The shared option-task helper (tasks/_option_task.py) as a new benchmark uses it: a two-option lettered
task and a three-option numbered one, read by the rules, then by the LLM extractor over real HTTP (the
local fake server), and the records and aggregations computed by hand."""

from __future__ import annotations

import math

import pytest

from lm_eval_persian_culture.scoring.records import decode_record
from lm_eval_persian_culture.tasks._option_task import OptionTask, higher_is_better
from lm_eval_persian_culture.testing.openai_server import FakeOpenAIServer
from tests.scripted_runs import judge_metadata

PAIR = OptionTask(
    name="TwoOptions",
    switch="two_options_llm_extractor",
    options=lambda doc: doc["options"],
    question=lambda doc: doc["question"],
    labels="letters",
    gold=lambda doc: doc["answer_index"],
    fields=("kind",),
    next_item=("Proverb",),
)
DOCS = [
    {"question": "Which English proverb matches «آب که از سر گذشت، چه یک وجب چه صد وجب»?", "kind": "cross",
     "options": ["In for a penny, in for a pound", "Every cloud has a silver lining"], "answer_index": 0},
    {"question": "Which English proverb matches «کار از محکم‌کاری عیب نمی‌کند»?", "kind": "cross",
     "options": ["Better safe than sorry", "Haste makes waste"], "answer_index": 0},
    {"question": "Which English proverb matches «یک دست صدا ندارد»?", "kind": "context",
     "options": ["Many hands make light work", "Out of sight, out of mind"], "answer_index": 0},
]  # fmt: skip


def _filter(task, replies, docs):
    return [decode_record(out) for out in task.filter([[r] for r in replies], docs)]


def test_rules_read_the_two_letters_and_nothing_past_them():
    replies = ["ب", "Answer: A\n\nProverb: «...»\nAnswer: B", "ج"]
    records = _filter(PAIR, replies, DOCS)  # no judge configured: rules only
    assert [(r["answer"], r["read_by"]) for r in records] == [("B", "rule"), ("A", "rule"), (None, None)]
    values = [PAIR.record(doc, out) for doc, out in zip(DOCS, PAIR.filter([[r] for r in replies], DOCS))]
    # by hand: doc 0 gold A read B (wrong), doc 1 gold A read A (right), doc 2 read nothing (invalid, wrong)
    assert values == [
        {"kind": "cross", "correct": 0, "invalid": 0, "llm": 0, "llm_error": 0},
        {"kind": "cross", "correct": 1, "invalid": 0, "llm": 0, "llm_error": 0},
        {"kind": "context", "correct": 0, "invalid": 1, "llm": 0, "llm_error": 0},
    ]
    aggs = PAIR.aggregations({"kind": {"accuracy_cross": "cross", "accuracy_context": "context", "accuracy_x": "x"}})
    assert aggs["accuracy"](values) == pytest.approx(1 / 3)
    assert aggs["accuracy_cross"](values) == pytest.approx(1 / 2) and aggs["accuracy_context"](values) == 0.0
    assert math.isnan(aggs["accuracy_x"](values))
    assert aggs["invalid_rate"](values) == pytest.approx(1 / 3) and aggs["llm_extractor_errors"](values) == 0
    process = PAIR.process_results(("accuracy", "invalid_rate"))
    assert process(DOCS[1], [PAIR.filter([["A"]], DOCS[1:2])[0]]) == {"accuracy": values[1], "invalid_rate": values[1]}
    # another filter ran instead of the task's own: the reply text is read here by the rules
    assert PAIR.record(DOCS[0], "پاسخ: الف")["correct"] == 1


def test_the_extractor_sees_lettered_options_and_a_letter_the_item_lacks_is_no_answer(tmp_path):
    answers = iter(["B", "C", "NONE"])
    with FakeOpenAIServer(answer=lambda prompt, body: next(answers)) as server:
        PAIR.configure(judge_metadata(server, tmp_path, judge_concurrency=1))
        try:
            records = _filter(PAIR, ["hmm", "no idea", "both?"], DOCS)
        finally:
            PAIR.configure({"two_options_llm_extractor": "false"})
        prompt = server.requests[0]["messages"][-1]["content"]
    assert "(A) In for a penny, in for a pound\n(B) Every cloud has a silver lining" in prompt
    assert "exactly one of the option letters (A, B), or NONE" in prompt
    assert [(r["answer"], r["read_by"], r["llm_raw"]) for r in records] == [
        ("B", "llm", "B"), (None, None, "C"), (None, None, "NONE"),
    ]  # fmt: skip


def test_a_numbered_task_spells_numbers_and_a_rule_decides_correctness():
    three = OptionTask(
        name="Three", switch="three_llm_extractor", options=lambda doc: doc["options"], question=lambda doc: "?",
        correct=lambda doc, index: index is not None and index >= 1, more=lambda doc, index: {"pick": index},
    )  # fmt: skip
    doc = {"options": ["one", "two", "three"]}
    records = _filter(three, ["3", '{"response": 2}', "4", "C"], [doc] * 4)
    assert [r["answer"] for r in records] == [3, 2, None, None]  # no letters on a numbered task; no 4th option
    assert [three.record(doc, out)["correct"] for out in three.filter([["1"], ["3"]], [doc, doc])] == [0, 1]
    assert three.record(doc, three.filter([["2"]], [doc])[0])["pick"] == 1


def test_the_declaration_is_checked_and_directions_are_known():
    with pytest.raises(ValueError, match="exactly one of gold"):
        OptionTask(name="x", switch="x_llm_extractor", options=list, question=str)
    with pytest.raises(ValueError, match="labels="):
        OptionTask(name="x", switch="x_llm_extractor", options=list, question=str, labels="roman", gold=len)
    assert higher_is_better("accuracy_cross") and not higher_is_better("llm_extractor_errors")
    assert not higher_is_better("invalid_rate") and not higher_is_better("llm_extracted_rate")
