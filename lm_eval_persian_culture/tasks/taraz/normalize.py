"""TARAZ's Persian post-processing of short answers (paper sec. 5.2), step by step.

:func:`postprocess` turns a model reply into a list of clean, distinct answer items:

1. :func:`clean` -- character level: hazm's Normalizer (Arabic presentation forms and ي ى ك to
   Persian letters, Latin and Arabic-Indic digits to Persian ۰-۹, diacritics, half-space
   correction: ``می رود`` -> ``می‌رود``, ``کتاب ها`` -> ``کتاب‌ها``), then what hazm leaves
   (ة ۀ -> ه, أ إ ٱ -> ا, ؤ -> و, a redundant word-final ء after alef, the tatweel, hamza marks,
   bidi marks, repeated or stray ZWNJs) and whitespace. Numbers are kept whole (:func:`join_numbers`):
   times ``۱۳:۰۰``, dates ``۱۴۰۰/۷/۲۵``, decimals ``۱٫۵``, ranges ``۲-۳`` (also ``۲ تا ۳``),
   thousands separators dropped and a leading zero removed (``08:00`` -> ``۸:۰۰``); then the numeric
   normalisation of :mod:`numbers` (number words to digits, 12-hour times to 24, month names to months).
2. :func:`split_items` -- split on ، ؛ , ; and on line breaks, list markers (only where they are
   markers: ``۱. نان``, never ``۱۳:۰۰``) and sentence ends (. ! ? ؟), then strip the remaining
   punctuation (quotes, brackets, colons, dashes) outside numbers.
3. :func:`split_conjunctions` -- split an item on و یا هم همینطور نیز همچنین only where both sides
   are *substantial* (:func:`is_substantial`) and the two words around a و are not one word of
   hazm's lexicon (``کله و پاچه``: کله‌پاچه): "نان و پنیر" -> ["نان", "پنیر"], but
   "صد و بیست و سه" (a number) and "ایران و" (nothing after) stay whole.
4. :func:`remove_stopwords` -- hazm's stop-word list, minus the number words (hazm lists یک دو
   سه چهار نه as stop words; they are answers here).
5. :func:`strip_suffix` -- one of ات یات ها ان ون ین گان, driven by hazm's lexicon: never from a
   word the lexicon lists as a lemma (رستوران, ادبیات, تهران), only down to a stem it lists.
6. dedupe, order kept.

Scoring compares the same forms on both sides (:func:`answer_form`, :func:`embedding_form`): a
reference goes through exactly what the reply goes through, so a reference given verbatim, or
with ي/ك, Latin digits or a space for a half-space, always matches itself.

Ordering matters (the traps): conjunctions are split *before* stop words are removed, because
hazm's stop-word list contains و یا هم نیز همچنین; number words are exempt from stop-word
removal and from suffix stripping (میلیون is not میلی + ون); suffix stripping uses this module's
guarded rule, never hazm's Stemmer, which over-strips names (تهران -> تهر).

hazm is used where the paper names it (normaliser, stop words, the lemmatiser of BLEnD's exact
match). On Python >= 3.12 the pack installs ``hazm``; on 3.11 ``hazm-normalizer`` (an MIT fork
of hazm's normaliser, stop words, stemmer and lemmatiser with identical output; hazm itself
pins numpy 1.24 there). ``HAZM_BACKEND`` says which one is in use.
"""

from __future__ import annotations

import re
from functools import lru_cache

from lm_eval_persian_culture.tasks.taraz import numbers
from lm_eval_persian_culture.text.persian import (
    ARABIC_INDIC_DIGITS,
    PERSIAN_DIGITS,
    ZWNJ,
    normalize_whitespace,
    normalize_zwnj,
    remove_diacritics,
)

try:  # Python >= 3.12
    from hazm import Lemmatizer as _Lemmatizer
    from hazm import Normalizer as _Normalizer
    from hazm import stopwords_list as _stopwords_list
    from hazm.utils import words_list as _words_list

    HAZM_BACKEND = "hazm"
except ImportError:  # Python 3.11: the hazm-normalizer fork
    from hazm_normalizer import Lemmatizer as _Lemmatizer
    from hazm_normalizer import Normalizer as _Normalizer
    from hazm_normalizer.utils import stopwords_list as _stopwords_list
    from hazm_normalizer.utils import words_list as _words_list

    HAZM_BACKEND = "hazm-normalizer"

# ---------------------------------------------------------------------------------- step 1
# What hazm's Normalizer leaves unmapped (checked: it keeps ة ۀ أ إ ؤ).
_LETTERS = str.maketrans({"ة": "ه", "ۀ": "ه", "أ": "ا", "إ": "ا", "ٱ": "ا", "ؤ": "و", "ي": "ی", "ى": "ی", "ك": "ک"})
# A word-final hamza after alef is a spelling variant (اشیاء/اشیا, انشاء/انشا, املاء/املا);
# elsewhere ء is part of the word (جزء, شیء) and stays.
_REDUNDANT_HAMZA = re.compile(r"(?<=ا)ء(?![\w\u200c])")
_TO_PERSIAN_DIGITS = str.maketrans(
    {**{str(i): d for i, d in enumerate(PERSIAN_DIGITS)}, **dict(zip(ARABIC_INDIC_DIGITS, PERSIAN_DIGITS))}
)


def _memoize_hazm_maketrans() -> None:
    """hazm's Normalizer.normalize rebuilds the same translation tables on every call (a third
    of its time on short answers); its ``maketrans`` is a pure function of two constant strings,
    so it is memoised in the normaliser's module (output unchanged: see the hazm golden test)."""
    import sys

    module = sys.modules[_Normalizer.__module__]
    original = getattr(module, "maketrans", None)
    if original is not None and not hasattr(original, "cache_info"):
        module.maketrans = lru_cache(maxsize=16)(original)


@lru_cache(maxsize=1)
def _normalizer():
    _memoize_hazm_maketrans()
    # decrease_repeated_chars would rewrite real words (and is off). seperate_mi stays on:
    # hazm-normalizer's correct_spacing needs the verb list it loads.
    return _Normalizer(decrease_repeated_chars=False)


def to_persian_digits(text: str) -> str:
    """'56' and '٥٦' -> '۵۶' (the paper converts every numeral to Persian digits)."""
    return text.translate(_TO_PERSIAN_DIGITS)


def normalize_characters(text: str) -> str:
    """Letters, digits, diacritics and the redundant ء; no spacing changes."""
    text = remove_diacritics(text.translate(_LETTERS))
    return to_persian_digits(_REDUNDANT_HAMZA.sub("", text))


# Numbers. hazm's Normalizer spaces the punctuation inside them ("1400/07/25" -> "۱۴۰۰ / ۰۷ / ۲۵",
# "2-3" -> "۲ - ۳", "1.5" -> "۱ ٫ ۵"), after which list-marker and punctuation rules would eat
# them ("13:00" and "08:00" both became "۰۰"): they are rejoined right after hazm.
_THOUSANDS = re.compile(r"(?<=\d)[,٬](?=\d{3}(?!\d))")  # 1,000,000 (before hazm: any digits)
_IN_NUMBER = re.compile(r"(?<=[۰-۹])(?:\s*([:/٫\-–—])\s*|(\.)|\s+(تا)\s+)(?=[۰-۹])")
_IN_NUMBER_AS = {":": ":", "/": "/", "٫": "٫", ".": "٫", "-": "-", "–": "-", "—": "-", "تا": "-"}
# a leading zero of a number or of a date part (08:00 -> ۸:۰۰, ۱۴۰۰/۰۷/۲۵ -> ۱۴۰۰/۷/۲۵); minutes keep theirs
_LEADING_ZERO = re.compile(r"(?<![۰-۹:٫])۰(?=[۰-۹])")
NUMBER_PATTERN = r"[۰-۹]+(?:[:/٫\-][۰-۹]+)*"
_NUMBER_TOKEN = re.compile(NUMBER_PATTERN)


def join_numbers(text: str) -> str:
    """Times, dates, decimals and ranges as one token each, in one spelling (Persian digits expected):
    ``۱۳ : ۰۰`` -> ``۱۳:۰۰``, ``۲ - ۳`` and ``۲ تا ۳`` -> ``۲-۳``, ``۱ ٫ ۵`` and ``۱.۵`` -> ``۱٫۵``."""
    text = _IN_NUMBER.sub(lambda m: _IN_NUMBER_AS[m.group(1) or m.group(2) or m.group(3)], text)
    return _LEADING_ZERO.sub("", text)


def clean(text: str) -> str:
    """Step 1: one spelling for what readers consider the same text (ZWNJ kept as half-space)."""
    text = _normalizer().normalize(_THOUSANDS.sub("", text))
    text = join_numbers(normalize_zwnj(normalize_characters(text)))
    return normalize_whitespace(numbers.normalize_numbers(text, join_numbers))


# ---------------------------------------------------------------------------------- step 2
# A list marker opens a line and has text after it: a bullet, or a short number followed by
# . ) - : that is not followed by another digit (so ۱۳:۰۰, ۲-۳ and ۱٫۵ are answers, ۱. and ۲) are
# markers; ۵. alone on its line is the answer ۵).
_LIST_MARKER = re.compile(r"^\s*(?:[-*•·▪◦]+(?![۰-۹])|[۰-۹]{1,3}\s*[.)\-:–](?![۰-۹])|\([۰-۹]+\))\s*(?=\S)")
# Item separators: Persian/Latin comma and semicolon, sentence ends, line breaks.
_SEPARATORS = re.compile(r"[،؛,;.!?؟\n]+")
# Everything else that is punctuation becomes a space (quotes, brackets, colon, dashes, ellipsis),
# except inside a number (:func:`join_numbers`).
_PUNCT = re.compile(r"[\"'«»“”‘’()\[\]{}<>:：\-–—_…/\\|*#=+~`^@%٪&]+")
_PUNCT_OUTSIDE_NUMBERS = re.compile(rf"({NUMBER_PATTERN})|{_PUNCT.pattern}")


def strip_punctuation(text: str) -> str:
    """Punctuation to spaces, numbers (۱۳:۰۰, ۲-۳, ۱۴۰۰/۷/۲۵) kept whole."""
    return _PUNCT_OUTSIDE_NUMBERS.sub(lambda m: m.group(1) or " ", text)


def split_items(text: str) -> list[str]:
    """Step 2: a cleaned reply split into items, punctuation removed, empty items dropped."""
    items = []
    for line in text.splitlines():
        line = _LIST_MARKER.sub("", line)
        for part in _SEPARATORS.split(line):
            part = normalize_whitespace(strip_punctuation(part))
            part = part.strip(ZWNJ + " ")
            if part:
                items.append(part)
    return items


# ---------------------------------------------------------------------------------- step 3
CONJUNCTIONS = frozenset({"و", "یا", "هم", "همینطور", "همین‌طور", "نیز", "همچنین"})

NUMBER_WORDS = frozenset(
    """صفر یک یه دو سه چهار پنج شش شیش هفت هشت نه ده یازده دوازده سیزده چهارده پانزده پونزده شانزده
    شونزده هفده هجده هیجده نوزده بیست سی چهل پنجاه شصت هفتاد هشتاد نود صد یکصد دویست سیصد چهارصد
    پانصد پونصد ششصد هفتصد هشتصد نهصد هزار میلیون میلیارد بیلیون تریلیون نیم اول دوم سوم چهارم
    پنجم ششم هفتم هشتم نهم دهم""".split()
)


def is_number(token: str) -> bool:
    """Digits (any script; a time, date, decimal or range) or a Persian number word."""
    return token in NUMBER_WORDS or bool(re.fullmatch(r"[0-9۰-۹]+(?:[٫.,/:\-][0-9۰-۹]+)*", token))


def is_content_token(token: str) -> bool:
    """Carries meaning of its own: not a stop word, not a number, not a conjunction, 2+ letters."""
    return (
        len(token.replace(ZWNJ, "")) >= 2
        and token not in CONJUNCTIONS
        and not is_number(token)
        and token not in stopwords()
    )


def is_substantial(tokens: list[str]) -> bool:
    """A part is substantial when it holds at least one content token (:func:`is_content_token`).

    So "پنیر", "چای سبز" and "شب یلدا" are substantial; "بیست" (a number word), "۱۲" and
    "این" (a stop word) and the empty part are not. Splitting only between two substantial
    parts keeps numbers written in words (صد و بیست و سه), "یک یا دو" and dangling
    conjunctions whole.
    """
    return any(is_content_token(t) for t in tokens)


def split_conjunctions(item: str) -> list[str]:
    """Step 3: "نان و پنیر و سبزی" -> ["نان", "پنیر", "سبزی"]; "صد و بیست و سه" stays whole.

    A run of conjunctions ("و همچنین") counts as one separator. Each separator is cut only
    when the text since the last cut and the text up to the next separator are both
    substantial and, for و, the words on either side are not one word of hazm's lexicon
    (:func:`is_fixed_expression`); otherwise the conjunction stays inside the part.
    """
    tokens = item.split()
    # segments between conjunction runs, and the runs themselves
    segments: list[list[str]] = [[]]
    runs: list[list[str]] = []
    for token in tokens:
        if token not in CONJUNCTIONS:
            segments[-1].append(token)
        elif runs and not segments[-1]:  # "و همچنین": one separator
            runs[-1].append(token)
        else:
            runs.append([token])
            segments.append([])
    parts: list[list[str]] = [list(segments[0])]
    for run, nxt in zip(runs, segments[1:]):
        fixed = run == ["و"] and parts[-1] and nxt and is_fixed_expression(parts[-1][-1], nxt[0])
        if not fixed and is_substantial(parts[-1]) and is_substantial(nxt):
            parts.append(list(nxt))
        else:
            parts[-1].extend(run + nxt)
    return [" ".join(p) for p in parts if p]


@lru_cache(maxsize=1)
def lexicon_lemmas() -> frozenset[str]:
    """The words of hazm's lexicon (``words.dat``, 193k entries) that are lemmas: entries with a
    part-of-speech tag. Inflected forms carry the tag ``0`` there (درختان, کتابها, آپارتمان)."""
    return frozenset(word for word, _freq, tags in _words_list() if tags and tags != ("0",))


def is_fixed_expression(left: str, right: str) -> bool:
    """``left و right`` is one word of hazm's lexicon (کله و پاچه: کله‌پاچه), so not two answers.

    hazm's lexicon has no entries with spaces; a fixed pair it knows is written joined, with or
    without a half-space, and with or without its و (کله‌پاچه, ...).
    """
    lemmas = lexicon_lemmas()
    return any(form in lemmas for form in (
        f"{left}{ZWNJ}{right}", f"{left}{right}", f"{left}{ZWNJ}و{ZWNJ}{right}", f"{left}و{right}",
    ))  # fmt: skip


# ---------------------------------------------------------------------------------- step 4
@lru_cache(maxsize=1)
def stopwords() -> frozenset[str]:
    """hazm's stop-word list, minus number words (answers such as "سه" must survive)."""
    return frozenset(w for w in _stopwords_list() if w not in NUMBER_WORDS)


def remove_stopwords(part: str) -> str:
    """Step 4: drop hazm's stop words (and leftover conjunctions); numbers stay."""
    return " ".join(t for t in part.split() if t not in stopwords() and t not in CONJUNCTIONS)


# ---------------------------------------------------------------------------------- step 5
SUFFIXES = ("یات", "گان", "ات", "ها", "ان", "ون", "ین")  # longest first


def _stem_candidates(token: str, suffix: str) -> list[str]:
    """What a word may be without ``suffix``: گان replaces a final ه (ستارگان -> ستاره), and ان
    after a vowel brings a ی (دانشجویان -> دانشجو, آقایان -> آقا)."""
    stem = token[: -len(suffix)]
    candidates = [stem]
    if suffix == "گان":
        candidates.insert(0, stem + "ه")
    if suffix == "ان" and stem.endswith("ی"):
        candidates.append(stem[:-1])
    return candidates


def strip_suffix(token: str) -> str:
    """Step 5: one plural/derivational suffix off, only where hazm's lexicon confirms it.

    A suffix after a half-space (کتاب‌ها) goes whenever something is left. A joined suffix goes
    only when the token is not itself a lemma of hazm's lexicon (:func:`lexicon_lemmas`: so
    رستوران, زعفران, فسنجان, ادبیات, تهران, نان stay whole) and what remains is one (درختان ->
    درخت, کتابها -> کتاب; آپارتمان -> آپارتم is not a word, so it stays). Never from a number
    or a Latin word.
    """
    if is_number(token) or not re.search(r"[\u0600-\u06ff]", token):
        return token
    if ZWNJ in token:
        head, _, tail = token.rpartition(ZWNJ)
        if tail in SUFFIXES and head:
            return head
        return token
    lemmas = lexicon_lemmas()
    if token in lemmas:
        return token
    for suffix in SUFFIXES:
        if token.endswith(suffix) and len(token) > len(suffix):
            for stem in _stem_candidates(token, suffix):
                if len(stem) >= 2 and stem in lemmas and stem not in stopwords():
                    return stem
    return token


def stem_part(part: str) -> str:
    return " ".join(strip_suffix(t) for t in part.split())


# ---------------------------------------------------------------------------------- pipeline
def postprocess(reply: str) -> list[str]:
    """TARAZ sec. 5.2: a reply -> clean, distinct answer items (steps 1-6, in that order)."""
    items: list[str] = []
    seen: set[str] = set()
    for item in split_items(clean(reply)):
        for part in split_conjunctions(item):
            part = stem_part(remove_stopwords(part))
            if part and part not in seen:
                seen.add(part)
                items.append(part)
    return items


# ---------------------------------------------------------------------------------- matching keys
@lru_cache(maxsize=1)
def _lemmatizer():
    return _Lemmatizer()


def match_form(text: str) -> str:
    """Cleaned, punctuation removed (numbers kept whole), half-spaces as spaces, Latin case-folded:
    for substring and token tests."""
    text = strip_punctuation(clean(text)).replace(ZWNJ, " ")
    text = re.sub(r"[،؛,;.!?؟]+", " ", text)
    return normalize_whitespace(text).casefold()


def embedding_form(text: str) -> str:
    """What the embedding model sees of a sentence or a reference for Maux: :func:`clean`, with
    half-spaces as spaces, the same on both sides (so ي/ك, Latin digits and ``تخم مرغ`` /
    ``تخم‌مرغ`` do not change a cosine)."""
    return normalize_whitespace(clean(text).replace(ZWNJ, " "))


def item_form(item: str) -> str:
    """A post-processed item as the embedding model sees it (half-spaces as spaces)."""
    return normalize_whitespace(item.replace(ZWNJ, " "))


def answer_form(text: str) -> str:
    """A whole answer post-processed into one comparable text: its items joined (``کله و پاچه``
    and ``نون و پنیر`` -> ``کله پاچه``, ``نون پنیر``), or, if post-processing leaves nothing
    (an answer made of stop words), its :func:`embedding_form`. Applied to a reply and to every
    reference alike, so a reference given as the reply always yields the same text."""
    items = postprocess(text)
    return " ".join(item_form(i) for i in items) if items else embedding_form(text)


_ON_THE_HOUR = re.compile(r":۰۰$")


def hour_of(number: str) -> str:
    """A time on the hour as its hour (``۸:۰۰`` -> ``۸``); any other number as it is."""
    return _ON_THE_HOUR.sub("", number)


def numbers_in(text: str) -> frozenset[str]:
    """The numbers (digits, times, dates, ranges; see :func:`join_numbers`) of a cleaned text; a
    time on the hour counts as its hour (``ساعت ۸`` and ``۸:۰۰`` hold the same number)."""
    return frozenset(hour_of(n) for n in _NUMBER_TOKEN.findall(text))


def words_and_numbers(form: str) -> tuple[list[str], frozenset[str]]:
    """A :func:`match_form` text's words (numbers left out) and its numbers (:func:`numbers_in`)."""
    words = [t for t in form.split() if not _NUMBER_TOKEN.fullmatch(t)]
    return words, numbers_in(form)


def tokens(text: str) -> list[str]:
    """Word tokens of :func:`match_form` (what ROUGE counts)."""
    return match_form(text).split()


def lemmas(text: str) -> list[str]:
    """hazm's lemma of every token (BLEnD's Persian exact match lemmatises token by token).

    Tokens keep their half-spaces here, because hazm's lemmatiser knows ``کتاب‌ها`` (-> کتاب)
    but not ``کتاب ها``; the lemmas are compared with half-spaces as spaces.
    """
    lem = _lemmatizer()
    text = re.sub(r"[،؛,;.!?؟]+", " ", strip_punctuation(clean(text)))
    return [lem.lemmatize(t).replace(ZWNJ, " ").casefold() for t in text.split()]


__all__ = [
    "CONJUNCTIONS",
    "HAZM_BACKEND",
    "NUMBER_PATTERN",
    "NUMBER_WORDS",
    "SUFFIXES",
    "answer_form",
    "clean",
    "embedding_form",
    "hour_of",
    "is_content_token",
    "is_fixed_expression",
    "is_number",
    "is_substantial",
    "item_form",
    "join_numbers",
    "lemmas",
    "lexicon_lemmas",
    "match_form",
    "numbers_in",
    "normalize_characters",
    "postprocess",
    "remove_stopwords",
    "split_conjunctions",
    "split_items",
    "stem_part",
    "stopwords",
    "strip_punctuation",
    "strip_suffix",
    "to_persian_digits",
    "tokens",
    "words_and_numbers",
]
