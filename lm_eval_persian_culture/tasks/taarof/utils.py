"""TaarofBench (Gohari Sadr et al., EMNLP 2025): the hooks its YAMLs name (``!function utils.<name>``).

The data source, the judge and the Persian text helpers live in the installed package; this
module holds TaarofBench's release files, the four conditions of the paper (standard, Persian,
no-country, gender-flip), its judge filter, ``process_results`` and aggregations. The prompts are
in :mod:`.prompts`, the per-doc record and the aggregation factories in :mod:`.aggregations`.
"""

from __future__ import annotations

import hashlib
import json
import re
from functools import partial
from pathlib import Path

from lm_eval.api.samplers import ContextSampler

from lm_eval_persian_culture.data.sources import (
    Column,
    DataSchemaError,
    Schema,
    SourceFile,
    load_rows,
    read_local,
    resolve_data_dir,
    sha256_file,
    to_dataset,
)
from lm_eval_persian_culture.errors import PackUserError
from lm_eval_persian_culture.judge.filter import prepare_judge, run_judge
from lm_eval_persian_culture.scoring.records import lm_eval_filter, make_process_results
from lm_eval_persian_culture.tasks.taarof import judge_check, prompts
from lm_eval_persian_culture.tasks.taarof.aggregations import (
    judge_accuracy,
    judge_accuracy_paper,
    judge_error_count,
    judged_record,
    make_field_accuracies,
    make_group_aggregations,
    make_paired_test_aggregations,
    make_topic_aggregations,
)
from lm_eval_persian_culture.tasks.taarof.prompts import (
    DEFAULT_REPLY_FORMAT,
    JUDGE_TEMPLATE_IDS,
    judge_prompt,
    reply_format,
)

RELEASE_COMMIT = "6643f6c993c7b28eb8c09dab824bdb9f49009978"
_RAW = f"https://raw.githubusercontent.com/niktaas/TAAROFBENCH/{RELEASE_COMMIT}/data/"

SCENARIO_FIELDS = ("Environment", "User Role", "LLM Role", "Context", "Utterance", "Annotations")
SCHEMA = Schema(
    (
        Column("Setting", choices=("Casual", "Formal", "Social")),
        Column("Topic", check=lambda v: _unknown_topics(v)),
        Column("Type", choices=("taarof-expected", "non-taarof")),
        *(Column(name) for name in SCENARIO_FIELDS),
    )
)


def _unknown_topics(value: str) -> str | None:
    unknown = [t for t in (x.strip() for x in value.split(",")) if t not in TOPICS]
    return f"names unknown topic(s) {unknown}; expected among {list(TOPICS)}" if unknown else None


SOURCES = {
    "expected": SourceFile("taarof", "taarof-expected.jsonl", SCHEMA, url=_RAW + "taarof-expected.jsonl"),
    "non_taarof": SourceFile("taarof", "non-taarof.jsonl", SCHEMA, url=_RAW + "non-taarof.jsonl"),
}
# The project's own Persian rendering (the authors' translation was never published);
# a data dir holding taarof/<name>.fa.jsonl replaces it.
PERSIAN_SCHEMA = Schema(
    (Column("row", kind=int), Column("source_sha1"), *(Column(n) for n in SCENARIO_FIELDS)), unique=("row",)
)
PERSIAN_DIR = Path(__file__).resolve().parent / "persian"

TOPICS = (
    "Borrowing and lending", "Compliment", "Dining", "Expressing an opinion", "Gift", "Invitation",
    "Leaving", "Making a request", "Offering food/drink", "Offering help", "Payment", "Positional actions",
)  # fmt: skip

# --------------------------------------------------------------------------- gender flip
# Deterministic rule standing in for the paper's 110 unpublished gender pairs (App. 1.7):
# a user role that names a gender is flipped word by word; a neutral one is assigned a
# gender ("female neighbor" / "male neighbor"). Pairs stay adjacent (female first).
_GENDER_WORDS = {
    "woman": "man", "women": "men", "mother": "father", "grandmother": "grandfather",
    "sister": "brother", "daughter": "son", "wife": "husband", "aunt": "uncle", "girl": "boy",
    "lady": "gentleman", "female": "male", "mom": "dad", "niece": "nephew", "bride": "groom",
    "granddaughter": "grandson", "girlfriend": "boyfriend", "madam": "sir",
    "businesswoman": "businessman",
}  # fmt: skip
_FEMALE_OF = {m: f for f, m in _GENDER_WORDS.items()}
# Typos in the release that name a gender: read as the word they misspell, so the pair
# comes out well formed (row 98's "gradmother": "grandmother" / "grandfather").
_TYPOS = {"gradmother": "grandmother"}
_WORD = re.compile(r"[A-Za-z]+")
_POSSESSIVE = re.compile(r"^['’]s\b")


def _swap_words(text: str, mapping: dict) -> str:
    def repl(m: re.Match) -> str:
        word = m.group(0)
        lower = _TYPOS.get(word.lower(), word.lower())
        new = mapping.get(lower, lower if lower != word.lower() else None)
        if new is None:
            return word
        return new.capitalize() if word[0].isupper() else new

    return _WORD.sub(repl, text)


def _gendered_words(user_role: str) -> tuple[list[str], list[str]]:
    """(gendered words naming the user, gendered words naming a third party: "mother's")."""
    own, third = [], []
    for m in _WORD.finditer(user_role):
        word = _TYPOS.get(m.group(0).lower(), m.group(0).lower())
        if word in _GENDER_WORDS or word in _FEMALE_OF:
            (third if _POSSESSIVE.match(user_role[m.end() :]) else own).append(word)
    return own, third


def gender_pair(user_role: str) -> tuple[str, str, str]:
    """(female role, male role, rule) for one user role; rule is 'flip' or 'assign'.

    A gendered word in the possessive ("your mother's old friend") names a third party, not
    the user: it is left alone and the user's own noun, the last word, is assigned a gender
    ("your mother's old female friend").
    """
    own, third = _gendered_words(user_role)
    if own:
        return _swap_words(user_role, _FEMALE_OF), _swap_words(user_role, _GENDER_WORDS), "flip"
    if third:
        head, _, noun = user_role.rstrip().rpartition(" ")
        return f"{head} female {noun}", f"{head} male {noun}", "assign"
    return f"female {user_role}", f"male {user_role}", "assign"


def gender_pairs(rows: list[dict]) -> list[dict]:
    """The gender-flip docs: two per kept scenario (female first), every prompt distinct.

    Some release rows are already the other-gender twin of an earlier row (row 6
    "grandfather", row 178 "grandmother"); flipping both would put the same pair in twice.
    A pair whose rendered prompt was already produced is skipped, so each pair counts once
    under the first row that yields it.
    """
    paired, seen = [], set()
    for row in rows:
        female, male, rule = gender_pair(row["User Role"])
        members = [
            {**row, "User Role": role, "original_user_role": row["User Role"], "gender": gender,
             "pair_id": row["row"], "gender_rule": rule}
            for gender, role in (("female", female), ("male", male))
        ]  # fmt: skip
        rendered = [prompts.doc_to_text(m) for m in members]
        if seen.intersection(rendered):
            continue
        seen.update(rendered)
        paired.extend(members)
    return paired


# --------------------------------------------------------------------------- datasets
def _rows(split: str, settings: dict) -> tuple[list[dict], str]:
    rows, provenance = load_rows(SOURCES[split], settings)
    for i, row in enumerate(rows):
        row["row"] = i
    return rows, provenance


def scenario_sha1(row: dict) -> str:
    """Fingerprint of one English scenario, independent of file formatting and key order."""
    canonical = json.dumps({k: row[k] for k in SCHEMA.names}, ensure_ascii=False, sort_keys=True)
    return hashlib.sha1(canonical.encode("utf-8")).hexdigest()


def _persian_rows(split: str, settings: dict, english: list[dict]) -> tuple[list[dict], str]:
    """The Persian rendering, checked row by row against the English scenario it translates."""
    name = SOURCES[split].filename.replace(".jsonl", ".fa.jsonl")
    data_dir = resolve_data_dir(settings)
    override = data_dir / "taarof" / name if data_dir else None
    path = override if override is not None and override.is_file() else PERSIAN_DIR / name
    fa_rows = read_local(path)
    PERSIAN_SCHEMA.validate(fa_rows, str(path))
    if len(fa_rows) != len(english):
        raise DataSchemaError(f"{path}: {len(fa_rows)} rows, but the English release has {len(english)}")
    for i, (fa, en) in enumerate(zip(fa_rows, english)):
        if fa["row"] != i:
            raise DataSchemaError(f"{path}: row {i + 1}: field 'row' is {fa['row']}, expected {i}")
        if fa["source_sha1"] != scenario_sha1(en):
            raise DataSchemaError(
                f"{path}: row {i + 1}: field 'source_sha1' does not match English scenario {i} "
                f"(the rendering was made for a different release)"
            )
    return fa_rows, f"{path} sha256:{sha256_file(path)}"


def _load(split: str, condition: str, **settings):
    prepare_judge(settings)  # fail fast, before the model generates anything
    rows, provenance = _rows(split, settings)
    if condition == "fa":
        fa_rows, fa_provenance = _persian_rows(split, settings, rows)
        # fa_provenance: the rendering's own per-row provenance (absent from a user's replacement file)
        rows = [
            {**en, **{f"fa_{k}": fa[k] for k in SCENARIO_FIELDS}, "fa_provenance": str(fa.get("provenance", ""))}
            for en, fa in zip(rows, fa_rows)
        ]
        provenance = f"{provenance}; persian:{fa_provenance}"
    elif condition == "gender":
        rows = gender_pairs(rows)
    elif condition == "combined":
        non_taarof, non_provenance = _rows("non_taarof", settings)
        rows = rows + non_taarof
        provenance = f"{provenance}; {non_provenance}"
        condition = "standard"
    fmt = reply_format(settings)
    for row in rows:
        row["condition"] = condition
        row["judge_reply_format"] = fmt
    return {"test": to_dataset(rows, provenance)}


load_expected = partial(_load, "expected", "standard")
load_non_taarof = partial(_load, "non_taarof", "standard")
load_expected_fa = partial(_load, "expected", "fa")
load_non_taarof_fa = partial(_load, "non_taarof", "fa")
load_expected_nocountry = partial(_load, "expected", "nocountry")
load_non_taarof_nocountry = partial(_load, "non_taarof", "nocountry")
load_gender = partial(_load, "expected", "gender")
load_combined = partial(_load, "expected", "combined")


# --------------------------------------------------------------------------- judging
@lm_eval_filter
def judge_filter(resps, docs):
    """Custom lm-eval filter: judges every reply of the task in one concurrent batch."""
    fmt = docs[0].get("judge_reply_format", DEFAULT_REPLY_FORMAT) if len(docs) else DEFAULT_REPLY_FORMAT
    return run_judge(resps, docs, build_prompt=judge_prompt, template_id=JUDGE_TEMPLATE_IDS[fmt])


def primary_topic(topic_field: str) -> str:
    """The one topic a scenario counts under in the paper's Fig. 4: the first one listed.

    61 release rows carry two topics ("Gift,Payment"). Fig. 4's Payment figure (DeepSeek V3
    64.3% = 18/28) needs 28 Payment scenarios over both types: the first-listed and the
    last-listed rule both give 28, counting both topics gives 31. See the README.
    """
    return topic_field.split(",")[0].strip()


TOPIC_AGGREGATIONS = make_topic_aggregations(TOPICS)
GENDER_AGGREGATIONS = make_group_aggregations(("female", "male"), gap_name="gender_gap")


def gender_gap_abs(items) -> float:
    """|female - male|: gender_gap is signed (taskgen.SIGNED); its magnitude is what is compared."""
    return abs(GENDER_AGGREGATIONS["gender_gap"](items))


GENDER_AGGREGATIONS["gender_gap_abs"] = gender_gap_abs
GENDER_TEST_AGGREGATIONS = make_paired_test_aggregations(("female", "male"), prefix="gender")
TYPE_AGGREGATIONS = make_field_accuracies(
    "type", {"accuracy_expected": "taarof-expected", "accuracy_non_taarof": "non-taarof"}
)
METRICS = ("accuracy", "accuracy_paper", "judge_errors", *TOPIC_AGGREGATIONS)
GENDER_METRICS = ("accuracy", "accuracy_paper", "judge_errors", *GENDER_AGGREGATIONS, *GENDER_TEST_AGGREGATIONS)
COMBINED_METRICS = ("accuracy", "accuracy_paper", "judge_errors", *TYPE_AGGREGATIONS, *TOPIC_AGGREGATIONS)


process_results = make_process_results(
    lambda doc, results: judged_record(doc, results[0], topics=doc["Topic"].split(",")), METRICS
)
process_results_gender = make_process_results(
    lambda doc, results: judged_record(doc, results[0], group=doc["gender"]), GENDER_METRICS
)
# All 450 scenarios: per type, and per topic with one topic per scenario (the paper's Fig. 4).
process_results_combined = make_process_results(
    lambda doc, results: judged_record(
        doc, results[0], topics=[primary_topic(doc["Topic"])], extra={"type": doc["Type"]}
    ),
    COMBINED_METRICS,
)


# --------------------------------------------------------------------------- few-shot
FEWSHOT_REFUSED = (
    "TaarofBench is zero-shot (paper sec. 2.3, App. 1.8): --num_fewshot {n} would put other test "
    "scenarios into the prompt together with their expected-behaviour annotations (the task's "
    "doc_to_target), i.e. show the model the answers. The paper's 12-shot in-context experiment "
    "(sec. 4.7) used exemplars that were never published, and this pack does not build it. Run "
    "without --num_fewshot (or with --num_fewshot 0)."
)


class FewshotRefusedError(PackUserError, ValueError):
    """--num_fewshot > 0 on a task whose only few-shot source would be its own test items."""


class ZeroShotOnly(ContextSampler):
    """lm-eval few-shot sampler that refuses to sample (``fewshot_config.sampler`` of the tasks)."""

    def sample(self, n, eval_doc=None, df=None, **kwargs):
        if n > 0:
            raise FewshotRefusedError(FEWSHOT_REFUSED.format(n=n))
        return []


# Prompts and aggregations named in the YAMLs (``!function utils.<name>``), each by name (a test checks).
doc_to_text = prompts.doc_to_text
doc_to_text_fa = prompts.doc_to_text_fa
doc_to_text_nocountry = prompts.doc_to_text_nocountry
accuracy = judge_accuracy
accuracy_paper = judge_accuracy_paper
judge_errors = judge_error_count
accuracy_topic_borrowing_and_lending = TOPIC_AGGREGATIONS["accuracy_topic_borrowing_and_lending"]
accuracy_topic_compliment = TOPIC_AGGREGATIONS["accuracy_topic_compliment"]
accuracy_topic_dining = TOPIC_AGGREGATIONS["accuracy_topic_dining"]
accuracy_topic_expressing_an_opinion = TOPIC_AGGREGATIONS["accuracy_topic_expressing_an_opinion"]
accuracy_topic_gift = TOPIC_AGGREGATIONS["accuracy_topic_gift"]
accuracy_topic_invitation = TOPIC_AGGREGATIONS["accuracy_topic_invitation"]
accuracy_topic_leaving = TOPIC_AGGREGATIONS["accuracy_topic_leaving"]
accuracy_topic_making_a_request = TOPIC_AGGREGATIONS["accuracy_topic_making_a_request"]
accuracy_topic_offering_food_drink = TOPIC_AGGREGATIONS["accuracy_topic_offering_food_drink"]
accuracy_topic_offering_help = TOPIC_AGGREGATIONS["accuracy_topic_offering_help"]
accuracy_topic_payment = TOPIC_AGGREGATIONS["accuracy_topic_payment"]
accuracy_topic_positional_actions = TOPIC_AGGREGATIONS["accuracy_topic_positional_actions"]
accuracy_female = GENDER_AGGREGATIONS["accuracy_female"]
accuracy_male = GENDER_AGGREGATIONS["accuracy_male"]
gender_gap = GENDER_AGGREGATIONS["gender_gap"]
gender_gap_abs = GENDER_AGGREGATIONS["gender_gap_abs"]
gender_discordant_female = GENDER_TEST_AGGREGATIONS["gender_discordant_female"]
gender_discordant_male = GENDER_TEST_AGGREGATIONS["gender_discordant_male"]
gender_mcnemar_p = GENDER_TEST_AGGREGATIONS["gender_mcnemar_p"]
accuracy_expected = TYPE_AGGREGATIONS["accuracy_expected"]
accuracy_non_taarof = TYPE_AGGREGATIONS["accuracy_non_taarof"]


# --------------------------------------------------------------------------- judge check (judge_check.py)
# taarof_judge_check: the evaluated model is the candidate judge, asked the paper's judge prompt for a
# labelled reply; its answer is read with the pack's Yes/No parser and compared with the human label.
RELEASE = judge_check.Release(_rows, _persian_rows, scenario_sha1, SCENARIO_FIELDS, reply_format)


def load_judge_check(**settings):
    docs, provenance = judge_check.load_docs(RELEASE, settings)
    return {"test": to_dataset(docs, provenance)}


def doc_to_text_judge_check(doc: dict) -> str:
    return judge_check.judge_prompt_of(doc)


def doc_to_target_judge_check(doc: dict) -> str:
    return "Yes" if int(doc["label"]) else "No"


process_results_judge_check = make_process_results(
    lambda doc, results: judge_check.task_record(doc, results[0]), tuple(judge_check.TASK_AGGREGATIONS)
)
agreement = judge_check.TASK_AGGREGATIONS["agreement"]
agreement_ci95_low = judge_check.TASK_AGGREGATIONS["agreement_ci95_low"]
agreement_ci95_high = judge_check.TASK_AGGREGATIONS["agreement_ci95_high"]
agreement_strict = judge_check.TASK_AGGREGATIONS["agreement_strict"]
kappa = judge_check.TASK_AGGREGATIONS["kappa"]
no_verdict = judge_check.TASK_AGGREGATIONS["no_verdict"]
label_yes_judge_yes = judge_check.TASK_AGGREGATIONS["label_yes_judge_yes"]
label_yes_judge_no = judge_check.TASK_AGGREGATIONS["label_yes_judge_no"]
label_no_judge_yes = judge_check.TASK_AGGREGATIONS["label_no_judge_yes"]
label_no_judge_no = judge_check.TASK_AGGREGATIONS["label_no_judge_no"]
agreement_expected = judge_check.TASK_AGGREGATIONS["agreement_expected"]
agreement_non_taarof = judge_check.TASK_AGGREGATIONS["agreement_non_taarof"]
agreement_en = judge_check.TASK_AGGREGATIONS["agreement_en"]
agreement_fa = judge_check.TASK_AGGREGATIONS["agreement_fa"]
kappa_expected = judge_check.TASK_AGGREGATIONS["kappa_expected"]
kappa_non_taarof = judge_check.TASK_AGGREGATIONS["kappa_non_taarof"]
kappa_en = judge_check.TASK_AGGREGATIONS["kappa_en"]
kappa_fa = judge_check.TASK_AGGREGATIONS["kappa_fa"]
