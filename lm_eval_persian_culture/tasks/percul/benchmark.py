"""PerCul's report entry: table metrics, intervals, per-category breakdown and leaderboard column."""

from lm_eval_persian_culture.tasks._benchmark import Benchmark, BreakdownCharts

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
)
