"""DivanBench (Sakhaeirad, Ma'manpoosh, Hemmat; SilkRoadNLP 2026, arXiv 2602.17623).

Everything particular to the benchmark: the five system prompts of App. B.2 (verbatim),
the pack's data schema for the three item types and its mapping from the hub release,
the docs (one per item x system prompt), the user-message templates, the answer
extraction filter (rules first, the optional LLM extractor second), per-doc records and
the aggregations (mean over prompts and spread across prompts).

lm-eval executes this file anew for every ``!function utils.<name>`` of a YAML, so it keeps no
state of its own: the LLM extractor the loaders configure and the filter uses is the process's
one ``judge.extractor.fallback`` object, and the warnings already given are kept in
``check_prompts``. The names the YAMLs use are at the end of the file.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import field, make_dataclass
from functools import partial
from typing import Any

from lm_eval_persian_culture.data.settings import SettingError, choice_setting
from lm_eval_persian_culture.data.sources import (
    DATA_DIR_ENV,
    PROVENANCE_FIELD,
    Column,
    DataNotFoundError,
    DataSchemaError,
    HubSource,
    Schema,
    SourceFile,
    id_problem,
    load_rows,
    resolve_data_dir,
)
from lm_eval_persian_culture.judge import extractor
from lm_eval_persian_culture.lm_eval_stack import lm_eval_context
from lm_eval_persian_culture.scoring.aggregations import field_is, per_group_rate, rate
from lm_eval_persian_culture.scoring.extract import LETTERS, extract_yes_no, yes_no_label
from lm_eval_persian_culture.scoring.records import encode_record, lm_eval_filter, make_process_results, record_of
from lm_eval_persian_culture.tasks._option_task import OptionTask, count_errors
from lm_eval_persian_culture.tasks._taskgen import SIGNED, magnitude_name
from lm_eval_persian_culture.tasks.divan.aggregations import (
    group_differences,
    make_spread_aggregations,
    paired_side_rates,
)
from lm_eval_persian_culture.tasks.divan.chat_template import chat_template_keeps_system
from lm_eval_persian_culture.tasks.divan.check_prompts import inspect_samples, warn_once
from lm_eval_persian_culture.text.persian import script_language

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
# the instruction line below is the pack's (a documented deviation), in the item's language.
# "none" reproduces the bare App. A format (question and options only), as in the paper,
# which gave no answer-format instruction and had GPT-4o-mini read every reply.
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
INSTRUCTION_AUTO = "auto"  # the item's own language, decided per item from its script; Persian by default
INSTRUCTION_CHOICES = (INSTRUCTION_AUTO, "fa", "en", "none")
DEFAULT_INSTRUCTION = INSTRUCTION_AUTO
INSTRUCTION_SETTING = "divan_instruction"
LLM_EXTRACTOR_SETTING = "divan_llm_extractor"

# Where the system prompt goes. "system": the system message (lm-eval's `description`, the
# paper's setup). "user": folded into the first user turn ("<system prompt>\n\n<message>"),
# for chat templates without a system role (Gemma 2), which otherwise lose all five prompts.
# "auto": "user" when the model's chat template drops or rejects a system message.
SYSTEM_PROMPT_SETTING = "divan_system_prompt"
SYSTEM_PROMPT_CHOICES = ("system", "user", "auto")
SYSTEM_PROMPT_ALIASES = {"fold": "user", "keep": "system"}

# "rules" (default): the rule-based extractor, the LLM extractor (if configured) only for
# replies the rules cannot read. "paper": DivanBench's own pipeline -- no instruction line
# and the LLM extractor (default gpt-4o-mini) reads every reply.
PIPELINE_SETTING = "divan_pipeline"
PIPELINE_CHOICES = ("rules", "paper")
PAPER_EXTRACTOR_MODEL = "gpt-4o-mini"


class DivanSettingError(SettingError):
    """A DivanBench setting has a value it cannot take (raised before any model time)."""


def _setting(settings: Mapping, key: str, choices: Sequence[str], default: str, aliases: Mapping | None = None) -> str:
    return choice_setting(settings, key, choices, default, aliases, error=DivanSettingError)


def instruction_language(item_text: str, setting: str) -> str:
    """The instruction line's language for one item: the setting, or under "auto" the item's
    script (English items get the English line, everything else the Persian one)."""
    if setting != INSTRUCTION_AUTO:
        return setting
    return "en" if script_language(item_text) == "en" else "fa"


def doc_to_text(doc: dict) -> str:
    """The user message. MCQ: question, options as in App. A ("(A) ..."), instruction line.
    With the system prompt folded into the user turn, it comes first."""
    if doc["type"] == "binary":
        body = doc["statement"]
    else:
        options = "\n".join(f"({letter}) {doc['option_' + letter.lower()]}" for letter in LETTERS)
        body = f"{doc['question']}\n\n{options}"
    text = f"{body}\n\n{doc['instruction']}" if doc.get("instruction") else body
    if doc.get("system_prompt_placement") == "user":
        text = f"{doc['system_prompt']}\n\n{text}"
    return text


# --------------------------------------------------------------------------- schema
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
        Column("id", kind=object, check=id_problem),
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
        Column("id", kind=object, check=id_problem),
        Column("pair_id", kind=object, check=id_problem),
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
    for i, row in enumerate(rows, start=1):  # rows counted from 1
        key = str(row["id"])
        if key in seen:
            raise DataSchemaError(f"{origin}: row {i}: field 'id' value {row['id']!r} repeats row {seen[key]}")
        seen[key] = i


def _check_pairs(rows: Sequence[dict], origin: str) -> None:
    """Every pair_id: exactly one positive and one negative statement; answers follow polarity."""
    members: dict[str, dict[str, int]] = {}
    for i, row in enumerate(rows, start=1):  # rows counted from 1
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
            ((present, row_index),) = sides.items()
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
            f'tasks/divan/README.md and pass --metadata \'{{"data_dir": "<data_dir>"}}\' '
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
    "type", "item_id", "pair_id", "polarity", "prompt_id", "system_prompt", "system_message",
    "system_prompt_placement", "language", "instruction_language", "instruction", "pipeline",
    "question", "option_a", "option_b", "option_c", "option_d", "statement", "answer",
    *OPTIONAL_FIELDS, PROVENANCE_FIELD,
)  # fmt: skip


# Built with make_dataclass, not a class statement: lm-eval executes this file outside sys.modules, where
# @dataclass cannot resolve this module's string annotations (``from __future__ import annotations``).
RunSettings = make_dataclass(
    "RunSettings",
    [
        ("instruction", str, field(default=DEFAULT_INSTRUCTION)),  # auto | fa | en | none
        ("system_prompt", str, field(default="system")),  # where the system prompt goes: system | user (from auto)
        ("pipeline", str, field(default="rules")),  # rules | paper
    ],
    frozen=True,
)
RunSettings.__doc__ = "DivanBench's settings of one run, read from --metadata / --model_args and checked."


def run_settings(settings: Mapping | None) -> RunSettings:
    settings = dict(settings or {})
    pipeline = _setting(settings, PIPELINE_SETTING, PIPELINE_CHOICES, "rules")
    instruction = _setting(settings, INSTRUCTION_SETTING, INSTRUCTION_CHOICES, DEFAULT_INSTRUCTION)
    if pipeline == "paper":
        if settings.get(INSTRUCTION_SETTING) not in (None, "") and instruction != "none":
            raise DivanSettingError(
                f"--metadata {PIPELINE_SETTING}=paper gives the model no answer-format instruction, as the paper "
                f"did, but {INSTRUCTION_SETTING}={settings[INSTRUCTION_SETTING]!r} asks for one: drop one of the two"
            )
        instruction = "none"
    placement = _setting(settings, SYSTEM_PROMPT_SETTING, SYSTEM_PROMPT_CHOICES, "system", SYSTEM_PROMPT_ALIASES)
    if placement == "auto":
        keeps = chat_template_keeps_system(settings)
        placement = "user" if keeps is False else "system"
        logger.info(
            "DivanBench: %s=auto: the chat template %s a system message; system prompts go into the %s turn",
            SYSTEM_PROMPT_SETTING, {True: "keeps", False: "drops", None: "could not be checked for"}[keeps],
            placement,
        )  # fmt: skip
    return RunSettings(instruction=instruction, system_prompt=placement, pipeline=pipeline)


def _item_text(kind: str, item: dict) -> str:
    if kind == "binary":
        return item["statement"]
    return " ".join([item["question"], *(item[f"option_{x}"] for x in "abcd")])


def _doc(kind: str, item: dict, prompt_id: int, run: RunSettings, provenance: str) -> dict:
    doc = {field: "" for field in DOC_FIELDS}
    doc.update(item)
    language = script_language(_item_text(kind, item)) or "fa"
    instruction_lang = instruction_language(_item_text(kind, item), run.instruction)
    system_prompt = SYSTEM_PROMPTS[prompt_id - 1]
    doc.update(
        type=kind,
        prompt_id=prompt_id,
        system_prompt=system_prompt,
        # lm-eval's `description` (the system message); empty when folded into the user turn
        system_message=system_prompt if run.system_prompt == "system" else "",
        system_prompt_placement=run.system_prompt,
        language=language,
        instruction_language=instruction_lang,
        instruction=INSTRUCTIONS[instruction_lang]["binary" if kind == "binary" else "mcq"],
        pipeline=run.pipeline,
        **{PROVENANCE_FIELD: provenance},
    )
    return doc


def _blocks(
    kind: str, items: list[dict], prompt_ids: Sequence[int], run: RunSettings, provenance: str
) -> list[list[dict]]:
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
    return [[_doc(kind, m, k, run, provenance) for k in prompt_ids for m in unit] for unit in units]


def build_docs(
    kinds: Sequence[str], prompt_ids: Sequence[int], settings: Mapping | None = None, run: RunSettings | None = None
) -> list[dict]:
    """Docs of a task, item-major. Several types are interleaved block by block
    (factual item, binary pair, scenario item, ...) so ``--limit`` samples every type."""
    settings = dict(settings or {})
    run = run or run_settings(settings)
    per_kind = []
    for kind in kinds:
        items, provenance = load_items(kind, settings)
        per_kind.append(_blocks(kind, items, prompt_ids, run, provenance))
    docs: list[dict] = []
    for i in range(max(len(b) for b in per_kind)):
        for blocks in per_kind:
            if i < len(blocks):
                docs.extend(blocks[i])
    return docs


def load(kinds: Sequence[str], prompt_ids: Sequence[int], **settings):
    """``custom_dataset`` hook: called by lm-eval with task metadata, --metadata and --model_args."""
    import datasets

    run = run_settings(settings)  # fail fast on bad settings
    configure_extractor(settings, run)  # ... and on a bad extractor configuration
    docs = build_docs(kinds, prompt_ids, settings, run)
    return {"test": datasets.Dataset.from_list(docs)}


# --------------------------------------------------------------------------- LLM extractor
# set at dataset load; the rules pipeline asks it about the replies the rules cannot read, the paper pipeline about all
EXTRACTOR = extractor.fallback(LLM_EXTRACTOR_SETTING, "DivanBench", key="divan")

# The extraction prompts (the paper's were not published) live in judge.extractor;
# the names stay here for readers of this module and the README.
LLM_MCQ_TEMPLATE = extractor.MCQ_TEMPLATE
LLM_BINARY_TEMPLATE = extractor.YES_NO_TEMPLATE
parse_llm_choice = extractor.parse_choice
parse_llm_yes_no = extractor.parse_yes_no


def configure_extractor(settings: Mapping | None, run: RunSettings | None = None):
    """Set (or clear) the LLM extractor from the run's settings; returns it or None.

    Rules pipeline: on when a judge is configured (``judge_model`` in --metadata or the judge
    env vars, not ``none``) unless ``divan_llm_extractor=false``; it reads only the replies the
    rules cannot. Paper pipeline: always on, ``gpt-4o-mini`` unless ``judge_model`` names
    another judge, and it reads every reply.
    """
    run = run or run_settings(settings)
    if run.pipeline != "paper":
        return EXTRACTOR.configure(settings)
    return EXTRACTOR.configure(
        settings,
        what="DivanBench's paper pipeline (divan_pipeline=paper)",
        default_model=PAPER_EXTRACTOR_MODEL,
        reads="all replies",
    )


def llm_prompt(doc: dict, reply: str) -> str:
    if doc["type"] == "binary":
        return extractor.yes_no_prompt(doc["statement"], reply)
    return extractor.mcq_prompt(doc["question"], _options(doc), reply)


def llm_extract(
    settings, docs: Sequence[dict], replies: Sequence[str], strict: bool = False
) -> list[extractor.Extracted]:
    """One Extracted per reply from the LLM extractor; its answer is "A".."D"/"yes"/"no" or None."""
    out = [extractor.Extracted(None, None, None)] * len(docs)
    for kind, template, parser in (
        ("mcq", LLM_MCQ_TEMPLATE, parse_llm_choice),
        ("binary", LLM_BINARY_TEMPLATE, parse_llm_yes_no),
    ):
        idx = [i for i, d in enumerate(docs) if (d["type"] == "binary") == (kind == "binary")]
        found = extractor.run_extraction(
            settings, [llm_prompt(docs[i], replies[i]) for i in idx],
            kind=kind, template=template, parser=parser, name="divan", strict=strict,
        )  # fmt: skip
        for i, res in zip(idx, found):
            out[i] = res
    return out


# --------------------------------------------------------------------------- run checks
def check_run(docs: Sequence[dict], prompts: Sequence[str] | None, context: Mapping | None) -> list[bool | None]:
    """Warn about conditions that silently change what the five system prompts do.

    Returns, per doc, whether its system prompt appears in the rendered prompt (None if unknown).
    """
    if context is not None:
        if context.get("system_instruction"):
            warn_once(
                "system_instruction",
                "DivanBench: --system_instruction is in effect; lm-eval prepends it to each of the five "
                "system prompts of App. B.2 (system message = '<instruction>\\n\\n<prompt k>'), so the "
                "prompt variants are no longer the paper's. Drop --system_instruction for paper conditions.",
            )
        if not context.get("apply_chat_template"):
            warn_once(
                "no_chat_template",
                "DivanBench: run without --apply_chat_template: the five system prompts are glued in front "
                "of the question as plain text (no separator), not sent as system messages as in the paper.",
            )
    if prompts is None:
        return [None] * len(docs)
    report = inspect_samples(list(zip(docs, prompts)))
    if report["missing"] and context is not None and context.get("apply_chat_template"):
        warn_once(
            "system_role_dropped",
            "DivanBench: %d of %d rendered prompts lack their system prompt: the model's chat template "
            "dropped the system role (lm-eval removes it when the template rejects it), "
            "so the five prompt variants collapse "
            "into one (%d items rendered identically under all prompts). The spread over prompts measures "
            "nothing in this run. Pass --metadata '{\"%s\": \"auto\"}' to fold the system prompt into the "
            "user turn for such templates.",
            report["missing"], report["samples"], report["collapsed_items"], SYSTEM_PROMPT_SETTING,
        )  # fmt: skip
    return report["per_sample_present"]


# --------------------------------------------------------------------------- filter
def _options(doc: dict) -> list[str]:
    return [doc[f"option_{x}"] for x in "abcd"]


# The MCQ items' reading is the shared option-task helper's (the pack's answer grammar over A-D / الف-د, 1-4
# and the option texts; a reply going on into an invented next question is cut there). The filter below
# stays DivanBench's own: it reads binary items too, and the paper pipeline sends every reply to the
# extractor with DivanBench's MCQ template (cached under it).
MCQ = OptionTask(
    name="DivanBench",
    switch=LLM_EXTRACTOR_SETTING,
    options=_options,
    question=lambda doc: doc["question"],
    labels="letters",
    gold=lambda doc: LETTERS.index(doc["answer"]),
    answer_key="extracted",
    by_key="extracted_by",
    key="divan",
)


def extract_rule(doc: dict, reply: str) -> str | None:
    """The deterministic answer: "A".."D" for MCQ, "yes"/"no" for binary, or None."""
    if doc["type"] == "binary":
        return yes_no_label(extract_yes_no(reply))
    return MCQ.spelled(MCQ.read(reply, doc))


@lm_eval_filter
def extract_filter(resps: Sequence, docs: Sequence[dict]) -> list[str]:
    """Custom lm-eval filter: every reply of the task at once -> one record per doc.

    ``{"reply", "extracted": "A".."D" | "yes" | "no" | None, "extracted_by": "rule" | "llm" | None,
    "rule_extracted", "llm_raw", "llm_error", "system_prompt_rendered"}`` as a JSON string (see
    ``records``); lm-eval logs it as filtered_resps. Rules pipeline: the rules' answer, the LLM
    extractor (if configured) for replies they cannot read. Paper pipeline (``divan_pipeline=paper``):
    the LLM extractor's answer for every reply; ``rule_extracted`` keeps the rules' for comparison.
    """
    paper = any(doc.get("pipeline") == "paper" for doc in docs)
    if paper and EXTRACTOR.settings is None:
        raise RuntimeError("DivanBench paper pipeline: no LLM extractor configured (the dataset loader sets it)")
    ask = partial(llm_extract, strict=paper)
    read = EXTRACTOR.read(resps, docs, extract_rule, ask, everything=paper)
    records = [
        {"reply": r.reply, "extracted": r.answer, "extracted_by": r.by, "rule_extracted": r.rule,
         "llm_raw": r.extra.get("llm_raw"), "llm_error": r.extra.get("llm_error")}
        for r in read
    ]  # fmt: skip
    context, prompts = lm_eval_context(len(docs))
    for rec, present in zip(records, check_run(docs, prompts, context)):
        rec["system_prompt_rendered"] = present
    return [encode_record(rec) for rec in records]


# --------------------------------------------------------------------------- metrics
def _rule_record(doc: dict, reply: str) -> dict:
    value = extract_rule(doc, reply)
    return {"extracted": value, "extracted_by": "rule" if value else None}


def doc_record(doc: dict, result: Any) -> dict:
    """The per-doc value every metric of a task shares (aggregations read what they need)."""
    result = record_of(result, partial(_rule_record, doc))  # another filter ran instead: rules only
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
        "llm_error": int(bool(result.get("llm_error"))),
    }


def _of(kind: str):
    return field_is("type", kind)


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
# Signed figures (see taskgen): the sign is the finding, the magnitude is what the paper compares.
SIGNED_METRICS = ("acquiescence_bias", "factual_conceptual_gap")


def _magnitude(items, mean_agg):
    return abs(mean_agg(items))


for _name in SIGNED_METRICS:
    AGGREGATIONS[magnitude_name(_name)] = partial(_magnitude, mean_agg=AGGREGATIONS[_name])
AGGREGATIONS["invalid_rate"] = partial(rate, field="invalid")
AGGREGATIONS["llm_extracted_rate"] = partial(rate, field="llm")
AGGREGATIONS["llm_extractor_errors"] = count_errors

_PAIRED = ("accept_true", "accept_true_std", "reject_false", "reject_false_std",
           "acquiescence_bias", "acquiescence_bias_abs", "acquiescence_bias_std")  # fmt: skip
TYPE_METRICS = ("accuracy", "accuracy_std", "invalid_rate", "llm_extracted_rate", "llm_extractor_errors")
BINARY_METRICS = TYPE_METRICS + _PAIRED
# Single-prompt tasks: a spread over one prompt is 0 by construction, so none is reported.
TYPE_SINGLE_METRICS = tuple(m for m in TYPE_METRICS if not m.endswith("_std"))
BINARY_SINGLE_METRICS = tuple(m for m in BINARY_METRICS if not m.endswith("_std"))
ALL_METRICS = (
    "factual_accuracy", "factual_accuracy_std", "binary_accuracy", "binary_accuracy_std",
    "scenario_accuracy", "scenario_accuracy_std", *_PAIRED,
    "factual_conceptual_gap", "factual_conceptual_gap_abs", "factual_conceptual_gap_std",
    "invalid_rate", "factual_invalid_rate", "binary_invalid_rate", "scenario_invalid_rate", "llm_extracted_rate",
    "llm_extractor_errors",
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


def metric_direction(name: str):
    """True (higher is better), False (lower is better: spreads, invalid rates, magnitudes) or
    taskgen.SIGNED (acquiescence_bias, factual_conceptual_gap: compared by magnitude)."""
    if name in SIGNED_METRICS:
        return SIGNED
    return name in HIGHER_IS_BETTER


def aggregate_all(items: Iterable[Mapping], names: Sequence[str] = ALL_METRICS) -> dict[str, float]:
    """All metrics of a record list at once (for notebooks and tests)."""
    items = list(items)
    return {name: AGGREGATIONS[name](items) for name in names}


# --------------------------------------------------------------------------- the names the YAMLs use
# (``!function utils.<name>``)
def _value(doc: dict, results: list) -> dict:
    return doc_record(doc, results[0])


process_results_type = make_process_results(_value, TYPE_METRICS)
process_results_binary = make_process_results(_value, BINARY_METRICS)
process_results_type_single = make_process_results(_value, TYPE_SINGLE_METRICS)
process_results_binary_single = make_process_results(_value, BINARY_SINGLE_METRICS)
process_results_all = make_process_results(_value, ALL_METRICS)
load_all = partial(load, TYPES, PROMPT_IDS)
load_factual = partial(load, ("factual",), PROMPT_IDS)
load_factual_sp1 = partial(load, ("factual",), (1,))
load_factual_sp2 = partial(load, ("factual",), (2,))
load_factual_sp3 = partial(load, ("factual",), (3,))
load_factual_sp4 = partial(load, ("factual",), (4,))
load_factual_sp5 = partial(load, ("factual",), (5,))
load_binary = partial(load, ("binary",), PROMPT_IDS)
load_binary_sp1 = partial(load, ("binary",), (1,))
load_binary_sp2 = partial(load, ("binary",), (2,))
load_binary_sp3 = partial(load, ("binary",), (3,))
load_binary_sp4 = partial(load, ("binary",), (4,))
load_binary_sp5 = partial(load, ("binary",), (5,))
load_scenario = partial(load, ("scenario",), PROMPT_IDS)
load_scenario_sp1 = partial(load, ("scenario",), (1,))
load_scenario_sp2 = partial(load, ("scenario",), (2,))
load_scenario_sp3 = partial(load, ("scenario",), (3,))
load_scenario_sp4 = partial(load, ("scenario",), (4,))
load_scenario_sp5 = partial(load, ("scenario",), (5,))
accept_true = AGGREGATIONS["accept_true"]
accept_true_std = AGGREGATIONS["accept_true_std"]
accuracy = AGGREGATIONS["accuracy"]
accuracy_std = AGGREGATIONS["accuracy_std"]
acquiescence_bias = AGGREGATIONS["acquiescence_bias"]
acquiescence_bias_abs = AGGREGATIONS["acquiescence_bias_abs"]
acquiescence_bias_std = AGGREGATIONS["acquiescence_bias_std"]
binary_accuracy = AGGREGATIONS["binary_accuracy"]
binary_accuracy_std = AGGREGATIONS["binary_accuracy_std"]
binary_invalid_rate = AGGREGATIONS["binary_invalid_rate"]
factual_accuracy = AGGREGATIONS["factual_accuracy"]
factual_accuracy_std = AGGREGATIONS["factual_accuracy_std"]
factual_conceptual_gap = AGGREGATIONS["factual_conceptual_gap"]
factual_conceptual_gap_abs = AGGREGATIONS["factual_conceptual_gap_abs"]
factual_conceptual_gap_std = AGGREGATIONS["factual_conceptual_gap_std"]
factual_invalid_rate = AGGREGATIONS["factual_invalid_rate"]
invalid_rate = AGGREGATIONS["invalid_rate"]
llm_extracted_rate = AGGREGATIONS["llm_extracted_rate"]
llm_extractor_errors = AGGREGATIONS["llm_extractor_errors"]
reject_false = AGGREGATIONS["reject_false"]
reject_false_std = AGGREGATIONS["reject_false_std"]
scenario_accuracy = AGGREGATIONS["scenario_accuracy"]
scenario_accuracy_std = AGGREGATIONS["scenario_accuracy_std"]
scenario_invalid_rate = AGGREGATIONS["scenario_invalid_rate"]
