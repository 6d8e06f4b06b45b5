"""Shapes of a reply around its answer that the answer grammar (``extract.read_option``) reads first: a pick
given as JSON, and a reply that goes on after its answer into an invented next item (a base model repeating
its prompt's shape), which is cut there before it is read."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from functools import lru_cache

from lm_eval_persian_culture.text.persian import normalize

# "Answer: B\n\nQuestion: ...\nAnswer: D": the model went on to invent few-shot questions.
_NEXT_QUESTION = re.compile(r"\n\s*(?:question|پرسش|سوال|سؤال)\s*\d*\s*[:：]", re.I)

# A pick given as JSON: {"answer": "B"}, {"response": 3}, {"choice": 2}, {'option': "C"}, ... (the first key of
# this list that the object has wins, so {"reasoning": "...", "answer": 2} is 2).
_JSON_KEYS = (
    "answer", "final_answer", "final answer", "response", "choice", "option", "pick", "selection", "selected",
    "selected_option", "selected_response", "best_response", "answer_choice", "label",
)  # fmt: skip
_JSON_OBJECT = re.compile(r"\{[^{}]*\}")
_JSON_PAIR = re.compile(
    r"""["'](?P<k>[^"'\n]{1,30})["']\s*:\s*(?P<v>"[^"\n]*"|'[^'\n]*'|[^\s,}"']+)""",
)


def _json_pick(obj: str) -> str | None:
    """The value under the first of the usual pick keys in one ``{...}`` (JSON, or with single quotes)."""
    try:
        decoded = json.loads(obj)
        pairs = list(decoded.items()) if isinstance(decoded, dict) else []
    except ValueError:
        pairs = [(m.group("k"), m.group("v").strip("\"'")) for m in _JSON_PAIR.finditer(obj)]
    found = {str(k).strip().lower(): v for k, v in reversed(pairs)}
    for key in _JSON_KEYS:
        value = found.get(key)
        if isinstance(value, (int, str)) and not isinstance(value, bool) and str(value).strip():
            return str(value).strip()
    return None


def read_json_picks(text: str) -> str:
    """Each JSON object naming a pick replaced by an answer statement ("Final answer: 3.")."""

    def replace(m: re.Match) -> str:
        value = _json_pick(m.group(0))
        return m.group(0) if value is None else f"\nFinal answer: {value}.\n"

    return _JSON_OBJECT.sub(replace, text) if "{" in text else text


@lru_cache(maxsize=64)
def _next_item_pattern(headers: tuple[str, ...]) -> re.Pattern:
    words = "|".join(re.escape(normalize(h, zwnj_to_space=True)) for h in headers)
    return re.compile(rf"\n[ \t]*(?:{words})[ \t]*(?:\d+|[۰-۹]+)?[ \t]*[:：]", re.I)


def cut_at_next_item(text: str, next_item: Sequence[str] = ()) -> str:
    """``text`` up to an invented next item: a line opening with "Question N:" or with one of ``next_item``'s
    headers (an optional number, a colon), or a question line followed by an option list ("(A) ...", "1. ..."),
    when something comes before it ("3\\n\\nConversation 2: ...")."""
    head = _NEXT_QUESTION.split(text, maxsplit=1)[0]
    if head.strip():  # "Answer: B\n\nQuestion: ...\nAnswer: D": the model went on to invent questions
        text = head
    for pattern in (_next_item_pattern(tuple(next_item)) if next_item else None, _NEXT_QUESTION_WITH_OPTIONS):
        head = pattern.split(text, maxsplit=1)[0] if pattern is not None else ""
        if head.strip():
            text = head
    return text


# A new question with its option list after the answer ("C\n\nWhich dish ...?\n\n(A) ...\n(B) ..."): a base
# model repeating a multiple-choice prompt's shape.
_NEXT_QUESTION_WITH_OPTIONS = re.compile(r"\n[^\n]*[?؟][ \t]*\n(?:[ \t]*\n)*(?=[ \t]*[(\[]?(?:A|1|۱|الف)[)\].:])")


__all__ = ["cut_at_next_item", "read_json_picks"]
