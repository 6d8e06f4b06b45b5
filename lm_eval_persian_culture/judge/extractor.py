"""An LLM that reads which option (A-D, 1-N) or which verdict (yes/no) a free-text reply gave.

DivanBench's paper had GPT-4o-mini do this for every reply; the pack uses the same judge
machinery as its LLM judges (``lm_eval_persian_culture.judge``: OpenAI or any
OpenAI-compatible server, the local one included; cache, bounded concurrency, retries).
A benchmark decides *when* to call it: as a fallback for replies the rules cannot read
(DivanBench, PerCul, CAC), or on every reply (DivanBench's paper pipeline).

The prompts (the paper did not publish its own) quote the reply as a JSON string, so a reply
cannot break out of its slot, and allow NONE for replies that choose nothing: NONE is an
answer (the reply is invalid), a failed call is an error (reported, never scored silently).
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from lm_eval_persian_culture.judge import JudgeConfigError, JudgeSettings
from lm_eval_persian_culture.judge.filter import (
    check_extractor_failures,
    configured_judge,
    judge_for,
    record_judge_in_results,
    template_id,
)
from lm_eval_persian_culture.scoring.extract import cut_off_reasoning
from lm_eval_persian_culture.scoring.records import reply_texts
from lm_eval_persian_culture.text.persian import to_latin_digits

logger = logging.getLogger("lm_eval_persian_culture")

LETTERS = ("A", "B", "C", "D")

MCQ_TEMPLATE = """Below is a multiple-choice question and a reply written by another model.
Which option did the reply choose as its final answer?

Question: {question}
(A) {a}
(B) {b}
(C) {c}
(D) {d}

Reply (a JSON string): {reply}

Answer with exactly one of A, B, C, D, or NONE if the reply chooses no single option."""

YES_NO_TEMPLATE = """Below is a yes/no question and a reply written by another model.
Did the reply answer yes or no?

Question: {statement}

Reply (a JSON string): {reply}

Answer with exactly one of YES, NO, or NONE if the reply gives no clear answer."""

# PerCul and CAC number their options (1-4, 1-5): the extractor sees them numbered, as the model did.
NUMBERED_TEMPLATE = """Below is a question with numbered options and a reply written by another model.
Which option did the reply choose as its final answer?

{question}

{options}

Reply (a JSON string): {reply}

Answer with exactly one of the option numbers ({numbers}), or NONE if the reply chooses no single option."""

# Any number of lettered options (MasalBench الف-د, two-option items, ...): the extractor sees them lettered.
LETTERED_TEMPLATE = """Below is a question with lettered options and a reply written by another model.
Which option did the reply choose as its final answer?

{question}

{options}

Reply (a JSON string): {reply}

Answer with exactly one of the option letters ({letters}), or NONE if the reply chooses no single option."""

OPTION_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"

_JUDGE_MODEL_ENV = "PERSIAN_CULTURE_JUDGE_MODEL"


def parse_choice(raw: str | None) -> str | None:
    """ "B" -> "B"; "NONE" -> "none" (an answer, not an error); anything else -> None."""
    if not raw:
        return None
    token = raw.strip().strip("*().:'\"` ").upper()
    if token.startswith("NONE"):
        return "none"
    return token[0] if token[:1] in LETTERS and (len(token) == 1 or not token[1].isalpha()) else None


def parse_number(raw: str | None) -> str | None:
    """ "3" -> "3"; "NONE" -> "none"; anything else -> None. The caller checks the range."""
    if not raw:
        return None
    token = to_latin_digits(raw.strip().strip("*().:'\"` "))
    if token.upper().startswith("NONE"):
        return "none"
    return token[0] if token[:1].isdigit() and token[0] != "0" and (len(token) == 1 or not token[1].isalnum()) else None


def parse_letter(raw: str | None) -> str | None:
    """ "C" -> "C"; "(b)" -> "B"; "NONE" -> "none"; anything else -> None. The caller checks the range."""
    if not raw:
        return None
    token = raw.strip().strip("*().:'\"` ").upper()
    if token.startswith("NONE"):
        return "none"
    return (
        token[0] if token[:1] in OPTION_LETTERS and token[:1] and (len(token) == 1 or not token[1].isalpha()) else None
    )


def parse_yes_no(raw: str | None) -> str | None:
    if not raw:
        return None
    token = raw.strip().strip("*().:'\"` ").lower()
    for word in ("yes", "no", "none"):
        if token.startswith(word) and (len(token) == len(word) or not token[len(word)].isalpha()):
            return word
    return None


def mcq_prompt(question: str, options: Sequence[str], reply: str) -> str:
    a, b, c, d = options
    return MCQ_TEMPLATE.format(question=question, a=a, b=b, c=c, d=d, reply=json.dumps(reply, ensure_ascii=False))


def numbered_prompt(question: str, options: Sequence[str], reply: str) -> str:
    return NUMBERED_TEMPLATE.format(
        question=question,
        options="\n".join(f"{i}. {text}" for i, text in enumerate(options, 1)),
        reply=json.dumps(reply, ensure_ascii=False),
        numbers=", ".join(str(i) for i in range(1, len(options) + 1)),
    )


def lettered_prompt(question: str, options: Sequence[str], reply: str) -> str:
    letters = OPTION_LETTERS[: len(options)]
    return LETTERED_TEMPLATE.format(
        question=question,
        options="\n".join(f"({letter}) {text}" for letter, text in zip(letters, options)),
        reply=json.dumps(reply, ensure_ascii=False),
        letters=", ".join(letters),
    )


def yes_no_prompt(statement: str, reply: str) -> str:
    return YES_NO_TEMPLATE.format(statement=statement, reply=json.dumps(reply, ensure_ascii=False))


@dataclass(frozen=True)
class Extracted:
    answer: str | None  # "A".."D" / "yes" / "no", or None (NONE, unparseable, or failed)
    raw: str | None
    error: str | None


def _off(value: Any) -> bool:
    return str(value).strip().lower() in ("0", "false", "no", "off", "none")


def extractor_settings(
    settings: Mapping | None,
    *,
    switch: str,
    what: str,
    default_model: str | None = None,
) -> JudgeSettings | None:
    """The LLM extractor of a run, checked before any model time; None when there is none.

    ``switch`` is the benchmark's on/off setting (``false`` keeps extraction rule-only while
    another task of the run uses the judge). With ``default_model`` (a pipeline that needs
    the extractor) a run without ``judge_model`` gets that model, and one that switches the
    extractor off is refused.
    """
    settings = dict(settings or {})
    if switch in settings and _off(settings[switch]):
        if default_model is not None:
            raise JudgeConfigError(f"{what} needs the LLM extractor, but {switch}={settings[switch]!r} turns it off")
        return None
    if default_model is not None and "judge_model" not in settings and not os.environ.get(_JUDGE_MODEL_ENV):
        settings["judge_model"] = default_model
    try:
        js = configured_judge(settings)
    except JudgeConfigError as err:
        hint = "" if default_model is not None else f" (or pass {switch}=false for rule-based extraction only)"
        raise JudgeConfigError(f"{what}: {err}{hint}") from None
    if js is None or js.disabled:
        if default_model is not None:
            raise JudgeConfigError(f"{what} needs the LLM extractor, but judge_model is 'none'")
        return None
    return js


def run_extraction(
    js: JudgeSettings,
    prompts: Sequence[str],
    *,
    kind: str,
    template: str,
    parser: Callable[[str | None], str | None],
    name: str,
    strict: bool = False,
) -> list[Extracted]:
    """Ask the extractor about every prompt (concurrent, cached). ``strict``: too many failed
    calls (the judge's max_error_rate) stop the run instead of leaving replies invalid."""
    if not prompts:
        return []
    judge = judge_for(js, parser=parser)
    results = judge.judge_many(
        list(prompts),
        template_id=template_id(f"{name}-extract-{kind}", template),
        desc=f"{name} LLM extractor ({js.model})",
    )
    record_judge_in_results(judge)  # the extractor is named in the results like a judge
    logger.info("%s LLM extractor (%s): %s", name, kind, judge.usage.summary())
    if strict:
        judge.check_error_rate(results)
    return [Extracted(None if r.verdict in (None, "none") else r.verdict, r.raw, r.error) for r in results]


# --------------------------------------------------------------------------- the filter's reading
@dataclass(frozen=True)
class Read:
    """One reply as a benchmark's filter read it: the final ``answer`` (None: invalid), how it was read
    (``by``: "rule" | "llm" | None), the rules' own answer, and the extractor's ``llm_raw``/``llm_error``
    (``extra``, empty when the extractor was not asked)."""

    reply: str
    answer: Any
    by: str | None
    rule: Any
    extra: Mapping[str, Any]


# An ``ask`` reads some replies with the extractor: (its settings, their docs, the replies) -> one
# Extracted per reply, ``answer`` already in the benchmark's terms (None: NONE, out of range or failed).
Ask = Callable[[JudgeSettings, Sequence[Any], Sequence[str]], Sequence[Extracted]]


class Fallback:
    """A benchmark's LLM extractor (DivanBench, PerCul, CAC): set from the run's settings at dataset load
    (on when a judge is configured, unless ``switch`` is false), used by the benchmark's filter through
    :meth:`read`. lm-eval executes a task's ``utils.py`` anew for every ``!function``, so the loader and
    the filter of a task hold different copies of that module: get the object with :func:`fallback`,
    which keeps one per benchmark in this (normally imported) module."""

    def __init__(self, switch: str, name: str, key: str | None = None) -> None:
        self.switch, self.name = switch, name
        self.key = key or name.lower()  # names the extractor's cache entries and progress bar
        self.settings: JudgeSettings | None = None

    def configure(
        self,
        settings: Mapping | None,
        *,
        what: str | None = None,
        default_model: str | None = None,
        reads: str = "replies the rules cannot read",
    ) -> JudgeSettings | None:
        """Set (or clear) the extractor from the run's settings (see :func:`extractor_settings`)."""
        self.settings = extractor_settings(
            settings, switch=self.switch, what=what or f"{self.name}'s LLM extractor", default_model=default_model
        )
        if self.settings is not None:
            logger.info("%s: %s go to the LLM extractor %s", self.name, reads, self.settings.model)
        return self.settings

    def read(
        self,
        resps: Sequence,
        docs: Sequence[Any],
        rule: Callable[[Any, str], Any],
        ask: Ask,
        *,
        everything: bool = False,
        cut_warning: str | None = None,
    ) -> list[Read]:
        """Every reply of a task: the rules' answer (``rule(doc, reply)``, None when they cannot read it),
        then the extractor (if configured) for the non-empty replies the rules left unread -- or, with
        ``everything``, for every non-empty reply, the rules' answer kept only for comparison. A NONE, an
        answer out of range or a failed call leaves the reply invalid. ``cut_warning`` (a message with one
        ``%d``) is logged when unread replies stop inside an unclosed <think> block."""
        replies = reply_texts(resps)
        rules = [rule(doc, reply) for doc, reply in zip(docs, replies)]
        if cut_warning:
            cut = sum(1 for reply, a in zip(replies, rules) if a is None and cut_off_reasoning(reply))
            if cut:
                logger.warning(cut_warning, cut)
        answers = [None if everything else a for a in rules]
        read_by: list[str | None] = [None if everything or a is None else "rule" for a in rules]
        extra: list[dict] = [{} for _ in replies]
        todo = [i for i, a in enumerate(answers) if a is None and replies[i].strip()]
        if self.settings is not None and todo:
            found = ask(self.settings, [docs[i] for i in todo], [replies[i] for i in todo])
            for i, res in zip(todo, found):
                extra[i] = {"llm_raw": res.raw, "llm_error": res.error}
                if res.answer is not None:
                    answers[i], read_by[i] = res.answer, "llm"
            check_extractor_failures(self.settings, [res.error for res in found], self.name)
        return [Read(*fields) for fields in zip(replies, answers, read_by, rules, extra)]

    def ask_numbered(self, question: Callable[[Any], tuple[str, Sequence[str]]]) -> Ask:
        """An ``ask`` for numbered options (PerCul 1-4, CAC 1-5): ``question(doc)`` gives the question and
        the options; the answer is the option's number."""

        def ask(js: JudgeSettings, docs: Sequence[Any], replies: Sequence[str]) -> list[Extracted]:
            questions = [question(doc) for doc in docs]
            prompts = [numbered_prompt(q, options, reply) for (q, options), reply in zip(questions, replies)]
            found = run_extraction(
                js, prompts, kind="numbered", template=NUMBERED_TEMPLATE, parser=parse_number, name=self.key
            )
            return [
                Extracted(int(res.answer) if res.answer and 1 <= int(res.answer) <= len(options) else None,
                          res.raw, res.error)
                for res, (_, options) in zip(found, questions)
            ]  # fmt: skip

        return ask

    def ask_lettered(self, question: Callable[[Any], tuple[str, Sequence[str]]]) -> Ask:
        """An ``ask`` for any number of lettered options: ``question(doc)`` gives the question and the options;
        the answer is the option's number (A -> 1), None for a letter the item does not have."""

        def ask(js: JudgeSettings, docs: Sequence[Any], replies: Sequence[str]) -> list[Extracted]:
            questions = [question(doc) for doc in docs]
            prompts = [lettered_prompt(q, options, reply) for (q, options), reply in zip(questions, replies)]
            found = run_extraction(
                js, prompts, kind="lettered", template=LETTERED_TEMPLATE, parser=parse_letter, name=self.key
            )
            out = []
            for res, (_, options) in zip(found, questions):
                number = OPTION_LETTERS.index(res.answer) + 1 if res.answer and res.answer in OPTION_LETTERS else None
                out.append(Extracted(number if number is not None and number <= len(options) else None,
                                     res.raw, res.error))  # fmt: skip
            return out

        return ask


_FALLBACKS: dict[str, Fallback] = {}


def fallback(switch: str, name: str, key: str | None = None) -> Fallback:
    """The process's one :class:`Fallback` of the benchmark whose on/off setting is ``switch``."""
    if switch not in _FALLBACKS:
        _FALLBACKS[switch] = Fallback(switch, name, key)
    return _FALLBACKS[switch]


__all__ = [
    "Fallback",
    "MCQ_TEMPLATE",
    "LETTERED_TEMPLATE",
    "NUMBERED_TEMPLATE",
    "Read",
    "lettered_prompt",
    "parse_letter",
    "fallback",
    "numbered_prompt",
    "parse_number",
    "YES_NO_TEMPLATE",
    "Extracted",
    "extractor_settings",
    "mcq_prompt",
    "parse_choice",
    "parse_yes_no",
    "run_extraction",
    "yes_no_prompt",
]
