"""How MasalBench replies are read (the shared answer grammar over the item's own lettered options).

Labels written before the code ran on them. A two-option (cross-cultural) item has only الف and ب: a reply
naming ج, د, C or D names no option of the item and must be no pick, never a third or fourth option (issue #33).
"""

from __future__ import annotations

import pytest

from lm_eval_persian_culture.tasks.masal.utils import doc_record, read_pick

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
]


@pytest.mark.parametrize("reply, expected", CONTEXTUAL_REPLIES)
def test_contextual_replies(reply, expected):
    assert read_pick(reply, CONTEXTUAL) == expected


@pytest.mark.parametrize("reply, expected", CROSS_REPLIES)
def test_cross_cultural_replies_name_only_the_items_options(reply, expected):
    assert read_pick(reply, CROSS) == expected


def test_a_pick_outside_the_item_is_never_scored_as_a_role():
    # whatever a reader returns, an index the item does not have is an invalid reply, not a pick
    record = doc_record(CROSS, 2, "rule")
    assert record["invalid"] == 1 and record["correct"] == 0 and record["picked_role"] is None
    assert doc_record(CONTEXTUAL, 1)["picked_role"] == "Literal Trap"
