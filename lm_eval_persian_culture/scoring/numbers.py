"""Read the number a model chose (e.g. "which response, 1-5?") from a free-text reply.

:func:`extract_number` returns the chosen integer in ``[low, high]`` or ``None``. It reads
bare answers (``3``, ``3.``, ``**3**``, ``(3)``, ``Response 3``, ``#3``, ``Option three``,
``the third one``, ``پاسخ: ۳``), answer statements (``I'd go with response 3``,
``Answer: 3``, ``My choice is 2``, ``Response 4 is the most appropriate``, ``3 best fits``),
and replies that reason over several numbers before concluding.

Rules, in order:

1. ``<think>`` blocks and markdown are dropped, Persian/Arabic-Indic digits become 0-9.
2. A reply that is only a label (``3``, ``Response 3.``) is that label.
3. Otherwise the LAST answer statement wins (a cue such as "I'd go with", "answer:",
   "my choice is", "it's" followed by a label; a label followed by an assertion such as
   "is the most appropriate" / "best fits"; a first or last line that is only a label).
   A statement that hedges (``I'd go with 3 or 4``, ``either 2 or 3 is best``) makes the
   reply unreadable rather than picking one side; a negated one (``response 2 is not the
   best``, ``the answer is not 2``) is no statement.
4. Without any statement: if exactly one value in range is mentioned as a label (bare
   digits, or number words and ordinals next to "response"/"option"), that value; several
   distinct values, or none, give ``None``.

Numbers that are quantities (``5 responses``, ``4 out of 5``, ``2.5``, ``2025``) are not labels.
Bare number words ("one of them") and ordinals ("the first turn") only count next to an
option word or right after an answer cue.
"""

from __future__ import annotations

import re

from lm_eval_persian_culture.text.persian import normalize

_WORDS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5,
    "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
}  # fmt: skip
_ORDINALS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5,
    "sixth": 6, "seventh": 7, "eighth": 8, "ninth": 9, "tenth": 10,
}  # fmt: skip
_TOKEN = (
    r"(?:\d+(?:st|nd|rd|th)?|" + "|".join(_WORDS) + "|" + "|".join(_ORDINALS) + ")"
)
_OPTION_WORD = (
    r"(?:responses?|options?|choices?|answers?|replies|reply|candidates?|numbers?|no\.|\#"
    r"|گزینه(?:\s*ی)?|پاسخ|جواب|شماره)"
)
_NOUN_AFTER = r"(?:\s+(?:one|response|option|choice|answer|reply))"

# A label: optional option word, the number token, optional noun ("the third one").
_MENTION = re.compile(
    rf"(?<![\w.])(?:(?P<opt>{_OPTION_WORD})\s*[:#]?\s*)?(?P<tok>{_TOKEN})(?P<noun>{_NOUN_AFTER})?(?!\w|[.,]\d)",
    re.I,
)
# A quantity, not a label: "5 responses", "4 out of 5", "3 times", "50%".
_QUANTITY_AFTER = re.compile(
    r"\s*(?:%|percent|(?:out\s+of|of|times|years?|people|persons|annotators|responses|options|choices|"
    r"countries|cultures|points?|stars?|turns|words|sentences|minutes|hours|days)(?!\w))",
    re.I,
)
_QUANTITY_BEFORE = re.compile(r"(?<!\w)(?:of|out\s+of|scale\s+(?:of|from))\s*$", re.I)

# Answer cues: the label right after one (and a few filler words) is the model's answer.
_PREFIX_CUE = re.compile(
    r"""(?<!\w)(?:
        (?:the\s+|my\s+|final\s+)?answer
      | i(?:\s+would|\s+will|\s+'d|'d|’d|'ll|’ll)?(?:\s+(?:definitely|probably|personally))?\s+(?:go\s+with|choose|pick|select|opt\s+for|recommend|say)
      | (?:my\s+|the\s+)?(?:choice|pick|selection|recommendation)
      | (?:the\s+)?(?:best|most\s+(?:culturally\s+)?(?:appropriate|suitable|fitting|fitting)|correct|right|ideal)\s+(?:response|option|choice|answer|fit|match|one|pick)(?:\s+(?:here|overall))?
      | it(?:'s|’s|\s+is|\s+would\s+be|\s+has\s+to\s+be|\s+must\s+be|\s+should\s+be)
      | (?:going|go)\s+with | (?:so|thus|therefore|hence|overall|ultimately|finally|in\s+conclusion)(?=\s*[,:]?\s*(?:response|option|choice|number|\#|\d))
      | selected | chosen
      | پاسخ | جواب | انتخاب\s+من | گزینه\s*(?:ی\s*)?(?:مناسب|درست|صحیح)
    )(?!\w)""",
    re.X | re.I,
)
_FILLER = re.compile(
    r"""(?:[\s:=\-–—>→"'“”‘’(\[]+
      | (?:is|would\s+be|will\s+be|should\s+be|be|here|then|clearly|definitely|probably|likely|most\s+likely|
           the|with|for|that|this|as|است|هست)(?!\w)
    )""",
    re.X | re.I,
)
# A label followed by one of these is asserted as the answer.
_ASSERTION_AFTER = re.compile(
    r"""\s*[)\]"'”’]?\s*[:,\-–—]?\s*(?:
        (?:is|would\s+be|seems(?:\s+to\s+be)?|appears\s+to\s+be|remains|feels\s+like)\s+
            (?:still\s+|clearly\s+|probably\s+|likely\s+|definitely\s+)?(?:the\s+|my\s+)?
            (?:most|best|better|correct|right|ideal|optimal|strongest|answer|choice|pick
               |more\s+(?:appropriate|suitable|fitting|natural|polite|acceptable))(?!\w)
      | (?:best|most\s+closely|most\s+accurately)\s+(?:fits|reflects|matches|captures|aligns|suits|represents)(?!\w)
      | (?:fits|works|matches)\s+best(?!\w)
      | (?:درست|صحیح|مناسب\s*تر|مناسب\s+ترین)
    )""",
    re.X | re.I,
)
# A label followed by one of these is rejected ("response 1 is too direct", "2 isn't right").
_NEGATION_AFTER = re.compile(
    r"""\s*[)\]"'”’]?\s*[:,\-–—]?\s*(?:
        (?:is|would\s+be|seems|feels|sounds)\s+(?:not|too|overly|less|far\s+too|a\s+bit\s+too|rather
           |(?:the\s+)?(?:least|worst))(?!\w)
      | (?:isn['’]t|wouldn['’]t|doesn['’]t|does\s+not|is\s+not)(?!\w)
    )""",
    re.X | re.I,
)
_NEGATION_BEFORE = re.compile(r"(?:(?<!\w)(?:not|rather\s+than|instead\s+of|except|than)\s*)$", re.I)
# Two labels joined like this after a cue make the statement a hedge: "3 or 4", "2/3", "2-3".
_HEDGE_AFTER = re.compile(rf"\s*(?:or|/|-|–|—|to|and|&|,\s*or)\s*(?:{_OPTION_WORD}\s*)?{_TOKEN}(?!\w)", re.I)
_HEDGE_BEFORE = re.compile(
    rf"(?:(?<!\w)either\s+(?:{_OPTION_WORD}\s*)?|{_TOKEN}\s*(?:or|/|-|–|to|and|&)\s*)(?:{_OPTION_WORD}\s*)?$",
    re.I,
)
_BARE = re.compile(
    rf"""[\s(\[*"'`]*(?:(?:final\s+)?answer\s*[:\-]?\s*)?(?:(?P<opt>{_OPTION_WORD})\s*[:#]?\s*)?
        (?P<tok>{_TOKEN})(?P<noun>{_NOUN_AFTER})?[\s)\].:!"'`*]*""",
    re.X | re.I,
)
_THINK_BLOCK = re.compile(r"<think>.*?</think>", re.S | re.I)
_MARKDOWN = re.compile(r"\*\*|__|`+|^#+\s*|^>\s*|(?<!\w)\*|\*(?!\w)|(?<=\w)\*(?=\w)", re.M)


def _prepare(reply: str | None) -> str:
    if not reply:
        return ""
    text = _THINK_BLOCK.sub(" ", reply)
    if re.search(r"<think>", text, re.I):  # reasoning never closed: no answer was given
        text = text[: re.search(r"<think>", text, re.I).start()]
    text = text.replace("</think>", " ")
    text = normalize(text, zwnj_to_space=True)
    text = _MARKDOWN.sub("", text)
    return text.replace("’", "'").replace("：", ":")


def _token_value(tok: str) -> int:
    tok = tok.lower()
    if tok in _WORDS:
        return _WORDS[tok]
    if tok in _ORDINALS:
        return _ORDINALS[tok]
    return int(re.match(r"\d+", tok).group(0))


def _is_word_or_ordinal(tok: str) -> bool:
    return not tok[0].isdigit()


def _label_ok(m: re.Match, text: str, *, after_cue: bool) -> bool:
    """Is this token a label (an option number) rather than a quantity or a pronoun?"""
    tok, opt, noun = m.group("tok"), m.group("opt"), m.group("noun")
    if tok[0].isdigit():
        if len(tok) > 1 and tok[-2:].isalpha() and not (opt or noun or after_cue):
            return False  # "3rd" alone
        if not opt and (_QUANTITY_AFTER.match(text, m.end()) or _QUANTITY_BEFORE.search(text, 0, m.start())):
            return False
        return True
    if tok.lower() in _ORDINALS:
        return bool(noun) or after_cue and not re.match(r"\s+turn", text[m.end():], re.I)
    # number word: "option three", or right after a cue ("I'd go with three"), never "one of them"
    if opt or after_cue:
        return not re.match(r"\s+(?:of|that|which|who)(?!\w)", text[m.end():], re.I)
    return False


def _label_after_cue(text: str, pos: int) -> re.Match | None:
    """The label a cue introduces, skipping filler words ("answer is response 3")."""
    for _ in range(8):
        filler = _FILLER.match(text, pos)
        if not filler or filler.end() == pos:
            break
        pos = filler.end()
    m = _MENTION.match(text, pos)
    if m and _label_ok(m, text, after_cue=True):
        return m
    return None


_AMBIGUOUS = object()


def _statements(text: str) -> list[tuple[int, object]]:
    """(position, value or _AMBIGUOUS) for every answer statement."""
    found: list[tuple[int, object]] = []
    for cue in _PREFIX_CUE.finditer(text):
        if _NEGATION_BEFORE.search(text, 0, cue.start()):
            continue
        m = _label_after_cue(text, cue.end())
        if m is None or _NEGATION_AFTER.match(text, m.end()):
            continue
        value: object = _token_value(m.group("tok"))
        if _HEDGE_AFTER.match(text, m.end()):
            value = _AMBIGUOUS
        found.append((m.start(), value))
    for m in _MENTION.finditer(text):
        if not _label_ok(m, text, after_cue=False) or not _ASSERTION_AFTER.match(text, m.end()):
            continue
        if _NEGATION_BEFORE.search(text, 0, m.start()):
            continue
        value = _AMBIGUOUS if _HEDGE_BEFORE.search(text, 0, m.start()) else _token_value(m.group("tok"))
        found.append((m.start(), value))
    lines = [(i, line) for i, line in _line_starts(text) if line.strip()]
    if len(lines) > 1:  # a first or last line that is only a label ("3\n\nExplanation: ...")
        for start, line in (lines[0], lines[-1]):
            bare = _BARE.fullmatch(line)
            if bare and (bare.group("opt") or bare.group("noun") or not _is_word_or_ordinal(bare.group("tok"))):
                found.append((start + bare.start("tok"), _token_value(bare.group("tok"))))
    return found


def _line_starts(text: str):
    pos = 0
    for line in text.split("\n"):
        yield pos, line
        pos += len(line) + 1


def extract_number(reply: str | None, low: int = 1, high: int = 5) -> int | None:
    """The integer in ``[low, high]`` the reply chose, or ``None`` (no answer, a hedge, out of range)."""
    text = _prepare(reply)
    # an echo of the instruction's range ("a number (1-5)") names no pick
    text = re.sub(rf"(?<![\w.]){low}\s*(?:-|–|to)\s*{high}(?![\w.])", " ", text)
    if not text.strip():
        return None
    bare = _BARE.fullmatch(text)
    if bare and (bare.group("opt") or bare.group("noun") or not _is_word_or_ordinal(bare.group("tok"))
                 or bare.group("tok").lower() in _WORDS):  # fmt: skip
        value = _token_value(bare.group("tok"))
        return value if low <= value <= high else None
    statements = _statements(text)
    if statements:
        _, value = max(statements, key=lambda s: s[0])
        if value is _AMBIGUOUS or not (low <= value <= high):
            return None
        return value
    values = set()
    for m in _MENTION.finditer(text):
        if not _label_ok(m, text, after_cue=False):
            continue
        if _NEGATION_AFTER.match(text, m.end()) or _NEGATION_BEFORE.search(text, 0, m.start()):
            continue
        values.add(_token_value(m.group("tok")))
    in_range = {v for v in values if low <= v <= high}
    if len(values) == 1 and in_range:
        return in_range.pop()
    return None


__all__ = ["extract_number"]
