"""Deterministic answer reading from free-text replies, in English and Persian: ONE grammar for
options and picks (DivanBench A-D, PerCul 1-4, CAC 1-5), and the yes/no reader beside it.

The papers let an LLM read which option or verdict a model chose, or do not say how they read it.
These functions do the same job with rules, so scores do not depend on a paid model; replies the
rules cannot read return ``None`` (counted as invalid, and handed to the optional LLM extractor
when one is configured).

:func:`read_option` is the grammar; :func:`extract_choice` (A-D) and :func:`read_pick` (1-5) only
spell its answer. It understands ``Answer: B``, ``The correct option is (C)``, ``پاسخ: ب``,
``گزینهٔ ۲``, ``گزینه سوم``, ``C) Pomegranate``, ``Response 3``, ``the 4th``, ``\\boxed{2}``, a label
followed by its explanation after a cue or at the reply's start (``پاسخ ۲ است``, ``3, because ...``),
the option's own text (inflected, shortened to a word no other option has, a quoted part or a run
of three or more of its words, or a reply of a few words all of whose content words are that option's
and not all another's: "removing shoes", "standing up for elders"), colloquial Persian cues
(``فکر کنم جوابش ۳ باشه``, ``به نظرم جوابم ۴ـه``), "The number is 4", "Pick: 3", and reasoning before
the answer. :func:`extract_yes_no` understands
Yes/No, بله/آره/درست and خیر/نه/نادرست, an answer after reasoning, and common verdict phrases
("they did not act according to Persian tradition", "مطابق رسوم ایرانی رفتار کردند").

Principles (how answers are actually written; the tests enforce the first):

* **when unsure, no answer (invalid), never a guess**: a wrong option is the worst outcome, an
  invalid reply the next; hedges ("B or C", "2, though 3 could work just as well", "I'm not sure,
  maybe D"), refusals, contradicting bare answers and ambiguous mentions give ``None``;
* an explicit answer statement ("Answer: C", "پاسخ: ج", "So, no.") outranks everything else,
  and of several the LAST wins (models correct themselves: "Answer: A. Wait, the answer is C");
  one taken back ("I think 3... no wait, 2", «فکر کنم ۳... نه، ...؛ ۲») is decided by what follows,
  one conceded to another option in its sentence ("X is what most expect, but ... option 1") yields,
  and an alternative offered after it ("2. Or maybe 3.", «۲. شاید هم ۳») makes a hedge, while an option
  only "also possible" beside it does not ("I think it's C, but B is also possible" is C);
* otherwise an answer line at the START ("C\n\nUnlike (A) ...", "3 - 1 and 2 are too pushy") or a
  bare answer line at the END ("... \n\nNo.") outranks sentences in between, so later concessions
  and options named while explaining do not flip it;
* a negated or rejected option ("the answer is not A", "گزینه الف نادرست است", "1 and 2 are too
  insistent", "X, not Y", "Option 1 is tempting") never counts, and excludes that option elsewhere;
  one option's words with another's label ("Removing shoes (D)") give no answer;
* a reply of a few words reworded from an option is that option only if every content word is one
  of its words and not all of them fit another ("removing shoes"; "kissing on the cheeks" where two
  options kiss on the cheeks is none); words that set options apart ("before"/"after") count;
* a digit followed by a word is a label only where a cue or the reply's start makes it one ("the
  answer is 2 because"), a quantity otherwise ("adds 2 eggs", "3 times a day");
* a lone ``a`` is the English article, never option A, unless written as a label
  (``(a)``, ``a)``, ``answer: a.``, ``A since ...``); a capital letter counts as a mention only when
  formatted as a label (``(C)``, ``C)``, ``C.`` at a line start), so "vitamin C" is not C;
* verdicts in natural word order are read in both polarities and both languages ("this is
  (not) in line with Persian tradition", "it would be considered disrespectful", «این رفتار
  درست نیست», «رفتار آن‌ها با آداب ایرانی سازگار است», «… بی‌ادبی است», «طبق رسوم ایرانی، نه»);
* option texts match in their inflected forms: English plurals, Persian plural (ها/های),
  ezafe (ـِ / ی / ‌ی), enclitics, the colloquial copula (``قیمه‌ست``, ``شله‌زرده``, ``آش رشته است``)
  and ZWNJ variants (``سکه‌های طلا`` is option ``سکهٔ طلا``);
* echoed option lists, questions and answer-format instructions are not answers; ``<think>``
  blocks are dropped (an unclosed one, cut off, leaves no answer); a model that goes on inventing
  few-shot questions, or a next item in its prompt's shape, is read up to it, and a pick given as JSON
  is read (``reply_shapes.py``);
* only an option the item has is ever read: «ج» or C on a two-option item is no answer.

``tests/extraction/corpus.py`` and ``tests/extraction/corpus/*.jsonl`` hold the labelled replies
these rules are measured on.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import cache, lru_cache

from lm_eval_persian_culture.scoring.reply_shapes import cut_at_next_item, read_json_picks
from lm_eval_persian_culture.text.persian import fold, normalize

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
    # colloquial Persian: "the third one"
    "اولی": "A", "دومی": "B", "سومی": "C", "چهارمی": "D",
}  # fmt: skip
_EN_ORDINALS = ("first", "second", "third", "fourth")

# --------------------------------------------------------------------------- preparation
_THINK = re.compile(r"<think>.*?</think>", re.S | re.I)
_MARKDOWN = re.compile(r"\*\*|__|`+|^#+\s*|^>\s*|\*", re.M)


def strip_reasoning(reply: str) -> str:
    """The reply without its ``<think>`` blocks. A closing tag without an opening one (chat
    templates that put ``<think>`` in the prompt) drops everything before it; an unclosed block
    (generation cut off while reasoning) drops everything after it: no answer was given there."""
    lower = reply.lower()
    if "</think>" in lower and "<think>" not in lower:
        reply = reply[lower.rfind("</think>") + len("</think>") :]
    text = _THINK.sub(" ", reply)
    return re.sub(r"<think>.*", " ", text, flags=re.S | re.I)


def cut_off_reasoning(reply: str | None) -> bool:
    """Does the reply stop inside a ``<think>`` block (generation cut off while reasoning)?"""
    lower = (reply or "").lower()
    return lower.rfind("<think>") > lower.rfind("</think>")


# LaTeX answers: "$\\boxed{2}$", "\\boxed{\\text{B}}" state the final answer.
_BOXED = re.compile(r"\$*\\boxed\s*\{\s*(?:\\text(?:bf)?\s*\{)?([^{}]*)\}?\s*\}\$*")


def _prepare(reply: str | None) -> str:
    """Reasoning blocks dropped, Persian normalised (ZWNJ as space), markdown removed."""
    if not reply:
        return ""
    text = strip_reasoning(reply)
    text = _BOXED.sub(lambda m: f"\nFinal answer: {m.group(1).strip()}.\n", text)
    text = normalize(text, zwnj_to_space=True)
    text = _MARKDOWN.sub("", text)
    return text.replace("：", ":").replace("“", '"').replace("”", '"')


# Words that end a clause for the purpose of negation checks.
_CLAUSE_END = re.compile(
    r"[.،,;؛:!?؟\n(—–]|\s-\s|"
    r"(?<!\w)(?:because|since|as|which|that|but|while|whereas|زیرا|چون|چرا که|اما|ولی|بلکه|که|در حالی که)(?!\w)",
    re.I,
)
# English negation right after a label: "A is not ...", "A isn't", "(A) is wrong".
_NEG_EN = re.compile(
    r"[\s).\]]*(?:(?:is|was|are|would\s+be|seems(?:\s+to\s+be)?|sounds|feels|looks)\s+)?(?:definitely\s+|clearly\s+|both\s+)?"
    r"(?:not|never|incorrect|wrong|false|isn't|wasn't|isn’t|aren't|a\s+distractor|ruled\s+out|eliminated|tempting"
    r"|(?:far\s+|a\s+bit\s+|much\s+|way\s+)?(?:too|overly)|less\s+\w+|(?:the\s+)?(?:least|worst)|unlikely|inappropriate)(?!\w)",
    re.I,
)
# Persian negation anywhere in the clause after a label (the verb comes last): "الف نادرست است".
_NEG_FA = re.compile(
    r"(?<!\w)(?:نیست|نیستند|نبود|نمی باشد|نادرست|غلط|اشتباه|رد می شود|رد میشود|منتفی|رد می کنم|رد کردم|رد می شوند"
    r"|کنار می گذارم|کنار گذاشته|حذف می کنم|حذف می شود|حذف می شوند|بیش از حد|زیادی)(?!\w)"
)


def _clause(text: str, start: int) -> str:
    m = _CLAUSE_END.search(text, start)
    return text[start : m.start() if m else len(text)]


def _negated_after(text: str, end: int) -> bool:
    return bool(_NEG_EN.match(text, end) or _NEG_FA.search(_clause(text, end)))


# --------------------------------------------------------------------------- options and picks
# ONE grammar reads an option (A-D or 1-4: DivanBench, PerCul) and a pick (1-5: CAC). Inside it an
# answer is the option's 0-based index; a label space says which labels a question accepts (digits
# 1..count, and the letters A-D / الف ب ج د where options are lettered). The public readers
# (extract_choice, read_pick) only turn the index into the benchmark's spelling.
LETTER_INDEX = {
    **{letter: i for i, letter in enumerate(LETTERS)},
    **{fa: LETTERS.index(en) for fa, en in PERSIAN_LETTERS.items()},
}
_ORDINAL_INDEX = {word: LETTERS.index(letter) for word, letter in _ORDINALS.items()}
_ORDINAL_INDEX.update({"پنجم": 4, "پنج": 4, "پنجمین": 4, "پنجمی": 4, "fifth": 4, "five": 4})
_EN_ORDINALS = (*_EN_ORDINALS, "fifth")
_EN_NUMBER_WORDS = ("one", "two", "three", "four", "five")

# Words that name a label: "option 2", "response 3", "choice B", "گزینهٔ ۲", "number 4", "#4"
# ("the number 3 appears twice" names a number, not an option).
_OPTION_WORD = r"(?:options?|choices?|responses?|reply|replies|(?<!the\s)numbers?|گزینه(?:\s+ی(?!\w)|\s+های(?!\w))?)"
_OPTION_WORD_AT = re.compile(rf"{_OPTION_WORD}(?!\w)", re.I)


_EXPLAINING = r"(?:since|because|as|is|was|for|fits|seems|would|it|—)"


class _Space:
    """The labels of one question: digits 1..count, and letters when the options are lettered."""

    def __init__(self, count: int, letters: bool) -> None:
        self.count, self.letters = count, letters
        digit = f"[1-{min(count, 9)}]"
        # only the letters the item has: «ج» or C on a two-option item names no option
        n = min(count, len(LETTERS))
        up, low, fa = (f"[A-{LETTERS[n - 1]}]", f"[a-{LETTERS[n - 1].lower()}]", "|".join(list(PERSIAN_LETTERS)[:n]))
        if not letters:
            up, low, fa = "(?!)", "(?!)", "(?!)"
        body = f"(?:{up}|{fa}|{digit})"
        self.body = body
        # A label right at a position (after an answer cue and filler words).
        self.label_at = re.compile(
            rf"""[(\[«"'‘]?\s*
            (?:
                (?P<upper>(?:A(?![\w'’])(?!\s+(?!{_EXPLAINING}(?!\w))[a-z])|[B-D](?![\w'’]))(?<={up}))  # B (not "An", "A's", "A pomegranate"; "A since ..." is)
              | (?P<lower>{low})(?=\s*[)\]]|\s*[.:,;]?\s*(?:$|\n))            # b)  b.  (not the article "a")
              | (?P<fa>{fa})(?!\w)                                           # ب
              | (?P<digit>{digit})(?:ه(?!\w))?(?!\w|[.,]\d)                   # 2, ۴ه (not "2.5")
              | (?P<ordnum>{digit})(?:st|nd|rd|th)(?!\w)                     # 4th (after a cue)
              | (?P<ordinal>[^\W\d_]+)                                       # سوم / third
            )""",  # noqa: E501 (a verbose pattern, kept byte-identical)
            re.X,
        )
        # Label mentions outside answer statements; they need label formatting.
        self.mention = re.compile(
            rf"""\(\s*(?P<p>{up}|{low}|{fa}|{digit})\s*\)                          # (B)  (ب)  (2)
              | (?<![\w(])(?P<q>{up}|{fa})\s*\)                                  # B)   ب)
              | ^[ \t\-•]*(?P<r>{up}|{fa})\s*[.:\-–](?=\s|$)                     # "B." / "ب -" at a line start
              | «\s*(?P<s>{up}|{fa})\s*»                                         # «ب»
              | (?<!\w){_OPTION_WORD}\s*\#?\s*(?P<t>{up}|{fa}|{digit}|[^\W\d_]+)(?!\w|[.,]\d)  # option B / گزینه ۲ / response 3
              | (?<!\w)(?P<u>first|second|third|fourth|fifth|اولین|نخستین|دومین|سومین|چهارمین|پنجمین)\s+(?:option|choice|response|گزینه)(?!\w)
            """,  # noqa: E501 (a verbose pattern, kept byte-identical)
            re.X | re.M | re.I,
        )
        word = r"(?:(?:option|choice|response|reply|number|no\.|گزینه\s*(?:ی)?|شماره)\s*\#?|\#)"
        self.bare_label = re.compile(
            rf"""^[\s(\[«"'*]*(?:{word})?\s*(?P<l>{up}|{low}|{fa}|{digit})[\s)\]».:"'*!;؛,،]*$""", re.I
        )
        # A line that starts with a label and a separator: "C) Pomegranate", "ج. انار", "3, because ...".
        self.labelled_line = re.compile(
            rf"""^[\s(\[«"'*\-•]*(?:{word}\s*)?(?P<l>{up}|{fa}|{digit})(?![.,]\d)\s*(?P<sep>[)\]».:\-–—,،]+|\s(?=[^\W\d_])|\s*(?=\())\s*(?P<rest>.*)$""",
            re.I,
        )
        # An item of an option list: "(A) Orange", "B) Apple", "ج. انار", "- 3: ..."
        self.list_item = re.compile(
            rf"""(?:^|(?<=\s))[-•*]?\s*[(\[]?\s*(?P<l>{up}|{fa}|{digit})\s*(?:\)|\]|\.|:|-)\s*"""
        )
        # The instruction's range echoed ("a number (1-5)") names no answer.
        self.range_echo = re.compile(rf"\(?(?<![\w.])1\s*(?:-|–|to|تا)\s*{count}(?![\w.])\)?")

    def value(self, token: str, *, ordinal_ok: bool) -> int | None:
        if self.letters and len(token) == 1 and token.upper() in LETTERS:
            index = LETTERS.index(token.upper())
            return index if index < self.count else None
        if self.letters and token in PERSIAN_LETTERS:
            return LETTER_INDEX[token] if LETTER_INDEX[token] < self.count else None
        if token.isdigit() and len(token) == 1:
            return int(token) - 1 if 1 <= int(token) <= self.count else None
        if ordinal_ok:
            index = _ORDINAL_INDEX.get(_colloquial_ordinal(token.lower()))
            return index if index is not None and index < self.count else None
        return None


def _colloquial_ordinal(word: str) -> str:
    """«سومه» ("it's the third") -> «سوم»: the colloquial copula on a Persian ordinal (not «اولیه», "initial")."""
    return word[:-1] if word.endswith("ه") and word[:-1] in _COPULA_ORDINALS else word


_COPULA_ORDINALS = frozenset("دوم سوم چهارم پنجم دومی سومی چهارمی پنجمی".split())


@cache
def _space(count: int, letters: bool) -> _Space:
    return _Space(count, letters)


# After a digit, words that explain the answer ("the answer is 2 because ...", «پاسخ ۲ است»);
# any other word makes the digit a quantity ("3 times a day", "adds 2 eggs").
_EXPLAINS = re.compile(
    r"""\s*[,،]?\s*(?:is|was|would|seems|because|since|as|given|due|which|fits|works|best|here|for\s+(?:this|the)
      | not|rather\s+than|instead\s+of|and\s+not
      | است|هست|هستش|بود|باشد|باشه|می\s+باشد|میشه|می\s+شه|می\s+شود|زیرا|چون|چرا\s+که|که|درست|صحیح|را|بنابراین|به\s+دلیل|به\s+خاطر
      | مناسب|مناسبه|مناسب\s*تر(?:ه|ین)?|بهتر|بهتره|بهترین|و\s+نه|نه|دیگه)(?!\w)""",  # noqa: E501 (verbose pattern)
    re.X | re.I,
)
_DIGIT_WORD_AFTER = re.compile(r"\s*[^\W\d_]")
_ORDINAL_NOUN = re.compile(
    r"\s*(?:one|option|choice|response|reply|answer|and|or|nor|definitely|surely|clearly|probably|obviously|honestly|then|too|again|though"
    r"|for\s+sure|of\s+course|گزینه|پاسخ|جواب|مورد)(?!\w)",
    re.I,
)

# Answer statements: the label that follows one of these is the model's answer.
_CHOICE_CUES = re.compile(
    r"""(?<!\w)(?:
        final\s+answer | (?:correct|right|best|ideal|(?:most\s+)?(?:culturally\s+)?(?:appropriate|suitable|fitting))\s+(?:answer|option|choice|one|response|reply|fit|match|pick|number)
      | (?:the\s+|my\s+)number(?=\s+(?:is|would\s+be|should\s+be|must\s+be)(?!\w)|\s*[:：=]) | (?:pick|choice|selection|number)(?=\s*[:：])
      | (?:the\s+|my\s+)?answer(?:['’]s)? | i(?:\s+would|\s+will|'d|’d|['’]ll)?(?:\s+(?:definitely|probably|personally))?\s+(?:choose|pick|select|go\s+(?:with|for)|say|opt\s+for|recommend|prefer)
      | i(?:['’]m|\s+am)\s+going\s+to\s+(?:choose|pick|select|go\s+(?:with|for)|say)
      | my\s+(?:best\s+)?guess | i\s+(?:reckon|suppose)
      | (?:my|the)\s+(?:final\s+)?(?:choice|pick|selection) | selected | chosen | going\s+with
      | i\s+(?:think|believe|guess) | actually | on\s+(?:second|further)\s+thought | correction
      | it\s+(?:is|must\s+be|would\s+be|has\s+to\s+be|should\s+be)|it['’]s
      | پاسخ(?:ش|م)? | جواب(?:ش|م)? | (?:گزینه|شماره|عدد)\s+(?:ی\s+)?(?:صحیح|درست|مناسب|مورد\s+نظر|نهایی) | انتخاب(?:م|\s+(?:من|نهایی))
      | بنابراین | در\s+نتیجه | پس | من\s+گزینه | در\s+واقع | به\s+نظر(?:م|\s+من) | به\s+گمان(?:م|\s+من)
      | (?:من\s+)?(?:فکر|فک|گمان|حدس)\s+(?:کنم|می\s*کنم|میکنم|می\s*زنم|میزنم) | گمونم | (?:من\s+)?(?:میگم|می\s+گم|می\s+گویم)
      | به\s+نظر\s+(?:می\s*رسد|می\s*رسه|میاد|می\s*آید)
      | (?:so|thus|hence|therefore|overall|ultimately|finally|in\s+conclusion)(?=\s*[,:]?\s*(?:(?:response|option|choice|number)\s*\#?\s*[1-9A-D]|\#|[1-9](?!\w)|\(?[A-D]\)))
      | (?:the\s+)?best(?=\s+(?:is|would\s+be|here\s+is)(?!\w))
    )(?!\w)""",  # noqa: E501 (a verbose pattern, kept byte-identical)
    re.X | re.I,
)
# "not A but C", "الف نیست، بلکه ج": a correction cue counts only right after a negation.
_NUMBER_CUE = re.compile(r"(?:number|شماره|عدد)(?:\s+\S+)?$", re.I)  # "the number", «شماره درست»
_CORRECTION_CUES = re.compile(r"(?<!\w)(?:but|rather|instead|بلکه)(?!\w)", re.I)
_NEGATION_BEFORE = re.compile(r"(?:not|n't|نیست|نه)[^.!?؟\n]{0,30}$", re.I)
# Words allowed between a cue and its label ("The answer is most likely option (C)").
_CHOICE_FILLER = re.compile(
    r"""(?:is|was|would|will|should|be|the|an?|then|therefore|thus|so|definitely|clearly|probably|likely|most|
        surely|correct|right|option|choice|response|reply|letter|number|final|here|go|with|to|this|question|for
      | است|هست|هستش|گزینه|ی|همان|یعنی|شماره|مورد|درست|صحیح|درستش|صحیحش|نهایی|من|را|سوال|این|به|نظر|قطعا|احتمالا
      | می\s*رسد|می\s*رسه|میاد|می\s*آید|میشه|می\s+شه|می\s+شود)(?!\w)""",
    re.X | re.I,
)
_NEGATION_WORD = re.compile(r"(?:not|نه|never)(?!\w)", re.I)
_SKIP = re.compile(r"""[\s:：\-–—=→>"'«»‘’“”,،#]+""")
_MAX_FILLERS = 6
# "cannot answer", "نمی توانم پاسخ" before a cue: not an answer statement.
_REFUSAL_BEFORE = re.compile(r"(?:cannot|can't|can’t|unable\s+to|not|نمی\s*توانم|نمیتوانم)\s*$", re.I)
# "B or C", "ب یا ج", "A and C", "2/3", "3-4": a second label right after the first makes a hedge.
_HEDGE_JOIN = re.compile(
    rf"\s*(?:[,،]?\s*(?:(?:or|and|either|یا|و|to|تا)\s+|[/&]\s*|[-–]\s*)|[,،]\s*)(?:(?:also|even|maybe|perhaps|هم|شاید)\s+)?(?:{_OPTION_WORD}\s*)?",
    re.I,
)
# Labels coordinated with a mention share its verdict ("responses 1 and 2 are too insistent").
_COORDINATED = re.compile(
    rf"(?:\s*(?:,|،|and|or|&|و|یا)\s*(?:{_OPTION_WORD}\s*)?(?:[1-9]|[A-D]|الف|ب|ج|د)(?!\w))+", re.I
)
# A rejection right before a mention: "unlike 1", "rather than option 2", «برخلاف گزینه ۱».
_REJECTED_BEFORE = re.compile(
    r"""(?:(?<!\w)(?:not|unlike|rather\s+than|instead\s+of|except|over|than|نه|برخلاف|بر\s+خلاف|به\s+جای|بجای|جز)\s*["'«‘“]?\s*(?:the\s+)?)$""",
    re.I,
)
# A mention followed by an assertion is an answer statement ("(C) is correct", "ج درست است",
# "response 4 is the most appropriate", "3 fits best", «گزینه ۲ را انتخاب می‌کنم»).
_ASSERTED = re.compile(
    r"""\s*[).:]?\s*(?:
        (?:is|seems|would\s+be)\s+(?:the\s+)?(?:correct|right|true)(?!\w)
      | (?:is|seems(?:\s+to\s+be)?|would\s+be|remains)\s+(?:still\s+|clearly\s+|probably\s+|definitely\s+)?(?:the\s+|my\s+)?
            (?:best|correct|right|ideal|most\s+(?:culturally\s+)?(?:appropriate|suitable|fitting|polite|natural|accurate)|answer|choice|pick|better|more\s+(?:appropriate|suitable|fitting|polite|natural))(?!\w)
      | (?:best|most\s+closely|most\s+accurately)\s+(?:fits|reflects|matches|captures|aligns|suits|represents)(?!\w)
      | (?:fits|works|matches)(?:\s+best)?(?!\w)
      | (?:is|comes)\s+(?:the\s+)?closest(?!\w)
      | (?:درست|صحیح|پاسخ\s+درست|پاسخ\s+صحیح|جواب\s+درست|جواب\s+صحیح|پاسخ|مناسب|مناسب\s*تر(?:ین)?|بهتر|بهترین)\s+(?:است|هست|می\s+باشد)(?!\w)
      | (?:از\s+همه\s+)?(?:مناسب\s*تر|بهتر)(?:ه|ین\s+است|\s+است)?(?=\s*[.!،,;؛]|\s*$)
      | (?:بهتره|مناسبه|درسته)(?!\w)
      | را\s+(?:انتخاب|بر\s*می\s*گزینم)
    )""",  # noqa: E501 (a verbose pattern, kept byte-identical)
    re.X | re.I,
)
_SENTENCE_SPLIT = re.compile(r"(?<=[.!?؟;؛])\s+|\n+")
_BARE_ORDINAL = re.compile(r"^[\W_]*(?:the\s+)?(?P<o>[^\W\d_]+?)(?:\s+(?:option|choice|response|one))?[\W_]*$", re.I)
# An answer line of the form "<key>: <label>" ("Korea: 4", "Final pick: 2", «انتخاب: ۳»).
_KEYED_LINE = re.compile(r"^(?P<key>[^\W\d_][^\d:\n]{0,80}?):\s*(?P<rest>[^:\n]+)$")
# A key naming the option ranked last or ruled out ("Worst: 1", "Least appropriate: 1", «بدترین: ۱»), at its start.
_REJECTING_KEY = re.compile(
    r"(?<!\w)(?:worst|wrong|incorrect|inappropriate|unsuitable|rejected|eliminated|excluded|ruled\s+out|avoid"
    r"|least\s+(?:appropriate|suitable|fitting|polite|respectful|acceptable|preferred|likely|plausible|correct|good))(?!\w)"
    r"|بدترین|نامناسب|نادرست|غلط|رد\s*شده",
    re.I,
)
# After a label at the start of a reply, an explanation ("3, because ...", «۲ زیرا ...»).
_EXPLANATION_START = re.compile(
    r"(?:because|since|as|given|due\s+to|this|it|the|they|that|i\s+(?:guess|think|suppose|believe)|lol|haha"
    r"|زیرا|چون|چرا\s+که|به\s+دلیل|به\s+خاطر|این|که)(?!\w)",
    re.I,
)
# "1 - no", "2: wrong", «۳: نه»: a verdict on the label, not an explanation of a choice.
_VERDICT_START = re.compile(r"(?:no|nope|not|wrong|incorrect|false|unlikely|نه|خیر|نادرست|غلط|اشتباه)(?!\w)", re.I)
_VERSUS = re.compile(
    r"^(?P<x>.+?)\s*[,،;؛]?\s+(?:not|and\s+not|rather\s+than|instead\s+of|over|نه|و\s+نه)\s+(?P<y>.+?)[\s.!]*$", re.I
)
_LABEL_AFTER_TEXT = re.compile(r"^(?P<t>.+?)\s*\(\s*(?P<l>[1-9A-D]|الف|ب|ج|د)\s*\)[\s.!]*$")
_LIST_LINE = re.compile(r"^\s*[-•*]?\s*[(\[]?\s*(?:[1-9]|[A-D]|الف|ب|ج|د)\s*[.)\]:]\s+\S")


# Ordinals that name an option right after an answer cue ("the answer is the third", «پاسخ چهارم»);
# bare number words ("one", «یک») only after an option word ("option one").
_TRUE_ORDINALS = frozenset(
    (
        "first second third fourth fifth اول دوم سوم چهارم پنجم "
        "اولی دومی سومی چهارمی پنجمی اولین دومین سومین چهارمین پنجمین"
    ).split()
)


def _label_at(
    text: str, pos: int, options: _OptionMatcher, *, after_option_word: bool, after_cue: bool = False
) -> tuple[int, int] | None:
    space = options.space
    m = space.label_at.match(text, pos)
    if not m:
        return None
    kind = m.lastgroup
    token = m.group(kind)
    if kind == "ordinal" and not (
        after_option_word or after_cue and _colloquial_ordinal(token.lower()) in _TRUE_ORDINALS
    ):
        return None
    if kind == "ordnum":
        if not (after_cue or after_option_word):
            return None
        kind = "digit"
    if kind == "ordinal" and token.isascii() and not after_option_word and _DIGIT_WORD_AFTER.match(text, m.end()):
        # "the answer is first day of Farvardin": the ordinal begins a text; "the third one" is a label
        # (English only: Persian puts the predicate after it, «پاسخ چهارم از همه مناسب‌تر است»)
        if not _EXPLAINS.match(text, m.end()) and not _ORDINAL_NOUN.match(text, m.end()):
            return None
    value = space.value(token, ordinal_ok=kind == "ordinal")
    if value is None:
        return None
    end = m.end()
    colloquial = m.group(0).endswith("ه")  # «۴ه» = "it's 4"
    if (
        kind == "digit"
        and m.group("digit")
        and not colloquial
        and not after_option_word
        and _DIGIT_WORD_AFTER.match(text, end)
    ):
        # "the answer is 2 because ...", "2 Khoresht gheymeh" are labels; "3 times a day" a quantity
        own_text = options.at(text, end + len(text[end:]) - len(text[end:].lstrip()))
        if not _EXPLAINS.match(text, end) and (own_text is None or own_text[0] != value):
            return None
    close = re.match(r"\s*[)\]»\"'’]", text[end:])
    return value, end + (close.end() if close else 0)


_FA_LETTER = re.compile(r"[\u0600-\u06ff]")
# Persian inflection around an option's words: plural ها/های, ezafe ی (ZWNJ already a space),
# indefinite/enclitic ی، ای، ه، ش، اش، شان, the colloquial copula ـه / ـست («شله‌زرده», «قیمه‌ست»,
# «سبزه‌هاست»; ـست only after a vowel, on words of three letters or more). English: plural s/es, possessive 's.
_FA_INNER_SUFFIX = r"(?:\s?(?:ها|های))?(?:\s?ی)?"
_FA_LAST_SUFFIX = r"(?:\s?(?:هاست|هایی|های|ها|ای|یی|ی|ه|اش|شان|ش))?"
_FA_LAST_SUFFIX_VOWEL = r"(?:\s?(?:هاست|هایی|های|ها|ای|یی|ی|ه|اش|شان|ش|ست))?"
# The copula as a word after an option's text («آش رشته است», «قیمه باشه»).
_FA_COPULA_WORD = re.compile(r"\s*(?:است|هست|هستش|ست|باشه|باشد|می\s*باشد|میشه|می\s+شه|می\s+شود)$")
_EN_LAST_SUFFIX = r"(?:es|s|['’]s)?"
# Words that never name an option on their own (a shortened option is one of its other words).
_STOPWORDS = frozenset(
    "the a an of and or in on at to for with from by its their his her this that is are was be as into "
    "و با از به در که را برای این آن یا تا هم بر های ها ی است".split()
)
# A short reply rewording one option: at most this many words, none of these (a negation, an
# alternative, a contrast), and these besides the stop words carry no content ("probably", «رو», "the
# humility-and-resilience one", pronouns and auxiliaries: «می شود» rewords no option).
_PARAPHRASE_MAX = 8
_PARAPHRASE_BLOCK = frozenset(
    "or either nor not no never without except unlike rather instead than but both neither none "
    "یا نه بدون جز غیر بلکه اما ولی هیچ".split()
)
# English verbs stay content words ("Removing shoes is not it" rewords no option), and so do words
# that set options apart ("before"/"after", «جلوی»/«پشت»).
_PARAPHRASE_STOP = (_STOPWORDS - {"is", "are", "was", "be"}) | frozenset(
    "when if it s probably likely one option response choice reply your my our you i we they he she "
    "would could should will can do does did has had "
    "احتمالا رو هست ست باشه باشد گزینه وقتی موقع هنگام می شود شد شده بود کند کنید کن من تو او ما شما".split()
)


@lru_cache(maxsize=4096)
def _same_word(word: str, option_word: str) -> bool:
    """Is ``word`` ``option_word`` or an inflected form of it, or the other way round
    ("shoe"/"shoes", «بزرگترها»/«بزرگتر»; words of three letters or more: "is" is no plural of "I")?"""
    if word == option_word:
        return True
    if min(len(word), len(option_word)) < 3:
        return False
    return bool(
        re.fullmatch(_word_pattern(option_word, True), word) or re.fullmatch(_word_pattern(word, True), option_word)
    )


def _word_pattern(word: str, last: bool) -> str:
    body = re.escape(word)
    if _FA_LETTER.search(word[-1:]):
        if not last:
            return body + _FA_INNER_SUFFIX
        return body + (_FA_LAST_SUFFIX_VOWEL if len(word) >= 3 and word[-1] in "اوهی" else _FA_LAST_SUFFIX)
    if last and word[-1:].isalpha():
        return body + _EN_LAST_SUFFIX
    return body


class _OptionMatcher:
    """Finds option texts in a reply (word-bounded, inflected forms, longest match wins), and
    knows the question's label space."""

    def __init__(self, options: Sequence[str] | Mapping[str, str] | None, space: _Space) -> None:
        if isinstance(options, Mapping):
            options = [options.get(k, "") for k in LETTERS]
        self.space = space
        self.texts: dict[int, str] = {}
        self.loose_words: dict[int, list[str]] = {}
        self.patterns: list[tuple[int, re.Pattern]] = []
        words_of: dict[int, list[str]] = {}
        for index, text in enumerate(list(options or ())[: space.count]):
            norm = normalize(str(text or ""), zwnj_to_space=True).replace("“", '"').replace("”", '"')
            norm = norm.strip(" .،,;؛:!?؟\"'«»()")
            if len(norm) < 2:
                continue
            self.texts[index] = norm
            self.loose_words[index] = _loose(norm).split()
            words = norm.split()
            words_of[index] = [w.strip(".،,;؛:!?؟\"'«»()").lower() for w in words]
            body = r"\s+".join(_word_pattern(w, i == len(words) - 1) for i, w in enumerate(words))
            self.patterns.append((index, re.compile(rf"(?<!\w){body}(?!\w)", re.I)))
        # A shortened option ("قیمه" for "خورشت قیمه"): one of its words that no other option
        # shares, used only where a whole answer stands (the reply, an answer line, after a cue).
        self.short: list[tuple[int, re.Pattern]] = []
        for index, words in words_of.items():
            if len(words) < 2 or len(words) > 6:
                continue
            others = {w for j, ws in words_of.items() if j != index for w in ws}
            for w in words:
                if (
                    len(w) >= 3
                    and w not in _STOPWORDS
                    and w not in others
                    and not any(w in o or o in w for o in others if len(o) >= 3)
                ):
                    self.short.append((index, re.compile(rf"(?<!\w){_word_pattern(w, True)}(?!\w)", re.I)))

    def at(self, text: str, pos: int, *, short: bool = False) -> tuple[int, int] | None:
        best = None
        for index, pat in self.patterns + (self.short if short else []):
            m = pat.match(text, pos)
            if m and (best is None or m.end() > best[1]):
                best = (index, m.end())
        return best

    def whole(self, text: str) -> int | None:
        """The option a whole phrase is ("Pomegranates.", "انارها", "قیمه", «آش رشته است»), or None."""
        text = re.sub(r"^[^\w(]+|[^\w)]+$", "", text)
        for phrase in (text, re.sub(r"^(?:the|an?)\s+", "", text, flags=re.I)):
            hit = self.at(phrase, 0, short=True)
            if hit and (hit[1] == len(phrase) or _FA_COPULA_WORD.match(phrase, hit[1])):
                return hit[0]
        return self.paraphrase(text)

    def paraphrase(self, phrase: str) -> int | None:
        """The option a short phrase shortens or lightly rewords ("removing shoes", "standing up for
        elders", «درآوردن کفش»): every content word of the phrase (stop words aside, inflections
        allowed) is a word of that option and of no other one's taken together -- the only option
        holding them all. None for a long phrase, a label ("(D)"), a negation or an alternative ("or",
        «یا»), a number, or words no option has or that two options share."""
        words = _loose(phrase).split()
        if self.space.mention.search(phrase):  # "is taarof (D)": the label speaks, not the words
            return None
        if (
            not words
            or len(words) > _PARAPHRASE_MAX
            or any(w in _PARAPHRASE_BLOCK or any(c.isdigit() for c in w) for w in words)
        ):
            return None
        content = [w for w in words if w not in _PARAPHRASE_STOP]
        if len(content) < 2:  # one word is a shortened option only as ``short`` allows it
            return None
        owners = [
            i for i, option in self.loose_words.items() if all(any(_same_word(w, o) for o in option) for w in content)
        ]
        return owners[0] if len(owners) == 1 else None

    def quoted(self, text: str) -> dict[int, bool]:
        """Options a quoted span of two or more words belongs to, in only one option's text
        ("the 'Would you perhaps enjoy a slice' response", «تعارف نکن») -> whether it is rejected."""
        loose = {index: _loose(t) for index, t in self.texts.items()}
        kept: dict[int, bool] = {}
        for m in _QUOTED.finditer(text):
            span = _loose(m.group("a") or m.group("b"))
            if len(span.split()) < 2:
                continue
            owners = [index for index, t in loose.items() if re.search(rf"(?<!\w){re.escape(span)}(?!\w)", t)]
            if len(owners) == 1:
                rejected = bool(_REJECTED_BEFORE.search(text[max(0, m.start() - 25) : m.start()])) or _in_rejection(
                    text, m.start()
                )
                kept[owners[0]] = kept.get(owners[0], False) or rejected
        return kept

    def phrases(self, text: str) -> dict[int, bool]:
        """Options one of whose runs of three or more words, in no other option, the reply repeats
        ("Reza should insist on paying" for "Insist on paying, because ...") -> whether rejected."""
        loose = {index: _loose(t).split() for index, t in self.texts.items()}
        kept: dict[int, bool] = {}
        for index, words in loose.items():
            others = [" " + " ".join(w) + " " for j, w in loose.items() if j != index]
            for n in range(len(words), 2, -1):
                for i in range(len(words) - n + 1):
                    run = words[i : i + n]
                    if any(f" {' '.join(run)} " in o for o in others):
                        continue
                    m = re.search(r"(?<!\w)" + r"[\W_]+".join(map(re.escape, run)) + r"(?!\w)", text, re.I)
                    if m is None:
                        continue
                    rejected = _in_rejection(text, m.start()) or bool(
                        _REJECTED_BEFORE.search(text[max(0, m.start() - 25) : m.start()])
                    )
                    kept[index] = kept.get(index, False) or rejected
                    break
                if index in kept:
                    break
        return kept

    def found(self, text: str, *, short: bool = False) -> dict[int, bool]:
        """Options whose text (``short``: also a shortened form) the reply contains -> whether every
        occurrence is rejected ("not orange", «نه قورمه سبزی», "orange is wrong")."""
        patterns = self.patterns + (self.short if short else [])
        spans = [(m.start(), m.end(), index) for index, pat in patterns for m in pat.finditer(text)]
        kept: dict[int, bool] = {}
        for s, e, index in spans:
            if any(s2 <= s and e <= e2 and (e2 - s2) > (e - s) for s2, e2, _ in spans):
                continue
            rejected = (
                bool(_REJECTED_BEFORE.search(text[max(0, s - 25) : s]))
                or _negated_after(text, e)
                or _in_rejection(text, s)
            )
            kept[index] = kept.get(index, False) or rejected  # rejected once ("not orange"), never chosen here
        return kept


# A quoted span: "…", “…”, «…», and '…' opened after a space (not an apostrophe inside a word).
_QUOTED = re.compile(r"""["“«](?P<a>[^"”»\n]{3,}?)["”»]|(?:(?<=\s)|^)['‘](?P<b>[^'’\n]{3,}?)['’](?=[\s.,;:!?)،؛]|$)""")


# "X, not Y ...", "…، نه Y": what follows the "not" up to the clause's end is rejected.
_REJECTION_ZONE = re.compile(
    r"(?:^|[,،;؛]\s*|\s)(?:not|and\s+not|rather\s+than|instead\s+of|نه|و\s+نه)\s+[^.,;:!?،؛\n]*", re.I
)


def _in_rejection(text: str, pos: int) -> bool:
    return any(m.start() <= pos < m.end() for m in _REJECTION_ZONE.finditer(text))


def _loose(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", fold(text)).split())


# Words that make "(A) is wrong, (B) is wrong, (C) is correct" a judgement, not an echoed list.
_VERDICT_WORDS = re.compile(
    r"(?<!\w)(?:is|are|was|not|wrong|correct|incorrect|true|false|right|است|نیست|درست|نادرست|غلط|صحیح)(?!\w)", re.I
)


def _option_like(label: int, text: str, options: _OptionMatcher) -> bool:
    """Is ``text`` what an option list shows after ``label``? (its option text, or a short phrase)"""
    text = text.strip(" \t.،,;؛")
    if options.texts:
        return not text or options.whole(text) == label
    return len(text.split()) <= 6 and not re.search(r"[.!?؟:]", text) and not _VERDICT_WORDS.search(text)


def _drop_echoed_options(text: str, options: _OptionMatcher) -> str:
    """Remove option lists the reply repeats ("(A) Orange\\n(B) Apple ..." or inline): naming
    every option is not choosing one. A list inside a line needs three or more distinct labels; a
    list of lines, each an option's label and its own text, two ("B) Watermelon\\nC) Apple": a
    partial echo names two options and chooses neither)."""
    space = options.space
    lines = text.split("\n")
    keep = [True] * len(lines)
    run: list[tuple[int, int]] = []  # (line index, label) of consecutive single-item lines

    def close_run() -> None:
        if len({label for _, label in run}) >= 2:
            for i, _ in run:
                keep[i] = False
        run.clear()

    for i, line in enumerate(lines):
        items = list(space.list_item.finditer(line))
        # a trailing run of items covering the end of the line: "Question? (A) .. (B) .. (C) .."
        tail: list[int] = []
        start = None
        for j in range(len(items) - 1, -1, -1):
            end = items[j + 1].start() if j + 1 < len(items) else len(line)
            label = space.value(items[j].group("l"), ordinal_ok=False)
            if label is None or not _option_like(label, line[items[j].end() : end], options):
                break
            tail.append(label)
            start = items[j].start()
        if len(set(tail)) >= 3 and start is not None:
            lines[i] = line[:start]
            close_run()
            continue
        if len(tail) == 1 and len(items) >= 1 and not line[: start or 0].strip(" \t-•*"):
            run.append((i, tail[0]))
            continue
        if line.strip():
            close_run()
    close_run()
    return "\n".join(line for line, k in zip(lines, keep) if k)


def _hedged_after(text: str, end: int, first: int, options: _OptionMatcher) -> bool:
    """A second, different label joined to the first ("B or C", "ب یا ج", "pomegranate or orange")."""
    join = _HEDGE_JOIN.match(text, end)
    if not join:
        return False
    second = _label_at(text, join.end(), options, after_option_word=True) or options.at(text, join.end(), short=True)
    if second is None:  # "the first or the second", "option 1 or the option 2"
        art = re.match(r"(?:an?|the)\s+(?:(?:option|choice|response)\s+)?", text[join.end() :], re.I)
        if art:
            second = _label_at(text, join.end() + art.end(), options, after_option_word=True) or options.at(
                text, join.end() + art.end()
            )
    return second is not None and second[0] != first


def _conflicting_after(text: str, end: int, label: int, options: _OptionMatcher) -> bool:
    """An answer followed by another option's label or text in brackets ("Haleem (3)", "3 (Haleem)"
    where Haleem is option 2): the reply contradicts itself, no answer."""
    bracket = re.match(r"\s*[(\[]\s*([^()\[\]\n]{1,80}?)\s*[)\]]", text[end:])
    if bracket:
        bare = options.space.bare_label.match(bracket.group(1))
        other = options.space.value(bare.group("l"), ordinal_ok=False) if bare else options.whole(bracket.group(1))
        return other is not None and other != label
    named = re.match(r"\s*[):\-–—,،]?\s*([^.!?؟()\n]{1,80}?)\s*(?:[.!]|$|\n)", text[end:])  # "Option 3: Haleem"
    return bool(named) and options.whole(named.group(1)) not in (None, label)


def _choice_after_cue(
    text: str, pos: int, options: _OptionMatcher, *, after_option_word: bool = False
) -> tuple[int, int, bool] | None:
    """Parse fillers then a label (or an option's text) after a cue: (label, end, negated).
    ``after_option_word``: the cue ends in a word naming a label ("the number is five")."""
    negated = False
    for _ in range(_MAX_FILLERS + 1):
        skip = _SKIP.match(text, pos)
        if skip:
            pos = skip.end()
        retraction = _RETRACTION.match(text, pos)  # "Actually, no: 3", «نه، ۴»: no negation of what follows
        if retraction:
            pos = retraction.end()
            continue
        label = _label_at(text, pos, options, after_option_word=after_option_word, after_cue=True)
        art = re.match(r"(?:an?|the)\s+", text[pos:], re.I)
        if art:  # "Answer: A pomegranate." -- the article, then option C's text
            hit = options.at(text, pos + art.end())
            if hit is not None and (label is None or hit[0] != 0):
                label = hit
        if label is None:
            hit = options.at(text, pos)
            if hit is None:  # a shortened option, standing alone: «پاسخ: قیمه.»
                hit = options.at(text, pos, short=True)
                if hit is not None and not re.match(
                    r"\s*(?:[.!،,;؛()\n]|$|(?:است|هست|ست|باشه|باشد|is|because|since|چون|زیرا|چرا\s+که)(?!\w))",
                    text[hit[1] :],
                ):
                    hit = None
            if hit is None and pos < len(text) and not _NEGATION_WORD.match(text, pos):
                # the rest of the clause rewording one option: "The answer is removing shoes."
                clause = re.match(r"[^.!?؟;؛,،:\n]+", text[pos:])
                if clause and options.texts:
                    index = options.paraphrase(clause.group(0))
                    hit = None if index is None else (index, pos + clause.end())
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
        after_option_word = after_option_word or (
            filler.group(0).lower() in ("option", "choice", "response", "reply", "گزینه", "number", "شماره")
        )
        pos = filler.end()
    return None


# "I'm not sure, maybe C", «مطمئن نیستم، شاید هم د»: uncertainty between options, no answer.
_UNSURE = re.compile(
    r"(?<!\w)(?:(?:not\s+(?:sure|certain)|unsure|(?:don['’]t|do\s+not)\s+know|no\s+idea|مطمئن\s+نیستم|اطمینان\s+ندارم|نمی\s*دانم|نمی\s*دونم)[^.\n]{0,40}?(?<!\w)(?:maybe|perhaps|possibly|or|شاید|یا)(?!\w)"
    r"|(?:hard|difficult|impossible)\s+to\s+(?:say|tell)|(?:سخت|دشوار)\s+است\s+(?:بگویم|گفت)|نمی\s*شود\s+گفت)",
    re.I,
)
_EQUALLY = re.compile(
    r"(?<!\w)(?:just\s+as\s+well|equally\s+(?:well|good|valid|fine|appropriate|likely|plausible)"
    r"|به\s+همان\s+اندازه|به\s+یک\s+اندازه)(?!\w)",
    re.I,
)
_ECHOED_QUESTION = re.compile(r"^\s*(?:question|پرسش|سوال|سؤال)\s*[:：][^\n]*\?[ \t]*$", re.I | re.M)
_REFUSAL = re.compile(
    r"(?<!\w)(?:can['’]?t|cannot|can\s+not|unable\s+to|won['’]t|will\s+not|refuse\s+to|decline\s+to)\s+(?:\w+\s+){0,2}?(?:choose|pick|select|answer|decide|determine|tell)"
    r"|نمی\s*توانم\s+(?:\S+\s+){0,2}?(?:انتخاب|پاسخ|جواب|تشخیص)",
    re.I,
)
_RETRACTION = re.compile(r"(?:no|nope|hmm+|wait|sorry|oops|نه|نخیر|ببخشید)\s*[,:،؛!\-–—.]+\s*", re.I)
_HEDGE = -1
# A statement taken back: "wait", "sorry", «ببخشید» (with or without "no"); a bare "no," / «نه،» only
# where another answer follows ("Answer: 2. No, 1 is too pushy" elaborates, it takes nothing back).
_RETRACTION_AFTER = re.compile(
    r"(?:^|(?<=[\s.!?…,،;؛—–\-]))(?:(?:no|nope|نه|نخیر)\s*[,،!.—–\-]?\s*)?(?P<strong>wait|sorry|oops|ببخشید|صبر\s+کن)\s*[,،.!—–\-:]+(?:\s*(?:no|nope|نه)\s*[,،.!—–\-:]+)?"
    r"|(?:^|(?<=[\s.!?…,،;؛—–\-]))(?P<weak>no|nope|نه|نخیر)\s*[,،!—–\-]",
    re.I,
)
_LEADING_CONNECTIVE = re.compile(
    r"^(?:(?:so|thus|hence|therefore|definitely|def|surely|certainly|clearly|obviously|probably|(?:most\s+)?likely|پس|بنابراین|قطعا|حتما|مسلما|احتمالا)\s*[,:،]?\s+)+",
    re.I,
)
_TRAILING_ADVERB = re.compile(
    r"\s*[,،]?\s*(?:definitely|for\s+sure|of\s+course|obviously|قطعا|حتما|مسلما|البته|دیگه)[\s.!]*$", re.I
)


def _answer_line(sentence: str, options: _OptionMatcher, *, lead: bool = False, tail: bool = False) -> int | None:
    """The option a sentence that is nothing but an answer gives ("C", "(C) Pomegranate.",
    "گزینه سوم", "Pomegranates.", "Korea: 4"), _HEDGE for "A or C", else None. At the reply's
    start (``lead``) a label followed by an explanation counts too ("3, because ...", «۲ زیرا ...»)."""
    space = options.space
    s = _TRAILING_ADVERB.sub("", _LEADING_CONNECTIVE.sub("", sentence.strip(" \t*_#>")))
    if not s:
        return None
    bare = space.bare_label.match(s)
    if bare:
        return space.value(bare.group("l"), ordinal_ok=False)
    labelled = space.labelled_line.match(s)
    if labelled and _COORDINATED.match(s, labelled.end("l")):
        return _joined(s, labelled.end("l"))  # "1, 2 and 4 are savory", "A, B: no": a list of labels, no answer line
    if labelled:
        label = space.value(labelled.group("l"), ordinal_ok=False)
        rest = labelled.group("rest").strip(" \t*.")
        if label is not None and _hedged_after(s, labelled.start("rest") - 1 if rest else len(s), label, options):
            return _joined(s, labelled.end("l"))
        if label is not None and rest and options.whole(rest) not in (None, label):
            return _HEDGE  # "3) Haleem" where Haleem is option 2: a label and another option's text
        sep = labelled.group("sep").strip()
        punctuated = bool(sep)  # "C) ..." vs "C Pomegranate" / "A Persian ..."
        if label is not None and (
            not rest or (options.whole(rest) == label if options.texts else punctuated and len(rest.split()) <= 12)
        ):
            return label
        digit_or_word = labelled.group("l").isdigit() or bool(_OPTION_WORD_AT.match(s.lstrip(" \t(\"'«*-•")))
        if (
            label is not None
            and lead
            and not _VERDICT_START.match(rest)
            and (
                _EXPLANATION_START.match(rest)  # "2 because ...", "Response 3, because ...", «۲ زیرا ...»
                or (punctuated and sep not in (".", ":") and digit_or_word)  # "3 - it is humble", "2 (Your slide ...)"
                or (sep.startswith("(") or rest.startswith(("(", '"', "«", "'")))
                and digit_or_word
            )
        ):
            other = options.whole(rest)
            return label if other in (None, label) else None
    first = space.label_at.match(s)
    if first and first.lastgroup in ("upper", "fa", "digit"):
        value = space.value(first.group(first.lastgroup), ordinal_ok=False)
        if value is not None and _hedged_after(s, first.end(), value, options):
            return _joined(s, first.end())
    versus = _VERSUS.match(s)  # "X, not Y", "1 rather than 2", «فسنجان، نه قیمه»
    if versus:
        chosen, other = _answer_line(versus.group("x"), options), _answer_line(versus.group("y"), options)
        if chosen is not None and chosen != _HEDGE and other != chosen:
            return chosen
    quoted = _LABEL_AFTER_TEXT.match(s)  # "Zurkhaneh (2)": an option's text and its own label
    if quoted:
        value = space.value(quoted.group("l"), ordinal_ok=False)
        if value is not None and options.whole(quoted.group("t")) == value:
            return value
        named = {i for i, rejected in options.found(quoted.group("t"), short=True).items() if not rejected}
        if value is not None and (named or options.whole(quoted.group("t")) is not None) and value not in named:
            return _HEDGE  # "Removing shoes at the door (D)": one option's words, another's label
    keyed = _KEYED_LINE.match(s)
    if keyed and _REJECTING_KEY.match(re.sub(r"(?i)^\s*the\s+", "", keyed.group("key"))):
        return None  # "Worst: 1", "Least appropriate: 1", «بدترین: ۱»: the option ranked last, no answer
    if (
        keyed
        and (tail or len(keyed.group("key").split()) <= 3)
        and not re.match(r"(?i)\s*(?:step|مرحله)", keyed.group("key"))
    ):
        rest = space.bare_label.match(keyed.group("rest"))
        if rest:
            return space.value(rest.group("l"), ordinal_ok=False)
    ordinal = _BARE_ORDINAL.match(s)
    if ordinal:
        word = ordinal.group("o").lower()
        value = _ORDINAL_INDEX.get(word)
        if value is not None and value < space.count:
            if not re.fullmatch(r"[^\W\d_]+", word, re.A):  # Persian: «سومی», «گزینه سوم»
                return value
            if word in _EN_ORDINALS and re.search(r"(?i)\b(?:option|choice|response|one)\b", s):
                return value
            if (
                word in _EN_NUMBER_WORDS
                and s.strip(" \t.!*").lower() == word
                or re.match(rf"(?i)^\W*(?:option|choice|response)\s+{word}\W*$", s)
            ):
                return value
    return options.whole(s)


_OR_JOIN = re.compile(r"\s*[,،]?\s*(?:or|either|یا|/|to|تا|[-–])", re.I)
_HEDGE_WORDS = re.compile(
    r"\s*[,،]?\s*(?:$|both|either|could|might|may|depend|are\s+(?:both\s+)?(?:fine|good|ok|okay|possible|plausible|acceptable|appropriate|correct|right)"
    r"|هر\s+دو|ممکن|می\s+توان|بستگی|درست|مناسب)",
    re.I,
)


def _joined(s: str, end: int) -> int | None:
    """A line opening with two joined labels: "1 or 2" is a hedge (_HEDGE); "1 and 2 are both fine"
    too; "1 and 2 are too insistent" / "1 and 2 sound boastful" names rejected options: no answer
    line (None), the rest of the reply decides."""
    if _OR_JOIN.match(s, end):
        return _HEDGE
    listed = _COORDINATED.match(s, end)
    after = listed.end() if listed else end
    if _negated_after(s, after):
        return None
    return _HEDGE if _HEDGE_WORDS.match(s, after) else None


_VERDICT_LINE = re.compile(
    r"""^[\s\-•*]*[(\[]?\s*(?P<l>[1-9A-D]|الف|ب|ج|د)\s*[).:\]\-–]\s*.*?[\s:\-–—,،]\s*(?:is\s+|است\s+)?
        (?:(?P<yes>yes|correct|right|true|بله|آره|درست|صحیح|درسته|✓|✔|✅)|(?P<no>no|wrong|incorrect|false|نه|خیر|نادرست|غلط|✗|✘|❌))
        (?:\s+(?:است|هست))?[\s.!]*$""",
    re.X | re.I,
)


def _verdict_list(text: str, space: _Space) -> int | None:
    """Options judged one by one, one line each, exactly one of them yes: that one."""
    yes, no = set(), set()
    for line in re.split(
        r"\n|[;؛](?=\s*[(\[]?\s*(?:[1-9A-D]|الف|ب|ج|د)\s*[).:\]\-–])", text
    ):  # lines, or "1 - no; 2 - yes"
        m = _VERDICT_LINE.match(line)
        if m:
            value = space.value(m.group("l"), ordinal_ok=False)
            if value is not None:
                (yes if m.group("yes") else no).add(value)
    if len(yes) == 1 and len(yes | no) >= 3 and not yes & no:
        return yes.pop()
    return None


_CONCLUSION = re.compile(
    r"(?<!\w)(?:therefore|thus|hence|so|in\s+conclusion|overall|ultimately|بنابراین|پس|در\s+نتیجه|در\s+نهایت|در\s+کل)(?!\w)",
    re.I,
)


def _concluded(sentences: list[str], options: _OptionMatcher, excluded: set[int]) -> int | None:
    """The one option (text, or a shortened one) the last concluding sentence names, not rejected."""
    for sentence in reversed(sentences):
        conclusion = _CONCLUSION.search(sentence)
        if conclusion:
            # only what follows "therefore": "X involves fire, so it is not Y" concludes nothing about X
            after = sentence[conclusion.end() :]
            named = {i for i, rejected in options.found(after, short=True).items() if not rejected} - excluded
            return named.pop() if len(named) == 1 else None
    return None


# An alternative offered instead of the answer: "2. Or maybe 3.", «۲. شاید هم ۳» (the corpus reads «فکر کنم جن
# باشه... شاید هم روح نیاکان» as no answer); one only "also possible" leaves it ("I think it's C, but B is also
# possible" is C there).
_ALTERNATIVE = re.compile(
    r"(?<!\w)(?:or\s+(?:maybe|perhaps|possibly)|maybe|perhaps|possibly|یا\s+شاید|شاید\s+هم|شاید|یا\s+هم)(?!\w)",
    re.I,
)
_CONCEDED_AFTER = re.compile(r"[^.!?؟\n]*?(?<!\w)(?:but|however|though\s+(?!\W*$)|اما|ولی|ولیکن)(?!\w)", re.I)


_ALSO_LABEL = re.compile(
    r"\s*(?:(?:option|choice|response|گزینه)\s*)?([1-9])\s*(?=(?:though|too|also|as\s+well|instead|هم)(?!\w))", re.I
)


def _alternatives(text: str, options: _OptionMatcher) -> list[tuple[int, int]]:
    """(position, option) of each option offered as an alternative ("or maybe 3", «شاید هم ۳»),
    not negated ("or maybe not") and not conceded ("maybe 1 is tempting, but ...")."""
    found = []
    for m in _ALTERNATIVE.finditer(text):
        got = _choice_after_cue(text, m.end(), options)
        if got is None:  # "maybe 3 though", «شاید ۳ هم»: a digit the word after makes an alternative
            also = _ALSO_LABEL.match(text, m.end())
            value = options.space.value(also.group(1), ordinal_ok=False) if also else None
            got = None if value is None else (value, also.end(), False)
        if got is None:
            continue
        label, end, negated = got
        if negated or _negated_after(text, end) or _CONCEDED_AFTER.match(text, end):
            continue
        found.append((m.start(), label))
    return found


_ALSO = re.compile(r"(?<!\w)(?:also|too|as\s+well|could|might|may|هم|نیز|ممکن)(?!\w)", re.I)


def _conceded_to(text: str, end: int, label: int, options: _OptionMatcher) -> bool:
    """Does the sentence of a statement go on "but/however/اما/ولی" to name another option (not
    rejected, not only "also possible")? Then the statement is conceded ("I think X is what most
    expect, but in this story ... option 1"); not by "but 1 is too pushy", "but only in the north",
    "but B is also possible" (the corpus reads the stated option there)."""
    but = _CONCEDED_AFTER.match(text, end)
    if not but:
        return False
    stop = re.compile(r"[.!?؟\n]").search(text, but.end())
    after = text[but.end() : stop.start() if stop else len(text)]
    space = options.space
    named = set()
    for m in space.mention.finditer(after):
        value = space.value(m.group(m.lastgroup), ordinal_ok=m.lastgroup in ("t", "u"))
        if (
            value is not None
            and not _negated_after(after, m.end())
            and not _REJECTED_BEFORE.search(after[max(0, m.start() - 25) : m.start()])
        ):
            named.add(value)
    for m in re.finditer(rf"(?<![\w.]){space.body}(?!\w|[.,]\d)", after):
        got = _label_at(after, m.start(), options, after_option_word=False, after_cue=True)
        if (
            got
            and not _negated_after(after, got[1])
            and not _REJECTED_BEFORE.search(after[max(0, m.start() - 25) : m.start()])
        ):
            named.add(got[0])
    named |= {i for i, rejected in options.found(after).items() if not rejected}
    if not named - {label}:
        return False
    return not _ALSO.search(after)


def _hedged_later(alternatives: list[tuple[int, int]], answer: int, pos: int) -> bool:
    """Is another option offered as an alternative after the answer read at ``pos``?"""
    return any(q > pos and label != answer for q, label in alternatives)


def _numbered_lines(text: str) -> int:
    return sum(1 for line in text.split("\n") if _LIST_LINE.match(line))


def _taken_back(
    text: str, start: int, end: int, label: int, options, matcher: _OptionMatcher, count: int, letters: bool
) -> tuple[bool, int | None]:
    """(True, what follows) when an answer ``label`` is taken back between ``start`` and ``end`` ("I think
    3... no wait, 2.", «فکر کنم ۳... نه، ...؛ ۲»): what follows the retraction decides; (False, None) otherwise."""
    retraction = _RETRACTION_AFTER.search(text, start, end)
    if not retraction:
        return False, None
    rest = text[retraction.end() :]
    then = read_option(rest, options, count=count, letters=letters)
    last = [s for s in _SENTENCE_SPLIT.split(rest) if s.strip()][-1:]
    if then is None and last:  # the reply's last line: "..., it's the nazri dish: 2."
        then = _answer_line(last[0], matcher, tail=True)
        then = None if then == _HEDGE else then
    if retraction.group("strong") or then not in (None, label):
        return True, then
    return False, None


def _names_other_label(text: str, label: int, space: _Space) -> bool:
    """Does ``text`` name a label other than ``label``, bare ("3", "C") or formatted ("(C)", "option 3")?"""
    bare = (m.group(0) for m in re.finditer(rf"(?<![\w.]){space.body}(?!\w|[.,]\d)", text))
    formatted = (m.group(m.lastgroup) for m in space.mention.finditer(text))
    return any(space.value(token, ordinal_ok=False) not in (None, label) for token in (*bare, *formatted))


def read_option(
    reply: str | None,
    options: Sequence[str] | Mapping[str, str] | None = None,
    *,
    count: int = 4,
    letters: bool = True,
    next_item: Sequence[str] = (),
) -> int | None:
    """The 0-based index of the option a free-text reply chose, or None when no single one is
    stated. The one grammar behind :func:`extract_choice` and :func:`read_pick`. It only ever
    returns an index below ``count``.

    ``count`` options, labelled by digits 1..count and (``letters``) by the first ``count`` of
    A-D / الف ب ج د; ``options`` (their texts, in order) lets the reply name one by its text, also
    inflected or shortened to a word no other option has. ``next_item``: the headers that open an
    item in the task's prompt ("Conversation", "Story", ...); a reply that goes on into an invented
    next item is read up to the first line starting with one (see :func:`cut_at_next_item`).
    """
    index = _read_option(reply, options, count=count, letters=letters, next_item=tuple(next_item))
    return index if index is not None and 0 <= index < count else None


def _read_option(
    reply: str | None,
    options: Sequence[str] | Mapping[str, str] | None,
    *,
    count: int,
    letters: bool,
    next_item: tuple[str, ...],
) -> int | None:
    text = _prepare(reply)
    if not text:
        return None
    text = read_json_picks(text)
    space = _space(count, letters)
    matcher = _OptionMatcher(options, space)
    text = space.range_echo.sub(" ", text)
    text = cut_at_next_item(text, next_item)
    text = _ECHOED_QUESTION.sub("", text)  # "Question: ... What should Reza do?" repeated from the prompt
    text = _drop_echoed_options(text, matcher).strip()
    if not text:
        return None
    bare = space.bare_label.match(text)
    if bare:
        return space.value(bare.group("l"), ordinal_ok=False)
    if _EQUALLY.search(text) or _UNSURE.search(text):  # "2, though 3 could work just as well": none chosen
        return None

    # 1. answer statements: (position, label, negated, hedged, end); the last one standing wins
    statements: list[tuple[int, int, bool, bool, int]] = []
    cues = list(_CHOICE_CUES.finditer(text))
    cues += [
        c for c in _CORRECTION_CUES.finditer(text) if _NEGATION_BEFORE.search(text[max(0, c.start() - 40) : c.start()])
    ]
    for cue in cues:
        if _REFUSAL_BEFORE.search(text[max(0, cue.start() - 20) : cue.start()]):
            continue
        found = _choice_after_cue(text, cue.end(), matcher, after_option_word=bool(_NUMBER_CUE.search(cue.group(0))))
        if found is None:
            continue
        label, end, negated = found
        # "Least appropriate response: 1" after "Most appropriate response: 4": the option ranked last
        # (the words right before the cue only: "To avoid offending, the answer is 3" is an answer)
        key = " ".join(re.split(r"[\n.;؛!?,،:]", text[max(0, cue.start() - 30) : cue.start()])[-1].split()[-2:])
        negated = (
            negated
            or _negated_after(text, end)
            or bool(_REJECTING_KEY.match(re.sub(r"(?i)^the\s+", "", f"{key} {cue.group(0)}")))
        )
        hedged = not negated and (
            _hedged_after(text, end, label, matcher) or _conflicting_after(text, end, label, matcher)
        )
        statements.append((cue.start(), label, negated, hedged, end))

    mentions: list[tuple[int, int, bool, bool]] = []  # (position, label, rejected, hedged)
    for m in space.mention.finditer(text):
        group = m.lastgroup
        token = m.group(group)
        value = space.value(token, ordinal_ok=group in ("t", "u"))
        if value is None:
            continue
        coordinated = _COORDINATED.match(text, m.end())
        negated = (
            _negated_after(text, m.end())
            or (coordinated is not None and _negated_after(text, coordinated.end()))
            or bool(_REJECTED_BEFORE.search(text[max(0, m.start() - 25) : m.start()]))
        )
        if _ASSERTED.match(text, m.end()) and not _REJECTED_BEFORE.search(text[max(0, m.start() - 25) : m.start()]):
            statements.append((m.start(), value, negated, False, m.end()))
        else:
            mentions.append((m.start(), value, negated, not negated and _hedged_after(text, m.end(), value, matcher)))
    # A bare label followed by an assertion ("C is correct", "3 fits best", «ج درست است»).
    for m in re.finditer(rf"(?<![\w.]){space.body}(?!\w|[.,]\d)", text):
        if _ASSERTED.match(text, m.end()):
            value = space.value(m.group(0), ordinal_ok=False)
            if (
                value is not None
                and not _negated_after(text, m.end())
                and not _REJECTED_BEFORE.search(text[max(0, m.start() - 25) : m.start()])
            ):
                statements.append(
                    (
                        m.start(),
                        value,
                        False,
                        _hedged_after(text, m.end(), value, matcher)
                        or bool(
                            re.search(
                                r"(?:either|between|both|یا)\s*(?:\S+\s+){0,2}$",
                                text[max(0, m.start() - 25) : m.start()],
                                re.I,
                            )
                        ),
                        m.end(),
                    )
                )

    alternatives = _alternatives(text, matcher)
    verdicts = _verdict_list(text, space)
    excluded: set[int] = set()
    for at, label, negated, hedged, end in sorted(statements, key=lambda s: s[0], reverse=True):
        if hedged:
            return None
        if negated:
            excluded.add(label)
        elif label not in excluded:
            if _hedged_later(alternatives, label, at) or verdicts not in (None, label):
                return None  # "2. Or maybe 3."; "Answer: 1) ... - no / 2) ... - yes"
            if _conceded_to(text, end, label, matcher):
                continue  # "I think X is what most expect, but in this story ... option 1"
            # taken back after it ("I think 3... no wait, 2.", «فکر کنم ۳... نه، ...؛ ۲»): what follows decides
            taken_back, then = _taken_back(text, end, len(text), label, options, matcher, count, letters)
            return then if taken_back else label

    if _REFUSAL.search(text):  # "..., so I can't choose between these options"
        return None

    # a verdict per option ("1) Perfume bottle - no\n2) Golabpash - yes ..."): the one yes
    verdicts = _verdict_list(text, space)
    if verdicts is not None:
        return verdicts

    # 2. an answer line at the end or at the start of the reply
    sentences = [s for s in _SENTENCE_SPLIT.split(text) if s.strip() and not s.rstrip().endswith(("?", "؟"))]
    if sentences:
        tail = _answer_line(sentences[-1], matcher, tail=True) if len(sentences) > 1 else None
        # the first line of a numbered list of steps ("1. Yalda is ...\n2. ...") is no answer
        lead = (
            None
            if _numbered_lines(text) >= 2 and _LIST_LINE.match(text)
            else _answer_line(sentences[0], matcher, lead=True)
        )
        if lead is None and _numbered_lines(text) < 2:
            first_line = text.split("\n", 1)[0]
            if first_line != sentences[0]:
                lead = _answer_line(first_line, matcher, lead=True)
        for line, at in ((tail, text.rfind(sentences[-1])), (lead, 0)):
            if line == _HEDGE:
                return None
            if line is not None and line not in excluded:
                if at == 0:  # taken back right after it ("2. Wait, 3.", "B. Sorry, C.", «۲. ببخشید، ۳»)
                    start = text.find(sentences[0])
                    window = start + len(sentences[0])
                    if len(sentences) > 1:
                        window = text.find(sentences[1], window) + len(sentences[1])
                    taken_back, then = _taken_back(text, start + 1, window, line, options, matcher, count, letters)
                    # a retraction naming no other option ("C. Sorry, I cannot explain more.") leaves it standing
                    if taken_back and (then is not None or _names_other_label(text[start + 1 :], line, space)):
                        return then
                return None if _hedged_later(alternatives, line, at) else line

    # the concluding sentence names one option ("The story therefore describes Chaharshanbe Suri.")
    concluded = _concluded(sentences, matcher, excluded)
    if concluded is not None:
        return concluded

    # 3. labels mentioned with formatting, then option texts: only an unambiguous one counts
    for _, label, negated, _ in mentions:
        if negated:
            excluded.add(label)
    if any(hedged for _, _, negated, hedged in mentions if not negated):
        return None
    labels = {label for _, label, negated, _ in mentions if not negated and label not in excluded}
    if len(labels) == 1:
        return labels.pop()
    if labels:
        return None

    found = matcher.found(text)
    # a run of an option's words inside a longer reply ("Reza should insist on paying"); a reply of a
    # few words is an option only as the paraphrase rule reads it ("standing up when guests enter" is
    # no option "Standing up when elders enter": one of its words is no option's)
    phrases = matcher.phrases(text) if len(_loose(text).split()) > _PARAPHRASE_MAX else {}
    for extra in (matcher.quoted(text), phrases):  # "the 'Would you perhaps enjoy a slice' one"
        for index, rejected in extra.items():
            found[index] = found.get(index, False) or rejected
    texts = {index for index, rejected in found.items() if not rejected} - excluded
    # an option named only in a shortened form beside it ("ghormeh sabzi or gheymeh") leaves it unsure
    named = {index for index, rejected in matcher.found(text, short=True).items() if not rejected} - excluded - texts
    if len(texts) == 1 and not named:
        return texts.pop()
    return None


def extract_choice(reply: str | None, options: Sequence[str] | Mapping[str, str] | None = None) -> str | None:
    """The option ("A".."D") a free-text reply chose, or None when no single choice is stated.

    ``options`` (four texts in A-D order, or a mapping ``{"A": text, ...}``) lets the reply
    name an option by its text ("The answer is pomegranate", "پاسخ: انار", "انارها"). Options
    numbered 1-4 (PerCul) are read as A-D.
    """
    index = read_option(reply, options, count=4, letters=True)
    return None if index is None else LETTERS[index]


def read_pick(reply: str | None, responses: Sequence[str] | None = None, count: int = 5) -> int | None:
    """The response number (1..count) a free-text reply picked (CAC), or None. ``responses``
    (their texts, in order) lets the reply name a response by its text."""
    index = read_option(reply, responses, count=count, letters=False)
    return None if index is None else index + 1


# --------------------------------------------------------------------------- yes / no
_NOT_AN_ANSWER = re.compile(
    r"(?<!\w)(?:yes\s*(?:or|/)\s*no|no\s*(?:or|/)\s*yes|بله\s*(?:یا|/)\s*(?:خیر|نه)|آره\s*(?:یا|/)\s*نه|آری\s*یا\s*نه|"
    r"با\s+(?:بله|آره)|با\s+(?:خیر|نه)(?=\s+پاسخ))(?!\w)",
    re.I,
)
# The answer-format instruction repeated (base models echo their prompt): 'end with "Answer: Yes"
# or "Answer: No"', «پاسخ: بله» یا «پاسخ: خیر». Both verdicts offered as alternatives state neither.
_YN_STATEMENT = r"""["'«‘]?\s*(?:answer|پاسخ|جواب)\s*:?\s*(?:{})\s*[.]?\s*["'»’]?"""
_ECHOED_INSTRUCTION = re.compile(
    _YN_STATEMENT.format(r"yes|بله|آره")
    + r"\s*,?\s*(?:or|یا|/)\s*"
    + _YN_STATEMENT.format(r"no|خیر|نه")
    + "|"
    + _YN_STATEMENT.format(r"no|خیر|نه")
    + r"\s*,?\s*(?:or|یا|/)\s*"
    + _YN_STATEMENT.format(r"yes|بله|آره"),
    re.I,
)
_ADJ_END = r"(?=\s*(?:[.!،,;؛:)\]»\"'\n—–]|$))"  # a verdict adjective must end its phrase
# English "no" is a verdict before punctuation or a pronoun ("No, they ...", "No they did not"),
# a determiner before a noun ("No one stood up", "No further explanation", "No Iranian would").
_NO_AS_VERDICT = (
    r"(?=\s*(?:[.,!;:)\]»\"'\n—–\-]|$)"
    r"|\s+(?:they|it|this|that|he|she|i|we|you|not|the\s+(?:answer|behaviou?r|statement))(?!\w))"
)
_YN_AT = re.compile(
    rf"""[(\["'«‘]?\s*(?:
        (?P<no_adj>(?:درست|صحیح)\s+نیست|نادرست|غلط|اشتباه|منفی|incorrect|false|wrong|not\s+correct|not\s+true)
            (?:\s+(?:است|هست|بود))?{_ADJ_END}
      | (?P<no_adv>(?:absolutely|definitely|certainly|of\s+course)\s+not|not\s+at\s+all|not\s+really|by\s+no\s+means|به\s+هیچ\s+وجه|(?:قطعا|مسلما|اصلا)\s+(?:نه|خیر)){_ADJ_END}
      | (?P<yes_adj>درست|درسته|صحیح|مثبت|correct|true|right)(?:\s+(?:است|هست|بود))?{_ADJ_END}
      | (?P<yes_adv>absolutely|definitely|certainly|of\s+course|indeed|البته|قطعا|مسلما|حتما){_ADJ_END}
      | (?P<yes>yes|yeah|yep|yup|بله|بلی|آره|آری)(?!\w)
      | (?P<yes_did>(?:of\s+course|certainly|definitely|absolutely|sure)\s+(?:he|she|they|it|you|we)\s+(?:did|does|do|is|was|were|should|would|will)(?!\s*n['’]t|\s+not)(?!\w))
      | (?P<no>(?:no|nope|nah){_NO_AS_VERDICT}|(?:خیر|نخیر|نچ)(?!\w)|نه(?!\w)(?!\s+(?:تنها|فقط)(?!\w)))
    )""",  # noqa: E501 (a verbose pattern, kept byte-identical)
    re.X | re.I,
)
_YN_BOTH = re.compile(r"\s*[,،]?\s*(?:and|or|/|&|و|یا)\s*(?:yes|no|بله|خیر|نه|آره)(?!\w)", re.I)
_YN_CONCESSIVE = re.compile(r"\s*(?:[,،]\s*)?(?:but|however|although|اما|ولی|که|that)(?!\w)", re.I)
_YN_CUES = re.compile(
    r"""(?<!\w)(?:
        final\s+answer | (?:the\s+|my\s+|short\s+)?answer | verdict | in\s+conclusion | conclusion | in\s+short
      | to\s+summari[sz]e | overall | so | therefore | thus | hence
      | پاسخ(?:\s+(?:نهایی|من|کوتاه))? | جواب(?:\s+(?:نهایی|من))? | نتیجه(?:\s+گیری)? | در\s+نتیجه | بنابراین | پس
      | خلاصه | به\s+طور\s+خلاصه | در\s+کل | معلومه\s+که | معلوم\s+است\s+که | مسلمه\s+که
      | i(?:\s+would|'d|’d)?\s+say | قطعا | مسلما | حتما | definitely | certainly | absolutely
      | actually | on\s+(?:second|further)\s+thought | correction | در\s+واقع | راستش
      | i(?:\s+would|'d|’d)?\s+lean(?:ing)?\s+(?:towards?|to) | it['’]s\s+an? | that['’]s\s+an?
      | (?:but\s+)?(?:by|according\s+to|from\s+the\s+(?:point\s+of\s+view|perspective)\s+of|in\s+terms\s+of)\s+(?:persian\s+|iranian\s+)?(?:tradition|custom|etiquette|culture)s?
      | (?:ولی\s+|اما\s+)?(?:از\s+نظر|طبق|بر\s+اساس|مطابق|با\s+توجه\s+به)\s+(?:رسوم|رسم|سنت|آداب|فرهنگ|عرف)(?:\s+(?:ایرانی|ایران))?
    )(?!\w)""",  # noqa: E501 (a verbose pattern, kept byte-identical)
    re.X | re.I,
)
_YN_FILLER = re.compile(
    r"(?:is|would|be|definitely|clearly|simply|certainly|then|the|اینکه|این|است|هست|من|قطعا|مسلما|کوتاه)(?!\w)", re.I
)
_SENTENCES = re.compile(r"[^.!?؟;؛\n]+[.!?؟;؛]*")

_TRADITION_FA = r"(?:رسوم|رسم|سنت|سنت ها|آداب|فرهنگ|عرف|باور|باورهای)"
_TRADITION_EN = r"(?:(?:persian|iranian)\s+)?(?:tradition|traditions|custom|customs|etiquette|norms?|culture)"
_VERDICTS = [
    # (pattern, polarity); a "not"/"n't"/"never" just before flips the polarity
    (
        re.compile(
            r"(?<!\w)(?:did\s+not|didn't|didn’t|does\s+not|doesn't|do\s+not|don't)\s+(?:act|behave|follow|respect|observe)",
            re.I,
        ),
        False,
    ),  # fmt: skip
    (
        re.compile(
            r"(?<!\w)(?:acted|act|behaved|behave)\s+(?:\w+\s+)?(?:according|in\s+accordance|in\s+line|consistently)\s+(?:to|with)",
            re.I,
        ),
        True,
    ),  # fmt: skip
    (
        re.compile(
            r"(?<!\w)(?:acted|behaved)\s+(?:properly|correctly|appropriately|respectfully|rightly|politely)(?!\w)", re.I
        ),
        True,
    ),  # fmt: skip
    (
        re.compile(
            r"(?<!\w)(?:acted|behaved)\s+(?:improperly|incorrectly|inappropriately|disrespectfully|rudely|impolitely|wrongly)(?!\w)",
            re.I,
        ),
        False,
    ),  # fmt: skip
    (re.compile(r"(?<!\w)(?:did|do|does|done)\s+the\s+right\s+thing(?!\w)", re.I), True),
    (re.compile(r"(?<!\w)(?:همخوانی|مطابقت|سازگاری|تطابق|هماهنگی)\s+دارد(?!\w)"), True),
    (re.compile(r"(?<!\w)(?:همخوانی|مطابقت|سازگاری|تطابق|هماهنگی)\s+ندارد(?!\w)"), False),
    (
        re.compile(
            rf"(?<!\w)(?:follows?|followed|(?:is|was|are|were)\s+(?:consistent|in\s+line|in\s+keeping|in\s+accordance)\s+with|aligns?\s+with|respects?|respected|upholds?|observes?|observed)\s+(?:the\s+|a\s+)?{_TRADITION_EN}",
            re.I,
        ),
        True,
    ),  # fmt: skip
    (
        re.compile(
            rf"(?<!\w)(?:violates?|violated|goes\s+against|went\s+against|against|contrary\s+to|breaks?|broke|disregards?|disregarded)\s+(?:the\s+|a\s+)?{_TRADITION_EN}",
            re.I,
        ),
        False,
    ),  # fmt: skip
    (re.compile(r"(?<!\w)(?:درست|به\s+درستی|صحیح|مناسب)\s+(?:رفتار|عمل)\s+(?:کرده|کرد|کردند|کرده\s+اند)(?!\w)"), True),
    (
        re.compile(r"(?<!\w)(?:درست|به\s+درستی|صحیح|مناسب)\s+(?:رفتار|عمل)\s+(?:نکرده|نکرد|نکردند|نکرده\s+اند)(?!\w)"),
        False,
    ),
    (
        re.compile(
            r"(?<!\w)کار\s+(?:درستی|درست|صحیحی|خوبی|بجایی|به\s+جایی)\s+(?:کرده|کرد|کردند|کرده\s+اند|کردن)(?!\w)"
        ),
        True,
    ),  # fmt: skip
    (
        re.compile(
            r"(?<!\w)کار\s+(?:درستی|درست|صحیحی|خوبی|بجایی|به\s+جایی)\s+(?:نکرده|نکرد|نکردند|نکرده\s+اند|نکردن)(?!\w)"
        ),
        False,
    ),  # fmt: skip
    (re.compile(r"(?<!\w)جور\s+(?:در\s*می\s*آید|در\s*میاد|در\s*می\s*آیند)(?!\w)"), True),
    (re.compile(r"(?<!\w)جور\s+(?:در\s*نمی\s*آید|در\s*نمیاد|در\s*نمی\s*آیند)(?!\w)"), False),
    (re.compile(rf"(?<!\w){_TRADITION_FA}\D{{0,40}}?(?:را\s+)?رعایت\s+(?:کرده|کرد|کردند|شده|می\s+کنند)(?!\w)"), True),
    (
        re.compile(rf"(?<!\w){_TRADITION_FA}\D{{0,40}}?(?:را\s+)?رعایت\s+(?:نکرده|نکرد|نکردند|نشده|نمی\s+کنند)(?!\w)"),
        False,
    ),
    (re.compile(rf"(?<!\w)(?:برخلاف|خلاف|مغایر\s+با|در\s+تضاد\s+با|ناسازگار\s+با)\s+{_TRADITION_FA}"), False),
]
_FA_AGREEMENT = re.compile(
    rf"(?<!\w)(?:مطابق|طبق|منطبق\s+(?:با|بر)|موافق|سازگار\s+با|هماهنگ\s+با)\s+(?:با\s+)?{_TRADITION_FA}"
)
_FA_NEG_VERB = re.compile(r"(?<!\w)(?:نیست|نیستند|نبود|نبودند|نکرد\S*|نمی\s+\S+|نبوده|نداشت\S*)(?!\w)")
_FA_POS_VERB = re.compile(r"(?<!\w)(?:است|هست|بود|بودند|کرد\S*|بوده|می\s+باشد|عمل\s+کرد\S*)(?!\w)")
_FLIP_BEFORE = re.compile(r"(?:not|n't|never)\s+(?:\w+\s+){0,2}$", re.I)

# Evaluations of the behaviour in natural word order, either polarity, negation flips them:
# "this is (not) appropriate", "it would be considered disrespectful", "the statement is false".
_EN_SUBJECT = (
    r"(?:this|that|it|such\s+(?:behaviou?r|conduct)|(?:this|that|the|their|his|her)\s+(?:behaviou?r|action|actions|act|"
    r"conduct|choice|response|practice)|what\s+(?:they|he|she)\s+did|doing\s+so|the\s+(?:statement|claim|scenario))"
)
_EN_POSITIVE = (
    r"correct|right|true|accurate|appropriate|proper|polite|respectful|acceptable|customary|fine|in\s+line\s+with|consistent\s+with|"
    r"in\s+keeping\s+with|in\s+accordance\s+with|the\s+right\s+thing|a\s+sign\s+of\s+respect|good\s+manners"
)
_EN_NEGATIVE = (
    r"incorrect|inaccurate|wrong|false|inappropriate|improper|impolite|rude|disrespectful|unacceptable|offensive|bad\s+manners|"
    r"a\s+(?:lack|sign)\s+of\s+disrespect|a\s+lack\s+of\s+respect|against|contrary\s+to|"
    r"an?\s+(?:(?:clear|serious|direct|major|obvious)\s+)?violation"
)
_EN_EVALUATION = re.compile(
    rf"""(?<!\w){_EN_SUBJECT}
    (?P<cop>['’]s|\s+(?:is|was|are|were|would\s+be|will\s+be|seems|appears)(?:n['’]t)?)
    (?P<mid>(?:\s+(?:not|never|considered|seen\s+as|regarded\s+as|viewed\s+as|deemed|very|quite|entirely|fully|completely|
        perfectly|generally|definitely|clearly|certainly|totally|really|somewhat|a\s+bit|also|still|exactly))*)
    \s+(?:(?P<pos>{_EN_POSITIVE})|(?P<neg>{_EN_NEGATIVE}))(?!\w)(?!\s+that(?!\w))(?!\s+to\s+(?!do(?!\w)))""",
    re.X | re.I,
)
_FA_SUBJECT = (
    r"(?:(?:این|آن|چنین|همین)\s+(?:کار|رفتار|عمل|اقدام)(?:ی)?|(?:رفتار|کار|عمل)\s*(?:آن\s+ها|آنها|ایشان|او|شان)|این)"
)
_FA_POSITIVE = (
    r"درست|صحیح|مناسب|پسندیده|شایسته|مودبانه|محترمانه|سازگار|منطبق|هماهنگ|قابل\s+قبول|بجا|به\s+جا"
    r"|نشانه\s+(?:احترام|ادب)"
)
_FA_NEGATIVE = (
    r"نادرست|غلط|اشتباه|نامناسب|ناپسند|ناشایست|زشت|بی\s+ادبی|بی\s+ادبانه|بی\s+احترامی|توهین\s+آمیز|توهین|ناسازگار"
)
_FA_COPULA = (
    r"(?:\s(?P<neg_cop>نیست|نیستند|نبود|نبودند|نبوده|نمی\s+باشد)"
    r"|\s(?:است|هست|هستند|بود|بودند|بوده|می\s+باشد)|(?<=ا)ست)(?!\w)"
)
_FA_EVALUATION = re.compile(
    rf"(?<!\w)(?:(?P<subject>{_FA_SUBJECT})[^.!?؟\n،,؛]{{0,40}}?\s)?(?:(?P<pos>{_FA_POSITIVE})|(?P<neg>{_FA_NEGATIVE}))(?!\w)"
    rf"[^.!?؟\n،,؛]{{0,30}}?{_FA_COPULA}(?!\s+که)"
)
# Strong words need no subject ("بلند نشدن جلوی بزرگ‌تر بی‌ادبی است"); mild ones need one.
_FA_STRONG = re.compile(r"^(?:ناپسند|زشت|بی\s+ادبی|بی\s+ادبانه|بی\s+احترامی|توهین\s+آمیز|توهین)$")
_CONCESSIVE = re.compile(
    r"(?<!\w)(?:although|though|even\s+though|while|whereas|despite"
    r"|اگرچه|اگر\s+چه|هرچند|هر\s+چند|گرچه|با\s+اینکه|با\s+وجود\s+اینکه)(?!\w)",
    re.I,
)
_CONTRAST = re.compile(r"(?<!\w)(?:but|however|yet|اما|ولی|لیکن)(?!\w)", re.I)


def _yn_value(m: re.Match) -> bool:
    return m.lastgroup in ("yes", "yes_adj", "yes_adv", "yes_did")


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


def _drop_questions(text: str) -> str:
    """Echoed questions ("Did they act according to Persian tradition?", «آیا ...؟») are not verdicts."""
    out = []
    for m in _SENTENCES.finditer(text):
        sentence = m.group(0)
        if sentence.rstrip().endswith(("?", "؟")) or re.match(r"\s*آیا(?!\w)", sentence):
            out.append(" " * len(sentence) if not sentence.endswith("\n") else "\n")
        else:
            out.append(sentence)
    # keep the separators (newlines) the sentence regex skipped
    rebuilt, pos = [], 0
    for m, piece in zip(_SENTENCES.finditer(text), out):
        rebuilt.append(text[pos : m.start()])
        rebuilt.append(piece)
        pos = m.end()
    rebuilt.append(text[pos:])
    return "".join(rebuilt)


def _verdict_at_start(sentence: str) -> bool | None:
    """The verdict a sentence opens with ("No.", "Yes, ...", "خیر؛ ..."), or None."""
    s = re.match(r"[\s\-•]*", sentence)
    m = _YN_AT.match(sentence, s.end())
    if m is None or _YN_BOTH.match(sentence, m.end()):
        return None
    if m.lastgroup.endswith(("_adj", "_adv")) and _YN_CONCESSIVE.match(sentence, m.end()):
        return None  # "True, but ...", "درست است که ..." concede, they do not answer
    return _yn_value(m)


def _bare_verdict(sentence: str) -> bool | None:
    """A sentence that is only a verdict, or ends in one after a comma ("According to Persian
    custom, no.", «طبق رسوم ایرانی، نه.»)."""
    body = sentence.strip(" \t\n.!;؛")
    for start in [0] + [m.end() for m in re.finditer(r"[,،:]\s*", body)][-1:]:
        m = _YN_AT.match(body, start)
        if m and not body[m.end() :].strip(" \t.!،,") and not _YN_BOTH.match(body, m.end()):
            return _yn_value(m)
    return None


def _conceded(text: str, pos: int) -> bool:
    """A phrase inside a concessive clause ("Although it is polite, ...") is not the verdict."""
    start = max(text.rfind(c, 0, pos) for c in ".!?؟\n;؛") + 1
    before = text[start:pos]
    concessions = list(_CONCESSIVE.finditer(before))
    concession = concessions[-1] if concessions else None  # the last one
    return concession is not None and not _CONTRAST.search(before, concession.end())


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
    for m in _EN_EVALUATION.finditer(text):
        negations = len(re.findall(r"(?<!\w)(?:not|never)(?!\w)|n['’]t", m.group("cop") + m.group("mid"), re.I))
        found.append((m.start(), (m.group("pos") is not None) == (negations % 2 == 0)))
    for m in _FA_EVALUATION.finditer(text):
        word = m.group("pos") or m.group("neg")
        if m.group("subject") is None and not _FA_STRONG.match(word):
            continue
        found.append((m.start(), (m.group("pos") is not None) == (m.group("neg_cop") is None)))
    return [(pos, value) for pos, value in found if not _conceded(text, pos)]


_BARE_STATEMENT_LINE = re.compile(r"^\W*(?:answer|پاسخ|جواب)\W*(?:yes|no|بله|خیر|نه|آره)\W*$", re.I)


def _bare_statements(text: str, first: int, second: int) -> bool:
    """Are the two statements at these positions adjacent lines that say nothing else?"""
    lines = text[text.rfind("\n", 0, first) + 1 :].split("\n")
    between = text[first:second].count("\n")
    return between == 1 and all(_BARE_STATEMENT_LINE.match(line) for line in lines[:2])


# Headers that open a yes/no item a base model invents after its answer ("Statement 2: ...").
_YN_NEXT_ITEM = ("Statement", "گزاره")


def _cut_yes_no_continuation(text: str) -> str:
    """The reply up to an invented next item: a "Statement N:" / "Question N:" line, or a new statement whose
    answer-format instruction is repeated and answered ("No.\n\n<statement>\n\n<instruction>\n\nAnswer: Yes"
    is "No."); an instruction echoed first (before the answer) or last (nothing after it) starts no item."""
    text = cut_at_next_item(text, _YN_NEXT_ITEM)
    m = _ECHOED_INSTRUCTION.search(text)
    if m and text[m.end() :].strip():
        instruction = text.rfind("\n\n", 0, m.start())
        item = text.rfind("\n\n", 0, instruction) if instruction > 0 else -1
        if item > 0 and text[:item].strip():
            text = text[:item]
    return text


def extract_yes_no(reply: str | None) -> bool | None:
    """True for a Yes answer, False for No, None when the reply states neither clearly."""
    text = _prepare(reply)
    if not text:
        return None
    text = _cut_yes_no_continuation(text)
    text = _drop_questions(_NOT_AN_ANSWER.sub(" ", _ECHOED_INSTRUCTION.sub(" ", text)))

    # 1. explicit answer statements: "Answer: No", "پاسخ: بله", "So, yes." -- the last wins
    stated = []
    for cue in _YN_CUES.finditer(text):
        got = _yn_after_cue(text, cue.end())
        if got is not None:
            stated.append((cue.start(), got[0]))
    if stated:
        last = sorted(stated)[-2:]
        if len(last) == 2 and last[0][1] != last[1][1] and _bare_statements(text, last[0][0], last[1][0]):
            return None  # "پاسخ: بله\nپاسخ: خیر": two answers one after the other, nothing deciding between them
        return max(stated)[1]

    # 2. an answer line at the end ("...\n\nNo.", "..., no.") or at the start ("No.\n\nYes,
    #    greeting her warmly is polite, but ..."): it outranks the sentences in between
    sentences = [m.group(0) for m in _SENTENCES.finditer(text) if m.group(0).strip(" \t.!;؛")]
    if not sentences:
        return None
    if len(sentences) > 1:
        tail = _bare_verdict(sentences[-1])
        if tail is not None:
            return tail
    lead = _verdict_at_start(sentences[0])
    if lead is None:
        lead = _bare_verdict(sentences[0])
    if lead is not None:
        return lead

    # 3. a later sentence that opens with a verdict: "In Iran ... . Yes, they did."
    starts = [v for v in (_verdict_at_start(s) for s in sentences[1:]) if v is not None]
    if starts:
        return starts[-1]

    # 4. verdicts in natural word order: "this is not in line with Persian tradition",
    #    «رفتار آن‌ها با آداب ایرانی سازگار نیست» -- the last one outside a concession
    verdicts = _verdict_phrases(text)
    if verdicts:
        return max(verdicts)[1]
    return None


def yes_no_label(value: bool | None) -> str | None:
    """True/False/None -> "yes"/"no"/None (how docs and records spell the verdict)."""
    return None if value is None else ("yes" if value else "no")


__all__ = [
    "LETTERS",
    "PERSIAN_LETTERS",
    "cut_off_reasoning",
    "extract_choice",
    "extract_yes_no",
    "read_option",
    "read_pick",
    "yes_no_label",
]
