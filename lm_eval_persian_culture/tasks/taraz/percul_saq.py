"""PerCul-SAQ: PerCul's stories as short-answer questions (TARAZ sec. 3, Figure 5).

PerCul's data comes from PerCul's own source module (``tasks/percul/source.py``: ``CATEGORIES``,
``SPLITS``, ``load_items(split, settings) -> (items, provenance)``; items carry ``id, category,
topic, story, options, answer_index``), so both benchmarks read the same, checked release. The
reference answer is the text of the correct option; the question names the item's category
(Figure 5: "با توجه به متن بالا چه ساز یا موسیقی در فرهنگ یا زندگی روزمره ایرانی قابل برداشت است؟").
"""

from __future__ import annotations

import re

from lm_eval_persian_culture.data.sources import DataSchemaError

PERSIAN_SPLIT = "original_persian"
# PerCul's 11 categories (TARAZ sec. 3) -> the phrase that fills "چه <...>" in the question.
# Figure 5 shows the music category as "ساز یا موسیقی"; the others are the paper's Persian names.
CATEGORY_PHRASES = {
    "food": "خوراکی",
    "foods": "خوراکی",
    "visible behavior": "رفتار",
    "behavior": "رفتار",
    "iconic figure": "چهره نمادین",
    "iconic figures": "چهره نمادین",
    "institution": "نهاد",
    "institutions": "نهاد",
    "architecture": "معماری",
    "object": "شی",
    "objects": "شی",
    "appropriacy": "هنجار",
    "dress": "پوشاک",
    "music": "ساز یا موسیقی",
    "music/instrument": "ساز یا موسیقی",
    "art": "هنر",
    "ritual": "آیین",
    "rituals": "آیین",
}
_PERSIAN = re.compile(r"[\u0600-\u06ff]")


def category_phrase(category: str) -> str:
    """The Persian phrase for a PerCul category (Persian labels are used as they are, "/" read as "یا")."""
    text = " ".join(str(category).split())
    if _PERSIAN.search(text):
        return re.sub(r"\s*/\s*", " یا ", text)
    key = text.casefold().replace("_", " ")
    if key not in CATEGORY_PHRASES:
        raise DataSchemaError(
            f"PerCul category {category!r} has no Persian question phrase; known: {sorted(CATEGORY_PHRASES)}"
        )
    return CATEGORY_PHRASES[key]


def _source():
    try:
        from lm_eval_persian_culture.tasks.percul import source
    except ImportError as err:  # PerCul's module is part of the pack; this is an installation problem
        raise DataSchemaError(f"taraz_percul_saq needs PerCul's data module (tasks/percul/source.py): {err}") from None
    return source


def build_docs(settings: dict) -> tuple[list[dict], str]:
    """PerCul's Persian split as short-answer docs; (docs, provenance)."""
    source = _source()
    items, provenance = source.load_items(PERSIAN_SPLIT, settings)
    docs = []
    for item in items:
        options, index = list(item["options"]), int(item["answer_index"])
        docs.append(
            {
                "id": str(item["id"]),
                "category": item["category"],
                "category_phrase": category_phrase(item["category"]),
                "topic": item.get("topic", ""),
                "story": item["story"],
                "references": [options[index].strip()],
            }
        )
    return docs, provenance
