"""Write GhazalBench's per-task and group YAMLs from one table (cf. lm-eval tasks/mmlu).

Run from anywhere: ``python -m lm_eval_persian_culture.tasks.ghazal._generate_configs``.
A test checks the committed YAMLs equal what this script writes.
"""

from __future__ import annotations

from pathlib import Path

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

# group -> (members, what it is)
GROUPS = {
    **{
        f"ghazal_completion_{poet}": (
            [f"ghazal_completion_{poet}_{cue}" for cue in cues],
            f"{poet.capitalize()} completion under each cue (the rates pooled over cues, weighted by size)",
        )
        for poet, cues in COMPLETION.items()
    },
    "ghazal_completion": (
        ["ghazal_completion_hafez", "ghazal_completion_saadi"],
        "Persian completion, both poets, every cue",
    ),
    # the suite's member: each poet's completion from the first hemistich and the poet's name alone
    "ghazal_core": (
        ["ghazal_completion_hafez_name", "ghazal_completion_saadi_name"],
        "the standard condition: completion from the first hemistich and the poet's name, Hafez and Saadi",
    ),
    "ghazal": (
        ["ghazal_completion_hafez", "ghazal_completion_saadi", "ghazal_completion_shakespeare"],
        "every GhazalBench task",
    ),
}


def task_yaml(task: str) -> str:
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


def group_yaml(group: str) -> str:
    members, about = GROUPS[group]
    tasks = "\n".join(f"  - {t}" for t in members)
    metrics = "".join(f"  - metric: {m}\n    aggregation: mean\n    weight_by_size: true\n" for m in RATES)
    return (
        f"{HEADER}\n# {about}\ngroup: {group}\ntask:\n{tasks}\n"
        f"aggregate_metric_list:\n{metrics}"
        "metadata:\n  version: 1.0\n"
    )


def expected_files() -> dict[Path, str]:
    files = {HERE / f"{t}.yaml": task_yaml(t) for t in COMPLETION_TASKS}
    files.update({HERE / f"{g}.yaml": group_yaml(g) for g in GROUPS})
    return files


if __name__ == "__main__":
    generate(["ghazal"])
