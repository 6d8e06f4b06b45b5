"""MasalBench (Kalhor & Bahrak, arXiv 2601.22050): docs, the prompt, and the per-role pick rates.

The prompt is the data's ``Question`` column, verbatim: the authors wrote the whole Persian prompt
(instruction, conversation or proverb, question, options الف-د). Reading the pick, the LLM-extractor fallback,
the record and the standard aggregations are the shared option-task helper's (``tasks/_option_task.py``):
this file declares one ``OptionTask`` and adds what is MasalBench's own, the role of the picked option
(``Correct``, ``Literal Trap``, ``Plausible but Wrong``, ``Irrelevant``; ``Equivalent`` / ``Irrelevant`` in the
cross-cultural task) and each role's pick rate over the items that have an option of that role (README
"Metrics").

lm-eval executes this file anew for every ``!function utils.<name>`` of a YAML, so it keeps no state of its
own. The names the YAMLs use are at the end of the file.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from functools import partial
from typing import Any

from lm_eval_persian_culture.data.sources import PROVENANCE_FIELD
from lm_eval_persian_culture.scoring.aggregations import mean_or_nan
from lm_eval_persian_culture.tasks._option_task import OptionTask
from lm_eval_persian_culture.tasks.masal.source import (
    IRRELEVANT,
    LETTERS,
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


def doc_to_text(doc: Mapping) -> str:
    """The data's ``Question``, verbatim (the authors' whole prompt)."""
    return doc["question"]


def extractor_question(doc: Mapping) -> str:
    """What the LLM extractor sees above the options (which it lists as (A) (B) ...): the prompt without its
    option lines, and how the prompt lettered them."""
    head = doc["question"].rsplit(OPTIONS_HEADING, 1)[0].rstrip()
    mapping = ", ".join(f"{fa} = {en}" for fa, en in zip(LETTERS, "ABCD"[: len(doc["options"])]))
    return f"{head}\n\n(The prompt lettered the options {mapping}.)"


def _role_of_pick(doc: Mapping, index: int | None) -> dict:
    return {
        "picked_role": doc["roles"][index] if index is not None and 0 <= index < len(doc["roles"]) else None,
        "roles": list(doc["roles"]),
    }


TASK = OptionTask(
    name="MasalBench",
    switch="masal_llm_extractor",
    options=lambda doc: doc["options"],
    labels="letters",  # الف ب ج د in the prompt; A-D read too; the record spells A-D
    question=extractor_question,
    gold=lambda doc: doc["answer_index"],
    fields=("task",),
    more=_role_of_pick,
    next_item=("مکالمه", "ضرب‌المثل فارسی"),  # the lines that open an item: a reply going on into another is cut
    key="masal",
    cut_warning="MasalBench: %d replies stop inside an unclosed <think> block (no answer): raise "
    "--gen_kwargs max_gen_toks=... for reasoning models",
)


def load(part_name: str, **settings):
    """``custom_dataset`` hook: called by lm-eval with task metadata, --metadata and --model_args."""
    import datasets

    TASK.configure(settings)  # a bad extractor configuration fails before any model time
    return {"test": datasets.Dataset.from_list(build_docs(part_name, settings))}


def read_pick(reply: str, doc: Mapping) -> int | None:
    """0-based index of the option the shared answer grammar reads in a reply (rules only), or None."""
    return TASK.read(reply, doc)


# --------------------------------------------------------------------------- aggregations
def role_rate(items: Iterable[Mapping], role: str) -> float:
    """How often the picked option is the one of ``role``, over the items that have an option of that role
    (an invalid reply counts in the denominator and picks no role); NaN when no item has one."""
    having = [it for it in items if role in it["roles"]]
    return mean_or_nan([float(it["picked_role"] == role) for it in having])


AGGREGATIONS: dict[str, Any] = {
    **TASK.aggregations(),
    "literal_trap_rate": partial(role_rate, role=LITERAL_TRAP),
    "plausible_wrong_rate": partial(role_rate, role=PLAUSIBLE),
    "irrelevant_rate": partial(role_rate, role=IRRELEVANT),
}
METRIC_SETS = {
    "contextual": ("accuracy", "literal_trap_rate", "plausible_wrong_rate", "irrelevant_rate",
                   *OptionTask.EXTRACTION_METRICS),
    "cross_cultural": ("accuracy", "irrelevant_rate", *OptionTask.EXTRACTION_METRICS),
}  # fmt: skip


def higher_is_better(metric: str) -> bool:
    """Accuracy is better high; a wrong role's pick rate, the invalid rate and the extractor's figures low."""
    return metric == "accuracy"


def aggregate(items: Iterable[Mapping], names: Sequence[str]) -> dict[str, float]:
    """Several metrics of a record list at once (for notebooks and tests)."""
    items = list(items)
    return {name: AGGREGATIONS[name](items) for name in names}


# --------------------------------------------------------------------------- the names the YAMLs use
# (``!function utils.<name>``)
load_contextual = partial(load, "contextual")
load_cross_cultural = partial(load, "cross_cultural")
extract_filter = TASK.filter
process_results_contextual = TASK.process_results(METRIC_SETS["contextual"])
process_results_cross_cultural = TASK.process_results(METRIC_SETS["cross_cultural"])
accuracy = AGGREGATIONS["accuracy"]
literal_trap_rate = AGGREGATIONS["literal_trap_rate"]
plausible_wrong_rate = AGGREGATIONS["plausible_wrong_rate"]
irrelevant_rate = AGGREGATIONS["irrelevant_rate"]
invalid_rate = AGGREGATIONS["invalid_rate"]
llm_extracted_rate = AGGREGATIONS["llm_extracted_rate"]
llm_extractor_errors = AGGREGATIONS["llm_extractor_errors"]
