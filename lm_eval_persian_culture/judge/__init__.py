"""Shared LLM judge: concurrent, disk-cached, retrying calls to any OpenAI-compatible endpoint.

Used by TaarofBench's Yes/No judge now; TARAZ's judge and DivanBench's optional answer
extractor reuse it with their own prompts (``template_id``) and parsers.
"""

from lm_eval_persian_culture.judge.cache import CachedAnswer, JudgeCache, cache_key
from lm_eval_persian_culture.judge.client import Judge, JudgeResult, JudgeUsage
from lm_eval_persian_culture.judge.parse import parse_yes_no
from lm_eval_persian_culture.judge.pricing import PRICES_PER_MILLION, estimate_cost
from lm_eval_persian_culture.judge.settings import (
    PAPER_JUDGE_MODEL,
    PAPER_SYSTEM_PROMPT,
    JudgeConfigError,
    JudgeFailureError,
    JudgeSettings,
    check_not_self_judge,
)

__all__ = [
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
