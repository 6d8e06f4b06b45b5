"""CAC's report entry: table metrics, intervals, breakdowns (axis, relationship, country), charts, leaderboard."""

from lm_eval_persian_culture.tasks._benchmark import UNPUBLISHED, Benchmark, BreakdownCharts, Dataset, TasksChart


def _load_cac(settings: dict) -> str:
    from lm_eval_persian_culture.tasks.cac.utils import ANNOTATIONS, CONVERSATIONS, COUNTRIES, build_docs

    docs = build_docs(COUNTRIES, ANNOTATIONS, settings)  # both files and the checks across them
    return f"{CONVERSATIONS.filename} + {ANNOTATIONS.filename}: {len(docs)} docs ({len(COUNTRIES)} countries)"


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
    fingerprint=(("extraction", ("cac_llm_extractor",)),),
    datasets=(
        Dataset(
            "CAC",
            ("cac*",),
            UNPUBLISHED,
            "",
            ("cac/conversations.jsonl", "cac/annotations.jsonl"),
            "JSON lines; conversations: id, situation, relationship, stylistic_axis, characters, first_turn, "
            "response_1-response_5; annotations: conversation_id, country, annotator, pick (1-5), every conversation "
            "picked by every country (cac_iran also needs cac/annotations_iran.jsonl)",
            _load_cac,
            note="the authors' repository (github.com/shreyahavaldar/culturally_aware_conversations) could not be read "
            "when the pack was written, so the pack has no downloader; convert its data into this layout "
            "(tasks/cac/README.md)",
        ),
    ),
)
