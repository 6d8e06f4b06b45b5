"""TARAZ (Iranmanesh et al., LREC 2026): what is particular to this benchmark.

Its datasets (BLEnD's Iran questions, PerCul-SAQ, ISN-SAQ and the project's ISN derivation),
their prompts, and the wiring of its short-answer metrics
(``lm_eval_persian_culture.tasks.taraz.short_answer``), embeddings and judge into lm-eval.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from functools import partial
from pathlib import Path

from lm_eval_persian_culture.data.sources import (
    Column,
    DataNotFoundError,
    DataSchemaError,
    Schema,
    SourceFile,
    load_json,
    load_rows,
    local_path,
    resolve_data_dir,
    sha256_file,
    to_dataset,
)
from lm_eval_persian_culture.judge.filter import ask_jury, prepare_judge, task_jury, template_id, verdict_fields
from lm_eval_persian_culture.lm_eval_stack import running_task_metadata
from lm_eval_persian_culture.scoring.records import decode_record, encode_record, lm_eval_filter
from lm_eval_persian_culture.tasks.taraz import embeddings
from lm_eval_persian_culture.tasks.taraz import short_answer as sa
from lm_eval_persian_culture.tasks.taraz.embeddings import prepare_embedding_model
from lm_eval_persian_culture.tasks.taraz.normalize import HAZM_BACKEND

logger = logging.getLogger("lm_eval_persian_culture")

# --------------------------------------------------------------------------- BLEnD (Iran)
BLEND_COMMIT = "24e7d732c082c224b3bc9c7dc3b884fe83fb8cc8"
BLEND_URL = f"https://raw.githubusercontent.com/nlee0212/BLEnD/{BLEND_COMMIT}/data/annotations/Iran_data.json"
IDK_KEYS = ("idk", "no-answer", "not-applicable")


def _check_groups(groups) -> str | None:
    for j, group in enumerate(groups):
        if not isinstance(group, dict) or not isinstance(group.get("answers"), list):
            return f"group {j} has no 'answers' list"
        if not group["answers"]:
            return f"group {j} has an empty 'answers' list (no reference answer to score against)"
        for k, answer in enumerate(group["answers"]):
            if not isinstance(answer, str) or not answer.strip():
                return f"group {j} answer {k} is {'empty' if isinstance(answer, str) else repr(answer)}"
        if not isinstance(group.get("count"), int) or group["count"] < 1:
            return f"group {j} has no positive integer 'count'"
    return None


BLEND_SCHEMA = Schema(
    (
        Column("id"),
        Column("question"),
        Column("annotations", kind=list, check=_check_groups),
        Column("idks", kind=dict, check=lambda v: None if all(k in v for k in IDK_KEYS) else f"lacks {list(IDK_KEYS)}"),
    )
)
BLEND_SOURCE = SourceFile("taraz", "blend_iran/Iran_data.json", BLEND_SCHEMA, url=BLEND_URL)

# BLEnD's inst-4 prompt in its Persian form (Iran_prompts.csv, "Translation" column): the
# BLEnD paper's main short-answer prompt; TARAZ's own prompt text was not published.
BLEND_PROMPT = "سوال زیر را بخوانید و یک پاسخ بدون هیچ توضیحی ارائه دهید.\n\nسوال: {q}\nجواب:"


def blend_excluded(row: dict) -> bool:
    """BLEnD's exclusion rule (evaluation/exact_match.py, soft_exact_match): too many
    "no answer"/"not applicable" (>= 3 together) or "I don't know" (>= 5), or no answer at all."""
    idks = row["idks"]
    return idks["no-answer"] + idks["not-applicable"] >= 3 or idks["idk"] >= 5 or not row["annotations"]


def _read_keyed_json(path: Path) -> list[dict]:
    """BLEnD's annotation file: one JSON object keyed by question id -> rows with an ``id``."""
    data = load_json(path)  # non-UTF-8 bytes, a cut-off end, an id given twice: named by row and field
    if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
        raise DataSchemaError(f"{path}: expected a JSON object of question id -> record (BLEnD's layout)")
    return [{"id": key, **value} for key, value in data.items()]


def _blend_rows(settings: dict) -> tuple[list[dict], str]:
    data_dir = resolve_data_dir(settings)
    if data_dir is not None:
        path = local_path(BLEND_SOURCE, data_dir)
        provenance = f"local:{path} sha256:{sha256_file(path)}"
    else:
        # datasets' json loader cannot read an object keyed by id as rows: fetch the file at the
        # pinned commit into the datasets cache and read it here.
        from datasets.utils.file_utils import cached_path

        path, provenance = Path(cached_path(BLEND_URL)), f"url:{BLEND_URL}"
    rows = _read_keyed_json(path)
    BLEND_SCHEMA.validate(rows, str(path))
    return rows, provenance


def load_blend(**settings):
    rows, provenance = _blend_rows(settings)
    _prepare(settings)
    kept = [r for r in rows if not blend_excluded(r)]
    logger.info("taraz_blend: %d of %d BLEnD Iran questions remain after BLEnD's exclusion rule", len(kept), len(rows))
    docs = [
        {
            "id": r["id"],
            "question": r["question"],
            "en_question": r.get("en_question", ""),
            "references": [a for g in r["annotations"] for a in g["answers"]],
            "annotations": [{"answers": g["answers"], "count": g["count"]} for g in r["annotations"]],
        }
        for r in kept
    ]
    return {"test": to_dataset(docs, provenance)}


def doc_to_text_blend(doc: dict) -> str:
    return BLEND_PROMPT.format(q=doc["question"].strip())


# --------------------------------------------------------------------------- ISN-SAQ (TARAZ's file)
ISN_SAQ_SCHEMA = Schema((Column("id"), Column("question"), Column("answer")), unique=("id",))
ISN_SAQ_SOURCE = SourceFile("taraz", "ISN/isn_farsi_saq.csv", ISN_SAQ_SCHEMA)
ISN_SAQ_HELP = (
    "taraz_isn_saq needs TARAZ's ISN-SAQ file (535 questions), which is not published where the pack can "
    "reach it (github.com/Georgetown-IR-Lab/TARAZ, path ISN/isn_farsi_saq.csv). Put a copy at "
    "<data_dir>/taraz/ISN/isn_farsi_saq.csv, as CSV (UTF-8, header row) with the columns id, question "
    "(the Persian short-answer question) and answer (the Persian reference answer), and set data_dir "
    "(--metadata '{\"data_dir\": ...}' or PERSIAN_CULTURE_DATA_DIR). taraz_isn_saq_derived runs without it."
)


def load_isn_saq(**settings):
    if resolve_data_dir(settings) is None:
        raise DataNotFoundError(ISN_SAQ_HELP)
    try:
        rows, provenance = load_rows(ISN_SAQ_SOURCE, settings)
    except DataNotFoundError as err:
        raise DataNotFoundError(f"{err}\n{ISN_SAQ_HELP}") from None
    _prepare(settings)
    docs = [{"id": str(r["id"]), "question": r["question"].strip(), "references": [r["answer"].strip()]} for r in rows]
    return {"test": to_dataset(docs, provenance)}


# --------------------------------------------------------------------------- ISN, the project's derivation
ISN_SOURCE = SourceFile(
    "taraz",
    "isn/[ISN] FINAL - wo_demographiccols-updated.csv",
    Schema(
        (
            Column("ID"),
            Column("Label", choices=("Expected", "Normal", "Taboo")),
            Column("scope - EN", check=lambda v: None if v.strip() in ("General", "Specific") else f"is {v!r}"),
            Column("Norm - FA"),
            Column("Environment - FA"),
        ),
        unique=("ID",),
    ),
    url="https://raw.githubusercontent.com/hamidds/PSND/be9ae9b8b3aeed14188a1bdd1a637d9c9a95f7cc/"
    "%5BISN%5D%20FINAL%20-%20wo_demographiccols-updated.csv",
)
# The project's template (TARAZ rewrote each norm by hand; its questions are unpublished).
ISN_DERIVED_PROMPT = (
    "در {environment} در ایران، چه رفتاری رایج یا مورد انتظار است؟ پاسخ خود را کوتاه و بدون هیچ توضیحی ارائه دهید."
)


def isn_derived_items(rows: list[dict]) -> list[dict]:
    """One question per environment, over the Iran-specific (scope Specific) norms labelled
    Expected or Normal (taboo and general norms left out, as in TARAZ); every distinct norm of
    that environment is a reference answer. Environments in first-appearance order."""
    by_env: OrderedDict[str, list[str]] = OrderedDict()
    ids: dict[str, list[str]] = {}
    for row in rows:
        if row["Label"] == "Taboo" or row["scope - EN"].strip() != "Specific":
            continue
        env = " ".join(row["Environment - FA"].split())
        norm = " ".join(row["Norm - FA"].split())
        refs = by_env.setdefault(env, [])
        if norm not in refs:
            refs.append(norm)
            ids.setdefault(env, []).append(str(row["ID"]))
    return [
        {"id": f"isn-env-{i:03d}", "environment": env, "question": ISN_DERIVED_PROMPT.format(environment=env),
         "references": refs, "norm_ids": ids[env]}
        for i, (env, refs) in enumerate(by_env.items())
    ]  # fmt: skip


def load_isn_derived(**settings):
    rows, provenance = load_rows(ISN_SOURCE, settings)
    _prepare(settings)
    return {"test": to_dataset(isn_derived_items(rows), provenance)}


def doc_to_text_question(doc: dict) -> str:
    return doc["question"]


# --------------------------------------------------------------------------- PerCul-SAQ
# The category-specific question of the paper's Figure 5 ("with respect to the text above,
# which <category> in Iranian culture or daily life can be inferred? answer without
# explanation"); the category phrase per PerCul category is in PERCUL_CATEGORY_PHRASES.
PERCUL_SAQ_PROMPT = (
    "{story}\n\nبا توجه به متن بالا چه {category} در فرهنگ یا زندگی روزمره ایرانی قابل برداشت است؟ "
    "پاسخ خود را بدون هیچ توضیحی ارائه دهید."
)


def doc_to_text_percul_saq(doc: dict) -> str:
    return PERCUL_SAQ_PROMPT.format(story=doc["story"].strip(), category=doc["category_phrase"])


def load_percul_saq(**settings):
    from lm_eval_persian_culture.tasks.taraz import percul_saq

    docs, provenance = percul_saq.build_docs(settings)
    _prepare(settings)
    return {"test": to_dataset(docs, provenance)}


# --------------------------------------------------------------------------- scoring
def _prepare(settings: dict) -> None:
    """At task load, after the data checked out and before generation: the embedding model."""
    prepare_embedding_model(settings)


def _load_judged(loader, **settings):
    prepare_judge(settings)
    return loader(**settings)


load_blend_judged = partial(_load_judged, load_blend)
load_isn_saq_judged = partial(_load_judged, load_isn_saq)
load_isn_derived_judged = partial(_load_judged, load_isn_derived)
load_percul_saq_judged = partial(_load_judged, load_percul_saq)

JUDGE_TEMPLATE_ID = template_id("taraz-judge", sa.JUDGE_PROMPT)


def _replies(resps) -> list[str]:
    return [r[0] if isinstance(r, (list, tuple)) else r for r in resps]


def scoring_settings(judged: bool = False) -> dict:
    """Every setting that shaped this task's numbers, however it was set (``--metadata``, the
    environment or the default), for the results' ``metadata.scoring``."""
    settings = {
        **embeddings.recorded_settings(threshold=sa.EMBED_THRESHOLD),
        "hazm_backend": HAZM_BACKEND,
        "postprocess": "TARAZ sec. 5.2 as read by the pack (tasks/taraz/README.md), "
        "applied alike to replies and references",
        "numbers_must_agree": True,
        "exact_match_whole_numbers": True,
    }  # fmt: skip
    if judged:
        settings["judge_unparsed_answers"] = "unscored (judge_errors), not counted as 0"
    return settings


def _record_scoring_settings(judged: bool) -> None:
    metadata = running_task_metadata(start_depth=2)
    if metadata is None:
        logger.debug("TARAZ scoring settings not written to results: no Task.apply_filters on the call stack")
        return
    metadata["scoring"] = scoring_settings(judged)


def _records(resps, docs, judged: bool = False) -> list[dict]:
    rows = sa.score_replies(_replies(resps), [d["references"] for d in docs], desc="taraz embeddings")
    for row, doc in zip(rows, docs):
        if doc.get("annotations"):
            row["weighted_exact_match"] = sa.blend_weighted_score(row["response"], doc["annotations"])
    _record_scoring_settings(judged)
    return rows


@lm_eval_filter
def score_filter(resps, docs):
    """Custom lm-eval filter: every metric of every reply of the task, one embedding batch."""
    return [encode_record(row) for row in _records(resps, docs)]


@lm_eval_filter
def score_filter_judged(resps, docs):
    """As :func:`score_filter`, plus the paper's LLM judge, or a jury (one concurrent, cached batch per judge)."""
    rows = _records(resps, docs, judged=True)
    jury = task_jury()
    if jury.disabled:
        for row in rows:
            row.update(judge_match=None, judge_error="judge disabled")
    else:
        prompts = [sa.judge_prompt(doc["id"], row["response"], doc["references"]) for doc, row in zip(docs, rows)]
        items = ask_jury(jury, prompts, parser=sa.parse_one_zero, template_id=JUDGE_TEMPLATE_ID,
                         metric_prefix="judge_match")  # fmt: skip
        for row, item in zip(rows, items):
            judge_match = None if item.verdict is None else int(item.verdict)
            row.update(judge_match=judge_match, **verdict_fields(jury, item, int))
    return [encode_record(row) for row in rows]


METRICS = sa.METRICS
BLEND_METRICS = (*sa.METRICS, "weighted_exact_match")
JUDGED_METRICS = (*sa.METRICS, "judge_match", "judge_errors")
BLEND_JUDGED_METRICS = (*BLEND_METRICS, "judge_match", "judge_errors")


def process_results(doc, results):
    record = decode_record(results[0]) or {}
    out = {name: record.get(name) for name in BLEND_METRICS if name in record}
    if "judge_match" in record or "judge_error" in record:
        out["judge_match"] = record.get("judge_match")
        out["judge_errors"] = record.get("judge_match")  # aggregated by counting the Nones
        out.update(record.get("jury_metrics") or {})  # a jury's per-judge metrics (judge/jury.py)
    missing = [m for m in sa.METRICS if m not in out]
    if missing:
        raise DataSchemaError(f"taraz: doc {doc.get('id')}: the score filter produced no {missing}")
    return out


# Aggregations named in the YAMLs (``!function utils.<name>``): means over scored items;
# judge_errors counts the items the judge left unscored.
exact_match = rouge1_match = rouge2_match = rougeL_match = sa.mean_of_scored
embed_match = hybrid_match = weighted_exact_match = judge_match = sa.mean_of_scored
judge_errors = sa.count_unscored
