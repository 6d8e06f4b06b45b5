"""Write PerCul's task YAMLs from one table (cf. lm-eval tasks/mmlu).

Run from anywhere: ``python -m lm_eval_persian_culture.tasks.percul._generate_configs``.
A test checks the committed YAMLs equal what this script writes.
"""

from __future__ import annotations

from pathlib import Path

from lm_eval_persian_culture.tasks._taskgen import HEADER, generate, metric_list

HERE = Path(__file__).resolve().parent

# task -> (loader, output type, metric set, process_results)
TASKS: dict[str, tuple[str, str, str, str]] = {
    "percul": ("load_fa", "generate_until", "GENERATE", "process_results"),
    "percul_en": ("load_en", "generate_until", "GENERATE", "process_results"),
    "percul_fa_en": ("load_fa_en", "generate_until", "FA_EN_GENERATE", "process_results_fa_en"),
    "percul_mc": ("load_fa", "multiple_choice", "MC", "process_results_mc"),
    "percul_en_mc": ("load_en", "multiple_choice", "MC", "process_results_mc"),
    "percul_fa_en_mc": ("load_fa_en", "multiple_choice", "FA_EN_MC", "process_results_fa_en_mc"),
}

# The paper's decoding: temperature 0, "allowed to generate up to their maximum generation
# length"; 1024 new tokens is the pack's cap (override with --gen_kwargs max_gen_toks=...).
GENERATE_LINES = [
    "output_type: generate_until",
    "doc_to_text: !function utils.doc_to_text",
    "doc_to_target: answer",
    "generation_kwargs:",
    "  until: []",
    "  do_sample: false",
    "  temperature: 0.0",
    "  max_gen_toks: 1024",
    "filter_list:",
    "  - name: extract",
    "    filter:",
    "      - function: custom",
    "        filter_fn: !function utils.extract_filter",
]
MC_LINES = [
    "output_type: multiple_choice",
    "doc_to_text: !function utils.doc_to_text_mc",
    "doc_to_choice: options",
    "doc_to_target: answer_index",
]


def _utils():
    import importlib

    return importlib.import_module("lm_eval_persian_culture.tasks.percul.utils")


def task_yaml(task: str) -> str:
    loader, output_type, metrics, process = TASKS[task]
    utils = _utils()
    assert all(callable(getattr(utils, name, None)) for name in (loader, process, *utils.METRIC_SETS[metrics])), task
    lines = [HEADER, "include: _percul_template_yaml", f"task: {task}", f"custom_dataset: !function utils.{loader}"]
    lines += GENERATE_LINES if output_type == "generate_until" else MC_LINES
    lines.append(f"process_results: !function utils.{process}")
    lines += metric_list(utils.METRIC_SETS[metrics], utils.higher_is_better)
    return "\n".join(lines) + "\n"


def expected_files() -> dict[Path, str]:
    return {HERE / f"{t}.yaml": task_yaml(t) for t in TASKS}


if __name__ == "__main__":
    generate(["percul"])
