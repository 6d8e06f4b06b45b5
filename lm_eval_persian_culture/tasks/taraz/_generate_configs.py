"""Write TARAZ's per-task and group YAMLs from one table (cf. lm-eval tasks/mmlu).

Run from anywhere: ``python -m lm_eval_persian_culture.tasks.taraz._generate_configs``.
A test checks the committed YAMLs equal what this script writes.
"""

from __future__ import annotations

from pathlib import Path

from lm_eval_persian_culture.tasks._taskgen import HEADER, metric_list, write_files

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
        "  dataset: \"TARAZ's ISN-SAQ file (535 items), from a local copy: ISN/isn_farsi_saq.csv under data_dir/taraz\"",
    ]),
    "taraz_isn_saq_derived": ("load_isn_derived", "doc_to_text_question", "METRICS", [
        "  dataset: \"PROJECT DERIVATION, not TARAZ's ISN-SAQ: one question per ISN environment, by the pack's template, over Iran-specific Expected/Normal norms (hamidds/PSND @ be9ae9b8)\"",
        "  derived_by_project: true",
    ]),
}  # fmt: skip
LOWER_IS_BETTER = {"judge_errors"}
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
        "  paper: \"Iranmanesh et al., TARAZ: Persian Short-Answer Question Benchmark for Cultural Evaluation of Language Models, LREC 2026\"",
        "  deviations: >-",
        "    TARAZ's prompts and code are unpublished: generation prompt is BLEnD's Persian inst-4 (BLEnD) or the",
        "    Fig. 5 pattern (PerCul-SAQ); post-processing rules (substantial parts, guarded suffix stripping, sentence",
        "    and line splitting) are the project's reading of sec. 5.2; greedy decoding (paper: T = 0.2); judge reply",
        "    inserted as an escaped JSON string; see tasks/taraz/README.md",
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


def main() -> None:
    write_files(expected_files())


if __name__ == "__main__":
    main()
