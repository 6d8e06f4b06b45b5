"""Shared by the MasalBench tests: the fixture data dir, the scripted model's replies and the figures they
give, worked out by hand before the code ran on them.

The fixture items are the project's own (fixtures/README.md lists each option's role). REPLIES is what the
scripted model answers to each item; EXPECTED the metrics those replies must give.
"""

from __future__ import annotations

from pathlib import Path

from tests import scripted_runs

FIXTURES = Path(__file__).resolve().parent / "fixtures"  # holds masal/{contextual,crossCultural}Questions.csv

# doc id -> the scripted reply, and (in the comment) the option the reply picks and that option's role
REPLIES = {
    "contextual-0000": "الف",  # الف: Correct
    "contextual-0001": "الف) کاری که محکم ساخته بشه هیچ‌وقت خراب نمی‌شه.",  # الف: Literal Trap
    "contextual-0002": "پاسخ: ج",  # ج: Literal Trap
    "contextual-0003": "گزینه الف",  # الف: Plausible but Wrong
    "contextual-0004": "نمی‌دانم؛ شاید الف، شاید هم ب.",  # a hedge: no pick (invalid)
    "contextual-0005": "الف",  # الف: Irrelevant (this item has no literal trap)
    "contextual-0006": "د",  # د: Correct
    "cross_cultural-0000": "الف",  # الف: Equivalent
    "cross_cultural-0001": "الف",  # الف: Irrelevant
    "cross_cultural-0002": "Don't count your chickens before they hatch.",  # the text of الف: Equivalent
    "cross_cultural-0003": "I am not sure.",  # no pick (invalid)
}

# By hand, from the roles in fixtures/README.md and the picks above:
# contextual, 7 items: correct c0, c6 -> accuracy 2/7.
#   Literal trap: the 6 items that have one (all but c5); picked in c1, c2 -> literal_trap_rate 2/6.
#   Plausible but Wrong: all 7 items have one; picked in c3 -> 1/7. Irrelevant: all 7; picked in c5 -> 1/7.
#   Invalid: c4 -> 1/7. (2 + 2 + 1 + 1 + 1 = 7 picks and non-picks: every item counted once.)
# cross-cultural, 4 items: correct x0, x2 -> 2/4; Irrelevant (all 4 have one) picked in x1 -> 1/4; invalid x3 -> 1/4.
EXPECTED = {
    "masal_contextual": {
        "accuracy": 2 / 7,
        "literal_trap_rate": 2 / 6,
        "plausible_wrong_rate": 1 / 7,
        "irrelevant_rate": 1 / 7,
        "invalid_rate": 1 / 7,
        "llm_extracted_rate": 0.0,
        "llm_extractor_errors": 0,  # no judge configured: the extractor is never asked
    },
    "masal_cross_cultural": {
        "accuracy": 2 / 4,
        "irrelevant_rate": 1 / 4,
        "invalid_rate": 1 / 4,
        "llm_extracted_rate": 0.0,
        "llm_extractor_errors": 0,  # no judge configured: the extractor is never asked
    },
}


def scripted_reply(doc: dict, prompt: str = "") -> str:
    return REPLIES[doc["id"]]


def evaluate(tasks, lm=None, metadata=None, data_dir: Path = FIXTURES, **kwargs) -> dict:
    return scripted_runs.evaluate(tasks, scripted_reply, data_dir, lm=lm, metadata=metadata, **kwargs)


metrics = scripted_runs.metrics  # plain task names or lm-eval 0.5's group::task
