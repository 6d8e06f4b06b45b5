"""What the report knows about each benchmark: its headline metrics, how its tasks map to conditions,
and which metrics are plain proportions (Wilson interval) rather than derived figures (bootstrap).

Adding a benchmark means adding one entry to ``BENCHMARKS``; tasks the table does not know still get
their metrics reported (every numeric metric that is not a breakdown or a spread).
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Benchmark:
    name: str  # task prefix, also the references/<name>.json stem
    title: str
    headline: tuple[str, ...]  # metrics shown in tables, in order
    proportions: frozenset[str] = frozenset()  # k/n metrics: Wilson interval
    # proportions whose n is every item, unjudged ones included (a paper script's rule), not the judged ones
    over_all_items: frozenset[str] = frozenset()
    # (metric-name prefix, what it breaks down by), drawn as per-category charts; first match wins
    breakdowns: tuple[tuple[str, str], ...] = ()
    # task -> (condition label) for tasks that are one condition of the benchmark
    conditions: dict[str, str] = field(default_factory=dict)
    leaderboard: tuple[tuple[str, str, str], ...] = ()  # (column, task, metric) for export


BENCHMARKS: dict[str, Benchmark] = {
    b.name: b
    for b in (
        Benchmark(
            "taarof", "TaarofBench",
            headline=("accuracy", "accuracy_paper", "judge_errors", "accuracy_female", "accuracy_male", "gender_gap"),
            proportions=frozenset({"accuracy", "accuracy_paper"}),
            over_all_items=frozenset({"accuracy_paper"}),  # judge_accuracy_paper: unjudged items count as 0
            breakdowns=(("accuracy_topic_", "topic"),),
            conditions={
                "taarof": "standard", "taarof_expected": "standard", "taarof_non_taarof": "standard",
                "taarof_fa": "Persian", "taarof_expected_fa": "Persian", "taarof_non_taarof_fa": "Persian",
                "taarof_nocountry": "no-country", "taarof_expected_nocountry": "no-country",
                "taarof_non_taarof_nocountry": "no-country", "taarof_gender": "gender-flip",
            },
            leaderboard=(("TaarofBench", "taarof", "accuracy"),),
        ),
        Benchmark(
            "divan", "DivanBench",
            headline=("accuracy", "factual_accuracy", "binary_accuracy", "scenario_accuracy", "accept_true", "reject_false",
                      "acquiescence_bias", "factual_conceptual_gap", "invalid_rate"),
            leaderboard=(("DivanBench factual", "divan", "factual_accuracy"),
                         ("DivanBench binary", "divan", "binary_accuracy"),
                         ("DivanBench scenario", "divan", "scenario_accuracy")),
        ),
        Benchmark(
            "percul", "PerCul",
            headline=("macro_accuracy", "accuracy", "invalid_rate"),
            proportions=frozenset({"accuracy"}),
            breakdowns=(("accuracy_", "category"),),
            conditions={"percul": "Persian", "percul_en": "English", "percul_mc": "Persian (loglikelihood)",
                        "percul_en_mc": "English (loglikelihood)"},
            leaderboard=(("PerCul", "percul", "macro_accuracy"),),
        ),
        Benchmark(
            "taraz", "TARAZ",
            headline=("hybrid_match", "exact_match", "rouge1_match", "rouge2_match", "rougeL_match", "embed_match",
                      "judge_match"),
            proportions=frozenset({"hybrid_match", "exact_match", "rouge1_match", "rouge2_match", "rougeL_match",
                                   "embed_match", "judge_match"}),
            leaderboard=(("TARAZ BLEnD-fa", "taraz_blend", "hybrid_match"),
                         ("TARAZ PerCul-SAQ", "taraz_percul_saq", "hybrid_match")),
        ),
        Benchmark(
            "cac", "CAC",
            headline=("range_accuracy", "adaptation", "chance_range_accuracy", "invalid_rate"),
            proportions=frozenset({"range_accuracy"}),
            breakdowns=(("range_accuracy_axis_", "stylistic axis"), ("range_accuracy_relationship_", "relationship"),
                        ("range_accuracy_", "country")),
            leaderboard=(("CAC", "cac", "range_accuracy"),),
        ),
    )
}

SPREAD_SUFFIXES = ("_std", "_stderr")
# Differences that may be negative (also read from a task's metadata.signed_metrics, for runs that record it).
SIGNED_METRICS = frozenset({"acquiescence_bias", "factual_conceptual_gap", "gender_gap", "persian_minus_english"})


def benchmark_of(task: str) -> Benchmark | None:
    for name, bench in BENCHMARKS.items():
        if task == name or task.startswith(name + "_"):
            return bench
    return None


def headline_metrics(task: str, available: list[str]) -> list[str]:
    """The metrics a table shows for this task, in the benchmark's order; others after, breakdowns never."""
    bench = benchmark_of(task)
    if bench is None:
        return [m for m in available if not m.endswith(SPREAD_SUFFIXES)][:3]
    first = [m for m in bench.headline if m in available]
    return first


def breakdown_of(task: str, metric: str) -> tuple[str, str] | None:
    """(prefix, label) when the metric breaks the task down by topic, category, country, ..."""
    bench = benchmark_of(task)
    if bench is None or metric in bench.headline:
        return None
    return next(((p, label) for p, label in bench.breakdowns if metric.startswith(p)), None)


def is_breakdown(task: str, metric: str) -> bool:
    return breakdown_of(task, metric) is not None
