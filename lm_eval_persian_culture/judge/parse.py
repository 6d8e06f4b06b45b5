"""Reading a Yes/No verdict out of a judge's free-text answer.

Judges are asked to "Answer only with Yes or No." but decorate anyway (``**Yes**``, ``Answer: No.``,
a reasoning model's ``<think>`` block, Persian replies). Only the start of the answer counts, and
anything that is not clearly Yes or No is None, so it is reported as unparseable instead of being
silently scored as "No".
"""

from __future__ import annotations

import re

# Reasoning models served by vLLM/Ollama (Qwen3, DeepSeek-R1) may prepend their thoughts.
_THINK = re.compile(r"^\s*<think>.*?</think>", re.S | re.I)
# Whitespace, quotes, markdown emphasis/headings/quotes/bullets, opening brackets.
_JUNK = re.compile(r"^[\s\"'`“”‘’«»*_#>~(\[\-•]+")
_LABEL = re.compile(
    r"^(?:final\s+)?(?:answer|verdict|judg(?:e)?ment|response|decision|output|پاسخ|جواب)\s*[:：\-–—]",
    re.I,
)
_NOT_WORD_END = r"(?![\w\u200c]|-\w)"  # ZWNJ joins Persian words: نه‌تنها ("not only") is not "No"
_ANSWER = re.compile(
    rf"^(?:(?P<yes>yes|بله|بلی|آره)|(?P<no>no|nope|خیر|نخیر|نه)){_NOT_WORD_END}",
    re.I,
)
_BOTH = re.compile(rf"^\W*(?:and|or|/)\W*(?:yes|no){_NOT_WORD_END}", re.I)  # "Yes and no", "Yes/No"
_ARABIC_TO_PERSIAN = str.maketrans({"ي": "ی", "ك": "ک", "ى": "ی"})


def _strip_junk(text: str) -> str:
    return _JUNK.sub("", text)


def parse_yes_no(text: str | None) -> bool | None:
    """True for Yes/بله, False for No/خیر, None when the answer does not start with a clear verdict."""
    if not text:
        return None
    rest = _strip_junk(_THINK.sub("", text).translate(_ARABIC_TO_PERSIAN))
    labelled = _LABEL.match(rest)
    if labelled:
        rest = _strip_junk(rest[labelled.end() :])
    match = _ANSWER.match(rest)
    if match is None or _BOTH.match(rest[match.end() :]):
        return None
    return match.group("yes") is not None
