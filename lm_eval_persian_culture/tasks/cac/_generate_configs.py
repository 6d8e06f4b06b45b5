"""Write CAC's per-task and group YAMLs from one table (cf. lm-eval tasks/mmlu).

Run from anywhere: ``python -m lm_eval_persian_culture.tasks.cac._generate_configs``.
A test checks the committed YAMLs equal what this script writes.
"""

from __future__ import annotations

from pathlib import Path

from lm_eval_persian_culture.tasks._taskgen import HEADER, generate

HERE = Path(__file__).resolve().parent


def _utils():
    import importlib

    return importlib.import_module("lm_eval_persian_culture.tasks.cac.utils")


def _metric_list(names, prefix: str = "") -> list[str]:
    lower = _utils().LOWER_IS_BETTER
    lines = ["metric_list:"]
    for name in names:
        lines += [
            f"  - metric: {name}",
            f"    aggregation: !function utils.{prefix}{name}",
            f"    higher_is_better: {'false' if name in lower else 'true'}",
        ]
    return lines


def tasks() -> dict[str, tuple[str, str, tuple[str, ...], str]]:
    """task -> (loader, process_results, metric names, aggregation prefix)."""
    utils = _utils()
    table = {f"cac_{c}": (f"load_{c}", "process_results", utils.COUNTRY_TASK_METRICS, "") for c in utils.COUNTRIES}
    table["cac_iran"] = ("load_iran", "process_results", utils.COUNTRY_TASK_METRICS, "")
    table["cac_cross_country"] = ("load_cross_country", "process_results_cross", utils.CROSS_TASK_METRICS, "cross_")
    return table


def task_yaml(task: str) -> str:
    loader, process, metrics, prefix = tasks()[task]
    utils = _utils()
    assert all(callable(getattr(utils, name, None)) for name in (loader, process, *(prefix + m for m in metrics))), task
    lines = [
        HEADER,
        "include: _cac_template_yaml",
        f"task: {task}",
        f"custom_dataset: !function utils.{loader}",
        f"process_results: !function utils.{process}",
        *_metric_list(metrics, prefix),
    ]
    return "\n".join(lines) + "\n"


def group_yaml() -> str:
    members = "\n".join(f"  - cac_{c}" for c in _utils().COUNTRIES)
    return (
        f"{HEADER}\ngroup: cac\ntask:\n{members}\n"
        "aggregate_metric_list:\n"
        "  # the mean over the eight countries (each country weighs the same, as Table 2's columns)\n"
        "  - metric: range_accuracy\n    aggregation: mean\n    weight_by_size: false\n"
        "  - metric: invalid_rate\n    aggregation: mean\n    weight_by_size: false\n"
        "  - metric: llm_extracted_rate\n    aggregation: mean\n    weight_by_size: false\n"
        "  - metric: chance_range_accuracy\n    aggregation: mean\n    weight_by_size: false\n"
        "metadata:\n  version: 1.1\n"
    )


def expected_files() -> dict[Path, str]:
    files = {HERE / f"{t}.yaml": task_yaml(t) for t in tasks()}
    files[HERE / "cac.yaml"] = group_yaml()
    return files


if __name__ == "__main__":
    generate(["cac"])
