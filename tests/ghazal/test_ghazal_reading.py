"""GhazalBench recognition replies read by the shared option reading (labels written before the reader ran).

Items: Hafez's first couplet as released, three options (الف same ghazal, ب right, ج same poet) and the
two-option shuffle item (الف shuffled, ب right)."""

from __future__ import annotations

import pytest

from lm_eval_persian_culture.tasks.ghazal.utils import TASK, process_results_recognition

THREE = {
    "letters": ["الف", "ب", "ج"],
    "option_texts": [
        "کجا رویم بفرما از این جناب کجا",
        "ببین تفاوت ره از کجاست تا به کجا",
        "که زیر سلسله رفتن طریق عیاریست",
    ],
    "roles": ["Same Ghazal", "Correct", "Same Poet"],
    "answer": "ب",
    "first": "صلاح کار کجا و من خراب کجا",
    "cue": "baseline",
}
TWO = {
    **THREE,
    "letters": ["الف", "ب"],
    "option_texts": ["ره به کجاست ببین کجا تفاوت تا از", "ببین تفاوت ره از کجاست تا به کجا"],
    "roles": ["Shuffled", "Correct"],
    "cue": "shuffle",
}
NEXT_ITEM = (
    "\n\nمصراع اول:\n<first_verse>دل می‌رود ز دستم صاحب‌دلان خدا را</first_verse>\n\nگزینه‌ها:\nالف) ...\nب) ...\nج) ..."
)

# (reply, item, the option index it names: 0 الف, 1 ب, 2 ج; None: no pick)
CASES = [
    ("ب", THREE, 1),
    ("الف", THREE, 0),
    ("ج", THREE, 2),
    ("ب)", THREE, 1),
    ("پاسخ: ج", THREE, 2),
    ("گزینه‌ی درست: ب", THREE, 1),
    ("ببین تفاوت ره از کجاست تا به کجا", THREE, 1),  # the option's text
    ("د", THREE, None),  # no fourth option
    ("ج", TWO, None),  # no third option on the shuffle item
    ("ب" + NEXT_ITEM, THREE, 1),  # a base model going on into an invented next item: cut there
    ("الف" + NEXT_ITEM, TWO, 0),
    ("نمی‌دانم", THREE, None),
]


@pytest.mark.parametrize(("reply", "doc", "index"), CASES)
def test_recognition_reading(reply, doc, index):
    assert TASK.read(reply, doc) == index


def test_pick_fields():
    # the same-ghazal distractor picked: wrong, and counted as such; the right one: no distractor
    value = process_results_recognition(THREE, ["الف"])["accuracy"]
    assert (value["correct"], value["picked_same_ghazal"], value["picked_same_poet"], value["invalid"]) == (0, 1, 0, 0)
    value = process_results_recognition(THREE, ["ب"])["accuracy"]
    assert (value["correct"], value["picked_same_ghazal"], value["picked_same_poet"]) == (1, 0, 0)
