"""Write MasalBench's task and group YAMLs from one table (cf. lm-eval tasks/mmlu).

Run from anywhere: ``python -m lm_eval_persian_culture.tasks.masal._generate_configs``.
A test checks the committed YAMLs equal what this script writes.
"""

from __future__ import annotations

from pathlib import Path

from lm_eval_persian_culture.tasks._taskgen import HEADER, generate, metric_list

HERE = Path(__file__).resolve().parent

# task -> (loader, process_results, metric set)
TASKS: dict[str, tuple[str, str, str]] = {
    "masal_contextual": ("load_contextual", "process_results_contextual", "contextual"),
    "masal_cross_cultural": ("load_cross_cultural", "process_results_cross_cultural", "cross_cultural"),
}


def _utils():
    import importlib

    return importlib.import_module("lm_eval_persian_culture.tasks.masal.utils")


def task_yaml(task: str) -> str:
    loader, process, metrics = TASKS[task]
    utils = _utils()
    names = utils.METRIC_SETS[metrics]
    assert all(callable(getattr(utils, name, None)) for name in (loader, process, *names)), task
    lines = [
        HEADER,
        "include: _masal_template_yaml",
        f"task: {task}",
        f"custom_dataset: !function utils.{loader}",
        f"process_results: !function utils.{process}",
        *metric_list(names, utils.higher_is_better),
    ]
    return "\n".join(lines) + "\n"


def group_yaml() -> str:
    members = "\n".join(f"  - {t}" for t in TASKS)
    return (
        f"{HEADER}\ngroup: masal\ntask:\n{members}\n"
        "# no aggregate: the paper reports the two tasks apart (contextual above 0.90, cross-cultural at most 0.79),\n"
        "# and a mean of the two would be a figure it never gives\n"
        "metadata:\n  version: 1.0\n"
    )


def expected_files() -> dict[Path, str]:
    files = {HERE / f"{t}.yaml": task_yaml(t) for t in TASKS}
    files[HERE / "masal.yaml"] = group_yaml()
    return files


if __name__ == "__main__":
    generate(["masal"])
