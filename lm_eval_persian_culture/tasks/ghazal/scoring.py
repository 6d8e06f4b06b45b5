"""GhazalBench's completion scoring, as the authors' scripts do it (``Analysis Code/calcRecallPersian.py`` and
``calcRecallEnglish.py`` at the pinned commit; tests/ghazal runs those scripts as the reference).

1. The reply must be exactly ``<answer>...</answer>`` (surrounding whitespace allowed; ``re.fullmatch`` with
   DOTALL, the inside stripped). Anything else is a format error, and the scripts then score an empty
   prediction against the gold hemistich: Non-Retrieval (edit distance = the gold's length).
2. Both sides are normalised: Persian: NFC, Arabic letter forms to Persian (ي ك ة ؤ إ أ ٱ), diacritics
   U+064B-U+065F and U+0670 removed, ZWNJ to a space, runs of whitespace to one space, stripped; English: NFC and
   whitespace only. Nothing else is touched (Arabic-Indic digits, punctuation, ۀ, hamza forms stay as they are).
3. Character edit distance (the ``editdistance`` package, as the scripts use) between the normalised texts:
   Complete if at most 1 / 2 / 3 edits for a normalised gold shorter than 40 / 80 / longer; else Partial if
   edits / max(1, len(gold)) <= 0.2; else Non-Retrieval.
"""

from __future__ import annotations

import re
import unicodedata

import editdistance

COMPLETE, PARTIAL, NON_RETRIEVAL = "Complete", "Partial", "Non-Retrieval"
LABELS = (COMPLETE, PARTIAL, NON_RETRIEVAL)
PARTIAL_CER_THRESHOLD = 0.2

_ANSWER = re.compile(r"\s*<answer>(.*?)</answer>\s*", flags=re.DOTALL)
PERSIAN_MAP = {"ي": "ی", "ك": "ک", "ة": "ه", "ؤ": "و", "إ": "ا", "أ": "ا", "ٱ": "ا"}
DIACRITICS = re.compile(r"[\u064B-\u065F\u0670]")
_SPACES = re.compile(r"\s+")


def extract_answer(text: str) -> str | None:
    """The text inside ``<answer>...</answer>`` when that is the whole reply, else None (a format error)."""
    match = _ANSWER.fullmatch(text)
    return match.group(1).strip() if match else None


def normalize_persian(text: str | None) -> str:
    if text is None:
        return ""
    text = unicodedata.normalize("NFC", text)
    for arabic, persian in PERSIAN_MAP.items():
        text = text.replace(arabic, persian)
    text = DIACRITICS.sub("", text)
    text = text.replace("\u200c", " ")
    return _SPACES.sub(" ", text).strip()


def normalize_english(text: str | None) -> str:
    if text is None:
        return ""
    text = unicodedata.normalize("NFC", text)
    return _SPACES.sub(" ", text).strip()


NORMALIZERS = {"fa": normalize_persian, "en": normalize_english}


def allowed_edits(gold: str) -> int:
    """Edits a Complete answer may have, by the normalised gold's length."""
    if len(gold) < 40:
        return 1
    if len(gold) < 80:
        return 2
    return 3


def recall_label(pred: str | None, gold: str, language: str = "fa") -> str:
    """Complete / Partial / Non-Retrieval of an extracted answer (None: no answer) against the gold hemistich."""
    normalize = NORMALIZERS[language]
    p, g = normalize(pred), normalize(gold)
    edits = editdistance.eval(p, g)
    if edits <= allowed_edits(g):
        return COMPLETE
    if edits / max(1, len(g)) <= PARTIAL_CER_THRESHOLD:
        return PARTIAL
    return NON_RETRIEVAL


def score_reply(reply: str, gold: str, language: str = "fa") -> tuple[str, bool]:
    """(label, format_error) of a raw reply, as the scripts score it."""
    answer = extract_answer(reply)
    return recall_label(answer, gold, language), answer is None
