"""Batched, concurrent, cached LLM judge over any OpenAI-compatible chat endpoint.

lm-eval's built-in judge and the papers' scripts make one blocking call at a time and re-pay for
every re-run. Here a batch goes through a bounded thread pool sharing one ``openai.OpenAI`` client
(whose own retry machinery handles 408/409/429/5xx, Retry-After, timeouts and dropped
connections), and every answer is written to a disk cache the moment it arrives.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from typing import Any

import openai
from tqdm.auto import tqdm

from lm_eval_persian_culture.judge.cache import CachedAnswer, JudgeCache, cache_key
from lm_eval_persian_culture.judge.parse import parse_yes_no
from lm_eval_persian_culture.judge.pricing import estimate_cost
from lm_eval_persian_culture.judge.settings import JudgeConfigError, JudgeFailureError, JudgeSettings

log = logging.getLogger(__name__)

OPENAI_BASE_URL = "https://api.openai.com/v1"
_RETRIED_STATUSES = {408, 409, 429}  # and every 5xx: what openai's client retries by itself
_MAX_ERROR_TEXT = 160


@dataclass
class JudgeResult:
    """One judgment. ``verdict`` is the parser's output (bool for Yes/No); None means no verdict."""

    raw: str | None
    verdict: Any
    error: str | None
    cached: bool
    prompt_tokens: int = 0
    completion_tokens: int = 0


@dataclass
class JudgeUsage:
    """Running totals over a Judge's lifetime; tokens and cost count only requests actually sent."""

    model: str
    items: int = 0
    requests_sent: int = 0
    cache_hits: int = 0
    errors: int = 0
    unparseable: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0

    def estimated_cost_usd(self) -> float | None:
        return estimate_cost(self.model, self.prompt_tokens, self.completion_tokens)

    def summary(self) -> str:
        cost = self.estimated_cost_usd()
        cost_text = "cost unknown (no list price)" if cost is None else f"~${cost:.4f} at list prices"
        return (
            f"judge {self.model}: {self.items} items, {self.requests_sent} requests, "
            f"{self.cache_hits} cache hits, {self.errors} errors, {self.unparseable} unparseable, "
            f"{self.prompt_tokens} prompt + {self.completion_tokens} completion tokens, {cost_text}"
        )


class Judge:
    """Sends judge prompts concurrently, caches answers on disk, and parses verdicts."""

    def __init__(
        self,
        settings: JudgeSettings,
        parser: Callable[[str | None], Any] = parse_yes_no,
    ) -> None:
        if settings.disabled:
            raise JudgeConfigError("judging is disabled (judge_model=none); there is no judge to call")
        self.settings = settings
        self.parser = parser
        self.usage = JudgeUsage(model=settings.model)
        self._fingerprint = settings.fingerprint()
        self._cache = JudgeCache(settings.cache_dir)
        self._client: openai.OpenAI | None = None
        self._api_key: str | None = None

    def _get_client(self) -> openai.OpenAI:
        """Built on first cache miss, so a fully cached re-run needs no key."""
        if self._client is None:
            settings = self.settings
            key = os.environ.get(settings.api_key_env)
            if not key:
                if settings.base_url is None:
                    raise JudgeConfigError(
                        f"judge model {settings.model!r} is served by api.openai.com and needs an API key: "
                        f"set the environment variable {settings.api_key_env} (or name another one with "
                        "judge_api_key_env), or point judge_base_url at an OpenAI-compatible server"
                    )
                key = "EMPTY"  # local servers (vLLM, llama.cpp, Ollama) accept any key
            self._api_key = key
            self._client = openai.OpenAI(
                # Explicit URL: a stray $OPENAI_BASE_URL must not silently reroute the paper's judge.
                base_url=settings.base_url or OPENAI_BASE_URL,
                api_key=key,
                timeout=settings.timeout,
                max_retries=settings.max_retries,
            )
        return self._client

    def judge_many(self, prompts: Sequence[str], template_id: str, desc: str = "judging") -> list[JudgeResult]:
        """Judge every prompt; results come back in input order, cached answers without any request."""
        keys = [cache_key(self._fingerprint, template_id, prompt) for prompt in prompts]
        cached = self._cache.get_many(keys)
        answers: dict[str, tuple[CachedAnswer | None, str | None, bool]] = {
            key: (answer, None, True) for key, answer in cached.items()
        }
        todo = {key: prompt for key, prompt in zip(keys, prompts) if key not in answers}
        if todo:
            client = self._get_client()
            pool = ThreadPoolExecutor(max_workers=min(self.settings.concurrency, len(todo)))
            try:
                futures = {pool.submit(self._ask, client, prompt): key for key, prompt in todo.items()}
                with tqdm(total=len(futures), desc=desc, unit="call") as bar:
                    for future in as_completed(futures):
                        key = futures[future]
                        answer, error = future.result()
                        self.usage.requests_sent += 1
                        if answer is not None:
                            self._cache.put(key, template_id=template_id, fingerprint=self._fingerprint, answer=answer)
                            self.usage.prompt_tokens += answer.prompt_tokens
                            self.usage.completion_tokens += answer.completion_tokens
                        answers[key] = (answer, error, False)
                        bar.update()
            finally:
                # On Ctrl-C or a bug, don't keep paying for queued calls nobody will read.
                pool.shutdown(wait=False, cancel_futures=True)

        results = [self._result(*answers[key]) for key in keys]
        self.usage.items += len(results)
        self.usage.cache_hits += sum(r.cached for r in results)
        self.usage.errors += sum(r.error is not None and r.raw is None for r in results)
        self.usage.unparseable += sum(r.raw is not None and r.error is not None for r in results)
        log.info("%s (%s)", self.usage.summary(), desc)
        return results

    def _result(self, answer: CachedAnswer | None, error: str | None, cached: bool) -> JudgeResult:
        if answer is None:
            return JudgeResult(raw=None, verdict=None, error=error, cached=cached)
        verdict = self.parser(answer.raw)
        return JudgeResult(
            raw=answer.raw,
            verdict=verdict,
            error=None if verdict is not None else f"unparseable: {answer.raw.strip()[:80]}",
            cached=cached,
            prompt_tokens=answer.prompt_tokens,
            completion_tokens=answer.completion_tokens,
        )

    def _ask(self, client: openai.OpenAI, prompt: str) -> tuple[CachedAnswer | None, str | None]:
        """One judge call (the client retries inside); returns (answer, None) or (None, short error)."""
        settings = self.settings
        optional = {} if settings.max_tokens is None else {"max_tokens": settings.max_tokens}
        try:
            completion = client.chat.completions.create(
                model=settings.model,
                messages=[
                    {"role": "system", "content": settings.system_prompt},
                    {"role": "user", "content": prompt},
                ],
                temperature=settings.temperature,
                **optional,
            )
        except openai.APIError as err:
            return None, self._describe(err)
        choice = completion.choices[0] if completion.choices else None
        text = choice.message.content if choice is not None else None
        if not text:
            # Not cached: an empty answer (content filter, length cut) may well differ next time.
            return None, f"empty answer (finish_reason={choice.finish_reason if choice else None})"
        usage = completion.usage
        return CachedAnswer(
            raw=text,
            prompt_tokens=usage.prompt_tokens if usage else 0,
            completion_tokens=usage.completion_tokens if usage else 0,
        ), None

    def _describe(self, err: openai.APIError) -> str:
        """A short reason for the error; never request headers, and the key scrubbed from server text."""
        retries = self.settings.max_retries
        if isinstance(err, openai.APITimeoutError):
            text = f"timeout after {retries} retries ({self.settings.timeout:g}s per attempt)"
        elif isinstance(err, openai.APIConnectionError):
            cause = type(err.__cause__).__name__ if err.__cause__ else "connection error"
            text = f"connection failed after {retries} retries ({cause})"
        elif isinstance(err, openai.APIStatusError):
            status = err.status_code
            if status in _RETRIED_STATUSES or status >= 500:
                text = f"http {status} after {retries} retries"
            else:
                text = f"http {status}: {err.message}"
        else:
            text = f"{type(err).__name__}: {err}"
        if self._api_key and self._api_key != "EMPTY":
            text = text.replace(self._api_key, "***")
        return text[:_MAX_ERROR_TEXT]

    def check_error_rate(self, results: Sequence[JudgeResult]) -> None:
        """Fail loudly when more than max_error_rate of the results (errors or unparseable) lack a verdict."""
        failed = [r for r in results if r.error is not None]
        if not results or not failed:
            return
        rate = len(failed) / len(results)
        unparseable = sum(r.raw is not None for r in failed)
        first = list(dict.fromkeys(r.error for r in failed))[:5]
        message = (
            f"{len(failed)}/{len(results)} judgments have no verdict ({rate:.1%}): "
            f"{len(failed) - unparseable} errors, {unparseable} unparseable answers; first distinct: {first}"
        )
        if rate > self.settings.max_error_rate:
            raise JudgeFailureError(
                f"{message}. Above judge_max_error_rate={self.settings.max_error_rate:g}: fix the judge "
                "(re-running retries only the failed ones; answers are cached) or raise judge_max_error_rate."
            )
        log.warning("%s (within judge_max_error_rate=%g)", message, self.settings.max_error_rate)

    def close(self) -> None:
        self._cache.close()
        if self._client is not None:
            self._client.close()

    def __enter__(self) -> Judge:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

