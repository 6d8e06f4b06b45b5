"""Write TaarofBench's per-task and group YAMLs from one table (cf. lm-eval tasks/mmlu).

Run from anywhere: ``python -m lm_eval_persian_culture.tasks.taarof._generate_configs``.
A test checks the committed YAMLs equal what this script writes.
"""

from __future__ import annotations

from pathlib import Path

from lm_eval_persian_culture.tasks._taskgen import HEADER, SIGNED, generate, metadata_lines, metric_list

HERE = Path(__file__).resolve().parent

# task -> (custom_dataset loader, doc_to_text, process_results, metric set, tag)
TASKS = {
    "taarof_expected": ("load_expected", "doc_to_text", "process_results", "METRICS"),
    "taarof_non_taarof": ("load_non_taarof", "doc_to_text", "process_results", "METRICS"),
    "taarof_expected_fa": ("load_expected_fa", "doc_to_text_fa", "process_results", "METRICS"),
    "taarof_non_taarof_fa": ("load_non_taarof_fa", "doc_to_text_fa", "process_results", "METRICS"),
    "taarof_expected_nocountry": ("load_expected_nocountry", "doc_to_text_nocountry", "process_results", "METRICS"),
    "taarof_non_taarof_nocountry": ("load_non_taarof_nocountry", "doc_to_text_nocountry", "process_results", "METRICS"),
    "taarof_gender": ("load_gender", "doc_to_text", "process_results_gender", "GENDER_METRICS"),
    # both types in one task, so per-topic accuracy can span all 450 scenarios (paper Fig. 4)
    "taarof_combined": ("load_combined", "doc_to_text", "process_results_combined", "COMBINED_METRICS"),
}
GROUPS = {
    "taarof": ["taarof_expected", "taarof_non_taarof"],
    "taarof_fa": ["taarof_expected_fa", "taarof_non_taarof_fa"],
    "taarof_nocountry": ["taarof_expected_nocountry", "taarof_non_taarof_nocountry"],
}
LOWER_IS_BETTER = {
    "judge_errors",
    "gender_gap_abs",
    "gender_discordant_female",
    "gender_discordant_male",
}  # zero is the goal
SIGNED_METRICS = {"gender_gap"}  # female minus male, as in the paper: the sign is the finding


def direction(name: str):
    if name in SIGNED_METRICS:
        return SIGNED
    return name not in LOWER_IS_BETTER


def template_metadata() -> dict:
    """The template's metadata, written out whole in a task YAML that adds keys to it (lm-eval
    merges an included file's keys shallowly, so a task's ``metadata:`` replaces the template's)."""
    import yaml

    class _Loader(yaml.SafeLoader):
        pass

    _Loader.add_constructor("!function", lambda loader, node: None)
    text = (HERE / "_taarof_template_yaml").read_text(encoding="utf-8")
    return yaml.load(text, Loader=_Loader)["metadata"]


def metric_names(kind: str) -> tuple[str, ...]:
    import importlib

    utils = importlib.import_module("lm_eval_persian_culture.tasks.taarof.utils")
    return getattr(utils, kind)


def task_yaml(task: str) -> str:
    loader, to_text, process, kind = TASKS[task]
    lines = [
        HEADER,
        "include: _taarof_template_yaml",
        f"task: {task}",
        "tag:",
        "  - taarof_all",
        f"custom_dataset: !function utils.{loader}",
        f"doc_to_text: !function utils.{to_text}",
        f"process_results: !function utils.{process}",
        *metric_list(metric_names(kind), direction),
    ]
    if any(direction(name) == SIGNED for name in metric_names(kind)):
        lines += metadata_lines(template_metadata(), metric_names(kind), direction)
    return "\n".join(lines) + "\n"


def group_yaml(group: str) -> str:
    tasks = "\n".join(f"  - {t}" for t in GROUPS[group])
    return (
        f"{HEADER}\ngroup: {group}\ntask:\n{tasks}\n"
        "aggregate_metric_list:\n"
        "  # overall accuracy of the paper = mean over all scenarios = size-weighted mean\n"
        "  - metric: accuracy\n    aggregation: mean\n    weight_by_size: true\n"
        "metadata:\n  version: 1.0\n"
    )


JUDGE_CHECK_DEVIATIONS = (
    "not the paper's 50 labels (never published): the pack's own labelled set (tasks/taarof/judge_check/, "
    "labels written by an AI assistant from each item's annotation, not by native speakers; see the README) "
    "or a team's own file (judge_check_file); the verdict is read from the start of the answer (Yes/No, also "
    "Persian), anything else counted in no_verdict and left out of agreement (agreement_strict counts it as a "
    "disagreement); Persian-condition items show the judge the pack's Persian rendering of the expectation"
)


def judge_check_yaml() -> str:
    """taarof_judge_check: the evaluated model is the candidate judge (the paper's judge check, sec. 3)."""
    from lm_eval_persian_culture.judge.settings import PAPER_SYSTEM_PROMPT, VERDICT_MAX_TOKENS
    from lm_eval_persian_culture.tasks.taarof.judge_check import TASK_AGGREGATIONS, TASK_LOWER_IS_BETTER

    lines = [
        HEADER,
        "# The paper's judge check (sec. 3 'Evaluation Protocol') with the evaluated model as the judge: the",
        "# prompt is the paper's judge prompt for a labelled reply, the answer is parsed as the verdict.",
        "task: taarof_judge_check",
        "tag:",
        "  - taarof_judge",
        "dataset_path: json  # unused: docs come from custom_dataset",
        "custom_dataset: !function utils.load_judge_check",
        "output_type: generate_until",
        "test_split: test",
        "doc_to_text: !function utils.doc_to_text_judge_check",
        "doc_to_target: !function utils.doc_to_target_judge_check",
        'target_delimiter: ""',
        "# The system prompt of the authors' judge call (evaluation.py), as the pack's judge sends it.",
        f'description: "{PAPER_SYSTEM_PROMPT}"',
        "# The paper's judge: temperature 0. A Yes/No verdict is read from the start of the answer.",
        "generation_kwargs:",
        "  until: []",
        "  do_sample: false",
        f"  max_gen_toks: {VERDICT_MAX_TOKENS}",
        "# Zero-shot: exemplars would be other labelled items with their labels.",
        "fewshot_config:",
        "  sampler: !function utils.ZeroShotOnly",
        "process_results: !function utils.process_results_judge_check",
        *metric_list(TASK_AGGREGATIONS, lambda name: name not in TASK_LOWER_IS_BETTER),
        "metadata:",
        "  version: 1.0",
        '  paper: "Gohari Sadr et al., We Politely Insist: Your LLM Must Learn the Persian Art of Taarof, EMNLP 2025"',
        "  judge_reply_format: paper",
        '  paper_reference: "GPT-4 (temperature 0) vs human labels: 94% agreement, n=50 (sec. 3)"',
        "  paper_reference_agreement: 0.94",
        "  paper_reference_n: 50",
        f'  deviations: "{JUDGE_CHECK_DEVIATIONS}"',
    ]
    return "\n".join(lines) + "\n"


def expected_files() -> dict[Path, str]:
    files = {HERE / f"{t}.yaml": task_yaml(t) for t in TASKS}
    files[HERE / "taarof_judge_check.yaml"] = judge_check_yaml()
    files.update({HERE / f"{g}.yaml": group_yaml(g) for g in GROUPS})
    return files


if __name__ == "__main__":
    generate(["taarof"])
