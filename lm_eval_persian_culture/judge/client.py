"""The Judge: batched, cached verdicts from an LLM judge, served (HTTP) or local (transformers).

lm-eval's built-in judge and the papers' scripts make one blocking call at a time and re-pay for
every re-run. Here a batch goes to a backend (``remote.OpenAIBackend``: concurrent requests under an
adaptive limit, with retries; ``local.LocalBackend``: batched greedy generation in this process),
and every answer is written to a disk cache the moment it arrives. Cache, verdict parsing and
error accounting are the same whichever backend answers, with one difference: an answer the parser
cannot read is re-asked (``judge_unparseable_retries`` times; by default only above temperature 0)
and not cached when a served judge gave it (it may answer properly next time), and kept as it is
from the greedy local judge. A first round whose answers are mostly unreadable is reported at once,
with an example, and not re-asked: that judge does not answer in the format.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from tqdm.auto import tqdm

from lm_eval_persian_culture.judge.backend import JudgeBackend
from lm_eval_persian_culture.judge.cache import CachedAnswer, JudgeCache, cache_key
from lm_eval_persian_culture.judge.launch import SharedBatch, judging_process_ended, shared_batch
from lm_eval_persian_culture.judge.parse import parse_yes_no
from lm_eval_persian_culture.judge.pricing import estimate_cost
from lm_eval_persian_culture.judge.settings import (
    VERDICT_MAX_TOKENS,
    JudgeConfigError,
    JudgeFailureError,
    JudgeSettings,
)

log = logging.getLogger(__name__)
_WAIT_POLL_S = 0.2  # how often a waiting process looks for the judging process's finished batch


def make_backend(settings: JudgeSettings) -> JudgeBackend:
    """The backend the settings name: ``hf:<model>`` runs locally, anything else is served (imported
    here, not in backend.py, which both backends import for its types)."""
    if settings.is_local:
        from lm_eval_persian_culture.judge.local import LocalBackend

        return LocalBackend(settings)
    from lm_eval_persian_culture.judge.remote import OpenAIBackend

    return OpenAIBackend(settings)


@dataclass
class JudgeResult:
    """One judgment. ``verdict`` is the parser's output (bool for Yes/No); None means no verdict."""

    raw: str | None
    verdict: Any
    error: str | None
    cached: bool
    prompt_tokens: int = 0
    completion_tokens: int = 0
    served_model: str | None = None  # the model name the server reported (served judges)


@dataclass
class JudgeUsage:
    """Running totals over a Judge's lifetime; tokens and cost count only requests actually sent.

    ``requests_sent``: answers asked of the backend, re-asks included (a served judge's HTTP
    retries are not: see ``OpenAIBackend.attempts``); ``reasks``: of those, the ones asked again
    because the parser could not read the previous answer. ``errors`` and ``unparseable`` count
    the returned results without a verdict (no answer at all / an answer the parser cannot read).
    """

    model: str
    items: int = 0
    requests_sent: int = 0
    reasks: int = 0
    cache_hits: int = 0
    errors: int = 0
    unparseable: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    retries: int = 0  # a served judge's HTTP attempts beyond one per request (errors, timeouts, refusals)
    timeouts: int = 0  # of those attempts, the ones that got no answer within judge_timeout

    def estimated_cost_usd(self) -> float | None:
        return estimate_cost(self.model, self.prompt_tokens, self.completion_tokens)

    def summary(self) -> str:
        cost = self.estimated_cost_usd()
        cost_text = "cost unknown (no list price)" if cost is None else f"~${cost:.4f} at list prices"
        return (
            f"judge {self.model}: {self.items} items, {self.requests_sent} requests "
            f"({self.reasks} re-asked), {self.cache_hits} cache hits, {self.errors} errors, "
            f"{self.unparseable} unparseable, "
            f"{self.retries} HTTP retries ({self.timeouts} timeouts), "
            f"{self.prompt_tokens} prompt + {self.completion_tokens} completion tokens, {cost_text}"
        )


_FORMAT_CHECK_ANSWERS = 5  # the first answers of a batch, all unreadable: say so at once


class _FormatCheck:
    """Watches the first round of a batch for a judge that does not answer in the verdict format
    (a base model echoing its prompt, a chat model explaining itself): said at once, with an example."""

    def __init__(self, model: str, desc: str) -> None:
        self.model, self.desc = model, desc
        self.answers = self.unreadable = 0
        self.example: str | None = None
        self._warned = False

    def count(self, raw: str, readable: bool) -> None:
        self.answers += 1
        if not readable:
            self.unreadable += 1
            self.example = self.example or raw
        if not self._warned and self.answers == _FORMAT_CHECK_ANSWERS == self.unreadable:
            self._warned = True
            log.warning(
                "judge %s (%s): the first %d answers have no readable verdict, e.g. %s. This judge does not seem "
                "to answer in the verdict format (Yes/No, an option, a score): try another judge_model.",
                self.model, self.desc, self.answers, _example(self.example),
            )  # fmt: skip

    def judge_ignores_format(self) -> bool:
        """True (and said, with an example) when most answers of the first round were unreadable."""
        if self.unreadable < 2 or 2 * self.unreadable <= self.answers:
            return False
        log.error(
            "judge %s (%s) does not follow the verdict format: %d of %d answers could not be read, e.g. %s. "
            "They are not asked again (it would answer the same way) and count as judgments without a "
            "verdict; use a judge that answers as the prompt asks.",
            self.model, self.desc, self.unreadable, self.answers, _example(self.example),
        )  # fmt: skip
        return True


def _example(raw: str | None) -> str:
    text = " ".join((raw or "").split())
    return repr(text[:160] + ("..." if len(text) > 160 else "")) if text else "(empty answer)"


class Judge:
    """Sends judge prompts to a backend, caches answers on disk, and parses verdicts."""

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
        self.backend: JudgeBackend = make_backend(settings)  # cheap: nothing is loaded or opened yet
        self._cache = JudgeCache(settings.cache_dir)

    def fingerprint(self, max_tokens: int | None = VERDICT_MAX_TOKENS) -> dict[str, Any]:
        """Cache-key parts for prompts whose kind defaults to ``max_tokens`` answer tokens."""
        return {**self.settings.fingerprint(max_tokens), **self.backend.fingerprint()}

    def describe(self) -> dict[str, Any]:
        """The judge as recorded in results: model, backend, revision or served model names."""
        return self.backend.describe()

    def judge_many(
        self,
        prompts: Sequence[str],
        template_id: str,
        desc: str = "judging",
        max_tokens: int | None = VERDICT_MAX_TOKENS,
    ) -> list[JudgeResult]:
        """Judge every prompt; results come back in input order, cached answers without any request.

        ``max_tokens`` is this prompt kind's default answer budget (a one-word verdict by default);
        ``judge_max_tokens``, when set, overrides it. Either way it is part of the cache key.

        When every process of a launch runs the whole loop (torchrun with ``tp_plan``), only the
        ``LOCAL_RANK`` 0 process asks; the others wait for it and take its verdicts from the cache
        (``launch.py``).
        """
        shared = shared_batch(template_id)
        if shared is None:
            return self._judge_here(prompts, template_id, desc, max_tokens)
        if not shared.judging:
            return self._verdicts_of_judging_process(prompts, template_id, desc, max_tokens, shared)
        try:
            return self._judge_here(prompts, template_id, desc, max_tokens)
        finally:  # even on failure: the waiting processes then find what was stored, and report the rest
            self._cache.mark_batch_finished(shared.launch_id, shared.batch_id)

    def _verdicts_of_judging_process(
        self,
        prompts: Sequence[str],
        template_id: str,
        desc: str,
        max_tokens: int | None,
        shared: SharedBatch,
    ) -> list[JudgeResult]:
        """Wait until the launch's judging process has finished this batch; its verdicts, no request."""
        fingerprint = self.fingerprint(max_tokens)
        keys = [cache_key(fingerprint, template_id, prompt) for prompt in prompts]
        waited, next_note = 0.0, 0.0
        while not self._cache.batch_finished(shared.launch_id, shared.batch_id):
            if judging_process_ended(shared.launch_id):
                log.warning("%s: LOCAL_RANK 0 ended without judging batch %s; this process asks for none",
                            desc, shared.batch_id)  # fmt: skip
                break
            if waited >= next_note:
                log.info("%s: LOCAL_RANK %d waits for LOCAL_RANK 0 to judge %d items (batch %s; %.0f s so far)",
                         desc, shared.local_rank, len(keys), shared.batch_id, waited)  # fmt: skip
                next_note = waited + 300
            time.sleep(_WAIT_POLL_S)
            waited += _WAIT_POLL_S
        cached = self._cache.get_many(keys)
        missing = sum(key not in cached for key in keys)
        if missing:
            log.warning("%s: %d of %d items have no verdict from LOCAL_RANK 0 (its failures, or replies that differ "
                        "from this process's); this process asks for none", desc, missing, len(keys))  # fmt: skip
        error = "no verdict from the judging process (LOCAL_RANK 0)"
        results = [
            self._result(cached[key], None, True) if key in cached else JudgeResult(None, None, error, False)
            for key in keys
        ]
        self._count(results)
        return results

    def _judge_here(
        self, prompts: Sequence[str], template_id: str, desc: str, max_tokens: int | None
    ) -> list[JudgeResult]:
        """``judge_many`` in this process: cached answers, then the backend for the rest."""
        effective_max_tokens = self.settings.effective_max_tokens(max_tokens)
        fingerprint = self.fingerprint(max_tokens)
        keys = [cache_key(fingerprint, template_id, prompt) for prompt in prompts]
        cached = self._cache.get_many(keys)
        answers: dict[str, tuple[CachedAnswer | None, str | None, bool]] = {
            key: (answer, None, True) for key, answer in cached.items()
        }
        todo = {key: prompt for key, prompt in zip(keys, prompts) if key not in answers}
        deterministic = getattr(self.backend, "deterministic", False)
        # A served judge sampling above temperature 0 may answer a stray "I am not sure" and the
        # verdict next time: such answers are asked again (a few times), and never cached, so a later
        # run asks again too. A greedy local judge would only repeat itself: its answer is kept (and
        # cached) as it is. (A served judge at temperature 0 gets no re-asks by default: settings.)
        reasks_allowed = 0 if deterministic else self.settings.unparseable_retries
        if todo:
            with tqdm(total=len(todo), desc=desc, unit="verdict") as bar:
                pending = list(todo)
                first_round = _FormatCheck(self.settings.model, desc)
                for round_ in range(reasks_allowed + 1):
                    reask: dict[str, CachedAnswer] = {}

                    # B023: answer_many() calls on_answer only before it returns, within this round, so
                    # the round's pending, round_ and reask are the ones it reads (no late binding).
                    def on_answer(index: int, answer: CachedAnswer | None, error: str | None) -> None:
                        key = pending[index]  # noqa: B023 (called within this round)
                        self.usage.requests_sent += 1
                        if answer is not None:
                            # paid for, whatever it says
                            self.usage.prompt_tokens += answer.prompt_tokens
                            self.usage.completion_tokens += answer.completion_tokens
                            readable = self.parser(answer.raw) is not None
                            if round_ == 0:  # noqa: B023
                                first_round.count(answer.raw, readable)
                            if deterministic or readable:
                                self._cache.put(key, template_id=template_id, fingerprint=fingerprint, answer=answer)
                            elif round_ < reasks_allowed:  # noqa: B023
                                reask[key] = answer  # noqa: B023 (not settled yet)
                                return
                        answers[key] = (answer, error, False)
                        bar.update()

                    self.backend.answer_many([todo[key] for key in pending], effective_max_tokens, on_answer)
                    if round_ == 0 and first_round.judge_ignores_format():
                        # Re-asking a judge that does not answer in the format would only pay again
                        # for the same kind of answer: its answers stand (as unreadable).
                        for key, answer in reask.items():
                            answers[key] = (answer, None, False)
                            bar.update()
                        break
                    if not reask:
                        break
                    log.info("judge (%s): %d answers had no verdict; asking again", desc, len(reask))
                    self.usage.reasks += len(reask)
                    pending = list(reask)
            self._count_http_retries()

        results = [self._result(*answers[key]) for key in keys]
        self._count(results)
        log.info("%s (%s)", self.usage.summary(), desc)
        return results

    def _count(self, results: Sequence[JudgeResult]) -> None:
        self.usage.items += len(results)
        self.usage.cache_hits += sum(r.cached for r in results)
        self.usage.errors += sum(r.error is not None and r.raw is None for r in results)
        self.usage.unparseable += sum(r.raw is not None and r.error is not None for r in results)

    def _count_http_retries(self) -> None:
        """The served backend's HTTP retries and timeouts so far, for the usage line."""
        self.usage.retries = getattr(self.backend, "retries", 0)
        self.usage.timeouts = getattr(self.backend, "timeouts", 0)

    def _result(self, answer: CachedAnswer | None, error: str | None, cached: bool) -> JudgeResult:
        if answer is None:
            return JudgeResult(raw=None, verdict=None, error=error, cached=cached)
        verdict = self.parser(answer.raw)
        return JudgeResult(
            raw=answer.raw,
            verdict=verdict,
            error=None if verdict is not None else f"unparseable: {answer.raw.strip()[:80] or '(empty answer)'}",
            cached=cached,
            prompt_tokens=answer.prompt_tokens,
            completion_tokens=answer.completion_tokens,
            served_model=answer.served_model,
        )

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
                "(a re-run asks again only for these: verdicts are cached, failed calls and a served judge's "
                "unreadable answers are not) or raise judge_max_error_rate."
            )
        log.warning("%s (within judge_max_error_rate=%g)", message, self.settings.max_error_rate)

    def close(self) -> None:
        self._cache.close()
        self.backend.close()

    def __enter__(self) -> Judge:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
