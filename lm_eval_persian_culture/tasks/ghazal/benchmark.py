"""GhazalBench's report entry: table metrics, intervals, conditions, charts, leaderboard columns and data."""

from lm_eval_persian_culture.tasks._benchmark import PUBLIC, Benchmark, ConditionChart, Dataset, rows_summary

_CUE_LABELS = {
    "name": "name only",
    "prose": "+ prose meaning",
    "para": "+ paraphrase",
    "salient": "+ salient words",
    "shuffle": "+ shuffled words",
    "baseline": "baseline",
}
_COMPLETION = {"hafez": ("name", "prose", "para", "salient", "shuffle"), "saadi": ("name", "prose", "para", "shuffle"),
               "shakespeare": ("name", "salient", "shuffle")}  # fmt: skip
_RECOGNITION = {poet: ("baseline", "prose", "para", "shuffle") for poet in ("hafez", "saadi")}


def _load_ghazal(settings: dict) -> str:
    from lm_eval_persian_culture.data.sources import load_rows
    from lm_eval_persian_culture.tasks.ghazal.source import SOURCES

    return rows_summary([(s.filename, len(load_rows(s, settings)[0])) for s in SOURCES.values()])


BENCHMARK = Benchmark(
    name="ghazal",
    title="GhazalBench",
    headline=(
        "complete_rate",
        "partial_rate",
        "non_retrieval_rate",
        "format_error_rate",
        "accuracy",
        "picked_same_ghazal_rate",
        "picked_same_poet_rate",
        "picked_shuffled_rate",
        "invalid_rate",
    ),
    proportions=frozenset(
        {
            "complete_rate",
            "partial_rate",
            "non_retrieval_rate",
            "format_error_rate",
            "accuracy",
            "picked_same_ghazal_rate",
            "picked_same_poet_rate",
            "picked_shuffled_rate",
            "invalid_rate",
        }
    ),
    conditions={
        **{f"ghazal_completion_{p}_{c}": _CUE_LABELS[c] for p, cues in _COMPLETION.items() for c in cues},
        **{f"ghazal_recognition_{p}_{c}": _CUE_LABELS[c] for p, cues in _RECOGNITION.items() for c in cues},
    },
    leaderboard=(
        ("GhazalBench completion", "ghazal_core_completion", "complete_rate"),
        ("GhazalBench recognition", "ghazal_core_recognition", "accuracy"),
    ),
    fingerprint=(("extraction", ("ghazal_llm_extractor",)),),
    charts=(
        ConditionChart(
            "GhazalBench completion: Complete rate by cue",
            metric="complete_rate",
            families=(
                ("Hafez", "ghazal_completion_hafez"),
                ("Saadi", "ghazal_completion_saadi"),
                ("Shakespeare", "ghazal_completion_shakespeare"),
            ),
            conditions=tuple((_CUE_LABELS[c], f"_{c}") for c in _COMPLETION["hafez"]),
            xlabel="Complete rate (95% Wilson interval)",
        ),
        ConditionChart(
            "GhazalBench recognition: accuracy by cue",
            metric="accuracy",
            families=(("Hafez", "ghazal_recognition_hafez"), ("Saadi", "ghazal_recognition_saadi")),
            conditions=tuple((_CUE_LABELS[c], f"_{c}") for c in _RECOGNITION["hafez"]),
            xlabel="accuracy (95% Wilson interval)",
        ),
    ),
    datasets=(
        Dataset(
            "GhazalBench",
            ("ghazal*",),
            PUBLIC,
            "GitHub kalhorghazal/GhazalBench at commit c8a5057 (no license stated: read at run time, never shipped)",
            tuple(
                f"ghazal/{name}"
                for name in (
                    "completionQsHafez.xlsx",
                    "completionQsSaadi.xlsx",
                    "completionQsEnglish.xlsx",
                    "multipleChoiceQsHafez.xlsx",
                    "multipleChoiceQsSaadi.xlsx",
                )
            ),
            "the release's spreadsheets (first sheet), columns Ghazal Number, Couplet Number, Couplet Text "
            "('first / second'), Prose, Question (...) and Answer Key (...); the sonnets' Sonnet Number, Couplet "
            "Number, First Line, Second Line, Question (...)",
            _load_ghazal,
            probe_url="https://raw.githubusercontent.com/kalhorghazal/GhazalBench/"
            "c8a505770bb839b77fd8d1aa5aa87551ed06ab86/Poem%20Access/completionQsHafez.xlsx",
        ),
    ),
)
