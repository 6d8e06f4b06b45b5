"""TARAZ's report entry: table metrics (all proportions), charts and leaderboard columns."""

from lm_eval_persian_culture.tasks._benchmark import (
    PUBLIC,
    UNPUBLISHED,
    Benchmark,
    Dataset,
    MetricsChart,
    Requirement,
    source_loader,
)


def _embedding_requirement(settings: dict) -> tuple[bool, str]:
    from lm_eval_persian_culture.tasks.taraz.embeddings import embedding_requirement

    return embedding_requirement(settings)


def _judge_requirement(settings: dict) -> tuple[bool, str]:
    from lm_eval_persian_culture.judge.filter import judge_requirement

    return judge_requirement(settings)


TARAZ_UTILS = "lm_eval_persian_culture.tasks.taraz.utils"


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
    data_note=(
        "TARAZ's embedding metrics also need a sentence-embedding model (`embedding_model`; "
        "see lm_eval_persian_culture/tasks/taraz/README.md)."
    ),
    predict_only_env=("PERSIAN_CULTURE_EMBEDDING_MODEL",),
    requirements=(
        Requirement("embedding model", ("taraz*",), _embedding_requirement),  # every TARAZ task scores embed_match
        Requirement("judge", ("taraz*judged",), _judge_requirement),  # the judged variants alone
    ),  # tasks/taraz/embeddings.EMBEDDING_MODEL_ENV
    # TARAZ's PerCul-SAQ questions are PerCul's stories: its tasks read PerCul's dataset too
    reads_datasets=(("PerCul", ("taraz_percul_saq*", "taraz", "taraz_judged")),),
    datasets=(
        Dataset(
            "TARAZ: BLEnD Iran",
            ("taraz_blend*", "taraz", "taraz_judged"),
            PUBLIC,
            "GitHub nlee0212/BLEnD at commit 24e7d73 (data/annotations/Iran_data.json)",
            ("taraz/blend_iran/Iran_data.json",),
            "BLEnD's JSON object keyed by question id (question, annotations, idks)",
            source_loader(TARAZ_UTILS, "BLEND_SOURCE"),
            probe_url="https://raw.githubusercontent.com/nlee0212/BLEnD/24e7d732c082c224b3bc9c7dc3b884fe83fb8cc8/"
            "data/annotations/Iran_data.json",
        ),
        Dataset(
            "TARAZ: ISN-SAQ",
            ("taraz_isn_saq", "taraz_isn_saq_judged", "taraz", "taraz_judged"),
            UNPUBLISHED,
            "",
            ("taraz/ISN/isn_farsi_saq.csv",),
            "CSV (UTF-8, header row) with columns id, question, answer (Persian), TARAZ's 535 questions",
            source_loader(TARAZ_UTILS, "ISN_SAQ_SOURCE"),
            note="TARAZ's own file (github.com/Georgetown-IR-Lab/TARAZ, ISN/isn_farsi_saq.csv) could not be reached; "
            "taraz_isn_saq_derived runs on the public ISN instead",
        ),
        Dataset(
            "TARAZ: ISN (derived questions)",
            ("taraz_isn_saq_derived*",),
            PUBLIC,
            "GitHub hamidds/PSND at commit be9ae9b",
            ("taraz/isn/[ISN] FINAL - wo_demographiccols-updated.csv",),
            "the release's CSV, columns ID, Label, scope - EN, Norm - FA, Environment - FA",
            source_loader(TARAZ_UTILS, "ISN_SOURCE"),
            probe_url="https://raw.githubusercontent.com/hamidds/PSND/be9ae9b8b3aeed14188a1bdd1a637d9c9a95f7cc/"
            "%5BISN%5D%20FINAL%20-%20wo_demographiccols-updated.csv",
        ),
    ),
)
