"""Shared by the DivanBench tests: the fixture data dir, a scripted answer sheet, lm-eval runs.

The answer sheet says, for every (item, system prompt), which answer the scripted model
gives (None = an unreadable reply). Replies are rendered in varied realistic styles,
English and Persian, so the end-to-end tests also exercise extraction.
"""

from __future__ import annotations

from pathlib import Path

from tests import scripted_runs

FIXTURES = Path(__file__).resolve().parent / "fixtures"  # holds divan/{factual,binary,scenario}.jsonl

# Gold answers of the fixture (factual.jsonl, scenario.jsonl, binary.jsonl).
GOLD = {
    "f1": "C", "f2": "A", "f3": "B", "f4": "D",
    "s1": "A", "s2": "C", "s3": "B",
    "b1p": "yes", "b1n": "no", "b2p": "yes", "b2n": "no", "b3p": "yes", "b3n": "no",
}  # fmt: skip

# item -> answers under system prompts 1..5 (None: a reply with no readable answer)
SHEET = {
    # factual: per prompt correct  p1 4/4, p2 3/4, p3 3/4, p4 2/4 (f2 unreadable), p5 4/4
    "f1": ["C", "C", "B", "C", "C"],
    "f2": ["A", "A", "A", None, "A"],
    "f3": ["B", "B", "B", "C", "B"],
    "f4": ["D", "A", "D", "D", "D"],
    # scenario: p1 2/3, p2 2/3, p3 1/3 (s1 unreadable), p4 1/3, p5 3/3
    "s1": ["A", "A", None, "B", "A"],
    "s2": ["C", "D", "C", "C", "C"],
    "s3": ["A", "B", "D", "C", "B"],
    # binary, positive statements (gold yes): p1 3/3, p2 3/3, p3 2/3 (b2p unreadable), p4 3/3, p5 1/3
    "b1p": ["yes", "yes", "yes", "yes", "no"],
    "b2p": ["yes", "yes", None, "yes", "yes"],
    "b3p": ["yes", "yes", "yes", "yes", "no"],
    # binary, negative statements (gold no): p1 1/3, p2 0/3, p3 2/3, p4 1/3, p5 3/3
    "b1n": ["no", "yes", "no", "yes", "no"],
    "b2n": ["yes", "yes", "no", "no", "no"],
    "b3n": ["yes", "yes", "yes", "yes", "no"],
}

FA_LETTER = {"A": "الف", "B": "ب", "C": "ج", "D": "د"}
FA_DIGIT = {"A": "۱", "B": "۲", "C": "۳", "D": "۴"}
MCQ_STYLES = [
    lambda L, text: f"پاسخ: {FA_LETTER[L]}",
    lambda L, text: (
        "Let me think step by step about the custom. Option A and option B are common guesses.\n"
        f"Therefore, the correct option is ({L})."
    ),  # fmt: skip
    lambda L, text: f"با توجه به باورهای سنتی ایرانی، گزینهٔ {FA_DIGIT[L]} درست است.",
    lambda L, text: f"**Answer:** {L}) {text}",
    lambda L, text: f"به نظر من پاسخ درست «{text}» است.",
]
YES_STYLES = [
    "بله، این رفتار با رسوم ایرانی سازگار است.",
    "Yes. In Iran this is what people are expected to do.",
    "در فرهنگ ایرانی این کار نشانهٔ احترام است.\nپاسخ: بله",
    "They acted in accordance with Persian tradition. Answer: Yes",
]
NO_STYLES = [
    "خیر. در فرهنگ ایرانی چنین کاری پسندیده نیست.",
    "No, that goes against Persian custom.",
    "این رفتار با باورهای قدیمی ایرانی جور درنمی‌آید. پاسخ: خیر",
    "Many families would disapprove of this.\n\nFinal answer: No",
]
UNREADABLE = [
    "متأسفم، نمی‌توانم به این پرسش پاسخ دهم.",
    "It depends on the family and the region.",
]


def scripted_reply(doc: dict, prompt: str = "") -> str:
    answer = SHEET[doc["item_id"]][doc["prompt_id"] - 1]
    n = int(doc["prompt_id"]) + sum(map(ord, doc["item_id"]))  # vary the style deterministically
    if answer is None:
        return UNREADABLE[n % len(UNREADABLE)]
    if doc["type"] == "binary":
        styles = YES_STYLES if answer == "yes" else NO_STYLES
        return styles[n % len(styles)]
    text = doc["option_" + answer.lower()]
    return MCQ_STYLES[n % len(MCQ_STYLES)](answer, text)


def task_manager(data_dir: Path = FIXTURES, **metadata):
    return scripted_runs.task_manager(data_dir, **metadata)


def evaluate(tasks, lm=None, metadata=None, data_dir: Path = FIXTURES, **kwargs) -> dict:
    kwargs.setdefault("apply_chat_template", True)
    return scripted_runs.evaluate(tasks, scripted_reply, data_dir, lm=lm, metadata=metadata, **kwargs)


metrics = scripted_runs.metrics
