"""Shared LLM judge: disk-cached verdicts from any OpenAI-compatible endpoint (concurrent, retrying,
backing off when the server is slow) or from a local model run in-process (``judge_model=hf:...``).

Used by TaarofBench's Yes/No judge now; TARAZ's judge and DivanBench's optional answer
extractor reuse it with their own prompts (``template_id``), parsers and answer budgets
(``judge_many(..., max_tokens=...)``).
"""

from lm_eval_persian_culture.judge.backend import JudgeBackend
from lm_eval_persian_culture.judge.cache import CachedAnswer, JudgeCache, cache_key
from lm_eval_persian_culture.judge.client import Judge, JudgeResult, JudgeUsage
from lm_eval_persian_culture.judge.concurrency import AdaptiveLimit
from lm_eval_persian_culture.judge.parse import parse_yes_no
from lm_eval_persian_culture.judge.pricing import PRICES_PER_MILLION, estimate_cost
from lm_eval_persian_culture.judge.settings import (
    LOCAL_PREFIX,
    PAPER_JUDGE_MODEL,
    PAPER_SYSTEM_PROMPT,
    VERDICT_MAX_TOKENS,
    JudgeConfigError,
    JudgeFailureError,
    JudgeSettings,
    check_not_self_judge,
)

__all__ = [
    "LOCAL_PREFIX",
    "VERDICT_MAX_TOKENS",
    "AdaptiveLimit",
    "JudgeBackend",
    "PAPER_JUDGE_MODEL",
    "PAPER_SYSTEM_PROMPT",
    "PRICES_PER_MILLION",
    "CachedAnswer",
    "Judge",
    "JudgeCache",
    "JudgeConfigError",
    "JudgeFailureError",
    "JudgeResult",
    "JudgeSettings",
    "JudgeUsage",
    "cache_key",
    "check_not_self_judge",
    "estimate_cost",
    "parse_yes_no",
]
