"""The interface between the Judge (cache, parsing, accounting) and whatever produces answers.

Two backends: ``remote.OpenAIBackend`` (any OpenAI-compatible server, over HTTP) and
``local.LocalBackend`` (``judge_model=hf:<model>``, in-process through transformers). The Judge
asks a backend only for cache misses, so a backend must not do anything costly (open a client,
load a model) before its first ``answer_many`` call.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

from lm_eval_persian_culture.judge.cache import CachedAnswer

OnAnswer = Callable[[int, "CachedAnswer | None", "str | None"], None]
"""Called once per prompt, as soon as it is settled: (index, answer or None, error or None)."""


class JudgeBackend(Protocol):
    deterministic: bool
    """True when the same prompt always gets the same answer (greedy, in-process): the Judge then
    neither re-asks an answer its parser cannot read nor leaves it out of the cache."""

    def fingerprint(self) -> dict[str, Any]:
        """Extra cache-key parts beyond the settings' fingerprint (e.g. the local model's revision)."""

    def describe(self) -> dict[str, Any]:
        """What judged, for results and sample records (never credentials)."""

    def answer_many(self, prompts: Sequence[str], max_tokens: int | None, on_answer: OnAnswer) -> None:
        """Answer every prompt (system prompt + prompt as a chat), reporting each through on_answer."""

    def close(self) -> None: ...
