"""TaarofBench's report entry: table metrics, intervals, breakdowns, charts and leaderboard column."""

from lm_eval_persian_culture.tasks._benchmark import (
    PUBLIC,
    Benchmark,
    BreakdownCharts,
    ConditionChart,
    Dataset,
    ModelsChart,
    Requirement,
    rows_summary,
)


def _judge_requirement(settings: dict) -> tuple[bool, str]:
    from lm_eval_persian_culture.judge.filter import judge_requirement

    return judge_requirement(settings)


def _load_taarof(settings: dict) -> str:
    from lm_eval_persian_culture.data.sources import load_rows
    from lm_eval_persian_culture.tasks.taarof.utils import SOURCES

    return rows_summary([(s.filename, len(load_rows(s, settings)[0])) for s in SOURCES.values()])


_PAIRS_XLABEL = "accuracy over intact pairs (95% bootstrap interval over pairs)"

BENCHMARK = Benchmark(
    name="taarof",
    title="TaarofBench",
    headline=("accuracy", "accuracy_paper", "judge_errors", "accuracy_female", "accuracy_male", "gender_gap"),
    proportions=frozenset({"accuracy", "accuracy_paper"}),
    over_all_items=frozenset({"accuracy_paper"}),  # judge_accuracy_paper: unjudged items count as 0
    signed=frozenset({"gender_gap"}),
    breakdowns=(("accuracy_topic_", "topic"),),
    conditions={
        "taarof": "standard",
        "taarof_expected": "standard",
        "taarof_non_taarof": "standard",
        "taarof_fa": "Persian",
        "taarof_expected_fa": "Persian",
        "taarof_non_taarof_fa": "Persian",
        "taarof_nocountry": "no-country",
        "taarof_expected_nocountry": "no-country",
        "taarof_non_taarof_nocountry": "no-country",
        "taarof_gender": "gender-flip",
    },
    leaderboard=(("TaarofBench", "taarof", "accuracy"),),
    fingerprint=(("prompt version", ("judge_reply_format",)),),  # the judge prompt's reply format
    charts=(
        ConditionChart(
            "TaarofBench: taarof-expected vs non-taarof by condition",
            metric="accuracy",
            families=(("taarof-expected", "taarof_expected"), ("non-taarof", "taarof_non_taarof")),
            conditions=(("standard", ""), ("Persian", "_fa"), ("no-country", "_nocountry")),
            xlabel="accuracy (95% Wilson interval)",
        ),
        ModelsChart(
            "TaarofBench gender-flip pairs: female vs male",
            tasks=("taarof_gender",),
            series=(("female", "accuracy_female"), ("male", "accuracy_male")),
            xlabel=_PAIRS_XLABEL,
        ),
        ModelsChart(
            "TaarofBench gender gap (female - male)",
            tasks=("taarof_gender",),
            series=(("gender_gap", "gender_gap"),),
            xlabel="female minus male accuracy (95% bootstrap interval over pairs)",
            signed=True,
        ),
        BreakdownCharts(),
    ),
    commands=(
        (
            "judge-check",
            "agreement of configured judges with human labels (the paper's judge check)",
            "lm_eval_persian_culture.tasks.taarof.judge_check_command:main",
        ),
    ),
    requirements=(Requirement("judge", ("taarof*",), _judge_requirement),),  # every task is judged
    datasets=(
        Dataset(
            "TaarofBench",
            ("taarof*",),
            PUBLIC,
            "GitHub niktaas/TAAROFBENCH at commit 6643f6c (CC0)",
            ("taarof/taarof-expected.jsonl", "taarof/non-taarof.jsonl"),
            "the release's JSON lines, fields Setting, Topic, Type, Environment, User Role, LLM Role, Context, "
            "Utterance, Annotations",
            _load_taarof,
            probe_url="https://raw.githubusercontent.com/niktaas/TAAROFBENCH/6643f6c993c7b28eb8c09dab824bdb9f49009978/"
            "data/taarof-expected.jsonl",
        ),
    ),
)
