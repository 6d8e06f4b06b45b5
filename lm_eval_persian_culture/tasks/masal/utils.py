"""MasalBench (Kalhor & Bahrak, arXiv 2601.22050): docs, prompts, reading the pick, per-role rates.

The prompt is the data's ``Question`` column, verbatim: the authors wrote the whole Persian prompt
(instruction, conversation or proverb, question, options الف-د). The reply is read by the pack's one answer
grammar (a letter الف/ب/ج/د or A-D, the option's text, ...); replies it cannot read go to the LLM extractor when
a judge is configured, else count as invalid (and wrong).

Per doc, the record says which role the picked option has (``Correct``, ``Literal Trap``, ``Plausible but
Wrong``, ``Irrelevant``; ``Equivalent`` / ``Irrelevant`` in the cross-cultural task) and which roles the item
has; each pick rate is over the items that have an option of that role (see README "Metrics").

lm-eval executes this file anew for every ``!function utils.<name>`` of a YAML, so it keeps no state of its
own (the LLM extractor is the process's one ``judge.extractor.fallback`` object). The names the YAMLs use
are at the end of the file.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from functools import partial
from typing import Any

from lm_eval_persian_culture.data.sources import PROVENANCE_FIELD
from lm_eval_persian_culture.judge import extractor
from lm_eval_persian_culture.scoring.aggregations import mean_or_nan, rate
from lm_eval_persian_culture.scoring.extract import read_option
from lm_eval_persian_culture.scoring.records import encode_record, lm_eval_filter, make_process_results, record_of
from lm_eval_persian_culture.tasks.masal.source import (
    IRRELEVANT,
    LITERAL_TRAP,
    OPTIONS_HEADING,
    PARTS,
    PLAUSIBLE,
    load_items,
)

PROMPT_VERSION = "masal-question-column"  # the data's own prompt, verbatim (nothing of the pack's added)


# --------------------------------------------------------------------------- docs and prompt
def build_docs(part_name: str, settings: Mapping | None = None) -> list[dict]:
    part = PARTS[part_name]
    items, provenance = load_items(part, settings)
    return [
        {
            **item,
            "task": part.name,
            "answer": item["letters"][item["answer_index"]],  # the right option's letter, e.g. "ج"
            "prompt_version": PROMPT_VERSION,
            PROVENANCE_FIELD: provenance,
        }
        for item in items
    ]


def load(part_name: str, **settings):
    """``custom_dataset`` hook: called by lm-eval with task metadata, --metadata and --model_args."""
    import datasets

    configure_extractor(settings)  # a bad extractor configuration fails before any model time
    return {"test": datasets.Dataset.from_list(build_docs(part_name, settings))}


def doc_to_text(doc: Mapping) -> str:
    """The data's ``Question``, verbatim (the authors' whole prompt)."""
    return doc["question"]


def _head(doc: Mapping) -> str:
    """The prompt without its option lines (for the LLM extractor, which lists the options itself)."""
    return doc["question"].rsplit(OPTIONS_HEADING, 1)[0].rstrip()


# --------------------------------------------------------------------------- reading the pick
LLM_EXTRACTOR_SETTING = "masal_llm_extractor"
EXTRACTOR = extractor.fallback(LLM_EXTRACTOR_SETTING, "MasalBench", key="masal")
configure_extractor = EXTRACTOR.configure


def read_pick(reply: str, doc: Mapping) -> int | None:
    """0-based index of the option the shared answer grammar reads (letters الف-د / A-D over the item's own
    options, the option's text), or None."""
    return read_option(reply, list(doc["options"]), count=len(doc["options"]), letters=True)


def _number_by_rule(doc: Mapping, reply: str) -> int | None:
    index = read_pick(reply, doc)
    return None if index is None else index + 1


_ASK = EXTRACTOR.ask_numbered(lambda doc: (_head(doc), list(doc["options"])))
_CUT_WARNING = ("MasalBench: %d replies stop inside an unclosed <think> block (no answer): raise "
                "--gen_kwargs max_gen_toks=... for reasoning models")  # fmt: skip


@lm_eval_filter
def extract_filter(resps: Sequence, docs: Sequence[Mapping]) -> list[str]:
    """Custom lm-eval filter: per doc a JSON record ``{"reply", "picked": 0-based index | None,
    "extracted_by": "rule" | "llm" | None}`` (plus ``llm_raw``/``llm_error`` where the extractor was asked)."""
    read = EXTRACTOR.read(resps, docs, _number_by_rule, _ASK, cut_warning=_CUT_WARNING)
    return [
        encode_record({"reply": r.reply, "picked": None if r.answer is None else r.answer - 1,
                       "extracted_by": r.by, **r.extra})
        for r in read
    ]  # fmt: skip


def _rule_record(doc: Mapping, reply: str) -> dict:
    picked = read_pick(reply, doc)
    return {"picked": picked, "extracted_by": "rule" if picked is not None else None}


def doc_record(doc: Mapping, picked: int | None, extracted_by: str | None = None) -> dict:
    """The per-doc value every metric of the task aggregates."""
    valid = picked is not None and 0 <= picked < len(doc["roles"])
    return {
        "task": doc["task"],
        "correct": int(valid and picked == doc["answer_index"]),
        "invalid": int(not valid),
        "llm": int(extracted_by == "llm"),
        "picked_role": doc["roles"][picked] if valid else None,
        "roles": list(doc["roles"]),
    }


def _value(doc: Mapping, results: list) -> dict:
    record = record_of(results[0], partial(_rule_record, doc))  # another filter ran instead: rules only
    return doc_record(doc, record.get("picked"), record.get("extracted_by"))


# --------------------------------------------------------------------------- aggregations
def role_rate(items: Iterable[Mapping], role: str) -> float:
    """How often the picked option is the one of ``role``, over the items that have an option of that role
    (an invalid reply counts in the denominator and picks no role); NaN when no item has one."""
    having = [it for it in items if role in it["roles"]]
    return mean_or_nan([float(it["picked_role"] == role) for it in having])


AGGREGATIONS: dict[str, Any] = {
    "accuracy": partial(rate, field="correct"),
    "literal_trap_rate": partial(role_rate, role=LITERAL_TRAP),
    "plausible_wrong_rate": partial(role_rate, role=PLAUSIBLE),
    "irrelevant_rate": partial(role_rate, role=IRRELEVANT),
    "invalid_rate": partial(rate, field="invalid"),
    "llm_extracted_rate": partial(rate, field="llm"),
}
METRIC_SETS = {
    "contextual": ("accuracy", "literal_trap_rate", "plausible_wrong_rate", "irrelevant_rate", "invalid_rate",
                   "llm_extracted_rate"),
    "cross_cultural": ("accuracy", "irrelevant_rate", "invalid_rate", "llm_extracted_rate"),
}  # fmt: skip


def higher_is_better(metric: str) -> bool:
    """Accuracy is better high; the pick rate of a wrong role, the invalid rate and the LLM-read share low."""
    return metric == "accuracy"


def aggregate(items: Iterable[Mapping], names: Sequence[str]) -> dict[str, float]:
    """Several metrics of a record list at once (for notebooks and tests)."""
    items = list(items)
    return {name: AGGREGATIONS[name](items) for name in names}


# --------------------------------------------------------------------------- the names the YAMLs use
# (``!function utils.<name>``)
load_contextual = partial(load, "contextual")
load_cross_cultural = partial(load, "cross_cultural")
process_results_contextual = make_process_results(_value, METRIC_SETS["contextual"])
process_results_cross_cultural = make_process_results(_value, METRIC_SETS["cross_cultural"])
accuracy = AGGREGATIONS["accuracy"]
literal_trap_rate = AGGREGATIONS["literal_trap_rate"]
plausible_wrong_rate = AGGREGATIONS["plausible_wrong_rate"]
irrelevant_rate = AGGREGATIONS["irrelevant_rate"]
invalid_rate = AGGREGATIONS["invalid_rate"]
llm_extracted_rate = AGGREGATIONS["llm_extracted_rate"]
