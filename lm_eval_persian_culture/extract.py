"""Deterministic answer extraction from free-text replies, in English and Persian.

DivanBench's paper let GPT-4o-mini read which option (A-D) or which verdict (yes/no) a
model chose. These functions do the same job with rules, so scores do not depend on a
paid model; replies the rules cannot read return ``None`` (counted as invalid, and handed
to the optional LLM extractor when one is configured).

:func:`extract_choice` understands ``Answer: B``, ``The correct option is (C)``,
``پاسخ: ب``, ``گزینهٔ ۲``, ``گزینه سوم``, ``C) Pomegranate``, the option's own text, and
reasoning before the answer. :func:`extract_yes_no` understands Yes/No, بله/آره/درست and
خیر/نه/نادرست, an answer after reasoning, and common verdict phrases ("they did not act
according to Persian tradition", "مطابق رسوم ایرانی رفتار کردند").

Principles:

* the LAST explicit answer statement wins over letters mentioned while reasoning;
* a negated statement ("the answer is not A", "گزینه الف نادرست است") never counts, and
  excludes that label from earlier statements ("... A. Actually not A, it is B" -> B);
* a lone ``a`` is the English article, never option A, unless written as a label
  (``(a)``, ``a)``, ``answer: a.``); a capital letter counts as a mention only when
  formatted as a label (``(C)``, ``C)``, ``C.`` at a line start), so "vitamin C" is not C;
* ambiguous replies (several options, "yes and no", refusals) give ``None``.
"""

from __future__ import annotations

import re
from typing import Mapping, Sequence

from lm_eval_persian_culture.persian import normalize

LETTERS = ("A", "B", "C", "D")
PERSIAN_LETTERS = {"الف": "A", "ب": "B", "ج": "C", "د": "D"}
_ORDINALS = {
    # Persian: after گزینه ("گزینه سوم", "گزینه‌ی دو") or before it ("سومین گزینه")
    "اول": "A", "یکم": "A", "نخست": "A", "یک": "A", "اولین": "A", "نخستین": "A",
    "دوم": "B", "دو": "B", "دومین": "B",
    "سوم": "C", "سه": "C", "سومین": "C",
    "چهارم": "D", "چهار": "D", "چهارمین": "D",
    # English: "option two", "the third option"
    "first": "A", "one": "A", "second": "B", "two": "B",
    "third": "C", "three": "C", "fourth": "D", "four": "D",
}  # fmt: skip

# --------------------------------------------------------------------------- preparation
_THINK = re.compile(r"<think>.*?</think>", re.S | re.I)
_MARKDOWN = re.compile(r"\*\*|__|`+|^#+\s*|^>\s*|\*", re.M)


def _prepare(reply: str | None) -> str:
    """Reasoning blocks dropped, Persian normalised (ZWNJ as space), markdown removed."""
    if not reply:
        return ""
    text = _THINK.sub(" ", reply)
    text = text.replace("<think>", " ").replace("</think>", " ")
    text = normalize(text, zwnj_to_space=True)
    text = _MARKDOWN.sub("", text)
    return text.replace("：", ":").replace("“", '"').replace("”", '"')


# Words that end a clause for the purpose of negation checks.
_CLAUSE_END = re.compile(
    r"[.،,;؛:!?؟\n(—–]|\s-\s|(?<!\w)(?:because|since|as|which|that|but|while|whereas|زیرا|چون|چرا که|اما|ولی|بلکه|که|در حالی که)(?!\w)",
    re.I,
)
# English negation right after a label: "A is not ...", "A isn't", "(A) is wrong".
_NEG_EN = re.compile(
    r"[\s).\]]*(?:(?:is|was|are|would\s+be|seems(?:\s+to\s+be)?)\s+)?(?:definitely\s+|clearly\s+)?"
    r"(?:not|never|incorrect|wrong|false|isn't|wasn't|isn’t|a\s+distractor|ruled\s+out|eliminated)(?!\w)",
    re.I,
)
# Persian negation anywhere in the clause after a label (the verb comes last): "الف نادرست است".
_NEG_FA = re.compile(r"(?<!\w)(?:نیست|نیستند|نبود|نمی باشد|نادرست|غلط|اشتباه|رد می شود|رد میشود|منتفی)(?!\w)")


def _clause(text: str, start: int) -> str:
    m = _CLAUSE_END.search(text, start)
    return text[start : m.start() if m else len(text)]


def _negated_after(text: str, end: int) -> bool:
    return bool(_NEG_EN.match(text, end) or _NEG_FA.search(_clause(text, end)))


# --------------------------------------------------------------------------- choices
_LABEL_BODY = r"(?:[A-D]|الف|ب|ج|د)"
# A label right at a position (after an answer cue and filler words).
_LABEL_AT = re.compile(
    r"""[(\[«"'‘]?\s*
    (?:
        (?P<upper>[A-D])(?![\w'’])                       # B    (not "An", "A's")
      | (?P<lower>[a-d])(?=\s*[)\]]|\s*[.:,;]?\s*(?:$|\n)) # b)  b.  (not the article "a")
      | (?P<fa>الف|ب|ج|د)(?!\w)                          # ب
      | (?P<digit>[1-4])(?!\w|[.,]\d)                    # 2   (not "2.5", "3rd", "3 times" below)
      | (?P<ordinal>[^\W\d_]+)                           # سوم / third
    )""",
    re.X,
)
_DIGIT_WORD_AFTER = re.compile(r"\s*[^\W\d_]")  # "3 times": a bare digit followed by a word

# Answer statements: the label that follows one of these is the model's answer.
_CHOICE_CUES = re.compile(
    r"""(?<!\w)(?:
        final\s+answer | (?:correct|right|best|most\s+appropriate)\s+(?:answer|option|choice)
      | (?:the\s+|my\s+)?answer | i(?:\s+would|\s+will|'d|’d)?\s+(?:choose|pick|select|go\s+with)
      | it\s+(?:is|must\s+be|would\s+be)|it['’]s | rather | instead | but
      | پاسخ | جواب | گزینه\s+(?:ی\s+)?(?:صحیح|درست|مناسب|مورد\s+نظر|نهایی) | انتخاب\s+من
      | بنابراین | در\s+نتیجه | پس | بلکه | من\s+گزینه
    )(?!\w)""",
    re.X | re.I,
)
# Words allowed between a cue and its label ("The answer is most likely option (C)").
_CHOICE_FILLER = re.compile(
    r"""(?:is|was|would|will|should|be|the|then|therefore|thus|so|definitely|clearly|probably|likely|most|
        surely|correct|right|option|choice|letter|number|final|here|go|with|to|this|question
      | است|هست|گزینه|ی|همان|یعنی|شماره|مورد|درست|صحیح|نهایی|من|را|سوال|این|به|نظر|می رسد|قطعا|احتمالا)(?!\w)""",
    re.X | re.I,
)
_NEGATION_WORD = re.compile(r"(?:not|نه|never)(?!\w)", re.I)
_SKIP = re.compile(r"""[\s:：\-–—=→>"'«»‘’“”,،]+""")
_MAX_FILLERS = 6
# "cannot answer", "نمی توانم پاسخ" before a cue: not an answer statement.
_REFUSAL_BEFORE = re.compile(r"(?:cannot|can't|can’t|unable\s+to|not|نمی\s*توانم|نمیتوانم)\s*$", re.I)

# Label mentions outside answer statements; they need label formatting.
_MENTION = re.compile(
    r"""\(\s*(?P<p>[A-Da-d]|الف|ب|ج|د|[1-4])\s*\)                # (B)  (ب)  (2)
      | (?<![\w(])(?P<q>[A-D]|الف|ب|ج|د)\s*\)                     # B)   ب)
      | ^[ \t\-•]*(?P<r>[A-D]|الف|ب|ج|د)\s*[.:\-–](?=\s|$)         # "B." / "ب -" at a line start
      | «\s*(?P<s>[A-D]|الف|ب|ج|د)\s*»                            # «ب»
      | (?<!\w)(?:option|choice|گزینه)\s+(?:ی\s+)?(?P<t>[A-D]|الف|ب|ج|د|[1-4]|[^\W\d_]+)(?!\w)  # option B / گزینه ۲
      | (?<!\w)(?P<u>[^\W\d_]+)\s+(?:option|choice|گزینه)(?!\w)   # third option / سومین گزینه
    """,
    re.X | re.M | re.I,
)
# A mention followed by an assertion is an answer statement ("(C) is correct", "ج درست است").
_ASSERTED = re.compile(
    r"""\s*[).:]?\s*(?:
        (?:is|seems|would\s+be)\s+(?:the\s+)?(?:correct|right|true)(?!\w)
      | is\s+the\s+(?:best|correct|right)\s+(?:answer|option|choice)
      | (?:درست|صحیح|پاسخ\s+درست|پاسخ\s+صحیح|جواب\s+درست|جواب\s+صحیح|پاسخ)\s+(?:است|هست|می\s+باشد)
    )""",
    re.X | re.I,
)
_BARE_LABEL = re.compile(r"""^[\s(\[«"'*]*(?:option|choice|گزینه\s*(?:ی)?)?\s*(?P<l>[A-Da-d]|الف|ب|ج|د|[1-4])[\s)\]».:"'*]*$""", re.I)  # fmt: skip


def _label_value(token: str, *, ordinal_ok: bool) -> str | None:
    if token.upper() in LETTERS and len(token) == 1:
        return token.upper()
    if token in PERSIAN_LETTERS:
        return PERSIAN_LETTERS[token]
    if token in ("1", "2", "3", "4"):
        return LETTERS[int(token) - 1]
    if ordinal_ok:
        return _ORDINALS.get(token.lower())
    return None


def _label_at(text: str, pos: int, *, after_option_word: bool) -> tuple[str, int] | None:
    m = _LABEL_AT.match(text, pos)
    if not m:
        return None
    kind = m.lastgroup
    token = m.group(kind)
    if kind == "digit" and not after_option_word and _DIGIT_WORD_AFTER.match(text, m.end()):
        return None  # "the answer is 3 times a day": a number, not option 3
    if kind == "ordinal" and not after_option_word:
        return None
    value = _label_value(token, ordinal_ok=kind == "ordinal")
    if value is None:
        return None
    end = m.end()
    close = re.match(r"\s*[)\]»\"'’]", text[end:])
    return value, end + (close.end() if close else 0)


class _OptionMatcher:
    """Finds option texts in a reply (word-bounded, longest match wins)."""

    def __init__(self, options: Sequence[str] | Mapping[str, str] | None) -> None:
        if isinstance(options, Mapping):
            options = [options.get(k, "") for k in LETTERS]
        self.patterns: list[tuple[str, re.Pattern]] = []
        for letter, text in zip(LETTERS, options or ()):
            norm = normalize(str(text or ""), zwnj_to_space=True).strip(" .،,;؛:!?؟\"'«»()")
            if len(norm) < 2:
                continue
            body = r"\s+".join(re.escape(w) for w in norm.split())
            self.patterns.append((letter, re.compile(rf"(?<!\w){body}(?!\w)", re.I)))

    def at(self, text: str, pos: int) -> tuple[str, int] | None:
        best = None
        for letter, pat in self.patterns:
            m = pat.match(text, pos)
            if m and (best is None or m.end() > best[1]):
                best = (letter, m.end())
        return best

    def found(self, text: str) -> set[str]:
        spans = [(m.start(), m.end(), letter) for letter, pat in self.patterns for m in pat.finditer(text)]
        kept = {
            letter
            for s, e, letter in spans
            if not any(s2 <= s and e <= e2 and (e2 - s2) > (e - s) for s2, e2, _ in spans)
        }
        return kept


def _choice_after_cue(text: str, pos: int, options: _OptionMatcher) -> tuple[str, int, bool] | None:
    """Parse fillers then a label (or an option's text) after a cue: (label, end, negated)."""
    negated = False
    after_option_word = False
    for _ in range(_MAX_FILLERS + 1):
        skip = _SKIP.match(text, pos)
        if skip:
            pos = skip.end()
        label = _label_at(text, pos, after_option_word=after_option_word)
        if label is None:
            hit = options.at(text, pos)
            if hit is not None:
                label = hit
        if label is not None:
            return label[0], label[1], negated
        neg = _NEGATION_WORD.match(text, pos)
        if neg:
            negated = True
            pos = neg.end()
            continue
        filler = _CHOICE_FILLER.match(text, pos)
        if not filler:
            return None
        after_option_word = after_option_word or filler.group(0).lower() in ("option", "choice", "گزینه", "number", "شماره")
        pos = filler.end()
    return None


def extract_choice(reply: str | None, options: Sequence[str] | Mapping[str, str] | None = None) -> str | None:
    """The option ("A".."D") a free-text reply chose, or None when no single choice is stated.

    ``options`` (four texts in A-D order, or a mapping ``{"A": text, ...}``) lets the reply
    name an option by its text ("The answer is pomegranate", "پاسخ: انار").
    """
    text = _prepare(reply)
    if not text:
        return None
    bare = _BARE_LABEL.match(text)
    if bare:
        return _label_value(bare.group("l"), ordinal_ok=False)
    matcher = _OptionMatcher(options)

    # (position, label, negated) of answer statements
    statements: list[tuple[int, str, bool]] = []
    for cue in _CHOICE_CUES.finditer(text):
        if _REFUSAL_BEFORE.search(text[max(0, cue.start() - 20) : cue.start()]):
            continue
        found = _choice_after_cue(text, cue.end(), matcher)
        if found is None:
            continue
        label, end, negated = found
        statements.append((cue.start(), label, negated or _negated_after(text, end)))

    mentions: list[tuple[int, str, bool]] = []
    for m in _MENTION.finditer(text):
        group = m.lastgroup
        token = m.group(group)
        value = _label_value(token, ordinal_ok=group in ("t", "u"))
        if value is None:
            continue
        if _ASSERTED.match(text, m.end()):
            statements.append((m.start(), value, _negated_after(text, m.end())))
        else:
            mentions.append((m.start(), value, _negated_after(text, m.end())))
    # A capital letter or Persian letter followed by an assertion ("C is correct").
    for m in re.finditer(rf"(?<!\w){_LABEL_BODY}(?!\w)", text):
        if _ASSERTED.match(text, m.end()):
            value = _label_value(m.group(0), ordinal_ok=False)
            if value and not _negated_after(text, m.end()):
                statements.append((m.start(), value, False))

    excluded: set[str] = set()
    for _, label, negated in sorted(statements, key=lambda s: s[0], reverse=True):
        if negated:
            excluded.add(label)
        elif label not in excluded:
            return label

    for _, label, negated in mentions:
        if negated:
            excluded.add(label)
    labels = {label for _, label, negated in mentions if not negated and label not in excluded}
    if len(labels) == 1:
        return labels.pop()
    if labels:
        return None

    texts = matcher.found(text) - excluded
    if len(texts) == 1:
        return texts.pop()
    return None


# --------------------------------------------------------------------------- yes / no
_NOT_AN_ANSWER = re.compile(
    r"(?<!\w)(?:yes\s*(?:or|/)\s*no|no\s*(?:or|/)\s*yes|بله\s*(?:یا|/)\s*(?:خیر|نه)|آره\s*(?:یا|/)\s*نه|آری\s*یا\s*نه|"
    r"با\s+(?:بله|آره)|با\s+(?:خیر|نه)(?=\s+پاسخ))(?!\w)",
    re.I,
)
_ADJ_END = r"(?=\s*(?:[.!،,;؛:)\]»\"'\n]|$))"  # a verdict adjective must end its phrase
_YN_AT = re.compile(
    rf"""[(\["'«‘]?\s*(?:
        (?P<no_adj>(?:درست|صحیح)\s+نیست|نادرست|غلط|اشتباه|منفی|incorrect|false|wrong|not\s+correct|not\s+true)
            (?:\s+(?:است|هست|بود))?{_ADJ_END}
      | (?P<no_adv>(?:absolutely|definitely|certainly)\s+not|not\s+at\s+all|by\s+no\s+means|به\s+هیچ\s+وجه|(?:قطعا|مسلما|اصلا)\s+(?:نه|خیر)){_ADJ_END}
      | (?P<yes_adj>درست|صحیح|مثبت|correct|true|right)(?:\s+(?:است|هست|بود))?{_ADJ_END}
      | (?P<yes_adv>absolutely|definitely|certainly|of\s+course|indeed|البته|قطعا|مسلما|حتما){_ADJ_END}
      | (?P<yes>yes|yeah|yep|yup|بله|بلی|آره|آری)(?!\w)
      | (?P<no>no|nope|nah|خیر|نخیر|نه)(?!\w)(?!\s+(?:one|longer|matter|doubt|need|تنها|فقط)(?!\w))
    )""",
    re.X | re.I,
)
_YN_BOTH = re.compile(r"\s*[,،]?\s*(?:and|or|/|&|و|یا)\s*(?:yes|no|بله|خیر|نه|آره)(?!\w)", re.I)
_YN_CONCESSIVE = re.compile(r"\s*(?:[,،]\s*)?(?:but|however|although|اما|ولی|که|that)(?!\w)", re.I)
_YN_CUES = re.compile(
    r"""(?<!\w)(?:
        final\s+answer | (?:the\s+|my\s+|short\s+)?answer | verdict | in\s+conclusion | conclusion | in\s+short
      | to\s+summari[sz]e | overall | so | therefore | thus | hence
      | پاسخ(?:\s+(?:نهایی|من|کوتاه))? | جواب(?:\s+(?:نهایی|من))? | نتیجه(?:\s+گیری)? | در\s+نتیجه | بنابراین | پس
      | خلاصه | به\s+طور\s+خلاصه | در\s+کل
    )(?!\w)""",
    re.X | re.I,
)
_YN_FILLER = re.compile(
    r"(?:is|would|be|definitely|clearly|simply|certainly|then|the|اینکه|این|است|هست|من|قطعا|مسلما|کوتاه)(?!\w)", re.I
)
_SENTENCE_START = re.compile(r"(?:^|(?<=[.!?؟;؛\n]))[\s\-•]*")

_TRADITION_FA = r"(?:رسوم|رسم|سنت|سنت ها|آداب|فرهنگ|عرف|باور|باورهای)"
_TRADITION_EN = r"(?:(?:persian|iranian)\s+)?(?:tradition|traditions|custom|customs|etiquette|norms?|culture)"
_VERDICTS = [
    # (pattern, polarity); a "not"/"n't"/"never" just before flips the polarity
    (re.compile(r"(?<!\w)(?:did\s+not|didn't|didn’t|does\s+not|doesn't|do\s+not|don't)\s+(?:act|behave|follow|respect|observe)", re.I), False),  # fmt: skip
    (re.compile(r"(?<!\w)(?:acted|act|behaved|behave)\s+(?:\w+\s+)?(?:according|in\s+accordance|in\s+line|consistently)\s+(?:to|with)", re.I), True),  # fmt: skip
    (re.compile(rf"(?<!\w)(?:follows?|followed|(?:is|was|are|were)\s+(?:consistent|in\s+line|in\s+keeping|in\s+accordance)\s+with|aligns?\s+with|respects?|respected|upholds?|observes?|observed)\s+(?:the\s+|a\s+)?{_TRADITION_EN}", re.I), True),  # fmt: skip
    (re.compile(rf"(?<!\w)(?:violates?|violated|goes\s+against|went\s+against|against|contrary\s+to|breaks?|broke|disregards?|disregarded)\s+(?:the\s+|a\s+)?{_TRADITION_EN}", re.I), False),  # fmt: skip
    (re.compile(r"(?<!\w)(?:درست|به\s+درستی|صحیح|مناسب)\s+(?:رفتار|عمل)\s+(?:کرده|کرد|کردند|کرده\s+اند)(?!\w)"), True),
    (re.compile(r"(?<!\w)(?:درست|به\s+درستی|صحیح|مناسب)\s+(?:رفتار|عمل)\s+(?:نکرده|نکرد|نکردند|نکرده\s+اند)(?!\w)"), False),
    (re.compile(rf"(?<!\w){_TRADITION_FA}\D{{0,40}}?(?:را\s+)?رعایت\s+(?:کرده|کرد|کردند|شده|می\s+کنند)(?!\w)"), True),
    (re.compile(rf"(?<!\w){_TRADITION_FA}\D{{0,40}}?(?:را\s+)?رعایت\s+(?:نکرده|نکرد|نکردند|نشده|نمی\s+کنند)(?!\w)"), False),
    (re.compile(rf"(?<!\w)(?:برخلاف|خلاف|مغایر\s+با|در\s+تضاد\s+با|ناسازگار\s+با)\s+{_TRADITION_FA}"), False),
]
_FA_AGREEMENT = re.compile(rf"(?<!\w)(?:مطابق|طبق|منطبق\s+(?:با|بر)|موافق|سازگار\s+با|هماهنگ\s+با)\s+(?:با\s+)?{_TRADITION_FA}")
_FA_NEG_VERB = re.compile(r"(?<!\w)(?:نیست|نیستند|نبود|نبودند|نکرد\S*|نمی\s+\S+|نبوده|نداشت\S*)(?!\w)")
_FA_POS_VERB = re.compile(r"(?<!\w)(?:است|هست|بود|بودند|کرد\S*|بوده|می\s+باشد|عمل\s+کرد\S*)(?!\w)")
_FLIP_BEFORE = re.compile(r"(?:not|n't|never)\s+(?:\w+\s+){0,2}$", re.I)


def _yn_value(m: re.Match) -> bool:
    return m.lastgroup in ("yes", "yes_adj", "yes_adv")


def _yn_after_cue(text: str, pos: int) -> tuple[bool, int] | None:
    for _ in range(4):
        skip = _SKIP.match(text, pos)
        if skip:
            pos = skip.end()
        m = _YN_AT.match(text, pos)
        if m:
            if _YN_BOTH.match(text, m.end()):
                return None
            return _yn_value(m), m.end()
        filler = _YN_FILLER.match(text, pos)
        if not filler:
            return None
        pos = filler.end()
    return None


_QUESTION_END = re.compile(r"[.!?؟\n]")


def _in_question(text: str, pos: int) -> bool:
    """A phrase inside a question (the reply echoing "Did they act according to ...?")."""
    end = _QUESTION_END.search(text, pos)
    start = max(text.rfind(c, 0, pos) for c in ".!?؟\n")
    sentence = text[start + 1 : end.end() if end else len(text)]
    return (end is not None and end.group(0) in "?؟") or "آیا" in sentence.split()


def _verdict_phrases(text: str) -> list[tuple[int, bool]]:
    found = []
    for pattern, polarity in _VERDICTS:
        for m in pattern.finditer(text):
            flip = bool(_FLIP_BEFORE.search(text[max(0, m.start() - 30) : m.start()]))
            found.append((m.start(), polarity != flip))
    for m in _FA_AGREEMENT.finditer(text):
        clause = _clause(text, m.end())
        if _FA_NEG_VERB.search(clause):
            found.append((m.start(), False))
        elif _FA_POS_VERB.search(clause):
            found.append((m.start(), True))
    return [(pos, value) for pos, value in found if not _in_question(text, pos)]


def extract_yes_no(reply: str | None) -> bool | None:
    """True for a Yes answer, False for No, None when the reply states neither clearly."""
    text = _prepare(reply)
    if not text:
        return None
    text = _NOT_AN_ANSWER.sub(" ", text)

    # 1. explicit answer statements: "Answer: No", "پاسخ: بله", "So, yes." -- the last wins
    stated = []
    for cue in _YN_CUES.finditer(text):
        got = _yn_after_cue(text, cue.end())
        if got is not None:
            stated.append((cue.start(), got[0]))
    if stated:
        return max(stated)[1]

    # 2. a sentence that starts with a verdict: "Yes, ...", "خیر.", "نه، آن‌ها ...", "درست است."
    starts = []
    for s in _SENTENCE_START.finditer(text):
        m = _YN_AT.match(text, s.end())
        if m is None or _YN_BOTH.match(text, m.end()):
            continue
        if m.lastgroup.endswith(("_adj", "_adv")) and _YN_CONCESSIVE.match(text, m.end()):
            continue  # "True, but ...", "درست است که ..." concede, they do not answer
        starts.append((m.start(), _yn_value(m)))
    if starts:
        return max(starts)[1]

    # 3. verdict phrases: "they did not act according to Persian tradition", "برخلاف رسوم"
    verdicts = _verdict_phrases(text)
    if verdicts:
        return max(verdicts)[1]
    return None


def yes_no_label(value: bool | None) -> str | None:
    """True/False/None -> "yes"/"no"/None (how docs and records spell the verdict)."""
    return None if value is None else ("yes" if value else "no")


__all__ = ["LETTERS", "PERSIAN_LETTERS", "extract_choice", "extract_yes_no", "yes_no_label"]
