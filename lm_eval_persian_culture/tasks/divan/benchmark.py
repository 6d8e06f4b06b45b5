"""DivanBench's report entry: table metrics, charts and leaderboard columns."""

from lm_eval_persian_culture.tasks._benchmark import Benchmark, ModelsChart

_SPREAD_XLABEL = "accuracy (error bars: std over the five system prompts)"

BENCHMARK = Benchmark(
    name="divan",
    title="DivanBench",
    headline=(
        "accuracy",
        "factual_accuracy",
        "binary_accuracy",
        "scenario_accuracy",
        "accept_true",
        "reject_false",
        "acquiescence_bias",
        "factual_conceptual_gap",
        "invalid_rate",
    ),
    signed=frozenset({"acquiescence_bias", "factual_conceptual_gap"}),
    leaderboard=(
        ("DivanBench factual", "divan", "factual_accuracy"),
        ("DivanBench binary", "divan", "binary_accuracy"),
        ("DivanBench scenario", "divan", "scenario_accuracy"),
    ),
    charts=(
        ModelsChart(
            "DivanBench binary: accept true vs reject false",
            tasks=("divan_binary", "divan"),
            series=(("accept true", "accept_true"), ("reject false", "reject_false")),
            xlabel=_SPREAD_XLABEL,
            error_kind="spread",
        ),
        ModelsChart(
            "DivanBench acquiescence bias (accept true - reject false)",
            tasks=("divan_binary", "divan"),
            series=(("acquiescence_bias", "acquiescence_bias"),),
            xlabel="bias (95% bootstrap interval over pairs)",
            signed=True,
        ),
        ModelsChart(
            "DivanBench: factual vs scenario accuracy",
            tasks=("divan",),
            series=(("factual", "factual_accuracy"), ("scenario", "scenario_accuracy")),
            xlabel=_SPREAD_XLABEL,
            error_kind="spread",
        ),
    ),
)
