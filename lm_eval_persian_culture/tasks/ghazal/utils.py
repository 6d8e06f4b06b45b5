"""GhazalBench (Kalhor & Yaghoobzadeh, arXiv 2603.09979): the hooks its YAMLs name (``!function utils.<name>``).

Completion: the model is asked, with the authors' prompt, for the canonical second hemistich of a couplet
(Hafez, Saadi, or Shakespeare's sonnets as the English control) under one cue; its reply is scored exactly as
the authors' scripts score it (:mod:`.scoring`): Complete, Partial or Non-Retrieval, and the task reports the
rate of each (they sum to 1) and, beside them, the rate of replies that are not ``<answer>...</answer>`` (the
scripts count those as Non-Retrieval; ``format_error_rate`` says how many of the Non-Retrievals they are).

Recognition: the authors' multiple-choice prompt (three options, الف ب ج: the couplet's second hemistich, one
from the same ghazal and one from another ghazal of the same poet; or two, the second hemistich and its words
shuffled), read by the pack's shared option reading (:class:`tasks._option_task.OptionTask`: the answer grammar,
then the optional LLM extractor): accuracy, and how often the model picks each kind of distractor.

The docs come from :mod:`.source` (the release read at run time, never shipped). lm-eval executes this file
anew for every YAML, so it keeps no state: each loader is a plain function made by ``_completion_loader`` or
``_recognition_loader``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial
from typing import Any

from lm_eval_persian_culture.data.sources import to_dataset
from lm_eval_persian_culture.scoring.aggregations import rate
from lm_eval_persian_culture.tasks._option_task import OptionTask
from lm_eval_persian_culture.tasks.ghazal.scoring import COMPLETE, NON_RETRIEVAL, PARTIAL, score_reply
from lm_eval_persian_culture.tasks.ghazal.source import completion_docs, recognition_docs

COMPLETION_METRICS = ("complete_rate", "partial_rate", "non_retrieval_rate", "format_error_rate")


def _completion_loader(poet: str, cue: str) -> Callable[..., dict]:
    def load(**kwargs: Any) -> dict:
        return {"test": to_dataset(*completion_docs(poet, cue, kwargs))}

    load.__name__ = f"load_completion_{poet}_{cue}"
    return load


def doc_to_text(doc: Mapping) -> str:
    """The authors' whole prompt for the item (the user turn; no system prompt)."""
    return doc["prompt"]


def doc_to_target(doc: Mapping) -> str:
    return doc["gold"]


def process_results(doc: Mapping, results: list) -> dict:
    """Each label as a 0/1 per doc (their means are the rates), scored as the authors' scripts do."""
    label, format_error = score_reply(results[0], doc["gold"], "en" if doc["poet"] == "shakespeare" else "fa")
    return {
        "complete_rate": float(label == COMPLETE),
        "partial_rate": float(label == PARTIAL),
        "non_retrieval_rate": float(label == NON_RETRIEVAL),
        "format_error_rate": float(format_error),
    }


# --------------------------------------------------------------------------- recognition
PICKED = {"Same Poet": "picked_same_poet", "Same Ghazal": "picked_same_ghazal", "Shuffled": "picked_shuffled"}


def _picked(doc: Mapping, index: int | None) -> dict:
    """Which kind of option the model chose: 1 in the distractor's field (all 0 when right or unread)."""
    role = doc["roles"][index] if index is not None else None
    return {field: int(role == kind) for kind, field in PICKED.items()}


TASK = OptionTask(
    name="GhazalBench",
    switch="ghazal_llm_extractor",
    options=lambda doc: doc["option_texts"],
    labels="letters",  # الف ب ج, as the prompt labels them
    question=lambda doc: f"مصراع دوم این بیت کدام است؟ مصراع اول: {doc['first']}",
    gold=lambda doc: doc["letters"].index(doc["answer"]),
    fields=("cue",),
    next_item=("مصراع اول", "گزینه‌ها"),  # a base model that goes on into an invented next item
    more=_picked,
)
RECOGNITION_METRICS = {  # cue -> its metrics: accuracy, each distractor's pick rate, the reading's figures
    "three": ("accuracy", "picked_same_ghazal_rate", "picked_same_poet_rate", *OptionTask.EXTRACTION_METRICS),
    "shuffle": ("accuracy", "picked_shuffled_rate", *OptionTask.EXTRACTION_METRICS),
}


def _recognition_loader(poet: str, cue: str) -> Callable[..., dict]:
    def load(**kwargs: Any) -> dict:
        TASK.configure(kwargs)  # a bad extractor setting fails here, before any model time
        return {"test": to_dataset(*recognition_docs(poet, cue, kwargs))}

    load.__name__ = f"load_recognition_{poet}_{cue}"
    return load


extract_filter = TASK.filter
AGGREGATIONS = TASK.aggregations()
process_results_recognition = TASK.process_results(RECOGNITION_METRICS["three"])
process_results_recognition_shuffle = TASK.process_results(RECOGNITION_METRICS["shuffle"])
accuracy = AGGREGATIONS["accuracy"]
invalid_rate = AGGREGATIONS["invalid_rate"]
llm_extracted_rate = AGGREGATIONS["llm_extracted_rate"]
llm_extractor_errors = AGGREGATIONS["llm_extractor_errors"]
picked_same_poet_rate = partial(rate, field="picked_same_poet")
picked_same_ghazal_rate = partial(rate, field="picked_same_ghazal")
picked_shuffled_rate = partial(rate, field="picked_shuffled")

# Loaders named in the YAMLs (``custom_dataset: !function utils.<name>``), each by name (a test checks).
load_completion_hafez_name = _completion_loader("hafez", "name")
load_completion_hafez_prose = _completion_loader("hafez", "prose")
load_completion_hafez_para = _completion_loader("hafez", "para")
load_completion_hafez_salient = _completion_loader("hafez", "salient")
load_completion_hafez_shuffle = _completion_loader("hafez", "shuffle")
load_completion_saadi_name = _completion_loader("saadi", "name")
load_completion_saadi_prose = _completion_loader("saadi", "prose")
load_completion_saadi_para = _completion_loader("saadi", "para")
load_completion_saadi_shuffle = _completion_loader("saadi", "shuffle")
load_completion_shakespeare_name = _completion_loader("shakespeare", "name")
load_completion_shakespeare_salient = _completion_loader("shakespeare", "salient")
load_completion_shakespeare_shuffle = _completion_loader("shakespeare", "shuffle")
load_recognition_hafez_baseline = _recognition_loader("hafez", "baseline")
load_recognition_hafez_prose = _recognition_loader("hafez", "prose")
load_recognition_hafez_para = _recognition_loader("hafez", "para")
load_recognition_hafez_shuffle = _recognition_loader("hafez", "shuffle")
load_recognition_saadi_baseline = _recognition_loader("saadi", "baseline")
load_recognition_saadi_prose = _recognition_loader("saadi", "prose")
load_recognition_saadi_para = _recognition_loader("saadi", "para")
load_recognition_saadi_shuffle = _recognition_loader("saadi", "shuffle")
