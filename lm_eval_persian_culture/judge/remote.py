"""The judge over HTTP: any OpenAI-compatible server (OpenAI, vLLM, llama.cpp, Ollama, LiteLLM).

One shared ``openai.OpenAI`` client, a thread pool, and an adaptive limit on requests in flight
(``concurrency.AdaptiveLimit``). Retries are done here rather than inside the client, so that
every attempt, retries included, waits for a slot under the current limit, and a timeout is seen
by the limit at once: 429 (honouring Retry-After), 408/409, 5xx, timeouts, dropped connections and
HTTP 200s that carry no answer (a body that is not a completion, no choices, empty content) are
retried with exponential backoff (``judge_retry_backoff``, doubling) up to ``judge_max_retries`` times.

A judge that is too slow is reported, not silently retried: the first timeout logs the pace so
far, an estimate for the rest and the settings to change; a request that times out twice in a row
while it was the only one in flight means the server cannot answer even one request within
``judge_timeout``, and the remaining items are given up at once with that message as their error.
A judge server that is gone (it died mid-run, or was never started) is given up the same way: the
first refused connection is reported at once, and a request refused three times in a row (over its
first backoffs: a few seconds by default) with no answer from the server since its first refusal
gives up the remaining items, instead of ~21 s of retries per item.
"""

from __future__ import annotations

import email.utils
import json
import logging
import os
import random
import threading
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from typing import Any

import openai

from lm_eval_persian_culture.judge.backend import OnAnswer
from lm_eval_persian_culture.judge.cache import CachedAnswer
from lm_eval_persian_culture.judge.concurrency import AdaptiveLimit, Slot
from lm_eval_persian_culture.judge.settings import JudgeConfigError, JudgeSettings, redact_url

log = logging.getLogger(__name__)

OPENAI_BASE_URL = "https://api.openai.com/v1"
_RETRIED_STATUSES = {408, 409, 429}  # and every 5xx
_MAX_ERROR_TEXT = 160
_MAX_RETRY_AFTER_S = 60.0
_SOLO_TIMEOUTS_TO_GIVE_UP = 2
_MAX_BACKOFF_S = 8.0
_REFUSALS_TO_GIVE_UP = 3


class OpenAIBackend:
    deterministic = False  # the same prompt may get another answer: the Judge re-asks unparseable ones

    def __init__(self, settings: JudgeSettings) -> None:
        self.settings = settings
        self.limit = AdaptiveLimit(settings.concurrency)
        self.attempts = 0
        self.retries = 0  # attempts beyond the first of a request
        self.timeouts = 0
        self.served_models: set[str] = set()
        self._client: openai.OpenAI | None = None
        self._api_key: str | None = None
        self._lock = threading.Lock()
        self._given_up: str | None = None
        self._solo_timeouts = 0
        self._warned_slow = False
        self._warned_refused = False
        self._last_answer_at = float("-inf")  # when the server last answered (monotonic)
        self._pace: tuple[float, int, int] = (0.0, 0, 0)  # (start, answered, total) of the current batch

    @property
    def url(self) -> str:
        return redact_url(self.settings.base_url) or OPENAI_BASE_URL

    def fingerprint(self) -> dict[str, Any]:
        return {}

    def describe(self) -> dict[str, Any]:
        return {
            "backend": "openai-compatible",
            "model": self.settings.model,
            "base_url": self.url,
            "served_models": sorted(self.served_models),
        }

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
                        "judge_api_key_env), point judge_base_url at an OpenAI-compatible server, or run a "
                        "local judge with judge_model=hf:<model id or directory>"
                    )
                key = "EMPTY"  # local servers (vLLM, llama.cpp, Ollama) accept any key
            self._api_key = key
            self._client = openai.OpenAI(
                # Explicit URL: a stray $OPENAI_BASE_URL must not silently reroute the paper's judge.
                base_url=settings.base_url or OPENAI_BASE_URL,
                api_key=key,
                timeout=settings.timeout,
                max_retries=0,  # retried in _ask, under the adaptive limit
            )
        return self._client

    def answer_many(self, prompts: Sequence[str], max_tokens: int | None, on_answer: OnAnswer) -> None:
        client = self._get_client()
        cancel = threading.Event()
        # Each batch (task) gets a fresh chance and a fresh report; the learned limit carries over.
        with self._lock:
            self._pace = (time.monotonic(), 0, len(prompts))
            self._given_up, self._solo_timeouts, self._warned_slow = None, 0, False
            self._warned_refused = False
        pool = ThreadPoolExecutor(max_workers=min(self.settings.concurrency, len(prompts)))
        try:
            futures = {
                pool.submit(self._ask, client, prompt, max_tokens, cancel): i for i, prompt in enumerate(prompts)
            }
            for future in as_completed(futures):
                answer, error = future.result()
                on_answer(futures[future], answer, error)
        finally:
            # On Ctrl-C or a bug, don't keep paying for queued calls nobody will read.
            cancel.set()
            pool.shutdown(wait=False, cancel_futures=True)

    def _ask(
        self, client: openai.OpenAI, prompt: str, max_tokens: int | None, cancel: threading.Event
    ) -> tuple[CachedAnswer | None, str | None]:
        """One judgment, retried; returns (answer, None) or (None, short error)."""
        settings = self.settings
        body: dict[str, Any] = {
            "model": settings.model,
            "messages": [
                {"role": "system", "content": settings.system_prompt},
                {"role": "user", "content": prompt},
            ],
            "temperature": settings.temperature,
        }
        if max_tokens is not None:
            body["max_tokens"] = max_tokens
        last_error: openai.APIError | str | None = None
        refusals, refused_since = 0, 0.0  # this request's connections refused in a row
        for attempt in range(settings.max_retries + 1):
            if self._given_up:
                return None, self._given_up
            slot = self._acquire(cancel)
            if slot is None:
                return None, "cancelled"
            with self._lock:
                self.attempts += 1
                self.retries += attempt > 0
            retry_after: float | None = None
            try:
                # The client's own POST (its connection pool, auth, timeouts and error classes), with
                # the body read by json.loads: chat.completions.create's request transformation and
                # response models cost ~3.5 ms CPU a request, which at 64 in flight bounded the
                # judge's throughput more than the server did (bench/judge_throughput.py).
                completion = json.loads(client.post("/chat/completions", body=body, cast_to=bytes))
            except openai.APITimeoutError as err:
                alone = self.limit.was_alone(slot)
                cut = self.limit.release(slot, congested=True)
                self._on_timeout(cut, alone)
                last_error = err
            except openai.APIConnectionError as err:
                self.limit.release(slot)
                last_error = err
                if _cannot_connect(err):
                    refusals += 1
                    refused_since = refused_since if refusals > 1 else time.monotonic()
                    self._on_refused(refusals, refused_since)
                else:
                    refusals = 0
            except openai.APIStatusError as err:
                self.limit.release(slot, congested=err.status_code == 429)
                if not (err.status_code in _RETRIED_STATUSES or err.status_code >= 500):
                    return None, self._describe(err)
                last_error, retry_after = err, _retry_after(err.response.headers)
            except (openai.APIError, json.JSONDecodeError, UnicodeDecodeError) as err:
                # A 200 whose body is not JSON (cut off, an HTML page from a proxy) or another
                # client-side APIError. Garbage from a proxy or an overloaded server is transient:
                # retried like a 5xx.
                self.limit.release(slot)
                kind = "not JSON" if isinstance(err, (json.JSONDecodeError, UnicodeDecodeError)) else type(err).__name__
                last_error = f"malformed response ({kind})"
            else:
                answer, problem, retry = self._answer(completion)
                if problem is None:
                    self.limit.release(slot, answered=True)
                    return answer, None
                self.limit.release(slot)
                if not retry:
                    return None, problem
                last_error = problem
            if self._given_up:
                return None, self._given_up
            if attempt < settings.max_retries:
                backoff = min(settings.retry_backoff * 2**attempt, _MAX_BACKOFF_S) * (1 - random.random() / 4)
                if cancel.wait(retry_after if retry_after is not None else backoff):
                    return None, "cancelled"
        assert last_error is not None
        return None, self._given_up or self._describe(last_error)

    def _acquire(self, cancel: threading.Event) -> Slot | None:
        """A slot under the adaptive limit, or None if the batch was cancelled."""
        while not cancel.is_set():
            # Short waits, so a cancelled batch does not leave threads blocked here.
            slot = self.limit.acquire(timeout=0.1)
            if slot is not None:
                return slot
        return None

    def _answer(self, completion: Any) -> tuple[CachedAnswer | None, str | None, bool]:
        """(answer, None, _) for a usable completion (the parsed JSON body), else (None, problem, whether to retry)."""
        if not isinstance(completion, dict) or not isinstance(completion.get("choices"), list):
            # valid JSON that is not a chat completion (an error page from a proxy, say)
            return None, "malformed response (not a chat completion)", True
        served = completion.get("model") if isinstance(completion.get("model"), str) else None
        with self._lock:
            self._solo_timeouts = 0  # the server did answer in time
            self._last_answer_at = time.monotonic()
            if served:
                self.served_models.add(served)
        choices = completion["choices"]
        if not choices or not isinstance(choices[0], dict):
            return None, "empty response (no choices)", True
        choice = choices[0]
        message = choice.get("message") if isinstance(choice.get("message"), dict) else {}
        text = _content_text(message.get("content"))
        if not text:
            reason = choice.get("finish_reason")
            if reason == "length":
                # The budget went before any answer (a reasoning model thinking): asking again at the
                # same temperature and budget is futile; the user must raise judge_max_tokens.
                return None, "empty answer (finish_reason=length): raise judge_max_tokens", False
            # Not cached: an empty answer (a content filter, a hiccup) may well differ next time.
            return None, f"empty answer (finish_reason={reason})", True
        with self._lock:
            start, answered, total = self._pace
            self._pace = (start, answered + 1, total)
        usage = completion.get("usage") if isinstance(completion.get("usage"), dict) else {}
        return (
            CachedAnswer(
                raw=text,
                prompt_tokens=_count(usage.get("prompt_tokens")),
                completion_tokens=_count(usage.get("completion_tokens")),
                served_model=served,
            ),
            None,
            False,
        )

    def _on_timeout(self, cut: bool, solo: bool) -> None:
        settings = self.settings
        with self._lock:
            self.timeouts += 1
            self._solo_timeouts = self._solo_timeouts + 1 if solo else 0
            start, answered, total = self._pace
            first = not self._warned_slow
            self._warned_slow = True
            give_up = self._solo_timeouts >= _SOLO_TIMEOUTS_TO_GIVE_UP and self._given_up is None
            if give_up:
                self._given_up = (
                    f"judge too slow: no answer within judge_timeout={settings.timeout:g}s even with one request "
                    f"at a time ({self.url}); raise judge_timeout or lower judge_max_tokens"
                )
        elapsed = time.monotonic() - start
        if answered:
            per_answer = elapsed / answered
            pace = (
                f"{answered} of {total} answered in {_duration(elapsed)} (~{per_answer:.2g}s each); at this pace "
                f"the remaining {total - answered} need ~{_duration((total - answered) * per_answer)}"
            )
        else:
            pace = f"none of {total} answered yet after {_duration(elapsed)}"
        advice = (
            "If the server answers few requests at a time (llama.cpp --parallel, OLLAMA_NUM_PARALLEL, a busy "
            "vLLM), set judge_concurrency to its number of slots; if one answer takes longer than "
            f"judge_timeout={settings.timeout:g}s, raise judge_timeout or lower judge_max_tokens."
        )
        if give_up:
            log.error("%s. %s. %s", self._given_up, pace, advice)
        elif first or cut:
            log.warning(
                "judge at %s (%s) is slow: a request got no answer within judge_timeout=%gs; requests in flight "
                "lowered to %d (judge_concurrency=%d is the ceiling). %s. %s",
                self.url, settings.model, settings.timeout, self.limit.limit, settings.concurrency, pace,
                advice if first else "",
            )  # fmt: skip

    def _on_refused(self, refusals: int, since: float) -> None:
        """Say at once that the server refuses connections; give up once it is plainly gone."""
        with self._lock:
            first = not self._warned_refused
            self._warned_refused = True
            give_up = refusals >= _REFUSALS_TO_GIVE_UP and self._last_answer_at < since and self._given_up is None
            if give_up:
                self._given_up = (
                    f"judge server unreachable: {self.url} refused the connection {refusals} times in a row over "
                    f"{time.monotonic() - since:.1f}s with no answer since; is it running? Start it again and re-run "
                    "(verdicts already given are cached) or re-score with lm-eval-persian rejudge"
                )
        if give_up:
            log.error("%s", self._given_up)
        elif first:
            log.warning(
                "judge server %s refused the connection (is it running?): retrying, and giving up the remaining "
                "items if it still refuses after %d tries", self.url, _REFUSALS_TO_GIVE_UP,
            )  # fmt: skip

    def _describe(self, err: openai.APIError | str) -> str:
        """A short reason for the error; never request headers, and the key scrubbed from server text."""
        retries = self.settings.max_retries
        if isinstance(err, str):  # a 200 that carried no usable answer
            text = f"{err} after {retries} retries"
        elif isinstance(err, openai.APITimeoutError):
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

    def close(self) -> None:
        if self._client is not None:
            self._client.close()


def _cannot_connect(err: BaseException) -> bool:
    """True when no connection could be made (refused, no such host): nobody listens there. A
    connection dropped or reset mid-request is not this. (Read from the cause chain, whichever HTTP
    library the openai client is built on: httpx, httpx2.)"""
    seen: BaseException | None = err
    while seen is not None:
        if isinstance(seen, ConnectionRefusedError) or type(seen).__name__ == "ConnectError":
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def _content_text(content: Any) -> str | None:
    """A message's text: a string, or the text parts of a list of content parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict) and isinstance(p.get("text"), str))
    return None


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _retry_after(headers: Mapping[str, str]) -> float | None:
    """Seconds from Retry-After / retry-after-ms (as the openai client reads them); None if absent or absurd."""
    value: float | None = None
    try:
        if "retry-after-ms" in headers:
            value = float(headers["retry-after-ms"]) / 1000
        elif "retry-after" in headers:
            text = headers["retry-after"]
            try:
                value = float(text)
            except ValueError:
                parsed = email.utils.parsedate_to_datetime(text)
                value = parsed.timestamp() - time.time()
    except (TypeError, ValueError):
        return None
    return value if value is not None and 0 <= value <= _MAX_RETRY_AFTER_S else None
