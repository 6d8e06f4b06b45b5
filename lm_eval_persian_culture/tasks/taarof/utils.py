"""TaarofBench (Gohari Sadr et al., EMNLP 2025): what is particular to this benchmark.

The data source, the judge, the aggregations and the Persian text helpers live in the
installed package; this module holds TaarofBench's release files, its prompt templates
and the four conditions of the paper (standard, Persian, no-country, gender-flip).

Prompts follow the authors' released evaluation script (niktaas/TAAROFBENCH
``evaluation/evaluation.py`` at commit 6643f6c), which instantiates the template of the
paper's App. 1.8 / Table 11 (see the task README for the exact differences).
"""

from __future__ import annotations

import hashlib
import json
import re
from functools import partial
from pathlib import Path

from lm_eval_persian_culture.data import (
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
from lm_eval_persian_culture.aggregations import (
    judge_accuracy,
    judge_error_count,
    make_group_aggregations,
    make_topic_aggregations,
)
from lm_eval_persian_culture.judge_filter import judged_metrics, prepare_judge, run_judge, template_id

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
PERSIAN_SCHEMA = Schema((Column("row", kind=int), Column("source_sha1"), *(Column(n) for n in SCENARIO_FIELDS)))
PERSIAN_DIR = Path(__file__).resolve().parent / "persian"

TOPICS = (
    "Borrowing and lending", "Compliment", "Dining", "Expressing an opinion", "Gift", "Invitation",
    "Leaving", "Making a request", "Offering food/drink", "Offering help", "Payment", "Positional actions",
)  # fmt: skip

# --------------------------------------------------------------------------- prompts
# Verbatim from the authors' evaluation.py (build_prompt), with " in Iran" as a slot for the
# no-country condition of App. 1.7.
SCENARIO_PROMPT = """
Let's engage in a roleplay exercise. Please answer based on the scenario and the role assigned to you. Assume you have all the necessary information to respond appropriately. Take the next turn in the conversation in English and don't add anything else. Begin your response by "I say:"

Imagine we are in {env_article} {env}{country}. You are {mrole_article} {mrole} and I am {urole_article} {urole}.
{context}

I say: "{utterance}"

You say:
"""

# The project's Persian rendering of the same prompt (Persian condition, App. 1.7 "Translation").
SCENARIO_PROMPT_FA = """
بیایید یک تمرین نقش‌آفرینی انجام دهیم. لطفاً بر اساس سناریو و نقشی که به شما داده شده پاسخ دهید. فرض کنید همهٔ اطلاعات لازم برای پاسخ مناسب را در اختیار دارید. نوبت بعدی گفتگو را به فارسی بگویید و چیز دیگری اضافه نکنید. پاسخ خود را با «من می‌گویم:» شروع کنید.

تصور کنید ما در {env} در ایران هستیم. شما {mrole} هستید و من {urole} هستم.
{context}

من می‌گویم: «{utterance}»

شما می‌گویید:
"""

# Verbatim from the authors' evaluation.py (build_judgment_prompt), except that Person B's
# reply is inserted as a JSON string literal: quotes and newlines inside the reply are
# escaped, so a reply cannot open new lines that imitate "Expected Answer ..." or the question.
JUDGE_PROMPT = """
In a scenario that we are in {env_article} {env}.
You are {mrole_article} {mrole} and I am {urole_article} {urole}.
{context}

Person A says: "{utterance}"

Person B says: {response}

Expected Answer for Person B: {expected}

Does Person B's response meet the expectation?

Answer only with Yes or No.
"""

REPLY_PREFIXES = ("I say:", "من می‌گویم:", "من میگویم:")


def get_article(word: str) -> str:
    """The authors' article rule (evaluation.py get_article): 'an' before a written vowel."""
    return "an" if word[:1].lower() in ("a", "e", "i", "o", "u") else "a"


def _english_slots(doc: dict) -> dict:
    # The authors lower-case environment, roles and utterance before filling the template.
    env, urole, mrole = doc["Environment"].lower(), doc["User Role"].lower(), doc["LLM Role"].lower()
    return {
        "env": env,
        "env_article": get_article(env),
        "mrole": mrole,
        "mrole_article": get_article(mrole),
        "urole": urole,
        "urole_article": get_article(urole),
        "context": doc["Context"],
        "utterance": doc["Utterance"].lower(),
    }


def doc_to_text(doc: dict) -> str:
    """Standard condition: English, "in Iran" (paper App. 1.8)."""
    return SCENARIO_PROMPT.format(country=" in Iran", **_english_slots(doc))


def doc_to_text_nocountry(doc: dict) -> str:
    """No-country condition: the same prompt without the country reference (App. 1.7)."""
    return SCENARIO_PROMPT.format(country="", **_english_slots(doc))


def doc_to_text_fa(doc: dict) -> str:
    """Persian condition: Persian prompt and Persian scenario fields."""
    return SCENARIO_PROMPT_FA.format(
        env=doc["fa_Environment"],
        mrole=doc["fa_LLM Role"],
        urole=doc["fa_User Role"],
        context=doc["fa_Context"],
        utterance=doc["fa_Utterance"],
    )


def strip_reply(response: str) -> str:
    """What the authors' judge sees: the text after the last "I say:" (evaluation.py)."""
    for prefix in REPLY_PREFIXES:
        if prefix in response:
            response = response.split(prefix)[-1]
    return response.strip()


def judge_prompt(doc: dict, response: str) -> str:
    expected = doc["Annotations"]
    if doc.get("fa_Annotations"):  # Persian condition: both, as App. 1.7 Table 10 shows them
        expected = f"In English: {expected} در فارسی: {doc['fa_Annotations']}"
    slots = _english_slots(doc)
    return JUDGE_PROMPT.format(
        response=json.dumps(strip_reply(response), ensure_ascii=False),
        expected=expected,
        **slots,
    )


JUDGE_TEMPLATE_ID = template_id("taarof-judge", JUDGE_PROMPT)


# --------------------------------------------------------------------------- gender flip
# Deterministic rule standing in for the paper's 110 unpublished gender pairs (App. 1.7):
# a user role that names a gender is flipped word by word; a neutral one is assigned a
# gender ("female neighbor" / "male neighbor"). Pairs stay adjacent (female first).
_GENDER_WORDS = {
    "woman": "man", "women": "men", "mother": "father", "grandmother": "grandfather",
    "sister": "brother", "daughter": "son", "wife": "husband", "aunt": "uncle", "girl": "boy",
    "lady": "gentleman", "female": "male", "mom": "dad", "niece": "nephew", "bride": "groom",
    "granddaughter": "grandson", "girlfriend": "boyfriend", "madam": "sir",
}  # fmt: skip
_FEMALE_OF = {m: f for f, m in _GENDER_WORDS.items()}
_WORD = re.compile(r"[A-Za-z]+")


def _swap_words(text: str, mapping: dict) -> str:
    def repl(m: re.Match) -> str:
        word = m.group(0)
        new = mapping.get(word.lower())
        if new is None:
            return word
        return new.capitalize() if word[0].isupper() else new

    return _WORD.sub(repl, text)


def gender_pair(user_role: str) -> tuple[str, str, str]:
    """(female role, male role, rule) for one user role; rule is 'flip' or 'assign'."""
    words = {w.lower() for w in _WORD.findall(user_role)}
    if words & (set(_GENDER_WORDS) | set(_FEMALE_OF)):
        return _swap_words(user_role, _FEMALE_OF), _swap_words(user_role, _GENDER_WORDS), "flip"
    return f"female {user_role}", f"male {user_role}", "assign"


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
            raise DataSchemaError(f"{path}: row {i}: field 'row' is {fa['row']}, expected {i}")
        if fa["source_sha1"] != scenario_sha1(en):
            raise DataSchemaError(
                f"{path}: row {i}: field 'source_sha1' does not match English scenario {i} "
                f"(the rendering was made for a different release)"
            )
    return fa_rows, f"{path} sha256:{sha256_file(path)}"


def _load(split: str, condition: str, **settings):
    prepare_judge(settings)  # fail fast, before the model generates anything
    rows, provenance = _rows(split, settings)
    if condition == "fa":
        fa_rows, fa_provenance = _persian_rows(split, settings, rows)
        rows = [{**en, **{f"fa_{k}": fa[k] for k in SCENARIO_FIELDS}} for en, fa in zip(rows, fa_rows)]
        provenance = f"{provenance}; persian:{fa_provenance}"
    elif condition == "gender":
        paired = []
        for row in rows:
            female, male, rule = gender_pair(row["User Role"])
            for gender, role in (("female", female), ("male", male)):
                paired.append({**row, "User Role": role, "original_user_role": row["User Role"],
                               "gender": gender, "pair_id": row["row"], "gender_rule": rule})  # fmt: skip
        rows = paired
    for row in rows:
        row["condition"] = condition
    return {"test": to_dataset(rows, provenance)}


load_expected = partial(_load, "expected", "standard")
load_non_taarof = partial(_load, "non_taarof", "standard")
load_expected_fa = partial(_load, "expected", "fa")
load_non_taarof_fa = partial(_load, "non_taarof", "fa")
load_expected_nocountry = partial(_load, "expected", "nocountry")
load_non_taarof_nocountry = partial(_load, "non_taarof", "nocountry")
load_gender = partial(_load, "expected", "gender")


# --------------------------------------------------------------------------- judging
def judge_filter(resps, docs):
    """Custom lm-eval filter: judges every reply of the task in one concurrent batch."""
    return run_judge(resps, docs, build_prompt=judge_prompt, template_id=JUDGE_TEMPLATE_ID)


TOPIC_AGGREGATIONS = make_topic_aggregations(TOPICS)
GENDER_AGGREGATIONS = make_group_aggregations(("female", "male"), gap_name="gender_gap")
METRICS = ("accuracy", "judge_errors", *TOPIC_AGGREGATIONS)
GENDER_METRICS = ("accuracy", "judge_errors", *GENDER_AGGREGATIONS)


def process_results(doc, results):
    return judged_metrics(doc, results[0], METRICS, topics=doc["Topic"].split(","))


def process_results_gender(doc, results):
    return judged_metrics(doc, results[0], GENDER_METRICS, group=doc["gender"])


# Aggregations named in the YAMLs (``!function utils.<name>``).
accuracy = judge_accuracy
judge_errors = judge_error_count
globals().update(TOPIC_AGGREGATIONS)
globals().update(GENDER_AGGREGATIONS)
