"""TARAZ's Persian post-processing of short answers (paper sec. 5.2), step by step.

:func:`postprocess` turns a model reply into a list of clean, distinct answer items:

1. :func:`clean` -- character level: hazm's Normalizer (Arabic presentation forms and ي ى ك to
   Persian letters, Latin and Arabic-Indic digits to Persian ۰-۹, diacritics, half-space
   correction: ``می رود`` -> ``می‌رود``, ``کتاب ها`` -> ``کتاب‌ها``), then what hazm leaves
   (ة ۀ -> ه, أ إ ٱ -> ا, ؤ -> و, a redundant word-final ء after alef, the tatweel, hamza marks,
   bidi marks, repeated or stray ZWNJs) and whitespace.
2. :func:`split_items` -- split on ، ؛ , ; and on line breaks, list bullets and sentence ends
   (. ! ? ؟), then strip the remaining punctuation (quotes, brackets, colons, dashes).
3. :func:`split_conjunctions` -- split an item on و یا هم همینطور نیز همچنین only where both sides
   are *substantial* (:func:`is_substantial`): "نان و پنیر" -> ["نان", "پنیر"], but
   "صد و بیست و سه" (a number) and "ایران و" (nothing after) stay whole.
4. :func:`remove_stopwords` -- hazm's stop-word list, minus the number words (hazm lists یک دو
   سه چهار نه as stop words; they are answers here).
5. :func:`strip_suffix` -- one of ات یات ها ان ون ین گان, only where a real stem remains.
6. dedupe, order kept.

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

    HAZM_BACKEND = "hazm"
except ImportError:  # Python 3.11: the hazm-normalizer fork
    from hazm_normalizer import Lemmatizer as _Lemmatizer
    from hazm_normalizer import Normalizer as _Normalizer
    from hazm_normalizer.utils import stopwords_list as _stopwords_list

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


def clean(text: str) -> str:
    """Step 1: one spelling for what readers consider the same text (ZWNJ kept as half-space)."""
    text = _normalizer().normalize(text)
    text = normalize_zwnj(normalize_characters(text))
    return normalize_whitespace(text)


# ---------------------------------------------------------------------------------- step 2
_LIST_MARKER = re.compile(r"^\s*(?:[-*•·▪◦]+|[0-9۰-۹]+\s*[.)\-:]|\([0-9۰-۹]+\))\s*")
# Item separators: Persian/Latin comma and semicolon, sentence ends, line breaks.
_SEPARATORS = re.compile(r"[،؛,;.!?؟\n]+")
# Everything else that is punctuation becomes a space (quotes, brackets, colon, dashes, ellipsis).
_PUNCT = re.compile(r"[\"'«»“”‘’()\[\]{}<>:：\-–—_…/\\|*#=+~`^@%٪&]+")


def split_items(text: str) -> list[str]:
    """Step 2: a cleaned reply split into items, punctuation removed, empty items dropped."""
    items = []
    for line in text.splitlines():
        line = _LIST_MARKER.sub("", line)
        for part in _SEPARATORS.split(line):
            part = normalize_whitespace(_PUNCT.sub(" ", part))
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
    """Digits (any script, with ٫ or / inside) or a Persian number word."""
    return token in NUMBER_WORDS or bool(re.fullmatch(r"[0-9۰-۹]+(?:[٫.,/][0-9۰-۹]+)*", token))


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
    substantial; otherwise the conjunction stays inside the part.
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
        if is_substantial(parts[-1]) and is_substantial(nxt):
            parts.append(list(nxt))
        else:
            parts[-1].extend(run + nxt)
    return [" ".join(p) for p in parts if p]


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
MIN_STEM = 3  # letters left after stripping; "ها" may leave 2 (گل‌ها -> گل)
# Words that end like a plural but are not one: names, places and everyday nouns a stem rule
# would destroy (the ones hazm's Stemmer gets wrong among them: تهران -> تهر, نان -> ن).
PROTECTED = frozenset(
    """تهران ایران اصفهان کرمان گیلان زنجان همدان خراسان کاشان سمنان لرستان گرگان آبادان اراکان
    رمضان شعبان آبان تابستان زمستان بهاران باران خیابان میدان دکان دکه نان جان زمان مهمان دندان
    خاندان فنجان بادمجان بادنجان ریحان لیوان ایوان آسمان انسان جوان چوپان درمان فرمان پایان سامان
    قرآن مهرگان سفیدان جریان بیابان گلستان بوستان دبستان دبیرستان بیمارستان کودکستان شبستان ایرانیان
    صابون قانون میلیون تلویزیون کانون ستون خون بیرون اکنون زیتون معجون فریدون افلاطون هامون نون
    ماشین زمین سنگین شیرین بنزین پایین آیین دین چین یاسمین نسرین رامین پروین تمرین کابین پوتین
    آستین امین حسین شاهین نگین بالین آذین کمین ورامین قزوین دوربین یاسین تخمین زرین
    فروردین اردیبهشت خرداد مرداد شهریور مهر آذر بهمن اسفند
    تنها بها رها سوغات ساعات نجات ثبات حیات برات زکات صلوات مسقطات
    ستارگان همگان رایگان بازرگان""".split()
)


def strip_suffix(token: str) -> str:
    """Step 5: one plural/derivational suffix off, never emptying or destroying a word.

    A suffix after a half-space (کتاب‌ها) goes whenever something is left; a joined suffix
    (کتابها) only when at least MIN_STEM letters remain (2 for ها), never from a protected
    word, a number, a ...ستان place name or a Latin word.
    """
    if token in PROTECTED or is_number(token) or not re.search(r"[\u0600-\u06ff]", token):
        return token
    if ZWNJ in token:
        head, _, tail = token.rpartition(ZWNJ)
        if tail in SUFFIXES and head:
            return head
        return token
    if token.endswith("ستان"):
        return token
    for suffix in SUFFIXES:
        if token.endswith(suffix):
            stem = token[: -len(suffix)]
            if len(stem) >= (2 if suffix == "ها" else MIN_STEM) and stem not in stopwords():
                return stem
            return token
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
    """Cleaned, punctuation removed, half-spaces as spaces, Latin case-folded: for substring and token tests."""
    text = _PUNCT.sub(" ", clean(text)).replace(ZWNJ, " ")
    text = re.sub(r"[،؛,;.!?؟]+", " ", text)
    return normalize_whitespace(text).casefold()


def tokens(text: str) -> list[str]:
    """Word tokens of :func:`match_form` (what ROUGE counts)."""
    return match_form(text).split()


def lemmas(text: str) -> list[str]:
    """hazm's lemma of every token (BLEnD's Persian exact match lemmatises token by token).

    Tokens keep their half-spaces here, because hazm's lemmatiser knows ``کتاب‌ها`` (-> کتاب)
    but not ``کتاب ها``; the lemmas are compared with half-spaces as spaces.
    """
    lem = _lemmatizer()
    text = re.sub(r"[،؛,;.!?؟]+", " ", _PUNCT.sub(" ", clean(text)))
    return [lem.lemmatize(t).replace(ZWNJ, " ").casefold() for t in text.split()]


__all__ = [
    "CONJUNCTIONS",
    "HAZM_BACKEND",
    "NUMBER_WORDS",
    "PROTECTED",
    "SUFFIXES",
    "clean",
    "is_content_token",
    "is_number",
    "is_substantial",
    "lemmas",
    "match_form",
    "normalize_characters",
    "postprocess",
    "remove_stopwords",
    "split_conjunctions",
    "split_items",
    "stem_part",
    "stopwords",
    "strip_suffix",
    "to_persian_digits",
    "tokens",
]
