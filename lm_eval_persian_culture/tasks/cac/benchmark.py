"""CAC's report entry: table metrics, intervals, breakdowns (axis, relationship, country), charts, leaderboard."""

from lm_eval_persian_culture.tasks._benchmark import Benchmark, BreakdownCharts, TasksChart

BENCHMARK = Benchmark(
    name="cac",
    title="CAC",
    headline=("range_accuracy", "adaptation", "chance_range_accuracy", "invalid_rate"),
    proportions=frozenset({"range_accuracy"}),
    breakdowns=(
        ("range_accuracy_axis_", "stylistic axis"),
        ("range_accuracy_relationship_", "relationship"),
        ("range_accuracy_", "country"),
    ),
    leaderboard=(("CAC", "cac", "range_accuracy"),),
    charts=(
        TasksChart(
            "CAC: range accuracy per country",  # one task per country, as the paper's Table 2
            metric="range_accuracy",
            xlabel="range accuracy (95% Wilson interval)",
            exclude=("cac", "cac_cross_country"),
            strip="cac_",
        ),
        BreakdownCharts(),
    ),
)
