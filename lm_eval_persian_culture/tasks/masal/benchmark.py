"""MasalBench's report entry: table metrics (accuracy beside the pick rate of each distractor role), intervals,
charts, leaderboard columns and the dataset."""

from lm_eval_persian_culture.tasks._benchmark import PUBLIC, Benchmark, Dataset, MetricsChart, rows_summary


def _load_masal(settings: dict) -> str:
    from lm_eval_persian_culture.tasks.masal import source

    return rows_summary([(part.filename, len(source.load_items(part, settings)[0])) for part in source.PARTS.values()])


_ROLE_RATES = ("literal_trap_rate", "plausible_wrong_rate", "irrelevant_rate")

BENCHMARK = Benchmark(
    name="masal",
    title="MasalBench",
    headline=("accuracy", *_ROLE_RATES, "invalid_rate"),
    proportions=frozenset({"accuracy", *_ROLE_RATES, "invalid_rate"}),
    conditions={"masal_contextual": "contextual", "masal_cross_cultural": "cross-cultural"},
    leaderboard=(
        ("MasalBench contextual", "masal_contextual", "accuracy"),
        ("MasalBench cross-cultural", "masal_cross_cultural", "accuracy"),
    ),
    charts=(  # drawn after the report's own accuracy-per-task chart
        MetricsChart(
            "MasalBench {task}: accuracy and the pick rate of each distractor role",
            xlabel="share of items (95% Wilson interval)",
        ),
    ),
    fingerprint=(("extraction", ("masal_llm_extractor",)),),
    datasets=(
        Dataset(
            "MasalBench",
            ("masal*",),
            PUBLIC,
            "GitHub kalhorghazal/MasalBench at commit 493841a (no license stated: read at run time, never shipped)",
            ("masal/contextualQuestions.csv", "masal/crossCulturalQuestions.csv"),
            "the authors' CSV files as published, columns Question (the whole Persian prompt, options الف-د) and "
            "Answer Key (a dict literal: each option's role)",
            _load_masal,
            probe_url="https://raw.githubusercontent.com/kalhorghazal/MasalBench/"
            "493841a6eaf16e899278cd470c0bcce52d1ebe6b/contextualQuestions.csv",
        ),
    ),
)
