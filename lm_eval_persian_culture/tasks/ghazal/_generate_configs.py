"""Write GhazalBench's per-task and group YAMLs from one table (cf. lm-eval tasks/mmlu).

Run from anywhere: ``python -m lm_eval_persian_culture.tasks.ghazal._generate_configs``.
A test checks the committed YAMLs equal what this script writes.
"""

from __future__ import annotations

from pathlib import Path

from lm_eval_persian_culture.tasks._option_task import higher_is_better
from lm_eval_persian_culture.tasks._taskgen import HEADER, generate

HERE = Path(__file__).resolve().parent

# (poet, cues) of the completion tasks: ghazal_completion_<poet>_<cue>
COMPLETION = {
    "hafez": ("name", "prose", "para", "salient", "shuffle"),
    "saadi": ("name", "prose", "para", "shuffle"),  # no Saadi salient words were released
    "shakespeare": ("name", "salient", "shuffle"),  # the English control: the sonnet file's three cues
}
COMPLETION_TASKS = [f"ghazal_completion_{poet}_{cue}" for poet, cues in COMPLETION.items() for cue in cues]
RATES = ("complete_rate", "partial_rate", "non_retrieval_rate", "format_error_rate")
# (poet, cues) of the recognition tasks: ghazal_recognition_<poet>_<cue>
RECOGNITION = {poet: ("baseline", "prose", "para", "shuffle") for poet in ("hafez", "saadi")}
RECOGNITION_TASKS = [f"ghazal_recognition_{poet}_{cue}" for poet, cues in RECOGNITION.items() for cue in cues]


def recognition_metrics(cue: str) -> tuple[str, ...]:
    import importlib

    utils = importlib.import_module("lm_eval_persian_culture.tasks.ghazal.utils")
    return utils.RECOGNITION_METRICS["shuffle" if cue == "shuffle" else "three"]


# group -> (members, what it is)
GROUPS = {
    **{
        f"ghazal_completion_{poet}": (
            [f"ghazal_completion_{poet}_{cue}" for cue in cues],
            f"{poet.capitalize()} completion under each cue (the rates pooled over cues, weighted by size)",
        )
        for poet, cues in COMPLETION.items()
    },
    **{
        f"ghazal_recognition_{poet}": (
            [f"ghazal_recognition_{poet}_{cue}" for cue in cues],
            f"{poet.capitalize()} recognition under each cue (accuracy pooled over cues, weighted by size)",
        )
        for poet, cues in RECOGNITION.items()
    },
    "ghazal_recognition": (
        ["ghazal_recognition_hafez", "ghazal_recognition_saadi"],
        "recognition (multiple choice), both poets, every cue",
    ),
    "ghazal_completion": (
        ["ghazal_completion_hafez", "ghazal_completion_saadi"],
        "Persian completion, both poets, every cue",
    ),
    # the suite's standard conditions: completion from the first hemistich and the poet's name, and recognition
    # among three options, for both poets (two groups: a group's rates are over its own items only)
    "ghazal_core_completion": (
        ["ghazal_completion_hafez_name", "ghazal_completion_saadi_name"],
        "the standard completion condition: from the first hemistich and the poet's name, Hafez and Saadi",
    ),
    "ghazal_core_recognition": (
        ["ghazal_recognition_hafez_baseline", "ghazal_recognition_saadi_baseline"],
        "the standard recognition condition: three options, Hafez and Saadi",
    ),
    "ghazal_core": (
        ["ghazal_core_completion", "ghazal_core_recognition"],
        "the suite's member: the standard completion and recognition conditions (figures in its two groups)",
    ),
    "ghazal": (
        [
            "ghazal_completion_hafez",
            "ghazal_completion_saadi",
            "ghazal_completion_shakespeare",
            "ghazal_recognition_hafez",
            "ghazal_recognition_saadi",
        ],
        "every GhazalBench task",
    ),
}


def recognition_yaml(task: str) -> str:
    _, _, poet, cue = task.split("_")
    metrics = recognition_metrics(cue)
    lines = [
        HEADER,
        "include: _ghazal_recognition_template_yaml",
        f"task: {task}",
        "tag:",
        "  - ghazal_all",
        f"custom_dataset: !function utils.load_recognition_{poet}_{cue}",
        "process_results: !function utils.process_results_recognition" + ("_shuffle" if cue == "shuffle" else ""),
        "metric_list:",
    ]
    for name in metrics:
        lines += [
            f"  - metric: {name}",
            f"    aggregation: !function utils.{name}",
            f"    higher_is_better: {'true' if higher_is_better(name) and not name.startswith('picked') else 'false'}",
        ]
    return "\n".join(lines) + "\n"


def task_yaml(task: str) -> str:
    if task.startswith("ghazal_recognition_"):
        return recognition_yaml(task)
    _, _, poet, cue = task.split("_")
    return (
        "\n".join(
            [
                HEADER,
                "include: _ghazal_template_yaml",
                f"task: {task}",
                "tag:",
                "  - ghazal_all",
                f"custom_dataset: !function utils.load_completion_{poet}_{cue}",
            ]
        )
        + "\n"
    )


MIXED = ("ghazal", "ghazal_core")  # completion and recognition together: no pooled figure (each is in a member)


def group_yaml(group: str) -> str:
    members, about = GROUPS[group]
    tasks = "\n".join(f"  - {t}" for t in members)
    names = ["accuracy"] if "recognition" in group else list(RATES)
    metrics = "".join(f"  - metric: {m}\n    aggregation: mean\n    weight_by_size: true\n" for m in names)
    aggregate = "" if group in MIXED else f"aggregate_metric_list:\n{metrics}"
    return f"{HEADER}\n# {about}\ngroup: {group}\ntask:\n{tasks}\n{aggregate}metadata:\n  version: 1.0\n"


def expected_files() -> dict[Path, str]:
    files = {HERE / f"{t}.yaml": task_yaml(t) for t in (*COMPLETION_TASKS, *RECOGNITION_TASKS)}
    files.update({HERE / f"{g}.yaml": group_yaml(g) for g in GROUPS})
    return files


if __name__ == "__main__":
    generate(["ghazal"])
