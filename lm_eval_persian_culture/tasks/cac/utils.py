"""CAC, Culturally-Aware Conversations (Havaldar, Rai, Cho, Ungar; HCI+NLP @ EMNLP 2025, arXiv 2510.11563).

Everything particular to the benchmark: the pack's data schema (conversations + per-country
annotator picks), the checks across the two files, the docs (one per conversation and
country, each carrying the accepted range computed from the picks), the prompt of App. B
(verbatim), the reading of the model's pick, per-doc records and the aggregations
(range accuracy overall, per stylistic axis, per relationship, per country; invalid rate;
the project's own cross-country ``adaptation``).

Reading, the LLM-extractor fallback and the record are the shared option-task helper's
(``tasks/_option_task.py``; ``TASK`` below). lm-eval executes this file anew for every
``!function utils.<name>`` of a YAML, so it keeps no state of its own: the LLM extractor the loaders
configure and the filter uses is the process's one ``judge.extractor.fallback`` object. The names the
YAMLs use are at the end of the file.
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Iterable, Mapping, Sequence
from functools import partial
from typing import Any

from lm_eval_persian_culture.data.settings import choice_setting
from lm_eval_persian_culture.data.sources import (
    DATA_DIR_ENV,
    PROVENANCE_FIELD,
    Column,
    DataNotFoundError,
    DataSchemaError,
    Schema,
    SourceFile,
    id_problem,
    load_rows,
    resolve_data_dir,
)
from lm_eval_persian_culture.scoring.aggregations import NAN, mean_or_nan, rate, slug
from lm_eval_persian_culture.scoring.records import make_process_results
from lm_eval_persian_culture.tasks._option_task import OptionTask
from lm_eval_persian_culture.tasks.cac.ranges import SIGMAS, accepted_range

logger = logging.getLogger("lm_eval_persian_culture")

UPSTREAM = "github.com/shreyahavaldar/culturally_aware_conversations"

# --------------------------------------------------------------------------- the framework
# The eight countries of the annotation study, in Table 2's order; the name is what the
# prompt's {country} slot receives (Table 2's column headers).
COUNTRIES = {
    "america": "America",
    "india": "India",
    "china": "China",
    "japan": "Japan",
    "korea": "Korea",
    "netherlands": "Netherlands",
    "mexico": "Mexico",
    "nigeria": "Nigeria",
}
# Not in the paper: runs only on Iranian annotations a user supplies (annotations_iran.jsonl).
IRAN = ("iran", "Iran")

# The eight interpersonal relationships (sec. 2; Figures A1-A3): familial, workplace, day-to-day.
RELATIONSHIPS = {
    "husband_wife": "Husband–Wife",
    "parent_child": "Parent–Child",
    "grandparent_grandchild": "Grandparent–Grandchild",
    "boss_employee": "Boss–Employee",
    "coworkers": "Coworkers",
    "strangers": "Strangers",
    "neighbors": "Neighbors",
    "friends": "Friends",
}
# The six stylistic axes (Figure 2, Table A2); response 1 is the first-named pole, 5 the second.
AXES = {
    "directness_indirectness": "Directness / Indirectness",
    "politeness_rudeness": "Politeness / Rudeness",
    "insistence_yielding": "Insistence / Yielding",
    "gratitude_expectation": "Gratitude / Expectation",
    "pride_shame": "Pride / Shame",
    "self_disclosure_secrecy": "Self-disclosure / Secrecy",
}
# Spellings a release may use for the same value.
_ALIASES = {
    "co_workers": "coworkers", "coworker": "coworkers", "neighbours": "neighbors", "neighbor": "neighbors",
    "stranger": "strangers", "friend": "friends", "employee_boss": "boss_employee", "wife_husband": "husband_wife",
    "child_parent": "parent_child", "grandchild_grandparent": "grandparent_grandchild",
    "directness": "directness_indirectness", "politeness": "politeness_rudeness",
    "insistence": "insistence_yielding", "gratitude": "gratitude_expectation", "pride": "pride_shame",
    "self_disclosure": "self_disclosure_secrecy", "selfdisclosure_secrecy": "self_disclosure_secrecy",
}  # fmt: skip


def canonical(value: Any, known: Mapping[str, str]) -> str | None:
    """The slug of a relationship / axis / country as written in the data, or None if unknown."""
    key = slug(str(value))
    key = _ALIASES.get(key, key)
    return key if key in known else None


def _known_problem(known: Mapping[str, str]):
    def check(value: Any) -> str | None:
        if canonical(value, known) is None:
            hint = ""
            if slug(str(value)) == IRAN[0] and IRAN[0] not in known:
                hint = " (Iranian picks go into annotations_iran.jsonl, which enables cac_iran)"
            return f"has value {value!r}, expected one of {list(known.values())}{hint}"
        return None

    return check


# --------------------------------------------------------------------------- prompt (App. B)
# Verbatim from App. B. Line breaks follow the paper's text; its PDF layout (spacing between
# blocks) cannot be recovered exactly from the text, see README.
PROMPT = """You are an expert in intercultural communication. Given a country, a social situation, a pair of characters, and the first turn in a conversation, your task is to select the response that best reflects the cultural and stylistic norms and communication practices of the specified country.

Country: {country}
Situation: {situation}
Characters: {characters}
First turn: {first_turn}

Possible responses:

1. {response_1}
2. {response_2}
3. {response_3}
4. {response_4}
5. {response_5}

Your answer should be the number (1-5) corresponding to the response that best fits the cultural context. Generate only the number as your response, without any additional text or explanation."""  # noqa: E501 (verbatim prompt)

RESPONSE_FIELDS = tuple(f"response_{i}" for i in range(1, 6))


def doc_to_text(doc: dict) -> str:
    return PROMPT.format(
        country=doc["country_name"],
        situation=doc["situation"],
        characters=doc["characters"],
        first_turn=doc["first_turn"],
        **{f: doc[f] for f in RESPONSE_FIELDS},
    )


# --------------------------------------------------------------------------- schema
def _pick_problem(value: int) -> str | None:
    return None if 1 <= value <= 5 else f"has value {value!r}, expected a response number 1-5"


CONVERSATION_SCHEMA = Schema(
    (
        Column("id", kind=object, check=id_problem),
        Column("situation"),
        Column("relationship", check=_known_problem(RELATIONSHIPS)),
        Column("stylistic_axis", check=_known_problem(AXES)),
        Column("characters"),
        Column("first_turn"),
        *(Column(f) for f in RESPONSE_FIELDS),
    )
)


def _annotation_schema(countries: Mapping[str, str]) -> Schema:
    return Schema(
        (
            Column("conversation_id", kind=object, check=id_problem),
            Column("country", check=_known_problem(countries)),
            Column("annotator", kind=object, check=id_problem),
            Column("pick", kind=int, check=_pick_problem),
        )
    )


CONVERSATIONS = SourceFile("cac", "conversations.jsonl", CONVERSATION_SCHEMA)
ANNOTATIONS = SourceFile("cac", "annotations.jsonl", _annotation_schema(COUNTRIES))
IRAN_ANNOTATIONS = SourceFile("cac", "annotations_iran.jsonl", _annotation_schema(dict([IRAN])))
SIGMA_SETTING = "cac_sigma"
DEFAULT_SIGMA = "sample"


def _path(source: SourceFile, settings: Mapping | None) -> str:
    data_dir = resolve_data_dir(settings)
    return str(data_dir / source.benchmark / source.filename) if data_dir else f"{source.benchmark}/{source.filename}"


def _read(source: SourceFile, settings: Mapping | None) -> tuple[list[dict], str]:
    if resolve_data_dir(settings) is None:
        raise DataNotFoundError(
            f"CAC: no data dir is set. The release ({UPSTREAM}) could not be reached or read when the pack was "
            f"written, so its layout is unknown and the pack does not download it. Put the data into "
            f"<data_dir>/cac/{CONVERSATIONS.filename} and <data_dir>/cac/{ANNOTATIONS.filename} in the schema of "
            f'tasks/cac/README.md and pass --metadata \'{{"data_dir": "<data_dir>"}}\' (or set {DATA_DIR_ENV}).'
        )
    try:
        return load_rows(source, settings)
    except DataSchemaError as err:
        if "columns found" not in str(err):
            raise
        expected = ", ".join(source.schema.names)
        raise DataSchemaError(
            f"{err}. CAC's pack schema for {source.filename} is one JSON object per line with the fields "
            f"{expected} (tasks/cac/README.md, 'Data'); convert the upstream release into it."
        ) from None


def _int_pick(value: Any) -> int:
    return int(value.strip()) if isinstance(value, str) else int(value)


def load_conversations(settings: Mapping | None = None) -> tuple[list[dict], str]:
    rows, provenance = _read(CONVERSATIONS, settings)
    origin = _path(CONVERSATIONS, settings)
    seen: dict[str, int] = {}
    conversations = []
    for i, row in enumerate(rows, start=1):  # rows counted from 1, as in every error the pack names a row in
        key = str(row["id"]).strip()
        if key in seen:
            raise DataSchemaError(f"{origin}: row {i}: field 'id' value {row['id']!r} repeats row {seen[key]}")
        seen[key] = i
        conv = {
            "conversation_id": key,
            "situation": row["situation"].strip(),
            "relationship": canonical(row["relationship"], RELATIONSHIPS),
            "stylistic_axis": canonical(row["stylistic_axis"], AXES),
            "characters": row["characters"].strip(),
            "first_turn": row["first_turn"].strip(),
            **{f: row[f].strip() for f in RESPONSE_FIELDS},
        }
        conversations.append(conv)
    return conversations, provenance


def load_picks(
    source: SourceFile,
    countries: Mapping[str, str],
    conversation_ids: Sequence[str],
    settings: Mapping | None = None,
) -> tuple[dict[tuple[str, str], list[int]], str]:
    """(conversation id, country) -> the annotators' picks, checked against the conversations.

    Every conversation needs at least one pick from every country of ``countries``; a pick
    for an unknown conversation or a second pick by the same annotator is an error.
    """
    rows, provenance = _read(source, settings)
    origin = _path(source, settings)
    known = set(conversation_ids)
    picks: dict[tuple[str, str], list[int]] = {}
    by_annotator: dict[tuple[str, str, str], int] = {}
    for i, row in enumerate(rows, start=1):  # rows counted from 1
        conv = str(row["conversation_id"]).strip()
        if conv not in known:
            raise DataSchemaError(
                f"{origin}: row {i}: field 'conversation_id' value {row['conversation_id']!r} names no conversation "
                f"of {_path(CONVERSATIONS, settings)}"
            )
        country = canonical(row["country"], countries)
        key = (conv, country, str(row["annotator"]).strip())
        if key in by_annotator:
            raise DataSchemaError(
                f"{origin}: row {i}: field 'annotator' {row['annotator']!r} already picked for conversation "
                f"{conv!r} in {countries[country]} (row {by_annotator[key]}); one pick per annotator"
            )
        by_annotator[key] = i
        picks.setdefault((conv, country), []).append(_int_pick(row["pick"]))
    for conv in conversation_ids:
        for country, name in countries.items():
            if (conv, country) not in picks:
                raise DataSchemaError(
                    f"{origin}: conversation {conv!r} has no pick from {name} (field 'country' = {country!r}); "
                    f"every conversation needs the picks of every country"
                )
    return picks, provenance


def _sigma(settings: Mapping | None) -> str:
    return choice_setting(settings, SIGMA_SETTING, SIGMAS, DEFAULT_SIGMA)


def build_docs(countries: Mapping[str, str], source: SourceFile, settings: Mapping | None = None) -> list[dict]:
    """One doc per conversation and country, conversation-major (``--limit`` keeps whole conversations)."""
    sigma = _sigma(settings)
    conversations, conv_provenance = load_conversations(settings)
    picks, pick_provenance = load_picks(source, countries, [c["conversation_id"] for c in conversations], settings)
    provenance = f"conversations: {conv_provenance}; annotations: {pick_provenance}"
    docs = []
    for conv in conversations:
        for country, name in countries.items():
            these = picks[(conv["conversation_id"], country)]
            accepted = accepted_range(these, sigma=sigma)
            docs.append({
                **conv,
                "country": country,
                "country_name": name,
                "picks": these,
                "pick_mean": accepted.mean,
                "pick_sigma": accepted.sigma,
                "range_low": accepted.low,
                "range_high": accepted.high,
                "accepted_first": accepted.first,
                "accepted_last": accepted.last,
                "sigma": sigma,
                "target": (f"{accepted.first}-{accepted.last}" if accepted.first != accepted.last
                           else str(accepted.first)),
                PROVENANCE_FIELD: provenance,
            })  # fmt: skip
    logger.info("CAC: %d docs (%d conversations x %d countries), sigma=%s", len(docs), len(conversations),
                len(countries), sigma)  # fmt: skip
    return docs


def _dataset(docs: list[dict]):
    import datasets

    return {"test": datasets.Dataset.from_list(docs)}


def load_country(country: str, **settings):
    """``custom_dataset`` of ``cac_<country>``: the 48 conversations with that country's ranges."""
    configure_extractor(settings)  # a bad extractor configuration fails before any model time
    return _dataset(build_docs({country: COUNTRIES[country]}, ANNOTATIONS, settings))


def load_cross_country(**settings):
    """``custom_dataset`` of ``cac_cross_country``: every conversation under all eight countries."""
    configure_extractor(settings)  # a bad extractor configuration fails before any model time
    return _dataset(build_docs(COUNTRIES, ANNOTATIONS, settings))


def load_iran(**settings):
    """``custom_dataset`` of ``cac_iran``: only with Iranian annotations supplied by the user."""
    configure_extractor(settings)  # a bad extractor configuration fails before any model time
    data_dir = resolve_data_dir(settings)
    path = data_dir / "cac" / IRAN_ANNOTATIONS.filename if data_dir else None
    if path is None or not path.is_file():
        where = str(path) if path else f"<data_dir>/cac/{IRAN_ANNOTATIONS.filename} (no data dir is set)"
        raise DataNotFoundError(
            f"cac_iran: no Iranian annotations supplied: {where} not found. CAC's annotation study covers "
            f"{', '.join(COUNTRIES.values())} only; cac_iran runs on Iranian annotations you collect, in the schema "
            f"of annotations.jsonl (conversation_id, country = 'iran', annotator, pick 1-5; every conversation "
            f"needs at least one pick). The pack never makes up ranges."
        )
    return _dataset(build_docs(dict([IRAN]), IRAN_ANNOTATIONS, settings))


# --------------------------------------------------------------------------- reading, filter and records
# The shared option-task helper reads the pick (the pack's answer grammar over the five numbers and the five
# response texts: quoted, inflected, or a quoted part of only one response; a reply going on into an invented
# next conversation is cut there), hands what the rules cannot read to the LLM extractor when a judge is
# configured (set at dataset load), and makes the per-doc record. The filter's record keeps CAC's keys:
# ``{"reply", "pick": 1-5 | None, "read_by": "rule" | "llm" | None}`` (plus ``llm_raw``/``llm_error`` where
# the extractor was asked).
LLM_EXTRACTOR_SETTING = "cac_llm_extractor"


def _question(doc: Mapping) -> str:
    return (f"Country: {doc.get('country_name')}\nSituation: {doc['situation']}\nCharacters: {doc['characters']}\n"
            f"First turn: {doc['first_turn']}\nWhich response best fits the cultural context?")  # fmt: skip


def _in_range(doc: Mapping, index: int | None) -> bool:
    """The pick lies in the accepted range; an unreadable reply is wrong."""
    return index is not None and doc["accepted_first"] <= index + 1 <= doc["accepted_last"]


TASK = OptionTask(
    name="CAC",
    switch=LLM_EXTRACTOR_SETTING,
    options=lambda doc: [doc[f] for f in RESPONSE_FIELDS],
    question=_question,
    labels="numbers",
    correct=_in_range,
    fields=(
        "conversation_id",
        "country",
        "relationship",
        "stylistic_axis",
        "pick_mean",
        "accepted_first",
        "accepted_last",
    ),  # fmt: skip
    more=lambda doc, index: {"pick": None if index is None else index + 1},
    # the prompt opens with the country; base models also number invented items "Conversation 2:"
    next_item=("Conversation", "Country"),
    answer_key="pick",
    by_key="read_by",
    cut_warning="CAC: %d replies stop inside an unclosed <think> block (no pick): reasoning models need "
    "--gen_kwargs max_gen_toks=... well above the default 256 (see tasks/cac/README.md)",
)
EXTRACTOR = TASK.extractor
configure_extractor = TASK.configure
extract_filter = TASK.filter
doc_record = TASK.record


def read_pick(reply: str, doc: Mapping) -> tuple[int | None, str | None]:
    """(pick, "rule") as the rules read it, else (None, None)."""
    index = TASK.read(reply, doc)
    return (index + 1, "rule") if index is not None else (None, None)


# --------------------------------------------------------------------------- aggregations
def range_accuracy(items: Iterable[Mapping]) -> float:
    """Share of conversations whose pick lies in the accepted range; an unreadable reply is wrong."""
    return rate(items, "correct")


def macro_range_accuracy(items: Iterable[Mapping]) -> float:
    """Mean over countries of each country's range accuracy (Table 2, averaged across its columns)."""
    per_country: dict[str, list[int]] = {}
    for it in items:
        per_country.setdefault(it["country"], []).append(it["correct"])
    return mean_or_nan([sum(v) / len(v) for v in per_country.values()])


def chance_range_accuracy(items: Iterable[Mapping]) -> float:
    """Expected range accuracy of a uniformly random pick: mean accepted-range size / 5."""
    return mean_or_nan([(it["accepted_last"] - it["accepted_first"] + 1) / 5 for it in items])


def adaptation_pairs(items: Iterable[Mapping]) -> list[tuple[Mapping, Mapping]]:
    """Contrasting pairs: the same conversation under two countries whose accepted ranges
    differ and whose annotator means differ, ordered so that the first has the lower mean."""
    by_conversation: dict[str, list[Mapping]] = {}
    for it in items:
        by_conversation.setdefault(it["conversation_id"], []).append(it)
    pairs = []
    for members in by_conversation.values():
        for a, b in itertools.combinations(members, 2):
            if a["country"] == b["country"]:
                continue
            if (a["accepted_first"], a["accepted_last"]) == (b["accepted_first"], b["accepted_last"]):
                continue
            if abs(a["pick_mean"] - b["pick_mean"]) < 1e-9:
                continue  # ranges differ in width only: no direction to follow
            pairs.append((a, b) if a["pick_mean"] < b["pick_mean"] else (b, a))
    return pairs


def adaptation(items: Iterable[Mapping]) -> float:
    """Share of contrasting pairs on which the model's pick moves with the country: higher
    for the country whose annotators chose higher (an unreadable pick, or the same pick for
    both countries, does not move)."""
    pairs = adaptation_pairs(list(items))
    if not pairs:
        return NAN
    moved = sum(1 for lo, hi in pairs if lo["pick"] is not None and hi["pick"] is not None and lo["pick"] < hi["pick"])
    return moved / len(pairs)


def adaptation_pair_count(items: Iterable[Mapping]) -> int:
    return len(adaptation_pairs(list(items)))


AXIS_METRICS = tuple(f"range_accuracy_axis_{a}" for a in AXES)
RELATIONSHIP_METRICS = tuple(f"range_accuracy_relationship_{r}" for r in RELATIONSHIPS)
COUNTRY_METRICS = tuple(f"range_accuracy_{c}" for c in COUNTRIES)
# invalid_rate, llm_extracted_rate, llm_extractor_errors and the range accuracy per axis, relationship and
# country from the shared helper (its "accuracy" is range_accuracy here: "correct" is "in the accepted range")
AGGREGATIONS: dict[str, Any] = TASK.aggregations({
    "stylistic_axis": dict(zip(AXIS_METRICS, AXES)),
    "relationship": dict(zip(RELATIONSHIP_METRICS, RELATIONSHIPS)),
    "country": dict(zip(COUNTRY_METRICS, COUNTRIES)),
})  # fmt: skip
del AGGREGATIONS["accuracy"]
AGGREGATIONS.update({"range_accuracy": range_accuracy, "chance_range_accuracy": chance_range_accuracy})
CROSS_AGGREGATIONS = {
    **AGGREGATIONS,
    "range_accuracy": macro_range_accuracy,  # mean over countries
    "adaptation": adaptation,
    "adaptation_pairs": adaptation_pair_count,
}

COUNTRY_TASK_METRICS = ("range_accuracy", "invalid_rate", "llm_extracted_rate", "llm_extractor_errors",
                        "chance_range_accuracy", *AXIS_METRICS, *RELATIONSHIP_METRICS)  # fmt: skip
CROSS_TASK_METRICS = ("range_accuracy", *COUNTRY_METRICS, "adaptation", "adaptation_pairs", "invalid_rate",
                      "llm_extracted_rate", "llm_extractor_errors", "chance_range_accuracy", *AXIS_METRICS,
                      *RELATIONSHIP_METRICS)  # fmt: skip
LOWER_IS_BETTER = {
    "invalid_rate",
    "llm_extracted_rate",
    "llm_extractor_errors",
    "chance_range_accuracy",
    "adaptation_pairs",
}  # the last two describe the data


def _value(doc: dict, results: list) -> dict:
    return TASK.record(doc, results[0])


def aggregate(items: Iterable[Mapping], cross: bool = False) -> dict[str, float]:
    """All metrics of a record list at once (for notebooks and tests)."""
    items = list(items)
    table = CROSS_AGGREGATIONS if cross else AGGREGATIONS
    names = CROSS_TASK_METRICS if cross else COUNTRY_TASK_METRICS
    return {name: table[name](items) for name in names}


# --------------------------------------------------------------------------- the names the YAMLs use
# (``!function utils.<name>``); cross-country aggregations carry a ``cross_`` prefix.
process_results = make_process_results(_value, COUNTRY_TASK_METRICS)
process_results_cross = make_process_results(_value, CROSS_TASK_METRICS)

load_america = partial(load_country, "america")
load_india = partial(load_country, "india")
load_china = partial(load_country, "china")
load_japan = partial(load_country, "japan")
load_korea = partial(load_country, "korea")
load_netherlands = partial(load_country, "netherlands")
load_mexico = partial(load_country, "mexico")
load_nigeria = partial(load_country, "nigeria")
cross_adaptation = CROSS_AGGREGATIONS["adaptation"]
cross_adaptation_pairs = CROSS_AGGREGATIONS["adaptation_pairs"]
cross_chance_range_accuracy = CROSS_AGGREGATIONS["chance_range_accuracy"]
cross_invalid_rate = CROSS_AGGREGATIONS["invalid_rate"]
cross_llm_extracted_rate = CROSS_AGGREGATIONS["llm_extracted_rate"]
cross_llm_extractor_errors = CROSS_AGGREGATIONS["llm_extractor_errors"]
cross_range_accuracy = CROSS_AGGREGATIONS["range_accuracy"]
cross_range_accuracy_america = CROSS_AGGREGATIONS["range_accuracy_america"]
cross_range_accuracy_axis_directness_indirectness = CROSS_AGGREGATIONS["range_accuracy_axis_directness_indirectness"]
cross_range_accuracy_axis_gratitude_expectation = CROSS_AGGREGATIONS["range_accuracy_axis_gratitude_expectation"]
cross_range_accuracy_axis_insistence_yielding = CROSS_AGGREGATIONS["range_accuracy_axis_insistence_yielding"]
cross_range_accuracy_axis_politeness_rudeness = CROSS_AGGREGATIONS["range_accuracy_axis_politeness_rudeness"]
cross_range_accuracy_axis_pride_shame = CROSS_AGGREGATIONS["range_accuracy_axis_pride_shame"]
cross_range_accuracy_axis_self_disclosure_secrecy = CROSS_AGGREGATIONS["range_accuracy_axis_self_disclosure_secrecy"]
cross_range_accuracy_china = CROSS_AGGREGATIONS["range_accuracy_china"]
cross_range_accuracy_india = CROSS_AGGREGATIONS["range_accuracy_india"]
cross_range_accuracy_japan = CROSS_AGGREGATIONS["range_accuracy_japan"]
cross_range_accuracy_korea = CROSS_AGGREGATIONS["range_accuracy_korea"]
cross_range_accuracy_mexico = CROSS_AGGREGATIONS["range_accuracy_mexico"]
cross_range_accuracy_netherlands = CROSS_AGGREGATIONS["range_accuracy_netherlands"]
cross_range_accuracy_nigeria = CROSS_AGGREGATIONS["range_accuracy_nigeria"]
cross_range_accuracy_relationship_boss_employee = CROSS_AGGREGATIONS["range_accuracy_relationship_boss_employee"]
cross_range_accuracy_relationship_coworkers = CROSS_AGGREGATIONS["range_accuracy_relationship_coworkers"]
cross_range_accuracy_relationship_friends = CROSS_AGGREGATIONS["range_accuracy_relationship_friends"]
cross_range_accuracy_relationship_grandparent_grandchild = CROSS_AGGREGATIONS[
    "range_accuracy_relationship_grandparent_grandchild"
]
cross_range_accuracy_relationship_husband_wife = CROSS_AGGREGATIONS["range_accuracy_relationship_husband_wife"]
cross_range_accuracy_relationship_neighbors = CROSS_AGGREGATIONS["range_accuracy_relationship_neighbors"]
cross_range_accuracy_relationship_parent_child = CROSS_AGGREGATIONS["range_accuracy_relationship_parent_child"]
cross_range_accuracy_relationship_strangers = CROSS_AGGREGATIONS["range_accuracy_relationship_strangers"]
invalid_rate = AGGREGATIONS["invalid_rate"]
llm_extracted_rate = AGGREGATIONS["llm_extracted_rate"]
llm_extractor_errors = AGGREGATIONS["llm_extractor_errors"]
range_accuracy_axis_directness_indirectness = AGGREGATIONS["range_accuracy_axis_directness_indirectness"]
range_accuracy_axis_gratitude_expectation = AGGREGATIONS["range_accuracy_axis_gratitude_expectation"]
range_accuracy_axis_insistence_yielding = AGGREGATIONS["range_accuracy_axis_insistence_yielding"]
range_accuracy_axis_politeness_rudeness = AGGREGATIONS["range_accuracy_axis_politeness_rudeness"]
range_accuracy_axis_pride_shame = AGGREGATIONS["range_accuracy_axis_pride_shame"]
range_accuracy_axis_self_disclosure_secrecy = AGGREGATIONS["range_accuracy_axis_self_disclosure_secrecy"]
range_accuracy_relationship_boss_employee = AGGREGATIONS["range_accuracy_relationship_boss_employee"]
range_accuracy_relationship_coworkers = AGGREGATIONS["range_accuracy_relationship_coworkers"]
range_accuracy_relationship_friends = AGGREGATIONS["range_accuracy_relationship_friends"]
range_accuracy_relationship_grandparent_grandchild = AGGREGATIONS["range_accuracy_relationship_grandparent_grandchild"]
range_accuracy_relationship_husband_wife = AGGREGATIONS["range_accuracy_relationship_husband_wife"]
range_accuracy_relationship_neighbors = AGGREGATIONS["range_accuracy_relationship_neighbors"]
range_accuracy_relationship_parent_child = AGGREGATIONS["range_accuracy_relationship_parent_child"]
range_accuracy_relationship_strangers = AGGREGATIONS["range_accuracy_relationship_strangers"]
