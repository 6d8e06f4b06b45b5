"""Persian text helpers shared by the pack (answer extraction, matching, scoring).

Small, dependency-free, and deliberately conservative: every function does one
normalisation that is safe for matching model replies against labels and option texts.

* :func:`to_latin_digits` -- Persian (۰-۹) and Arabic-Indic (٠-٩) digits to 0-9.
* :func:`normalize_letters` -- Arabic forms of Persian letters (ي ى ك) to Persian (ی ک).
* :func:`remove_diacritics` -- harakat, tanwin, shadda, sukun, superscript alef, hamza
  marks above/below (so ``هٔ`` becomes ``ه``) and the tatweel ``ـ``.
* :func:`normalize_zwnj` -- ZWJ/ZWNJ runs to one ZWNJ (or to a space), stray joiners
  next to spaces removed, bidi marks and BOM dropped.
* :func:`normalize_whitespace` -- NBSP and friends to spaces, runs of spaces collapsed.
* :func:`normalize` -- all of the above; :func:`fold` additionally case-folds, turns
  ZWNJ into a space and folds rarer letter variants (ة ۀ أ إ ؤ) for loose comparison.
"""

from __future__ import annotations

import re

PERSIAN_DIGITS = "۰۱۲۳۴۵۶۷۸۹"
ARABIC_INDIC_DIGITS = "٠١٢٣٤٥٦٧٨٩"
_DIGITS = str.maketrans({**{c: str(i) for i, c in enumerate(PERSIAN_DIGITS)},
                         **{c: str(i) for i, c in enumerate(ARABIC_INDIC_DIGITS)}})  # fmt: skip

# Arabic code points that Persian keyboards and web text often carry instead of Persian ones.
_LETTERS = str.maketrans({"ي": "ی", "ى": "ی", "ك": "ک"})
# Variants that change spelling, not meaning, when comparing loosely (not for display).
_LOOSE_LETTERS = str.maketrans({"ة": "ه", "ۀ": "ه", "أ": "ا", "إ": "ا", "ٱ": "ا", "ؤ": "و", "ئ": "ی"})

# U+064B-U+065F: tanwin, harakat, shadda, sukun, maddah/hamza above and below, ...;
# U+0670 superscript alef; U+0640 tatweel (kashida).
_DIACRITICS = re.compile("[\u064b-\u065f\u0670\u0640]")

ZWNJ = "\u200c"
ZWJ = "\u200d"
_INVISIBLE = re.compile("[\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]")  # bidi marks, BOM
_JOINERS = re.compile(f"[{ZWNJ}{ZWJ}]+")
_SPACES = re.compile(r"[ \t\u00a0\u2000-\u200b\u202f\u205f\u3000]+")


def to_latin_digits(text: str) -> str:
    """'گزینه ۲' -> 'گزینه 2'; Arabic-Indic digits too."""
    return text.translate(_DIGITS)


def normalize_letters(text: str) -> str:
    """Arabic yeh/alef maksura/kaf to Persian yeh/kaf (ي ى ك -> ی ی ک)."""
    return text.translate(_LETTERS)


def remove_diacritics(text: str) -> str:
    """Drop short vowels, tanwin, shadda, hamza marks and the tatweel."""
    return _DIACRITICS.sub("", text)


def normalize_zwnj(text: str, replacement: str = ZWNJ) -> str:
    """One joiner where there were several (ZWNJ or ZWJ), none next to a space.

    ``replacement=" "`` splits half-spaced words (``می‌کنم`` -> ``می کنم``), which is what
    token matching wants.
    """
    text = _INVISIBLE.sub("", text)
    text = _JOINERS.sub(replacement, text)
    if replacement == ZWNJ:
        text = re.sub(f" ?{ZWNJ} ?", lambda m: ZWNJ if m.group(0) == ZWNJ else " ", text)
    return text


def normalize_whitespace(text: str) -> str:
    """Unicode spaces to ' ', runs collapsed (newlines kept), lines stripped at the ends."""
    text = _SPACES.sub(" ", text)
    return "\n".join(line.strip() for line in text.splitlines()).strip()


def normalize(text: str, zwnj_to_space: bool = False) -> str:
    """Digits, letters, diacritics, joiners and whitespace, in that order."""
    text = remove_diacritics(normalize_letters(to_latin_digits(text)))
    text = normalize_zwnj(text, " " if zwnj_to_space else ZWNJ)
    return normalize_whitespace(text)


def fold(text: str) -> str:
    """Loose comparison key: :func:`normalize`, case-folded, ZWNJ as space, letter variants folded."""
    return normalize(text, zwnj_to_space=True).translate(_LOOSE_LETTERS).casefold()


__all__ = [
    "ARABIC_INDIC_DIGITS",
    "PERSIAN_DIGITS",
    "ZWJ",
    "ZWNJ",
    "fold",
    "normalize",
    "normalize_letters",
    "normalize_whitespace",
    "normalize_zwnj",
    "remove_diacritics",
    "script_language",
    "to_latin_digits",
]


_ARABIC_SCRIPT = re.compile("[\u0600-\u06ff\u0750-\u077f\ufb50-\ufdff\ufe70-\ufeff]")
_LATIN = re.compile("[A-Za-z\u00c0-\u024f]")


def script_language(text: str) -> str | None:
    """``"fa"`` when Arabic-script letters outnumber Latin ones, ``"en"`` when Latin letters do,
    None for text with neither (digits, punctuation). Decides which language an item is in."""
    arabic = len(_ARABIC_SCRIPT.findall(text or ""))
    latin = len(_LATIN.findall(text or ""))
    if arabic == latin == 0:
        return None
    return "fa" if arabic >= latin else "en"
