"""PerCul (Moosavi Monazzah, Rahimzadeh et al., NAACL 2025): prompts, docs, scoring.

Everything particular to the benchmark beside its data contract (``source.py``): the
project's Persian and English rendering of the paper's prompt (shown only as Figure 9),
the docs of the generative and loglikelihood tasks, per-doc records and the aggregations
(accuracy, macro accuracy over the 11 categories, accuracy per category, invalid rate,
and the Persian minus English differences of the two-language task).

Reading, the LLM-extractor fallback, the generative record and the standard aggregations are the shared
option-task helper's (``tasks/_option_task.py``; ``TASK`` below). lm-eval executes this file anew for
every ``!function utils.<name>`` of a YAML, so it keeps no state of its own: the LLM extractor the loader
configures and the filter uses is the process's one ``judge.extractor.fallback`` object. The names the
YAMLs use are at the end of the file.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from functools import partial
from typing import Any

from lm_eval_persian_culture.data.sources import PROVENANCE_FIELD, DataSchemaError, resolve_data_dir
from lm_eval_persian_culture.scoring.aggregations import field_is, macro_rate, make_field_rates, rate, slug
from lm_eval_persian_culture.scoring.extract import LETTERS
from lm_eval_persian_culture.scoring.records import make_process_results
from lm_eval_persian_culture.tasks._option_task import OptionTask
from lm_eval_persian_culture.tasks._option_task import higher_is_better as option_higher_is_better
from lm_eval_persian_culture.tasks.percul.source import CATEGORIES, SPLITS, load_items
from lm_eval_persian_culture.text.persian import PERSIAN_DIGITS

logger = logging.getLogger("lm_eval_persian_culture")
LANGUAGES = tuple(SPLITS)  # ("fa", "en")

# --------------------------------------------------------------------------- prompts
# The paper prints its benchmarking prompt only as an image (App. C, Figure 9). What the text
# says of it: a story implying a cultural concept, "followed by a comprehension question about
# the concept and multiple-choice options" (Fig. 12), numbered options answered by number
# ("the associated choice number is 2", Table 6), the question naming the category ("models
# were asked to identify what cultural concept in the Music category is implied", sec. 4.3),
# the same prompt for every model, temperature 0. The wording below is the project's own
# rendering of that description; bump PROMPT_VERSION whenever it changes.
PROMPT_VERSION = "percul-prompt-v1"

CATEGORY_NAMES = {
    "en": {
        "Foods": "Foods", "Visible behavior": "Visible Behavior", "Iconic figures": "Iconic Figures",
        "Institution": "Institutions", "Architecture": "Architecture", "Objects": "Objects",
        "Appropriacy": "Appropriacy", "Dress": "Dress", "Music": "Music", "Art": "Art", "Rituals": "Rituals",
    },
    "fa": {
        "Foods": "خوراک‌ها", "Visible behavior": "رفتارهای آشکار", "Iconic figures": "چهره‌های شاخص",
        "Institution": "نهادها", "Architecture": "معماری", "Objects": "اشیا",
        "Appropriacy": "هنجارهای اجتماعی", "Dress": "پوشاک", "Music": "موسیقی", "Art": "هنر", "Rituals": "آیین‌ها",
    },
}  # fmt: skip
TEMPLATES = {
    "fa": {
        "story": "داستان:\n{story}",
        "question": "پرسش: این داستان به‌طور ضمنی به کدام مفهوم از فرهنگ ایرانی در دستهٔ «{category}» اشاره دارد؟",
        "instruction": "با شمارهٔ گزینهٔ درست پاسخ دهید.",
        "answer_cue": "پاسخ:",
    },
    "en": {
        "story": "Story:\n{story}",
        "question": 'Question: Which concept of Iranian culture in the category "{category}" does this story imply?',
        "instruction": "Answer with the number of the correct option.",
        "answer_cue": "Answer:",
    },
}
NUMERALS = {"fa": PERSIAN_DIGITS[1:5], "en": "1234"}
CATEGORY_SLUGS = {c: slug(c) for c in CATEGORIES}  # "Visible behavior" -> "visible_behavior"


def _head(doc: Mapping) -> str:
    t = TEMPLATES[doc["language"]]
    category = CATEGORY_NAMES[doc["language"]][doc["category"]]
    return t["story"].format(story=doc["story"]) + "\n\n" + t["question"].format(category=category)


def doc_to_text(doc: Mapping) -> str:
    """Generative prompt: story, question, the four numbered options, the instruction."""
    lang = doc["language"]
    options = "\n".join(f"{n}. {text}" for n, text in zip(NUMERALS[lang], doc["options"]))
    return f"{_head(doc)}\n{options}\n\n{TEMPLATES[lang]['instruction']}"


def doc_to_text_mc(doc: Mapping) -> str:
    """Loglikelihood prompt: story and question, then the answer cue; each option text is scored
    as the continuation (lm-eval adds its target delimiter, a space)."""
    return f"{_head(doc)}\n{TEMPLATES[doc['language']]['answer_cue']}"


# --------------------------------------------------------------------------- docs
def _doc(item: Mapping, language: str, provenance: str, pair: str) -> dict:
    return {
        "id": item["id"],
        "pair": pair,
        "language": language,
        "category": item["category"],
        "topic": item["topic"],
        "story": item["story"],
        "options": list(item["options"]),
        "answer_index": item["answer_index"],
        "answer": LETTERS[item["answer_index"]],
        "prompt_version": PROMPT_VERSION,
        PROVENANCE_FIELD: provenance,
    }


def _pairing(fa: Sequence[Mapping], en: Sequence[Mapping], settings: Mapping | None) -> list[tuple[int, int]]:
    """(Persian index, English index) of the same story in the two splits.

    By ID when both splits carry the same IDs; otherwise by row order when the splits have the
    same length and the same category at every row; otherwise a schema error (the difference
    would compare different stories).
    """
    fa_ids = {it["id"]: i for i, it in enumerate(fa)}
    en_ids = {it["id"]: i for i, it in enumerate(en)}
    if fa_ids.keys() == en_ids.keys():
        return [(i, en_ids[it["id"]]) for i, it in enumerate(fa)]
    if len(fa) == len(en) and all(a["category"] == b["category"] for a, b in zip(fa, en)):
        logger.warning("PerCul: the two splits' IDs differ; Persian and English stories paired by row order")
        return [(i, i) for i in range(len(fa))]
    where = resolve_data_dir(settings) or "the hub"
    only_fa = next((k for k in fa_ids if k not in en_ids), None)
    raise DataSchemaError(
        f"PerCul ({where}): {SPLITS['fa']} and {SPLITS['en']} cannot be paired: ID {only_fa!r} of "
        f"{SPLITS['fa']} is not in {SPLITS['en']}, and the splits differ in length or categories row by row"
    )


def build_docs(languages: Sequence[str], settings: Mapping | None = None) -> list[dict]:
    """One doc per item and language; with both languages, Persian and English of each story
    alternate (so ``--limit`` keeps pairs whole)."""
    loaded = {lang: load_items(SPLITS[lang], settings) for lang in languages}
    if len(languages) == 1:
        (lang,) = languages
        items, provenance = loaded[lang]
        return [_doc(it, lang, provenance, it["id"]) for it in items]
    (fa, fa_prov), (en, en_prov) = loaded["fa"], loaded["en"]
    docs = []
    for i, j in _pairing(fa, en, settings):
        docs.append(_doc(fa[i], "fa", fa_prov, fa[i]["id"]))
        docs.append(_doc(en[j], "en", en_prov, fa[i]["id"]))
    return docs


def load(languages: Sequence[str], **settings):
    """``custom_dataset`` hook: called by lm-eval with task metadata, --metadata and --model_args."""
    import datasets

    configure_extractor(settings)  # a bad extractor configuration fails before any model time
    return {"test": datasets.Dataset.from_list(build_docs(languages, settings))}


# --------------------------------------------------------------------------- generative scoring
# The shared option-task helper reads the replies (the pack's answer grammar: numbers 1-4 in either script,
# "گزینهٔ ۲", the option's own text, A-D; a reply going on into an invented next story is cut there), hands
# what the rules cannot read to the LLM extractor when a judge is configured (set at dataset load), and makes
# the per-doc record. The filter's record keeps PerCul's keys: ``{"reply", "extracted": "A".."D" | None,
# "extracted_by": "rule" | "llm" | None}`` (plus ``llm_raw``/``llm_error`` where the extractor was asked).
LLM_EXTRACTOR_SETTING = "percul_llm_extractor"
TASK = OptionTask(
    name="PerCul",
    switch=LLM_EXTRACTOR_SETTING,
    options=lambda doc: list(doc["options"]),
    question=_head,
    labels="numbers",
    reads_letters=True,  # "B" or «ب» is the second option, as the rules have always read it
    gold=lambda doc: doc["answer_index"],
    fields=("language", "pair", "category"),
    next_item=("Story", "داستان"),  # the prompt opens with the story ("Question N:" is always cut)
    spell="letter",
    answer_key="extracted",
    by_key="extracted_by",
    cut_warning="PerCul: %d replies stop inside an unclosed <think> block (no answer): raise "
    "--gen_kwargs max_gen_toks=... for reasoning models",
)
EXTRACTOR = TASK.extractor
configure_extractor = TASK.configure
extract_filter = TASK.filter


def read_answer(reply: str, doc: Mapping) -> str | None:
    """The option ("A".."D" for Choice 1-4) the shared answer grammar reads, or None."""
    return TASK.spelled(TASK.read(reply, doc))


def _generate_value(doc: Mapping, results: list) -> dict:
    return TASK.record(doc, results[0])


# --------------------------------------------------------------------------- loglikelihood scoring
def _argmax(values: Sequence[float]) -> int:
    return max(range(len(values)), key=lambda i: values[i])  # first maximum, as numpy.argmax


def _mc_value(doc: Mapping, results: list) -> dict:
    """lm-eval's acc / acc_norm under the pack's names: the option with the highest
    loglikelihood (``correct``), and with the highest loglikelihood per character of the
    option text (``correct_norm``, lm-eval's acc_norm)."""
    lls = [float(r[0]) if isinstance(r, (list, tuple)) else float(r) for r in results]
    norm = [ll / len(text) for ll, text in zip(lls, doc["options"])]
    return {
        "language": doc["language"],
        "pair": doc["pair"],
        "category": doc["category"],
        "correct": int(_argmax(lls) == doc["answer_index"]),
        "correct_norm": int(_argmax(norm) == doc["answer_index"]),
        "invalid": 0,
        "llm": 0,
    }


# --------------------------------------------------------------------------- aggregations
def _in(language: str):
    return field_is("language", language)


def macro_accuracy(items: Iterable[Mapping], field: str = "correct", where=None) -> float:
    """The paper's headline: the mean over categories of the per-category accuracy."""
    return macro_rate(items, field, group="category", where=where)


def _paired(items: Iterable[Mapping]) -> list[Mapping]:
    """Records of stories present in both languages (a pair split by --limit is left out)."""
    items = list(items)
    langs: dict[object, set[str]] = {}
    for it in items:
        langs.setdefault(it["pair"], set()).add(it["language"])
    return [it for it in items if langs[it["pair"]] >= set(LANGUAGES)]


def fa_minus_en(items: Iterable[Mapping], score, field: str = "correct") -> float:
    """Persian score minus English score over the stories present in both languages."""
    paired = _paired(items)
    return score(paired, field, where=_in("fa")) - score(paired, field, where=_in("en"))


def _accuracy(items, field="correct", where=None):
    return rate(items, field, where=where)


# accuracy, invalid_rate, llm_extracted_rate, llm_extractor_errors, and accuracy over one category's docs
# (NaN when the run has none, e.g. under --limit) from the shared helper
AGGREGATIONS: dict[str, Any] = TASK.aggregations({"category": {f"accuracy_{s}": c for c, s in CATEGORY_SLUGS.items()}})
AGGREGATIONS.update({
    "macro_accuracy": macro_accuracy,
    "accuracy_norm": partial(rate, field="correct_norm"),
    "macro_accuracy_norm": partial(macro_accuracy, field="correct_norm"),
})  # fmt: skip
AGGREGATIONS.update(
    make_field_rates("category", {f"accuracy_norm_{s}": c for c, s in CATEGORY_SLUGS.items()}, "correct_norm")
)
for _lang in LANGUAGES:
    AGGREGATIONS[f"accuracy_{_lang}"] = partial(rate, field="correct", where=_in(_lang))
    AGGREGATIONS[f"macro_accuracy_{_lang}"] = partial(macro_accuracy, where=_in(_lang))
    AGGREGATIONS[f"invalid_rate_{_lang}"] = partial(rate, field="invalid", where=_in(_lang))
    AGGREGATIONS[f"accuracy_norm_{_lang}"] = partial(rate, field="correct_norm", where=_in(_lang))
    AGGREGATIONS[f"macro_accuracy_norm_{_lang}"] = partial(macro_accuracy, field="correct_norm", where=_in(_lang))
AGGREGATIONS["accuracy_fa_minus_en"] = partial(fa_minus_en, score=_accuracy)
AGGREGATIONS["macro_accuracy_fa_minus_en"] = partial(fa_minus_en, score=macro_accuracy)
AGGREGATIONS["accuracy_norm_fa_minus_en"] = partial(fa_minus_en, score=_accuracy, field="correct_norm")
AGGREGATIONS["macro_accuracy_norm_fa_minus_en"] = partial(fa_minus_en, score=macro_accuracy, field="correct_norm")

_PER_CATEGORY = tuple(f"accuracy_{s}" for s in CATEGORY_SLUGS.values())
_PER_CATEGORY_NORM = tuple(f"accuracy_norm_{s}" for s in CATEGORY_SLUGS.values())
METRIC_SETS = {
    # one language, generative; the paper's headline (macro accuracy) first
    "GENERATE": ("macro_accuracy", "accuracy", *_PER_CATEGORY, *OptionTask.EXTRACTION_METRICS),
    # one language, loglikelihood
    "MC": ("macro_accuracy", "macro_accuracy_norm", "accuracy", "accuracy_norm", *_PER_CATEGORY, *_PER_CATEGORY_NORM),
    # both languages and the difference
    "FA_EN_GENERATE": (
        "macro_accuracy_fa", "macro_accuracy_en", "macro_accuracy_fa_minus_en",
        "accuracy_fa", "accuracy_en", "accuracy_fa_minus_en", "invalid_rate_fa", "invalid_rate_en",
        "llm_extracted_rate", "llm_extractor_errors",
    ),
    "FA_EN_MC": (
        "macro_accuracy_fa", "macro_accuracy_en", "macro_accuracy_fa_minus_en",
        "accuracy_fa", "accuracy_en", "accuracy_fa_minus_en",
        "macro_accuracy_norm_fa", "macro_accuracy_norm_en", "macro_accuracy_norm_fa_minus_en",
        "accuracy_norm_fa", "accuracy_norm_en", "accuracy_norm_fa_minus_en",
    ),
}  # fmt: skip


def higher_is_better(metric: str) -> bool:
    """Accuracies are better high; the invalid rate, the share read by the LLM extractor and its failures low.
    A Persian minus English difference has no better direction: reported as higher-is-better only so lm-eval
    prints it unflagged."""
    return option_higher_is_better(metric)


def aggregate(items: Iterable[Mapping], names: Sequence[str]) -> dict[str, float]:
    """Several metrics of a record list at once (for notebooks and tests)."""
    items = list(items)
    return {name: AGGREGATIONS[name](items) for name in names}


# --------------------------------------------------------------------------- the names the YAMLs use
# (``!function utils.<name>``)
process_results = make_process_results(_generate_value, METRIC_SETS["GENERATE"])
process_results_mc = make_process_results(_mc_value, METRIC_SETS["MC"])
process_results_fa_en = make_process_results(_generate_value, METRIC_SETS["FA_EN_GENERATE"])
process_results_fa_en_mc = make_process_results(_mc_value, METRIC_SETS["FA_EN_MC"])
load_fa = partial(load, ("fa",))
load_en = partial(load, ("en",))
load_fa_en = partial(load, ("fa", "en"))
accuracy = AGGREGATIONS["accuracy"]
accuracy_appropriacy = AGGREGATIONS["accuracy_appropriacy"]
accuracy_architecture = AGGREGATIONS["accuracy_architecture"]
accuracy_art = AGGREGATIONS["accuracy_art"]
accuracy_dress = AGGREGATIONS["accuracy_dress"]
accuracy_en = AGGREGATIONS["accuracy_en"]
accuracy_fa = AGGREGATIONS["accuracy_fa"]
accuracy_fa_minus_en = AGGREGATIONS["accuracy_fa_minus_en"]
accuracy_foods = AGGREGATIONS["accuracy_foods"]
accuracy_iconic_figures = AGGREGATIONS["accuracy_iconic_figures"]
accuracy_institution = AGGREGATIONS["accuracy_institution"]
accuracy_music = AGGREGATIONS["accuracy_music"]
accuracy_norm = AGGREGATIONS["accuracy_norm"]
accuracy_norm_appropriacy = AGGREGATIONS["accuracy_norm_appropriacy"]
accuracy_norm_architecture = AGGREGATIONS["accuracy_norm_architecture"]
accuracy_norm_art = AGGREGATIONS["accuracy_norm_art"]
accuracy_norm_dress = AGGREGATIONS["accuracy_norm_dress"]
accuracy_norm_en = AGGREGATIONS["accuracy_norm_en"]
accuracy_norm_fa = AGGREGATIONS["accuracy_norm_fa"]
accuracy_norm_fa_minus_en = AGGREGATIONS["accuracy_norm_fa_minus_en"]
accuracy_norm_foods = AGGREGATIONS["accuracy_norm_foods"]
accuracy_norm_iconic_figures = AGGREGATIONS["accuracy_norm_iconic_figures"]
accuracy_norm_institution = AGGREGATIONS["accuracy_norm_institution"]
accuracy_norm_music = AGGREGATIONS["accuracy_norm_music"]
accuracy_norm_objects = AGGREGATIONS["accuracy_norm_objects"]
accuracy_norm_rituals = AGGREGATIONS["accuracy_norm_rituals"]
accuracy_norm_visible_behavior = AGGREGATIONS["accuracy_norm_visible_behavior"]
accuracy_objects = AGGREGATIONS["accuracy_objects"]
accuracy_rituals = AGGREGATIONS["accuracy_rituals"]
accuracy_visible_behavior = AGGREGATIONS["accuracy_visible_behavior"]
invalid_rate = AGGREGATIONS["invalid_rate"]
invalid_rate_en = AGGREGATIONS["invalid_rate_en"]
invalid_rate_fa = AGGREGATIONS["invalid_rate_fa"]
llm_extracted_rate = AGGREGATIONS["llm_extracted_rate"]
llm_extractor_errors = AGGREGATIONS["llm_extractor_errors"]
macro_accuracy_en = AGGREGATIONS["macro_accuracy_en"]
macro_accuracy_fa = AGGREGATIONS["macro_accuracy_fa"]
macro_accuracy_fa_minus_en = AGGREGATIONS["macro_accuracy_fa_minus_en"]
macro_accuracy_norm = AGGREGATIONS["macro_accuracy_norm"]
macro_accuracy_norm_en = AGGREGATIONS["macro_accuracy_norm_en"]
macro_accuracy_norm_fa = AGGREGATIONS["macro_accuracy_norm_fa"]
macro_accuracy_norm_fa_minus_en = AGGREGATIONS["macro_accuracy_norm_fa_minus_en"]
