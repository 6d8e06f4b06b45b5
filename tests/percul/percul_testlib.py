"""Shared by the PerCul tests: the fixture data dir, a scripted answer sheet, lm-eval runs.

The answer sheet says which option the scripted model picks for every story in each
language (None = a reply with no readable answer). Replies are rendered in varied realistic
styles (a bare number, "گزینهٔ ۳", the option's text, reasoning then "the answer is 2"), so
the end-to-end tests also go through the shared extractor.
"""

from __future__ import annotations

from pathlib import Path

from tests import scripted_runs

FIXTURES = Path(__file__).resolve().parent / "fixtures"  # holds percul/original_persian.jsonl, ...

# Fixture gold (Correct Choice 1-4 as letters) and categories, in file order.
GOLD = {"1_O_FOO": "A", "2_O_FOO": "B", "3_O_FOO": "C", "4_O_FOO": "D",
        "5_O_RIT": "A", "6_O_RIT": "B", "7_O_RIT": "C",
        "8_O_OBJ": "D", "9_O_OBJ": "B",
        "10_O_MUS": "C"}  # fmt: skip
CATEGORY = {"1_O_FOO": "Foods", "2_O_FOO": "Foods", "3_O_FOO": "Foods", "4_O_FOO": "Foods",
            "5_O_RIT": "Rituals", "6_O_RIT": "Rituals", "7_O_RIT": "Rituals",
            "8_O_OBJ": "Objects", "9_O_OBJ": "Objects", "10_O_MUS": "Music"}  # fmt: skip

# id -> (Persian answer, English answer)
SHEET = {
    "1_O_FOO": ("A", "A"),    # fa right,   en right
    "2_O_FOO": ("B", "C"),    # fa right,   en wrong
    "3_O_FOO": ("C", None),   # fa right,   en unreadable
    "4_O_FOO": ("A", "D"),    # fa wrong,   en right
    "5_O_RIT": ("A", "A"),    # fa right,   en right
    "6_O_RIT": (None, "B"),   # fa unreadable, en right
    "7_O_RIT": ("D", "C"),    # fa wrong,   en right
    "8_O_OBJ": ("D", "A"),    # fa right,   en wrong
    "9_O_OBJ": ("B", "B"),    # fa right,   en right
    "10_O_MUS": ("A", "C"),   # fa wrong,   en right
}  # fmt: skip

FA_DIGIT = {"A": "۱", "B": "۲", "C": "۳", "D": "۴"}
EN_DIGIT = {"A": "1", "B": "2", "C": "3", "D": "4"}
STYLES = {
    "fa": [
        lambda L, text: FA_DIGIT[L],
        lambda L, text: f"با توجه به داستان، گزینهٔ {FA_DIGIT[L]} درست است.",
        lambda L, text: f"به نظر من پاسخ «{text}» است.",
        lambda L, text: f"پاسخ: {FA_DIGIT[L]}",
    ],
    "en": [
        lambda L, text: EN_DIGIT[L],
        lambda L, text: f"The story describes it without naming it, so the answer is {EN_DIGIT[L]}.",
        lambda L, text: f"Option {EN_DIGIT[L]}: {text}",
        lambda L, text: f"The answer is {EN_DIGIT[L]}.",
    ],
}
UNREADABLE = {"fa": "نمی‌دانم؛ هر کدام ممکن است.", "en": "I am not sure which one it is."}


def scripted_reply(doc: dict, prompt: str = "") -> str:
    answer = SHEET[doc["id"]][0 if doc["language"] == "fa" else 1]
    if answer is None:
        return UNREADABLE[doc["language"]]
    n = int(doc["id"].split("_")[0])
    text = doc["options"]["ABCD".index(answer)]
    return STYLES[doc["language"]][n % 4](answer, text)


def task_manager(data_dir: Path = FIXTURES, **metadata):
    return scripted_runs.task_manager(data_dir, **metadata)


def evaluate(tasks, lm=None, metadata=None, data_dir: Path = FIXTURES, **kwargs) -> dict:
    kwargs.setdefault("apply_chat_template", True)
    return scripted_runs.evaluate(tasks, scripted_reply, data_dir, lm=lm, metadata=metadata, **kwargs)


metrics = scripted_runs.metrics
