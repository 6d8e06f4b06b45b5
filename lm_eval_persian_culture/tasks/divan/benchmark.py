"""DivanBench's report entry: table metrics, charts and leaderboard columns."""

from lm_eval_persian_culture.tasks._benchmark import PUBLIC, Benchmark, Dataset, ModelsChart, rows_summary


def _load_divan(settings: dict) -> str:
    from lm_eval_persian_culture.tasks.divan.utils import SOURCES, load_items

    kinds = ("factual", "binary", "scenario")
    return rows_summary([(SOURCES[k].filename, len(load_items(k, settings)[0])) for k in kinds])


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
    fingerprint=(("extraction", ("divan_instruction", "divan_llm_extractor", "divan_system_role")),),
    datasets=(
        Dataset(
            "DivanBench",
            ("divan*",),
            PUBLIC,
            "Hugging Face hub divanbench/divanbench (configs factual, binary, scenario; revision not pinned)",
            ("divan/factual.jsonl", "divan/binary.jsonl", "divan/scenario.jsonl"),
            "JSON lines; factual and scenario: id, question, option_a-option_d, answer (A-D); binary: id, pair_id, "
            "polarity (positive/negative), statement, answer (yes/no), one positive and one negative row per pair_id",
            _load_divan,
            probe_url="https://huggingface.co/api/datasets/divanbench/divanbench",
            hub_repo="divanbench/divanbench",
            note="the hub's layout was never verified from the pack's machines: if it does not fit, loading stops "
            "listing the columns found; a local copy in the layout above always works",
        ),
    ),
)
