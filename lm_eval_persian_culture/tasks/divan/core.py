"""DivanBench (Sakhaeirad, Ma'manpoosh, Hemmat; SilkRoadNLP 2026, arXiv 2602.17623).

Everything particular to the benchmark: the five system prompts of App. B.2 (verbatim),
the pack's data schema for the three item types and its mapping from the hub release,
the docs (one per item x system prompt), the user-message templates, the answer
extraction filter (rules first, the optional LLM extractor second), per-doc records and
the aggregations (mean over prompts and spread across prompts).

This module is imported normally (``lm_eval_persian_culture.tasks.divan.core``), so its
state -- the configured LLM extractor and the warnings already given -- exists once per
process; the task ``utils.py`` that lm-eval loads by path only re-exports names.
"""

from __future__ import annotations

import logging
import sys
from functools import partial
from typing import Any, Iterable, Mapping, Sequence

from lm_eval_persian_culture.aggregations import (
    group_differences,
    make_spread_aggregations,
    paired_side_rates,
    per_group_rate,
    rate,
)
from lm_eval_persian_culture.data import (
    DATA_DIR_ENV,
    PROVENANCE_FIELD,
    Column,
    DataNotFoundError,
    DataSchemaError,
    HubSource,
    Schema,
    SourceFile,
    load_rows,
    resolve_data_dir,
)
from lm_eval_persian_culture.extract import LETTERS, extract_choice, extract_yes_no, yes_no_label
from lm_eval_persian_culture.judge import JudgeConfigError
from lm_eval_persian_culture.judge_filter import configured_judge, judge_for, record_judge_in_results, template_id
from lm_eval_persian_culture.records import decode_record, encode_record

logger = logging.getLogger("lm_eval_persian_culture")

# --------------------------------------------------------------------------- prompts
# App. B.2, verbatim (the paper's typographic quotes removed). "They are shared among all tasks."
SYSTEM_PROMPTS = (
    "You are a helpful assistant who is an expert in Iranian culture, folklore, traditions, and customs.",
    "You are a knowledgeable cultural expert specializing in Persian traditions, superstitions, and folk beliefs. "
    "Answer questions based on traditional Iranian cultural knowledge.",
    "You are an assistant with deep knowledge of Iranian heritage, including traditional customs, superstitions, "
    "proverbs, and cultural practices passed down through generations.",
    "As an expert in Iranian folklore and cultural traditions, provide accurate answers about Persian customs, "
    "beliefs, superstitions, and traditional practices.",
    "You are a cultural historian specializing in Iranian and Persian traditions. Draw upon your extensive knowledge "
    "of Iranian superstitions, customs, ceremonies, and folk beliefs to answer questions.",
)
PROMPT_IDS = (1, 2, 3, 4, 5)
TYPES = ("factual", "binary", "scenario")
MCQ_TYPES = ("factual", "scenario")

# The paper gives the item formats (App. A) but not the user-message wording around them:
# the instruction line below is the pack's (a documented deviation). "none" reproduces the
# bare App. A format (question and options only), as the paper's free-text generation did.
INSTRUCTIONS = {
    "fa": {
        "mcq": "گزینهٔ درست را انتخاب کنید و در پایان بنویسید: «پاسخ: <حرف گزینه>».",
        "binary": "با «بله» یا «خیر» پاسخ دهید و در پایان بنویسید: «پاسخ: بله» یا «پاسخ: خیر».",
    },
    "en": {
        "mcq": 'Choose the correct option and end your reply with "Answer: <letter>".',
        "binary": 'Answer yes or no, and end your reply with "Answer: Yes" or "Answer: No".',
    },
    "none": {"mcq": "", "binary": ""},
}
DEFAULT_INSTRUCTION = "fa"
INSTRUCTION_SETTING = "divan_instruction"
LLM_EXTRACTOR_SETTING = "divan_llm_extractor"


def doc_to_text(doc: dict) -> str:
    """The user message. MCQ: question, options as in App. A ("(A) ..."), instruction line."""
    if doc["type"] == "binary":
        body = doc["statement"]
    else:
        options = "\n".join(f"({letter}) {doc['option_' + letter.lower()]}" for letter in LETTERS)
        body = f"{doc['question']}\n\n{options}"
    return f"{body}\n\n{doc['instruction']}" if doc.get("instruction") else body


# --------------------------------------------------------------------------- schema
def _id_problem(value: Any) -> str | None:
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        return f"expected a string or integer id, got {type(value).__name__} {value!r}"
    if isinstance(value, str) and not value.strip():
        return "is empty"
    return None


def _letter(value: str) -> str | None:
    text = value.strip().strip("()[]. ").upper()
    return text if text in LETTERS else None


def _answer_letter_problem(value: str) -> str | None:
    return None if _letter(value) else f"has value {value!r}, expected one of {list(LETTERS)}"


_YES_NO = {"yes": "yes", "no": "no", "بله": "yes", "خیر": "no"}


def _yes_no_problem(value: str) -> str | None:
    return None if value.strip().lower() in _YES_NO else f"has value {value!r}, expected 'yes' or 'no'"


MCQ_SCHEMA = Schema(
    (
        Column("id", kind=object, check=_id_problem),
        Column("question"),
        Column("option_a"),
        Column("option_b"),
        Column("option_c"),
        Column("option_d"),
        Column("answer", check=_answer_letter_problem),
    )
)
BINARY_SCHEMA = Schema(
    (
        Column("id", kind=object, check=_id_problem),
        Column("pair_id", kind=object, check=_id_problem),
        Column("polarity", choices=("positive", "negative")),
        Column("statement"),
        Column("answer", check=_yes_no_problem),
    )
)
OPTIONAL_FIELDS = ("concept", "category")  # kept when present, "" otherwise

# The release lives only on the hub; its layout could not be read from here (see README),
# so the revision is unpinned and the column maps are guesses. When they do not fit, the
# loader stops with the columns it found (data._apply_column_map / Schema.validate).
HUB_REPO = "divanbench/divanbench"
HUB_REVISION = "main"
_MCQ_HUB_COLUMNS = {"A": "option_a", "B": "option_b", "C": "option_c", "D": "option_d"}
SOURCES = {
    "factual": SourceFile("divan", "factual.jsonl", MCQ_SCHEMA,
                          hub=HubSource(HUB_REPO, HUB_REVISION, split="train", name="factual",
                                        column_map=_MCQ_HUB_COLUMNS)),
    "binary": SourceFile("divan", "binary.jsonl", BINARY_SCHEMA,
                         hub=HubSource(HUB_REPO, HUB_REVISION, split="train", name="binary")),
    "scenario": SourceFile("divan", "scenario.jsonl", MCQ_SCHEMA,
                           hub=HubSource(HUB_REPO, HUB_REVISION, split="train", name="scenario",
                                         column_map=_MCQ_HUB_COLUMNS)),
}  # fmt: skip


def _origin(kind: str, settings: Mapping | None) -> str:
    source = SOURCES[kind]
    data_dir = resolve_data_dir(settings)
    if data_dir is not None:
        return str(data_dir / source.benchmark / source.filename)
    hub = source.hub
    return f"hf:{hub.repo_id}@{hub.revision} split={hub.split}"


def _check_unique_ids(rows: Sequence[dict], origin: str) -> None:
    seen: dict[str, int] = {}
    for i, row in enumerate(rows):
        key = str(row["id"])
        if key in seen:
            raise DataSchemaError(f"{origin}: row {i}: field 'id' value {row['id']!r} repeats row {seen[key]}")
        seen[key] = i


def _check_pairs(rows: Sequence[dict], origin: str) -> None:
    """Every pair_id: exactly one positive and one negative statement; answers follow polarity."""
    members: dict[str, dict[str, int]] = {}
    for i, row in enumerate(rows):
        pair, polarity = str(row["pair_id"]), row["polarity"]
        expected = "yes" if polarity == "positive" else "no"
        if _YES_NO[row["answer"].strip().lower()] != expected:
            raise DataSchemaError(
                f"{origin}: row {i}: field 'answer' is {row['answer']!r} but polarity is {polarity!r} "
                f"(a {polarity} statement {'follows' if expected == 'yes' else 'violates'} the custom: "
                f"answer {expected!r})"
            )
        sides = members.setdefault(pair, {})
        if polarity in sides:
            raise DataSchemaError(
                f"{origin}: row {i}: field 'polarity': pair_id {row['pair_id']!r} already has a {polarity} "
                f"statement (row {sides[polarity]}); every pair needs one positive and one negative"
            )
        sides[polarity] = i
    for pair, sides in members.items():
        if len(sides) != 2:
            (present, row_index), = sides.items()
            missing = "negative" if present == "positive" else "positive"
            raise DataSchemaError(
                f"{origin}: row {row_index}: field 'pair_id': pair {pair!r} has no {missing} statement "
                f"(every pair_id needs one positive and one negative row)"
            )


def load_items(kind: str, settings: Mapping | None = None) -> tuple[list[dict], str]:
    """Read, validate and normalise one item type; binary items come pair by pair, positive first."""
    try:
        rows, provenance = load_rows(SOURCES[kind], settings)
    except (DataSchemaError, DataNotFoundError):
        raise
    except Exception as err:  # the hub is unreachable, gated, or has no such config/split
        if resolve_data_dir(settings) is not None:
            raise
        raise DataNotFoundError(
            f"DivanBench {kind} items: could not read {_origin(kind, settings)} "
            f"(config {SOURCES[kind].hub.name!r}): {type(err).__name__}: {err}. The data lives only on the "
            f"Hugging Face hub; copy it into <data_dir>/divan/{SOURCES[kind].filename} in the schema of "
            f"tasks/divan/README.md and pass --metadata '{{\"data_dir\": \"<data_dir>\"}}' "
            f"(or set {DATA_DIR_ENV})."
        ) from err
    origin = _origin(kind, settings)
    _check_unique_ids(rows, origin)
    items = []
    for row in rows:
        item = {"item_id": str(row["id"]), **{f: str(row.get(f) or "") for f in OPTIONAL_FIELDS}}
        if kind == "binary":
            item.update(
                pair_id=str(row["pair_id"]),
                polarity=row["polarity"],
                statement=row["statement"].strip(),
                answer=_YES_NO[row["answer"].strip().lower()],
            )
        else:
            item.update({f"option_{x}": str(row[f"option_{x}"]).strip() for x in "abcd"})
            item.update(question=row["question"].strip(), answer=_letter(row["answer"]))
        items.append(item)
    if kind == "binary":
        _check_pairs(rows, origin)
        order: dict[str, int] = {}
        for item in items:
            order.setdefault(item["pair_id"], len(order))
        items.sort(key=lambda it: (order[it["pair_id"]], it["polarity"] != "positive"))
    return items, provenance


# --------------------------------------------------------------------------- docs
DOC_FIELDS = (
    "type", "item_id", "pair_id", "polarity", "prompt_id", "system_prompt", "instruction",
    "question", "option_a", "option_b", "option_c", "option_d", "statement", "answer",
    *OPTIONAL_FIELDS, PROVENANCE_FIELD,
)  # fmt: skip


def _doc(kind: str, item: dict, prompt_id: int, instruction: str, provenance: str) -> dict:
    doc = {field: "" for field in DOC_FIELDS}
    doc.update(item)
    doc.update(
        type=kind,
        prompt_id=prompt_id,
        system_prompt=SYSTEM_PROMPTS[prompt_id - 1],
        instruction=instruction,
        **{PROVENANCE_FIELD: provenance},
    )
    return doc


def _blocks(kind: str, items: list[dict], prompt_ids: Sequence[int], instruction: str, provenance: str) -> list[list[dict]]:
    """One block per item (MCQ) or pair (binary): prompt by prompt, positive before negative."""
    if kind == "binary":
        units: list[list[dict]] = []
        for item in items:
            if units and units[-1][0]["pair_id"] == item["pair_id"]:
                units[-1].append(item)
            else:
                units.append([item])
    else:
        units = [[item] for item in items]
    return [[_doc(kind, m, k, instruction, provenance) for k in prompt_ids for m in unit] for unit in units]


def build_docs(kinds: Sequence[str], prompt_ids: Sequence[int], settings: Mapping | None = None) -> list[dict]:
    """Docs of a task, item-major. Several types are interleaved block by block
    (factual item, binary pair, scenario item, ...) so ``--limit`` samples every type."""
    settings = dict(settings or {})
    language = str(settings.get(INSTRUCTION_SETTING) or DEFAULT_INSTRUCTION).strip().lower()
    if language not in INSTRUCTIONS:
        raise ValueError(f"{INSTRUCTION_SETTING}={language!r}: expected one of {sorted(INSTRUCTIONS)}")
    per_kind = []
    for kind in kinds:
        items, provenance = load_items(kind, settings)
        instruction = INSTRUCTIONS[language]["binary" if kind == "binary" else "mcq"]
        per_kind.append(_blocks(kind, items, prompt_ids, instruction, provenance))
    docs: list[dict] = []
    for i in range(max(len(b) for b in per_kind)):
        for blocks in per_kind:
            if i < len(blocks):
                docs.extend(blocks[i])
    return docs


def load(kinds: Sequence[str], prompt_ids: Sequence[int], **settings):
    """``custom_dataset`` hook: called by lm-eval with task metadata, --metadata and --model_args."""
    import datasets

    configure_extractor(settings)  # fail fast on a bad extractor configuration
    docs = build_docs(kinds, prompt_ids, settings)
    return {"test": datasets.Dataset.from_list(docs)}


# --------------------------------------------------------------------------- LLM extractor
_extractor = None  # JudgeSettings of the optional LLM extractor, set at dataset load

LLM_MCQ_TEMPLATE = """Below is a multiple-choice question and a reply written by another model.
Which option did the reply choose as its final answer?

Question: {question}
(A) {a}
(B) {b}
(C) {c}
(D) {d}

Reply (a JSON string): {reply}

Answer with exactly one of A, B, C, D, or NONE if the reply chooses no single option."""

LLM_BINARY_TEMPLATE = """Below is a yes/no question and a reply written by another model.
Did the reply answer yes or no?

Question: {statement}

Reply (a JSON string): {reply}

Answer with exactly one of YES, NO, or NONE if the reply gives no clear answer."""


def _off(value: Any) -> bool:
    return str(value).strip().lower() in ("0", "false", "no", "off", "none")


def configure_extractor(settings: Mapping | None):
    """Set (or clear) the optional LLM extractor from the run's settings; returns it or None.

    On when a judge is configured (``judge_model`` in --metadata or the judge env vars, not
    ``none``) unless ``divan_llm_extractor=false``. Without one, extraction is rules only.
    """
    global _extractor
    settings = dict(settings or {})
    _extractor = None
    if LLM_EXTRACTOR_SETTING in settings and _off(settings[LLM_EXTRACTOR_SETTING]):
        return None
    try:
        js = configured_judge(settings)
    except JudgeConfigError as err:
        raise JudgeConfigError(
            f"DivanBench's LLM extractor: {err} (or pass {LLM_EXTRACTOR_SETTING}=false for rule-based "
            "extraction only)"
        ) from None
    if js is None or js.disabled:
        return None
    _extractor = js
    logger.info("DivanBench: replies the rules cannot read go to the LLM extractor %s", js.model)
    return js


def parse_llm_choice(raw: str | None) -> str | None:
    """"B" -> "B"; "NONE" -> "none" (an answer, not an error); anything else -> None."""
    if not raw:
        return None
    token = raw.strip().strip("*().:'\"` ").upper()
    if token.startswith("NONE"):
        return "none"
    return token[0] if token[:1] in LETTERS and (len(token) == 1 or not token[1].isalpha()) else None


def parse_llm_yes_no(raw: str | None) -> str | None:
    if not raw:
        return None
    token = raw.strip().strip("*().:'\"` ").lower()
    for word in ("yes", "no", "none"):
        if token.startswith(word) and (len(token) == len(word) or not token[len(word)].isalpha()):
            return word
    return None


def llm_prompt(doc: dict, reply: str) -> str:
    import json

    quoted = json.dumps(reply, ensure_ascii=False)  # a reply cannot break out of its slot
    if doc["type"] == "binary":
        return LLM_BINARY_TEMPLATE.format(statement=doc["statement"], reply=quoted)
    return LLM_MCQ_TEMPLATE.format(
        question=doc["question"], a=doc["option_a"], b=doc["option_b"], c=doc["option_c"], d=doc["option_d"],
        reply=quoted,
    )  # fmt: skip


def llm_extract(docs: Sequence[dict], replies: Sequence[str], settings) -> list[tuple[str | None, str | None, str | None]]:
    """(answer, raw, error) per reply from the LLM extractor; answer is "A".."D"/"yes"/"no" or None."""
    out: list[tuple[str | None, str | None, str | None]] = [(None, None, None)] * len(docs)
    for kind, template, parser in (
        ("mcq", LLM_MCQ_TEMPLATE, parse_llm_choice),
        ("binary", LLM_BINARY_TEMPLATE, parse_llm_yes_no),
    ):
        idx = [i for i, d in enumerate(docs) if (d["type"] == "binary") == (kind == "binary")]
        if not idx:
            continue
        judge = judge_for(settings, parser=parser)
        results = judge.judge_many(
            [llm_prompt(docs[i], replies[i]) for i in idx],
            template_id=template_id(f"divan-extract-{kind}", template),
            desc=f"DivanBench LLM extractor ({settings.model})",
        )
        record_judge_in_results(judge)
        for i, res in zip(idx, results):
            answer = None if res.verdict in (None, "none") else res.verdict
            out[i] = (answer, res.raw, res.error)
        logger.info("DivanBench LLM extractor (%s): %s", kind, judge.usage.summary())
    return out


# --------------------------------------------------------------------------- run checks
_warned: set[str] = set()


def _warn_once(key: str, message: str, *args) -> None:
    if key not in _warned:
        _warned.add(key)
        logger.warning(message, *args)


def _lm_eval_context(n_docs: int) -> tuple[dict | None, list[str] | None]:
    """What lm-eval does not pass to filters, read from its call stack (best effort).

    Returns (evaluate()'s system_instruction / apply_chat_template, or None) and the
    rendered prompt of each doc (FilterEnsemble.apply's instances, or None). lm-eval 0.4.13
    calls a custom filter from FilterEnsemble.apply(instances) under evaluate(); if a later
    version changes that, the checks are skipped (debug log), never wrong.
    """
    context, prompts = None, None
    frame = sys._getframe(1)
    try:
        for _ in range(20):
            if frame is None:
                break
            module = frame.f_globals.get("__name__", "")
            if prompts is None and module == "lm_eval.api.filter" and "instances" in frame.f_locals:
                instances = frame.f_locals["instances"]
                try:
                    rendered = [inst.args[0] for inst in instances]
                    if len(rendered) == n_docs:
                        prompts = [p if isinstance(p, str) else str(p) for p in rendered]
                except (AttributeError, IndexError, TypeError):
                    pass
            if module == "lm_eval.evaluator" and frame.f_code.co_name == "evaluate":
                loc = frame.f_locals
                context = {
                    "system_instruction": loc.get("system_instruction"),
                    "apply_chat_template": loc.get("apply_chat_template"),
                }
                break
            frame = frame.f_back
    finally:
        del frame
    if context is None or prompts is None:
        logger.debug("DivanBench: lm-eval call stack not recognised; run-time prompt checks skipped")
    return context, prompts


def check_run(docs: Sequence[dict], prompts: Sequence[str] | None, context: Mapping | None) -> list[bool | None]:
    """Warn about conditions that silently change what the five system prompts do.

    Returns, per doc, whether its system prompt appears in the rendered prompt (None if unknown).
    """
    from lm_eval_persian_culture.tasks.divan.check_prompts import inspect_samples

    if context is not None:
        if context.get("system_instruction"):
            _warn_once(
                "system_instruction",
                "DivanBench: --system_instruction is in effect; lm-eval prepends it to each of the five "
                "system prompts of App. B.2 (system message = '<instruction>\\n\\n<prompt k>'), so the "
                "prompt variants are no longer the paper's. Drop --system_instruction for paper conditions.",
            )
        if not context.get("apply_chat_template"):
            _warn_once(
                "no_chat_template",
                "DivanBench: run without --apply_chat_template: the five system prompts are glued in front "
                "of the question as plain text (no separator), not sent as system messages as in the paper.",
            )
    if prompts is None:
        return [None] * len(docs)
    report = inspect_samples(list(zip(docs, prompts)))
    if report["missing"] and context is not None and context.get("apply_chat_template"):
        _warn_once(
            "system_role_dropped",
            "DivanBench: %d of %d rendered prompts lack their system prompt: the model's chat template "
            "dropped the system role (lm-eval removes it when the template rejects it), so the five prompt variants collapse "
            "into one (%d items rendered identically under all prompts). The spread over prompts measures "
            "nothing in this run.",
            report["missing"], report["samples"], report["collapsed_items"],
        )  # fmt: skip
    return report["per_sample_present"]


# --------------------------------------------------------------------------- filter
def _options(doc: dict) -> list[str]:
    return [doc[f"option_{x}"] for x in "abcd"]


def extract_rule(doc: dict, reply: str) -> str | None:
    """The deterministic answer: "A".."D" for MCQ, "yes"/"no" for binary, or None."""
    if doc["type"] == "binary":
        return yes_no_label(extract_yes_no(reply))
    return extract_choice(reply, _options(doc))


def extract_filter(resps: Sequence, docs: Sequence[dict]) -> list[str]:
    """Custom lm-eval filter: every reply of the task at once -> one record per doc.

    ``{"reply", "extracted": "A".."D" | "yes" | "no" | None, "extracted_by": "rule" | "llm" | None,
    "llm_raw", "llm_error", "system_prompt_rendered"}`` as a JSON string (see ``records``);
    lm-eval logs it as filtered_resps.
    """
    replies = [(r[0] if isinstance(r, (list, tuple)) else r) or "" for r in resps]
    records = []
    for doc, reply in zip(docs, replies):
        value = extract_rule(doc, reply)
        records.append({
            "reply": reply,
            "extracted": value,
            "extracted_by": "rule" if value is not None else None,
            "llm_raw": None,
            "llm_error": None,
        })  # fmt: skip
    todo = [i for i, rec in enumerate(records) if rec["extracted"] is None and rec["reply"].strip()]
    if _extractor is not None and todo:
        found = llm_extract([docs[i] for i in todo], [replies[i] for i in todo], _extractor)
        for i, (answer, raw, error) in zip(todo, found):
            records[i].update(llm_raw=raw, llm_error=error)
            if answer is not None:
                records[i].update(extracted=answer, extracted_by="llm")
        errors = sum(1 for _, _, e in found if e)
        if errors:
            logger.warning("DivanBench: the LLM extractor failed on %d of %d replies (left invalid)", errors, len(todo))
    context, prompts = _lm_eval_context(len(docs))
    for rec, present in zip(records, check_run(docs, prompts, context)):
        rec["system_prompt_rendered"] = present
    return [encode_record(rec) for rec in records]


# --------------------------------------------------------------------------- metrics
def doc_record(doc: dict, result: Any) -> dict:
    """The per-doc value every metric of a task shares (aggregations read what they need)."""
    record = decode_record(result)
    if record is None:  # another filter ran instead of ours: extract here
        value = extract_rule(doc, str(result or ""))
        record = {"extracted": value, "extracted_by": "rule" if value else None}
    result = record
    extracted = result.get("extracted")
    return {
        "type": doc["type"],
        "prompt_id": doc["prompt_id"],
        "item_id": doc["item_id"],
        "pair_id": doc["pair_id"],
        "polarity": doc["polarity"],
        "correct": int(extracted is not None and extracted == doc["answer"]),
        "invalid": int(extracted is None),
        "llm": int(result.get("extracted_by") == "llm"),
    }


def _of(kind: str):
    return lambda it: it["type"] == kind


def _accuracy_per_prompt(items, kind=None):
    return per_group_rate(items, "correct", where=_of(kind) if kind else None)


def _side_per_prompt(items, side):
    return {g: v[side] for g, v in paired_side_rates(items, "correct").items()}


def _bias_per_prompt(items):
    return {g: v["positive"] - v["negative"] for g, v in paired_side_rates(items, "correct").items()}


def _gap_per_prompt(items):
    return group_differences(_accuracy_per_prompt(items, "factual"), _accuracy_per_prompt(items, "scenario"))


AGGREGATIONS: dict[str, Any] = {}
AGGREGATIONS.update(make_spread_aggregations("accuracy", _accuracy_per_prompt))
for _kind in TYPES:
    AGGREGATIONS.update(make_spread_aggregations(f"{_kind}_accuracy", partial(_accuracy_per_prompt, kind=_kind)))
    AGGREGATIONS[f"{_kind}_invalid_rate"] = partial(rate, field="invalid", where=_of(_kind))
AGGREGATIONS.update(make_spread_aggregations("accept_true", partial(_side_per_prompt, side="positive")))
AGGREGATIONS.update(make_spread_aggregations("reject_false", partial(_side_per_prompt, side="negative")))
AGGREGATIONS.update(make_spread_aggregations("acquiescence_bias", _bias_per_prompt))
AGGREGATIONS.update(make_spread_aggregations("factual_conceptual_gap", _gap_per_prompt))
AGGREGATIONS["invalid_rate"] = partial(rate, field="invalid")
AGGREGATIONS["llm_extracted_rate"] = partial(rate, field="llm")

_PAIRED = ("accept_true", "accept_true_std", "reject_false", "reject_false_std",
           "acquiescence_bias", "acquiescence_bias_std")  # fmt: skip
TYPE_METRICS = ("accuracy", "accuracy_std", "invalid_rate", "llm_extracted_rate")
BINARY_METRICS = TYPE_METRICS + _PAIRED
# Single-prompt tasks: a spread over one prompt is 0 by construction, so none is reported.
TYPE_SINGLE_METRICS = tuple(m for m in TYPE_METRICS if not m.endswith("_std"))
BINARY_SINGLE_METRICS = tuple(m for m in BINARY_METRICS if not m.endswith("_std"))
ALL_METRICS = (
    "factual_accuracy", "factual_accuracy_std", "binary_accuracy", "binary_accuracy_std",
    "scenario_accuracy", "scenario_accuracy_std", *_PAIRED,
    "factual_conceptual_gap", "factual_conceptual_gap_std",
    "invalid_rate", "factual_invalid_rate", "binary_invalid_rate", "scenario_invalid_rate", "llm_extracted_rate",
)  # fmt: skip
METRIC_SETS = {
    "TYPE_METRICS": TYPE_METRICS,
    "BINARY_METRICS": BINARY_METRICS,
    "TYPE_SINGLE_METRICS": TYPE_SINGLE_METRICS,
    "BINARY_SINGLE_METRICS": BINARY_SINGLE_METRICS,
    "ALL_METRICS": ALL_METRICS,
}
HIGHER_IS_BETTER = {
    "accuracy", "factual_accuracy", "binary_accuracy", "scenario_accuracy", "accept_true", "reject_false",
}  # fmt: skip


def _process(metric_names: Sequence[str], doc: dict, results: list) -> dict:
    record = doc_record(doc, results[0])
    return {name: record for name in metric_names}


PROCESS_RESULTS = {
    f"process_results_{name[:-len('_METRICS')].lower()}": partial(_process, names)
    for name, names in METRIC_SETS.items()
}
LOADERS = {
    "load_all": partial(load, TYPES, PROMPT_IDS),
    **{f"load_{kind}": partial(load, (kind,), PROMPT_IDS) for kind in TYPES},
    **{f"load_{kind}_sp{k}": partial(load, (kind,), (k,)) for kind in TYPES for k in PROMPT_IDS},
}


def exported_names() -> dict[str, Any]:
    """Everything the YAMLs name with ``!function utils.<name>``."""
    return {
        "doc_to_text": doc_to_text,
        "extract_filter": extract_filter,
        **LOADERS,
        **PROCESS_RESULTS,
        **AGGREGATIONS,
    }


def aggregate_all(items: Iterable[Mapping], names: Sequence[str] = ALL_METRICS) -> dict[str, float]:
    """All metrics of a record list at once (for notebooks and tests)."""
    items = list(items)
    return {name: AGGREGATIONS[name](items) for name in names}
