"""TARAZ's report entry: table metrics (all proportions), charts and leaderboard columns."""

from lm_eval_persian_culture.tasks._benchmark import Benchmark, MetricsChart

_METRICS = ("hybrid_match", "exact_match", "rouge1_match", "rouge2_match", "rougeL_match", "embed_match", "judge_match")

BENCHMARK = Benchmark(
    name="taraz",
    title="TARAZ",
    headline=_METRICS,
    proportions=frozenset(_METRICS),
    leaderboard=(
        ("TARAZ BLEnD-fa", "taraz_blend", "hybrid_match"),
        ("TARAZ PerCul-SAQ", "taraz_percul_saq", "hybrid_match"),
    ),
    charts=(
        MetricsChart(
            "TARAZ {task}: metrics side by side",
            xlabel="share of answers scored correct (95% Wilson interval)",
        ),
    ),
)
