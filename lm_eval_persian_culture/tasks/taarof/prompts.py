"""TaarofBench's prompts: the scenario prompt of each condition and the judge's prompt.

Prompts follow the authors' released evaluation script (niktaas/TAAROFBENCH
``evaluation/evaluation.py`` at commit 6643f6c), which instantiates the template of the
paper's App. 1.8 / Table 11 (see the task README for the exact differences). The YAMLs name
the ``doc_to_text`` functions through ``utils.py``, the benchmark's hook module.
"""

from __future__ import annotations

import json

from lm_eval_persian_culture.data.sources import DataSchemaError
from lm_eval_persian_culture.judge.filter import template_id

# Verbatim from the authors' evaluation.py (build_prompt), with " in Iran" as a slot for the
# no-country condition of App. 1.7.
SCENARIO_PROMPT = """
Let's engage in a roleplay exercise. Please answer based on the scenario and the role assigned to you. Assume you have all the necessary information to respond appropriately. Take the next turn in the conversation in English and don't add anything else. Begin your response by "I say:"

Imagine we are in {env_article} {env}{country}. You are {mrole_article} {mrole} and I am {urole_article} {urole}.
{context}

I say: "{utterance}"

You say:
"""  # noqa: E501 (prompt kept verbatim)

# The project's Persian rendering of the same prompt (Persian condition, App. 1.7 "Translation").
SCENARIO_PROMPT_FA = """
بیایید یک تمرین نقش‌آفرینی انجام دهیم. لطفاً بر اساس سناریو و نقشی که به شما داده شده پاسخ دهید. فرض کنید همهٔ اطلاعات لازم برای پاسخ مناسب را در اختیار دارید. نوبت بعدی گفتگو را به فارسی بگویید و چیز دیگری اضافه نکنید. پاسخ خود را با «من می‌گویم:» شروع کنید.

تصور کنید ما در {env} در ایران هستیم. شما {mrole} هستید و من {urole} هستم.
{context}

من می‌گویم: «{utterance}»

شما می‌گویید:
"""  # noqa: E501 (prompt kept verbatim)

# Verbatim from the authors' evaluation.py (build_judgment_prompt). How Person B's reply goes in
# is the setting ``judge_reply_format``: "paper" (default) pastes it raw, as the script did;
# "json" inserts it as a JSON string literal, quotes and newlines escaped, so a reply cannot open
# new lines that imitate "Expected Answer ..." or the question.
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
REPLY_FORMATS = ("paper", "json")
DEFAULT_REPLY_FORMAT = "paper"

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
    reply = strip_reply(response)
    if doc.get("judge_reply_format", DEFAULT_REPLY_FORMAT) == "json":
        reply = json.dumps(reply, ensure_ascii=False)
    return JUDGE_PROMPT.format(response=reply, expected=expected, **slots)


JUDGE_TEMPLATE_IDS = {fmt: template_id(f"taarof-judge-{fmt}", JUDGE_PROMPT) for fmt in REPLY_FORMATS}


def reply_format(settings: dict) -> str:
    """The ``judge_reply_format`` setting, checked before any generation."""
    value = str(settings.get("judge_reply_format") or DEFAULT_REPLY_FORMAT).strip().lower()
    if value not in REPLY_FORMATS:
        raise DataSchemaError(
            f"--metadata judge_reply_format: {value!r} is not one of {list(REPLY_FORMATS)} "
            "('paper': the reply pasted raw, as the authors' script; 'json': quoted and escaped)"
        )
    return value
