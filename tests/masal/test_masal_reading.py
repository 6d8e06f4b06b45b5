"""How MasalBench replies are read (the shared answer grammar over the item's own lettered options).

Labels written before the code ran on them. A two-option (cross-cultural) item has only الف and ب: a reply
naming ج, د, C or D names no option of the item and must be no pick, never a third or fourth option (issue #33).
"""

from __future__ import annotations

import pytest

from lm_eval_persian_culture.scoring.records import encode_record
from lm_eval_persian_culture.tasks.masal.utils import TASK, read_pick

CONTEXTUAL = {
    "options": ["همیشه کسی ماهرتر از تو پیدا می‌شه.", "دست‌های زیادی روی هم قرار گرفته.",
                "نقاشی کار سختیه و تمرین می‌خواد.", "فردا هوا بارونیه."],
    "roles": ["Correct", "Literal Trap", "Plausible but Wrong", "Irrelevant"],
    "answer_index": 0, "task": "contextual",
}  # fmt: skip
CROSS = {
    "options": ["It takes two to tango.", "Every cloud has a silver lining."],
    "roles": ["Equivalent", "Irrelevant"],
    "answer_index": 0, "task": "cross_cultural",
}  # fmt: skip

# (reply, 0-based option the reply picks, or None for no pick)
CONTEXTUAL_REPLIES = [
    ("الف", 0),
    ("ب", 1),
    ("ج", 2),
    ("د", 3),
    ("ب)", 1),
    ("گزینه ج", 2),
    ("پاسخ: د", 3),
    ("**ب**", 1),
    ("الف) همیشه کسی ماهرتر از تو پیدا می‌شه.", 0),
    ("پاسخ درست گزینهٔ «ج» است.", 2),
    ("<think>گزینهٔ ب معنای تحت‌اللفظی است.</think>\nالف", 0),
    ("B", 1),
    ("Answer: D", 3),
    ("دست‌های زیادی روی هم قرار گرفته.", 1),  # the option's text alone
    # a base model going on into an invented next item in the prompt's shape: read up to it
    (
        "ب\n\nمکالمه:\nعلی: فردا میای؟\nرضا: کار از کار گذشته.\n\nسؤال:\nرضا چه منظوری داشت؟\n\nگزینه‌ها:\n"
        "الف) دیر شده.\nب) کار تموم شده.\nج) ...\nد) ...\n\nپاسخ: د",
        1,
    ),
    ('{"answer": "ج"}', 2),  # a pick in JSON
    ("الف یا ب", None),  # a hedge
    ("نمی‌دانم.", None),
]
CROSS_REPLIES = [
    ("الف", 0),
    ("ب", 1),
    ("ب) Every cloud has a silver lining.", 1),
    ("It takes two to tango.", 0),
    ("A", 0),
    ("B", 1),
    ("ج", None),  # no such option on a two-option item
    ("د", None),
    ("گزینه ج", None),
    ("پاسخ: د", None),
    ("C", None),
    ("Answer: D", None),
    ("الف\n\nضرب‌المثل فارسی:\nهر که بامش بیش برفش بیشتر.\n\nگزینه‌ها:\nالف) ...\nب) ...\n\nب", 0),
]


@pytest.mark.parametrize("reply, expected", CONTEXTUAL_REPLIES)
def test_contextual_replies(reply, expected):
    assert read_pick(reply, CONTEXTUAL) == expected


@pytest.mark.parametrize("reply, expected", CROSS_REPLIES)
def test_cross_cultural_replies_name_only_the_items_options(reply, expected):
    assert read_pick(reply, CROSS) == expected


def test_the_record_names_the_role_of_the_pick():
    record = TASK.record(CONTEXTUAL, encode_record({"reply": "ب", "answer": "B", "read_by": "rule"}))
    assert record["picked_role"] == "Literal Trap" and record["correct"] == 0 and record["invalid"] == 0
    record = TASK.record(CROSS, encode_record({"reply": "ج", "answer": None, "read_by": None}))
    assert record["picked_role"] is None and record["invalid"] == 1 and record["roles"] == CROSS["roles"]
