"""Write TARAZ's per-task and group YAMLs from one table (cf. lm-eval tasks/mmlu).

Run from anywhere: ``python -m lm_eval_persian_culture.tasks.taraz._generate_configs``.
A test checks the committed YAMLs equal what this script writes.
"""

from __future__ import annotations

import json
from pathlib import Path

from lm_eval_persian_culture.tasks._taskgen import HEADER, generate, metric_list

HERE = Path(__file__).resolve().parent

# task -> (custom_dataset loader, doc_to_text, doc_to_target column, metric set, extra metadata lines)
DATASETS = {
    "taraz_blend": ("load_blend", "doc_to_text_blend", "BLEND_METRICS", [
        "  dataset: \"BLEnD, Iran / Persian questions (nlee0212/BLEnD @ 24e7d732), BLEnD's exclusion rule applied\"",
    ]),
    "taraz_percul_saq": ("load_percul_saq", "doc_to_text_percul_saq", "METRICS", [
        "  dataset: \"PerCul stories with the category question of TARAZ Fig. 5; reference = the correct option\"",
    ]),
    "taraz_isn_saq": ("load_isn_saq", "doc_to_text_question", "METRICS", [
        "  dataset: \"TARAZ's ISN-SAQ file (535 items), "
        "from a local copy: ISN/isn_farsi_saq.csv under data_dir/taraz\"",
    ]),
    "taraz_isn_saq_derived": ("load_isn_derived", "doc_to_text_question", "METRICS", [
        "  dataset: \"PROJECT DERIVATION, not TARAZ's ISN-SAQ: one question per ISN environment, by the pack's "
        "template, over Iran-specific Expected/Normal norms (hamidds/PSND @ be9ae9b8)\"",
        "  derived_by_project: true",
    ]),
}  # fmt: skip
LOWER_IS_BETTER = {"judge_errors"}
# How the pack differs from the paper (the same list, explained, in README.md).
DEVIATIONS = [
    "TARAZ's prompts and code are unpublished: the generation prompt is BLEnD's Persian inst-4 (BLEnD) or the Fig. 5 "
    "question (PerCul-SAQ); the post-processing rules sec. 5.2 only names (substantial parts, which suffixes go, "
    "splitting) are the pack's reading",
    "greedy decoding (paper: T = 0.2 where applicable)",
    "post-processing is applied alike to the reply and to every reference (the paper post-processes the reply only), "
    "so a reference given verbatim or in a surface variant always matches itself",
    "hybrid_match (Maux+Post) is the max over the reply's sentences AND its post-processed items and answer, so it is "
    "never below embed_match; the paper's Maux+Post falls below Maux in three ISN-SAQ rows",
    "embed_match (Maux) compares the reply's sentences and the references after the same character normalisation "
    "(hazm normaliser, ي/ك, digits, half-space as space) on both sides; the paper does not say what Maux compares "
    "beyond 'outputs are normalized before scoring'",
    "in both embedding metrics a reply text and a reference that both hold numbers (digits, times, dates, ranges) "
    "match only if the reply holds every number of the reference, whatever the cosine",
    "numeric normalisation (sec. 5.1 item 5, 5.2) is the pack's own converter, applied alike to replies and "
    "references before every metric: Persian and English number words, ordinals (-م, -مین, -ام), halves (یک و نیم) "
    "to digits; 12-hour times with a day-part word or AM/PM to 24-hour H:MM; D + Persian month name [+ year] to "
    "[Y/]M/D; names holding number words (weekdays X شنبه, سیزده بدر, سی و سه پل, هفت سین, ...) and نه alone ('no') "
    "stay words; dates and times stay digit tokens rather than being written out in words as sec. 5.2's examples "
    "do; leading zeros and thousands separators dropped, 'N تا M' written N-M",
    "range rule (from BLEnD's substring test, which TARAZ's EM uses): a range in the reply matches a single "
    "reference equal to one of its ends ('8' is in '7 تا 8'), not one strictly inside it ('8' is not in '6 تا 9'); "
    "a single reply number does not match a reference range, the same range does; in exact_match and in the "
    "numbers rule alike",
    "suffix stripping and fixed expressions follow hazm's lexicon (words.dat): a lemma keeps its suffix-like ending, "
    "a suffix goes only down to a listed stem; conjunction pairs the lexicon does not know (دید و بازدید, تام و جری) "
    "are split, in the reference as in the reply",
    "exact_match is BLEnD's soft match, not the paper's 'exactly matches one of the ground-truth data': 1 when a "
    "normalised reference is a substring of the normalised reply, or every hazm lemma of the reference is among the "
    "reply's, or (a reference holding numbers) the reply holds each of its numbers read as numbers (range rule above) "
    "and each of its other words",
    "exact_match: a number in a reference must match a whole number of the reply (BLEnD's plain substring test lets "
    "'1' match '13'); no English-answer fallback (BLEnD's also tries the English answers)",
    "judge (_judged tasks): the reply is inserted as an escaped JSON string, the judge client adds the system prompt "
    "'You are a helpful assistant.' (the paper's prompt has none), the judge model is the user's choice (paper: "
    "GPT-5), and answers neither 1 nor 0 are left unscored (judge_errors) where the paper counts them 0",
    "the paper's Maux+Post cells are never multiples of 1/n and its Maux cells rarely (PerCul-SAQ GPT-5 Maux 79.493% "
    "of 592 = 470.6 questions), unlike its EM, ROUGE and judge cells; the pack's are",
    "the embedding model and every scoring setting are recorded in metadata.scoring; scores with any model other than "
    "xmanii/maux-gte-persian-v3 are not the paper's; under transformers 5 the paper's model runs on transformers' "
    "native GteModel (its config rewritten, NTK rope as the equivalent linear rope), not on its own remote code: "
    "equal on random weights, not checked on the real ones",
]
GROUPS = {
    "taraz": ["taraz_blend", "taraz_percul_saq", "taraz_isn_saq"],
}


def tasks() -> dict[str, tuple]:
    out = {}
    for name, (loader, to_text, kind, meta) in DATASETS.items():
        out[name] = (loader, to_text, kind, "score_filter", meta)
        judged_kind = "BLEND_JUDGED_METRICS" if kind == "BLEND_METRICS" else "JUDGED_METRICS"
        out[f"{name}_judged"] = (f"{loader}_judged", to_text, judged_kind, "score_filter_judged", meta)
    return out


def metric_names(kind: str) -> tuple[str, ...]:
    import importlib

    utils = importlib.import_module("lm_eval_persian_culture.tasks.taraz.utils")
    return getattr(utils, kind)


def task_yaml(task: str) -> str:
    loader, to_text, kind, filter_fn, meta = tasks()[task]
    lines = [
        HEADER,
        "include: _taraz_template_yaml",
        f"task: {task}",
        "tag:",
        "  - taraz_all",
        f"custom_dataset: !function utils.{loader}",
        f"doc_to_text: !function utils.{to_text}",
        "filter_list:",
        "  - name: score",
        "    filter:",
        "      - function: custom",
        f"        filter_fn: !function utils.{filter_fn}",
        *metric_list(metric_names(kind), lambda name: name not in LOWER_IS_BETTER),
        "metadata:",
        "  version: 1.0",
        *meta,
        "  paper: \"Iranmanesh et al., TARAZ: Persian Short-Answer Question Benchmark for Cultural Evaluation of "
        "Language Models, LREC 2026\"",
        "  deviations:",
        *(f"    - {json.dumps(d, ensure_ascii=False)}" for d in DEVIATIONS),
    ]  # fmt: skip
    return "\n".join(lines) + "\n"


def group_yaml(group: str, judged: bool) -> str:
    members = GROUPS[group]
    name = f"{group}_judged" if judged else group
    tasks_text = "\n".join(f"  - {t}_judged" if judged else f"  - {t}" for t in members)
    metrics = ["exact_match", "rouge1_match", "rouge2_match", "rougeL_match", "embed_match", "hybrid_match"]
    if judged:
        metrics.append("judge_match")
    agg = "".join(f"  - metric: {m}\n    aggregation: mean\n    weight_by_size: true\n" for m in metrics)
    return (
        f"{HEADER}\ngroup: {name}\ntask:\n{tasks_text}\n"
        "# Convenience only: the paper reports each dataset separately (Tables 2-4).\n"
        f"aggregate_metric_list:\n{agg}"
        "metadata:\n  version: 1.0\n"
    )


def expected_files() -> dict[Path, str]:
    files = {HERE / f"{t}.yaml": task_yaml(t) for t in tasks()}
    for group in GROUPS:
        files[HERE / f"{group}.yaml"] = group_yaml(group, judged=False)
        files[HERE / f"{group}_judged.yaml"] = group_yaml(group, judged=True)
    return files


if __name__ == "__main__":
    generate(["taraz"])
