"""PerCul's report entry: table metrics, intervals, per-category breakdown and leaderboard column."""

from lm_eval_persian_culture.tasks._benchmark import GATED, Benchmark, BreakdownCharts, Dataset, rows_summary


def _load_percul(settings: dict) -> str:
    from lm_eval_persian_culture.tasks.percul import source

    return rows_summary(
        [
            (source.source_file(split, settings).filename, len(source.load_items(split, settings)[0]))
            for split in source.SPLITS.values()
        ]
    )


BENCHMARK = Benchmark(
    name="percul",
    title="PerCul",
    headline=("macro_accuracy", "accuracy", "invalid_rate"),
    proportions=frozenset({"accuracy"}),
    signed=frozenset({"macro_accuracy_fa_minus_en", "accuracy_fa_minus_en"}),
    breakdowns=(("accuracy_", "category"),),
    conditions={
        "percul": "Persian",
        "percul_en": "English",
        "percul_mc": "Persian (loglikelihood)",
        "percul_en_mc": "English (loglikelihood)",
    },
    leaderboard=(("PerCul", "percul", "macro_accuracy"),),
    charts=(BreakdownCharts(),),
    fingerprint=(("extraction", ("percul_llm_extractor",)),),
    datasets=(
        Dataset(
            "PerCul",
            ("percul*",),  # TARAZ adds its PerCul-SAQ tasks (its benchmark.py, reads_datasets)
            GATED,
            "Hugging Face hub teias-ai/percul (gated), splits original_persian and gpt_english_translation",
            ("percul/original_persian.jsonl", "percul/gpt_english_translation.jsonl"),
            "the hub's columns ID, Category, Topic, Story, Choice 1-Choice 4, Correct Choice (1-4); .jsonl, .csv or "
            ".parquet",
            _load_percul,
            # the hub's access check: 200 with a token that may read the files, 403 when the terms are not accepted
            probe_url="https://huggingface.co/api/datasets/teias-ai/percul/auth-check",
            hub_repo="teias-ai/percul",
        ),
    ),
)
