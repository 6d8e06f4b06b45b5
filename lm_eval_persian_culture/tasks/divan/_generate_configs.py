"""Write DivanBench's per-task YAMLs from one table (cf. lm-eval tasks/mmlu).

Run from anywhere: ``python -m lm_eval_persian_culture.tasks.divan._generate_configs``.
A test checks the committed YAMLs equal what this script writes.
"""

from __future__ import annotations

from pathlib import Path

from lm_eval_persian_culture.tasks._taskgen import HEADER, generate, metadata_lines, metric_list

HERE = Path(__file__).resolve().parent
TYPES = ("factual", "binary", "scenario")
PROMPT_IDS = (1, 2, 3, 4, 5)


# Every task's metadata (lm-eval writes it into the results JSON); signed_metrics is added per task.
METADATA = {
    "version": 1.3,
    "paper": "Sakhaeirad, Ma'manpoosh, Hemmat. Unmasking the Factual-Conceptual Gap in Persian Language Models "
    "(DivanBench), SilkRoadNLP 2026, arXiv 2602.17623",
    "data": "hf:divanbench/divanbench@main (unpinned: layout unverified) "
    "or a local copy in the pack's schema (data_dir)",
    "deviations": "rule-based answer extraction by default (paper: GPT-4o-mini reads every reply; "
    "divan_pipeline=paper does that), optional LLM fallback; user-message instruction line written by the pack "
    "in the item's language (paper gives none; divan_instruction=none drops it); max_gen_toks 512 (paper: "
    "unstated); std across prompts is the population std (paper: unstated); see tasks/divan/README.md",
}


def _metric_kind(kind: str, single: bool) -> str:
    base = "BINARY" if kind == "binary" else "TYPE"
    return f"{base}_SINGLE_METRICS" if single else f"{base}_METRICS"


# task -> (loader, metric set, tags)
TASKS: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "divan": ("load_all", "ALL_METRICS", ()),
    **{f"divan_{t}": (f"load_{t}", _metric_kind(t, False), ("divan_per_type",)) for t in TYPES},
    **{
        f"divan_{t}_sp{k}": (f"load_{t}_sp{k}", _metric_kind(t, True), ("divan_single_prompt", f"divan_sp{k}"))
        for t in TYPES
        for k in PROMPT_IDS
    },
}


def _utils():
    import importlib

    return importlib.import_module("lm_eval_persian_culture.tasks.divan.utils")


def task_yaml(task: str) -> str:
    loader, kind, tags = TASKS[task]
    utils = _utils()
    process = f"process_results_{kind[: -len('_METRICS')].lower()}"
    assert all(callable(getattr(utils, name, None)) for name in (process, loader)), task
    lines = [HEADER, "include: _divan_template_yaml", f"task: {task}"]
    if tags:
        lines += ["tag:", *(f"  - {t}" for t in tags)]
    lines += [
        f"custom_dataset: !function utils.{loader}",
        f"process_results: !function utils.{process}",
    ]
    assert all(callable(getattr(utils, name, None)) for name in utils.METRIC_SETS[kind]), task
    lines += metric_list(utils.METRIC_SETS[kind], utils.metric_direction)
    lines += metadata_lines(METADATA, utils.METRIC_SETS[kind], utils.metric_direction)
    return "\n".join(lines) + "\n"


def expected_files() -> dict[Path, str]:
    return {HERE / f"{t}.yaml": task_yaml(t) for t in TASKS}


if __name__ == "__main__":
    generate(["divan"])
