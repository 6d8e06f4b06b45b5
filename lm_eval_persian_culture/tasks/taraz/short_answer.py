"""TARAZ's short-answer metrics (paper sec. 5.1): every metric is binary per question.

* ``exact_match`` -- BLEnD's soft exact match for Persian (its ``lemma_check``): the normalised
  reference is a substring of the normalised reply, else every hazm lemma of the reference's
  tokens is among the reply's lemmas. True if it holds for some reference.
* ``rouge1_match`` / ``rouge2_match`` / ``rougeL_match`` -- rouge-score F1 == 1.0 against some
  reference, with a Persian tokenizer (rouge-score's default keeps only [a-z0-9] and would make
  every Persian score 0). A one-word reply or reference has no bigram, so ROUGE-2 cannot fire
  on it, as in the paper (its ROUGE-2 column is far below ROUGE-1).
* ``embed_match`` ("Maux") -- max cosine between any sentence of the reply and any reference
  above 0.85 (the paper's word: ``> 0.85``), both sides character-normalised alike (``normalize.embedding_form``).
* ``hybrid_match`` ("Maux+Post", the paper's headline) -- the same max, over the reply's sentences
  AND its post-processed items and whole post-processed answer (``normalize.postprocess``,
  ``answer_form``), against every reference raw and post-processed the same way: a reference
  given verbatim as the reply always scores 1, and hybrid_match is never below embed_match.
* Numbers decide for themselves: in both embedding metrics a pair of texts that both hold numbers
  (digits, times, dates, ranges) can match only if the reply holds every number of the reference,
  whatever the cosine
  ("08:00" never matches "13:00"; an English model maps Persian digits to [UNK]).
* ``judge_match`` -- the paper's LLM-judge prompt (answer 1 or 0), in the ``_judged`` tasks.

:func:`score_replies` scores a whole task at once: one batched embedding pass over every
distinct sentence, item and reference of the task (never per item).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from functools import lru_cache

from lm_eval_persian_culture.tasks.taraz import embeddings
from lm_eval_persian_culture.tasks.taraz.normalize import (
    answer_form,
    embedding_form,
    hour_of,
    item_form,
    lemmas,
    match_form,
    numbers_in,
    postprocess,
    tokens,
    words_and_numbers,
)

EMBED_THRESHOLD = 0.85
ROUGE_TYPES = ("rouge1", "rouge2", "rougeL")
METRICS = ("exact_match", "rouge1_match", "rouge2_match", "rougeL_match", "embed_match", "hybrid_match")
JUDGE_METRICS = ("judge_match", "judge_errors")


# ---------------------------------------------------------------------------- exact match
# A reply is checked against every reference (and BLEnD's groups): its match form and lemmas are
# computed once, not per reference (a runaway 100k-character reply took ~9 s per BLEnD question).
_reply_form = lru_cache(maxsize=64)(match_form)


@lru_cache(maxsize=64)
def _reply_lemmas(reply: str) -> frozenset[str]:
    return frozenset(lemmas(reply))


_NUMBER_CHAR = "[۰-۹:/٫\\-]"


def _contains(reply: str, reference: str) -> bool:
    """BLEnD's substring test, except that a number must match a whole number: its plain test lets
    a reference "1" match "13" and "0" match "08:00"."""
    pattern = re.escape(reference)
    if reference[:1].isdigit():
        pattern = f"(?<!{_NUMBER_CHAR}){pattern}"
    if reference[-1:].isdigit():
        pattern = f"{pattern}(?!{_NUMBER_CHAR})"
    return re.search(pattern, reply) is not None


def _lemma_check(reference: str, reply: str) -> bool:
    ref, rep = match_form(reference), _reply_form(reply)
    if not ref:
        return False
    if any(_contains(rep, form) for form in dict.fromkeys((ref, ref.replace("-", " "), ref.replace(" ", "-")))):
        return True
    if _numbers_check(ref, rep):
        return True
    ref_lemmas = lemmas(reference)
    reply_lemmas = _reply_lemmas(reply)
    return bool(ref_lemmas) and all(lemma in reply_lemmas for lemma in ref_lemmas)


def _numbers_check(ref: str, rep: str) -> bool:
    """A reference holding numbers is in the reply when the reply holds each of its numbers, read as
    numbers (``۱۳`` answers ``1 بعد از ظهر``, the range rule of :func:`reply_readings`), and each of
    its other words as a substring (BLEnD's test, word by word)."""
    ref_words, ref_numbers = words_and_numbers(ref)
    if not ref_numbers:
        return False
    rep_words, rep_numbers = words_and_numbers(rep)
    rep_text = " ".join(rep_words)
    return numbers_agree(rep_numbers, ref_numbers) and all(word in rep_text for word in ref_words)


def exact_match(reply: str, references: Sequence[str]) -> bool:
    """BLEnD-style soft exact match against any reference."""
    return any(_lemma_check(ref, reply) for ref in references)


def blend_weighted_score(reply: str, groups: Sequence[Mapping]) -> float:
    """BLEnD's vote-weighted score: count / max count of the most-voted annotation group matched.

    ``groups`` are BLEnD annotation groups ``{"answers": [...], "count": n}``; they are tried in
    order of votes, as BLEnD's soft_exact_match does, and the first match scores.
    """
    if not groups:
        return 0.0
    ordered = sorted(groups, key=lambda g: g["count"], reverse=True)
    max_vote = ordered[0]["count"]
    for group in ordered:
        if exact_match(reply, group["answers"]):
            return group["count"] / max_vote
    return 0.0


# ---------------------------------------------------------------------------- ROUGE
class PersianTokenizer:
    """rouge-score tokenizer: cleaned text, punctuation dropped, half-spaces split, no stemming."""

    def tokenize(self, text: str) -> list[str]:
        return list(_tokens(text))


@lru_cache(maxsize=64)
def _tokens(text: str) -> tuple[str, ...]:  # the reply is tokenised once for all its references
    return tuple(tokens(text))


@lru_cache(maxsize=1)
def _scorer():
    from rouge_score import rouge_scorer

    return rouge_scorer.RougeScorer(list(ROUGE_TYPES), tokenizer=PersianTokenizer())


def rouge_f1(reply: str, reference: str) -> dict[str, float]:
    scores = _scorer().score(reference, reply)  # (target, prediction)
    return {kind: scores[kind].fmeasure for kind in ROUGE_TYPES}


def rouge_matches(reply: str, references: Sequence[str]) -> dict[str, bool]:
    """``rouge1_match`` etc.: F1 == 1.0 against at least one reference."""
    out = {f"{kind}_match": False for kind in ROUGE_TYPES}
    for ref in references:
        for kind, f1 in rouge_f1(reply, ref).items():
            if f1 >= 1.0 - 1e-9:
                out[f"{kind}_match"] = True
    return out


# ---------------------------------------------------------------------------- embeddings
_SENTENCE_END = re.compile(r"(?<=[.!?؟])\s+|\n+")


def sentences(reply: str) -> list[str]:
    """The reply's sentences (split after . ! ? ؟ and at line breaks), stripped, none empty."""
    return [s.strip() for s in _SENTENCE_END.split(reply) if s and s.strip()]


def _distinct(texts) -> list[str]:
    return list(dict.fromkeys(t for t in texts if t))


def comparison_texts(reply: str, refs: Sequence[str]) -> dict[str, list[str]]:
    """What each embedding metric compares, processed alike on both sides.

    Maux: the reply's sentences vs the references, both in :func:`embedding_form`. Maux+Post: the
    same plus the reply's post-processed items and its whole post-processed answer vs every
    reference's post-processed answer (:func:`answer_form`): the max over all of them.
    """
    sents = _distinct(embedding_form(s) for s in sentences(reply))
    ref_forms = _distinct(embedding_form(r) for r in refs)
    items = postprocess(reply)
    return {
        "embed_left": sents,
        "embed_right": ref_forms,
        "hybrid_left": _distinct([*sents, *(item_form(i) for i in items), answer_form(reply)]),
        "hybrid_right": _distinct([*ref_forms, *(answer_form(r) for r in refs)]),
    }


def same_numbers(reply: str, reference: str) -> bool:
    """False when both texts hold numbers and the reply lacks one of the reference's (then no cosine
    makes them match). A reply may hold other numbers too: "ساعت 1 بعد از ظهر (13:00)" answers 13:00.
    Numbers are read after the numeric normalisation (words, 12-hour times, month names: ``numbers``),
    a reply range counts its two ends (the range rule, :func:`reply_readings`)."""
    a, b = numbers_in(reply), numbers_in(reference)
    if not (a and b):
        return True
    return numbers_agree(a, b)


def numbers_agree(reply_numbers, reference_numbers) -> bool:
    """Every number of the reference is one the reply holds (:func:`reply_readings`)."""
    in_reply = {reading for number in reply_numbers for reading in reply_readings(number)}
    return all(_readings(number) & in_reply for number in reference_numbers)


_SLASH_OR_DECIMAL = re.compile(r"[۰-۹]+[/٫][۰-۹]+")
_FULL_DATE = re.compile(r"[۰-۹]{4}/([۰-۹]{1,2}/[۰-۹]{1,2})")


def _readings(number: str) -> set[str]:
    """A number and what else it may be written as: Persian writes the decimal ۱٫۵ as ۱/۵ too,
    which could also be a date or a fraction; the rule cannot tell, so both readings agree."""
    if _SLASH_OR_DECIMAL.fullmatch(number):
        return {number.replace("/", "٫"), number.replace("٫", "/")}
    return {number}


def reply_readings(number: str) -> set[str]:
    """What a number of the reply answers: its readings, a range's two ends (BLEnD's substring
    test finds ``۸`` in ``۷ تا ۸`` but not in ``۶ تا ۹``), and a full date's month/day
    (``۱۴۰۰/۷/۲۵`` answers ``۲۵ مهر``). A reference range is matched only by the same range."""
    out = set(_readings(number))
    if "-" in number:
        for end in number.split("-"):
            if end:
                out |= _readings(hour_of(end))
    if m := _FULL_DATE.fullmatch(number):
        out |= _readings(m.group(1))
    return out


def score_replies(
    replies: Sequence[str],
    references: Sequence[Sequence[str]],
    model: str | None = None,
    threshold: float = EMBED_THRESHOLD,
    desc: str = "embedding",
) -> list[dict]:
    """Every TARAZ metric for every reply of a task; one batched embedding pass for all of them.

    With the embedding model switched off (``embeddings.DISABLED``, e.g. under --predict_only),
    embed_match and hybrid_match are left unscored (None), never 0.
    """
    rows, compared = [], []
    for reply, refs in zip(replies, references):
        refs = [r.strip() for r in refs if r and r.strip()]
        row = {
            "response": reply,
            "exact_match": exact_match(reply, refs),
            **rouge_matches(reply, refs),
            "sentences": sentences(reply),
            "items": postprocess(reply),
            "references": refs,
        }
        rows.append(row)
        compared.append(comparison_texts(reply, refs))
    for row in rows:
        for key in METRICS:
            row[key] = int(row[key]) if key not in ("embed_match", "hybrid_match") else None
    if embeddings.is_disabled(model or embeddings.active_model()):
        for row in rows:
            row.update(embed_cosine=None, hybrid_cosine=None, embedding_error="embedding model disabled")
        return rows
    texts = [t for texts in compared for side in texts.values() for t in side]
    vectors = embeddings.embed(texts, model=model, desc=desc)
    for row, texts in zip(rows, compared):
        for metric in ("embed", "hybrid"):
            cos = embeddings.max_cosine(texts[f"{metric}_left"], texts[f"{metric}_right"], vectors, same_numbers)
            row[f"{metric}_cosine"] = cos
            row[f"{metric}_match"] = int(cos is not None and cos > threshold)  # the paper: "above 0.85"
    return rows


# ---------------------------------------------------------------------------- LLM judge
# The paper's prompt (sec. 5.1, item 3). The figure wraps two sentences over lines for the
# column width; here each is one line. The reply is inserted as a JSON string literal (quotes
# and newlines escaped) so it cannot imitate the prompt; the answers as a Python list, as the
# paper's f-string renders them.
JUDGE_PROMPT = """You are evaluating a model's answer.

Question ID: {qid}
Response: {response}

Valid answers: {answers}

Does the response semantically match ANY of the valid answers?
Answer ONLY with 1 if it matches, 0 if it does not."""

_ONE_ZERO = re.compile(
    r"^\s*(?:<think>.*?</think>)?[\s\"'`*_#>(\[]*(?:answer\s*[:：]\s*)?([01۰۱])(?![\d۰-۹.])", re.S | re.I
)


def judge_prompt(qid: str, response: str, answers: Sequence[str]) -> str:
    return JUDGE_PROMPT.format(qid=qid, response=json.dumps(response, ensure_ascii=False), answers=list(answers))


def parse_one_zero(text: str | None) -> bool | None:
    """True for an answer starting with 1, False for 0 (Persian digits too); None otherwise."""
    if not text:
        return None
    match = _ONE_ZERO.match(text)
    if match is None:
        return None
    return match.group(1) in ("1", "۱")


# ---------------------------------------------------------------------------- aggregation
def mean_of_scored(values: Sequence) -> float:
    """Mean over the items that were scored (None = not scored, e.g. a failed judge call)."""
    scored = [float(v) for v in values if v is not None]
    return math.fsum(scored) / len(scored) if scored else float("nan")  # fsum: order-free under data parallel


def count_unscored(values: Sequence) -> int:
    return sum(v is None for v in values)


__all__ = [
    "EMBED_THRESHOLD",
    "JUDGE_PROMPT",
    "METRICS",
    "PersianTokenizer",
    "blend_weighted_score",
    "comparison_texts",
    "count_unscored",
    "exact_match",
    "judge_prompt",
    "mean_of_scored",
    "parse_one_zero",
    "rouge_f1",
    "rouge_matches",
    "same_numbers",
    "score_replies",
    "sentences",
]
