"""The shared judge over real HTTP: the real openai client against the local fake server, no mocks."""

from __future__ import annotations

import json
import logging
import os
import time
from pathlib import Path

import openai
import pytest

from lm_eval_persian_culture.judge import (
    VERDICT_MAX_TOKENS,
    CachedAnswer,
    Judge,
    JudgeCache,
    JudgeConfigError,
    JudgeFailureError,
    JudgeResult,
    JudgeSettings,
    cache_key,
    check_not_self_judge,
    estimate_cost,
    parse_yes_no,
)
from lm_eval_persian_culture.testing.openai_server import FakeOpenAIServer

SECRET = "sk-test-SECRET123"


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Judge settings must come from the test alone, never from the developer's shell."""
    for name in list(os.environ):
        if name.startswith("PERSIAN_CULTURE_JUDGE_") or name in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
            monkeypatch.delenv(name)


def scripted(prompt: str, body: dict) -> str:
    """'q<i>' -> Yes for even i, No for odd i; 'garbled' -> an answer that is neither."""
    if "garbled" in prompt:
        return "The response partially observes taarof."
    return "Yes" if int(prompt.split("q")[-1]) % 2 == 0 else "No."


@pytest.fixture
def server():
    with FakeOpenAIServer(answer=scripted, latency_s=0.005) as srv:
        yield srv


def make_settings(server: FakeOpenAIServer, tmp_path: Path, **overrides) -> JudgeSettings:
    values = {"model": "gpt-4", "base_url": server.base_url, "cache_dir": str(tmp_path / "cache"), "max_retries": 2}
    values.update(overrides)
    return JudgeSettings(**values)


# ---------------------------------------------------------------- parsing


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Yes", True),
        ("No", False),
        ("yes.", True),
        ("No,", False),
        ("YES!", True),
        ("  \n yes", True),
        ("**Yes**", True),
        ("**No.** The response is blunt.", False),
        ('"Yes"', True),
        ("'no'", False),
        ("Answer: Yes", True),
        ("Verdict: no", False),
        ("**Answer:** Yes", True),
        ("Final answer - No", False),
        ("Nope", False),
        ("Yes, the response follows taarof.", True),
        ("<think>It declines twice, so...</think>\nYes", True),
        ("بله", True),
        ("بلی.", True),
        ("آره", True),
        ("بلي", True),  # Arabic yeh
        ("خیر", False),
        ("نه، پاسخ مناسب نیست", False),
        ("پاسخ: بله", True),
        ("نه\u200cتنها ...", None),  # "not only": ZWNJ joins the word
        ("نهایت", None),
        ("Nothing here", None),
        ("Not really", None),
        ("Yesterday it was fine", None),
        ("Maybe", None),
        ("The response partially meets expectations.", None),
        ("Yes and no", None),
        ("Yes/No", None),
        ("", None),
        ("   ", None),
        (None, None),
    ],
)
def test_parse_yes_no(text: str | None, expected: bool | None) -> None:
    assert parse_yes_no(text) is expected


# ---------------------------------------------------------------- pricing


def test_estimate_cost_known_and_unknown_models() -> None:
    assert estimate_cost("gpt-4", 1000, 10) == pytest.approx(0.03 + 0.0006)
    assert estimate_cost("gpt-4o-mini", 2_000_000, 1_000_000) == pytest.approx(0.30 + 0.60)
    assert estimate_cost("Qwen/Qwen2.5-7B-Instruct", 1000, 10) is None
    assert estimate_cost("gpt-4-32k", 1000, 10) is None  # no prefix guessing


# ---------------------------------------------------------------- settings


def test_from_settings_none_when_unconfigured() -> None:
    assert JudgeSettings.from_settings(None) is None
    assert JudgeSettings.from_settings({"pretrained": "some/model", "dtype": "float32"}) is None


def test_from_settings_metadata_over_env_and_string_parsing(monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("PERSIAN_CULTURE_JUDGE_MODEL", "env-model")
    monkeypatch.setenv("PERSIAN_CULTURE_JUDGE_CONCURRENCY", "8")
    monkeypatch.setenv("PERSIAN_CULTURE_JUDGE_CACHE", str(tmp_path / "env-cache"))
    from_env = JudgeSettings.from_settings({})
    assert (from_env.model, from_env.concurrency, from_env.cache_dir) == ("env-model", 8, str(tmp_path / "env-cache"))

    settings = JudgeSettings.from_settings(
        {
            "judge_model": "gpt-4o",
            "judge_base_url": "http://localhost:8000/v1",
            "judge_api_key_env": "MY_KEY",
            "judge_concurrency": "16",
            "judge_temperature": "0.5",
            "judge_max_tokens": "5",
            "judge_timeout": "2.5",
            "judge_max_retries": 3,
            "judge_max_error_rate": "0.1",
            "judge_allow_self": "true",
            "judge_cache_dir": str(tmp_path / "meta-cache"),
        }
    )
    assert settings == JudgeSettings(
        model="gpt-4o",
        base_url="http://localhost:8000/v1",
        api_key_env="MY_KEY",
        concurrency=16,
        cache_dir=str(tmp_path / "meta-cache"),
        temperature=0.5,
        max_tokens=5,
        timeout=2.5,
        max_retries=3,
        max_error_rate=0.1,
        allow_self_judge=True,
    )
    assert JudgeSettings.from_settings({"judge_model": "m", "judge_max_tokens": "none"}).max_tokens is None
    assert JudgeSettings.from_settings({"judge_model": "m", "judge_base_url": ""}).base_url is None


def test_from_settings_defaults_are_the_papers(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("PERSIAN_CULTURE_JUDGE_CACHE", str(tmp_path))
    settings = JudgeSettings.from_settings({"judge_model": "gpt-4"})
    assert settings.temperature == 0.0
    assert settings.system_prompt == "You are a helpful assistant."
    assert settings.base_url is None and settings.api_key_env == "OPENAI_API_KEY"
    assert settings.cache_dir == str(tmp_path)


@pytest.mark.parametrize("value", ["none", "None", "NONE"])
def test_from_settings_none_disables(value: str) -> None:
    settings = JudgeSettings.from_settings({"judge_model": value})
    assert settings is not None and settings.disabled
    with pytest.raises(JudgeConfigError):
        Judge(settings)


@pytest.mark.parametrize(
    "bad",
    [
        {"judge_model": "m", "judge_concurrency": "many"},
        {"judge_model": "m", "judge_concurrency": "0"},
        {"judge_model": "m", "judge_allow_self": "perhaps"},
        {"judge_model": "m", "judge_max_error_rate": "1.5"},
        {"judge_base_url": "http://localhost:8000/v1"},  # a judge setting but no judge model
    ],
)
def test_from_settings_rejects_bad_values(bad: dict) -> None:
    with pytest.raises(JudgeConfigError):
        JudgeSettings.from_settings(bad)


@pytest.mark.parametrize("key", ["judge_api_key", "api_key", "openai_api_key", "JUDGE_API_KEY"])
def test_from_settings_rejects_secrets_in_metadata(key: str) -> None:
    with pytest.raises(JudgeConfigError, match="environment variable") as info:
        JudgeSettings.from_settings({"judge_model": "gpt-4", key: SECRET})
    assert SECRET not in str(info.value)


def test_api_key_env_must_be_a_name_not_the_key() -> None:
    with pytest.raises(JudgeConfigError, match="NAME") as info:
        JudgeSettings.from_settings({"judge_model": "gpt-4", "judge_api_key_env": SECRET})
    assert SECRET not in str(info.value)


def test_public_dict_and_fingerprint_drop_url_credentials() -> None:
    settings = JudgeSettings(model="m", base_url="https://user:pw@proxy.example/v1/?key=abc", cache_dir="/tmp/x")
    assert settings.public_dict()["base_url"] == "https://proxy.example/v1"
    assert settings.fingerprint() == {
        "model": "m",
        "base_url": "https://proxy.example/v1",
        "temperature": 0.0,
        "max_tokens": None,
        "system_prompt": "You are a helpful assistant.",
    }


@pytest.mark.parametrize(
    ("judge", "model_args"),
    [
        ("gpt-4", {"model": "gpt-4"}),
        ("gpt-4", {"model": "openai/GPT-4"}),
        ("Qwen/Qwen2.5-7B-Instruct", {"pretrained": "/models/qwen2.5-7b-instruct/"}),
        ("Qwen/Qwen2.5-7B-Instruct", {"model_name": "Qwen/Qwen2.5-7B-Instruct"}),
        ("llama3", {"path": "llama3"}),
    ],
)
def test_check_not_self_judge_refuses(judge: str, model_args: dict) -> None:
    settings = JudgeSettings(model=judge, cache_dir="/tmp/x")
    with pytest.raises(JudgeConfigError, match="judge_allow_self"):
        check_not_self_judge(settings, model_args)
    check_not_self_judge(JudgeSettings(model=judge, cache_dir="/tmp/x", allow_self_judge=True), model_args)


def test_check_not_self_judge_allows_other_models() -> None:
    settings = JudgeSettings(model="gpt-4", cache_dir="/tmp/x")
    check_not_self_judge(settings, {"pretrained": "Qwen/Qwen2.5-7B-Instruct", "dtype": "bfloat16"})
    check_not_self_judge(settings, {"model": "gpt-4o"})
    check_not_self_judge(JudgeSettings(model="none", cache_dir="/tmp/x"), {"model": "none"})


# ---------------------------------------------------------------- judging over HTTP


def test_verdicts_order_tokens_and_request_shape(server, tmp_path) -> None:
    prompts = [f"q{i}" for i in range(40)]
    with Judge(make_settings(server, tmp_path, max_tokens=3)) as judge:
        results = judge.judge_many(prompts, template_id="t/v1")
    assert [r.verdict for r in results] == [i % 2 == 0 for i in range(40)]
    assert [r.raw for r in results] == ["Yes" if i % 2 == 0 else "No." for i in range(40)]
    assert all(r.error is None and not r.cached for r in results)
    # Server counts words: "You are a helpful assistant." (5) + "q<i>" (1); answers are 1 word.
    assert {(r.prompt_tokens, r.completion_tokens) for r in results} == {(6, 1)}
    assert (judge.usage.prompt_tokens, judge.usage.completion_tokens) == (240, 40)
    assert judge.usage.estimated_cost_usd() == pytest.approx((240 * 30 + 40 * 60) / 1e6)
    assert server.request_count == 40
    body = server.requests[0]
    assert body["model"] == "gpt-4" and body["temperature"] == 0.0 and body["max_tokens"] == 3
    assert body["messages"][0] == {"role": "system", "content": "You are a helpful assistant."}
    assert body["messages"][1]["role"] == "user"
    assert server.auth_headers[0] == "Bearer EMPTY"  # local server, no key env set


def test_requests_run_concurrently(tmp_path) -> None:
    with FakeOpenAIServer(answer=lambda p, b: "Yes", latency_s=0.2) as srv:
        with Judge(make_settings(srv, tmp_path, concurrency=32)) as judge:
            start = time.perf_counter()
            judge.judge_many([f"q{i}" for i in range(64)], template_id="t")
            elapsed = time.perf_counter() - start
        # Concurrency is read at the server, not off a clock (machines here are shared and noisy):
        # one-at-a-time judging never has two requests in flight; speed is measured in bench/.
        assert srv.max_in_flight >= 8, srv.max_in_flight
    assert elapsed < 64 * 0.2 / 2  # well under the 12.8 s a sequential judge needs


def test_second_run_is_fully_cached(server, tmp_path) -> None:
    prompts = [f"q{i}" for i in range(10)]
    settings = make_settings(server, tmp_path)
    with Judge(settings) as judge:
        first = judge.judge_many(prompts, template_id="t/v1")
        again = judge.judge_many(prompts, template_id="t/v1")
        assert (judge.usage.requests_sent, judge.usage.cache_hits, judge.usage.items) == (10, 10, 20)
    with Judge(settings) as fresh:  # a new process re-running the evaluation
        rerun = fresh.judge_many(prompts, template_id="t/v1")
    assert server.request_count == 10
    assert all(r.cached for r in again + rerun)
    assert [r.verdict for r in rerun] == [r.verdict for r in first]
    assert [(r.prompt_tokens, r.completion_tokens) for r in rerun] == [(6, 1)] * 10
    assert fresh.usage.prompt_tokens == 0  # nothing paid in this run


def test_cache_misses_on_other_template_or_judge(server, tmp_path) -> None:
    with Judge(make_settings(server, tmp_path)) as judge:
        judge.judge_many(["q1", "q2"], template_id="t/v1")
        other_template = judge.judge_many(["q1", "q2"], template_id="t/v2")
    with Judge(make_settings(server, tmp_path, model="gpt-4o")) as other_model:
        other_judge = other_model.judge_many(["q1", "q2"], template_id="t/v1")
    with Judge(make_settings(server, tmp_path, system_prompt="Be strict.")) as other_system:
        other_prompt = other_system.judge_many(["q1"], template_id="t/v1")
    assert not any(r.cached for r in other_template + other_judge + other_prompt)
    assert server.request_count == 7


def test_duplicate_prompts_are_sent_once(server, tmp_path) -> None:
    with Judge(make_settings(server, tmp_path)) as judge:
        results = judge.judge_many(["q2", "q3", "q2", "q2"], template_id="t")
    assert [r.verdict for r in results] == [True, False, True, True]
    assert server.request_count == 2


def test_cached_answers_need_no_key_and_no_request(tmp_path) -> None:
    settings = JudgeSettings(model="gpt-4", cache_dir=str(tmp_path))  # api.openai.com, no key in env
    cache = JudgeCache(tmp_path)
    cache.put(
        cache_key(settings.fingerprint(VERDICT_MAX_TOKENS), "t", "q0"),
        template_id="t",
        fingerprint=settings.fingerprint(VERDICT_MAX_TOKENS),
        answer=CachedAnswer("Yes", 6, 1),
    )
    cache.close()
    with Judge(settings) as judge:
        assert [r.verdict for r in judge.judge_many(["q0"], template_id="t")] == [True]
        with pytest.raises(JudgeConfigError, match="OPENAI_API_KEY"):
            judge.judge_many(["q1"], template_id="t")


@pytest.mark.parametrize("kind", ["429", "500", "503", "drop"])
def test_transient_faults_are_retried_by_the_client(server, tmp_path, kind: str) -> None:
    server.fail_next(1, kind=kind, match="q4")
    with Judge(make_settings(server, tmp_path)) as judge:
        results = judge.judge_many(["q3", "q4"], template_id="t")
    assert [r.verdict for r in results] == [False, True]
    assert all(r.error is None for r in results)
    assert server.requests_matching("q4") == 2
    assert server.requests_matching("q3") == 1


def test_retry_after_is_honoured(server, tmp_path) -> None:
    server.fail_next(1, kind="429", match="q2", retry_after=1.0)
    with Judge(make_settings(server, tmp_path)) as judge:
        start = time.perf_counter()
        [result] = judge.judge_many(["q2"], template_id="t")
        elapsed = time.perf_counter() - start
    assert result.verdict is True
    assert server.requests_matching("q2") == 2
    assert elapsed >= 1.0  # without the header the first backoff is at most 0.5 s


def test_persistent_5xx_becomes_an_error_not_a_verdict(server, tmp_path) -> None:
    server.fail_next(10, kind="500", match="q2")
    with Judge(make_settings(server, tmp_path, max_retries=1)) as judge:
        [result] = judge.judge_many(["q2"], template_id="t")
    assert (result.verdict, result.raw, result.error) == (None, None, "http 500 after 1 retries")
    assert server.requests_matching("q2") == 2


def test_client_errors_are_not_retried(server, tmp_path) -> None:
    server.fail_next(1, kind="400", match="q2")
    with Judge(make_settings(server, tmp_path)) as judge:
        [result] = judge.judge_many(["q2"], template_id="t")
    assert result.verdict is None and result.error.startswith("http 400: ")
    assert server.requests_matching("q2") == 1


def test_hang_past_timeout_is_retried(server, tmp_path) -> None:
    server.fail_next(1, kind="hang", match="q2", hang_s=5)
    with Judge(make_settings(server, tmp_path, timeout=0.5, max_retries=1)) as judge:
        [result] = judge.judge_many(["q2"], template_id="t")
    assert result.verdict is True and result.error is None
    assert server.requests_matching("q2") == 2


def test_endless_hang_is_an_error_and_not_cached(server, tmp_path) -> None:
    server.fail_next(2, kind="hang", match="q2", hang_s=5)
    settings = make_settings(server, tmp_path, timeout=0.5, max_retries=1)
    with Judge(settings) as judge:
        hung, fine = judge.judge_many(["q2", "q3"], template_id="t")
        assert hung.verdict is None  # not False: a lost call must not count as "No"
        assert hung.raw is None and hung.error.startswith("timeout after 1 retries")
        assert fine.verdict is False
        with pytest.raises(JudgeFailureError, match="1 errors"):
            judge.check_error_rate([hung, fine])
        assert judge.usage.errors == 1
        # Errors are not cached: the re-run asks again (the fault is used up) and succeeds.
        retried, cached = judge.judge_many(["q2", "q3"], template_id="t")
    assert (retried.verdict, retried.cached, cached.cached) == (True, False, True)
    assert server.requests_matching("q2") == 3


def test_unparseable_answer_is_reasked_not_cached_and_counted(server, tmp_path) -> None:
    """A served judge's answer the parser cannot read is asked again judge_unparseable_retries times;
    if it stays unreadable it is an error (never a verdict), and it is not cached, so a later run asks
    again. Tokens of every answer received are counted: they were paid for."""
    with Judge(make_settings(server, tmp_path, max_error_rate=0.3, unparseable_retries=2)) as judge:
        results = judge.judge_many(["garbled q1", "q2", "q3", "q4"], template_id="t")
        assert results[0].verdict is None
        assert results[0].raw == "The response partially observes taarof."
        assert results[0].error == "unparseable: The response partially observes taarof."
        assert server.requests_matching("garbled") == 1 + 2  # first answer + judge_unparseable_retries=2
        usage = judge.usage
        assert (usage.items, usage.requests_sent, usage.reasks, usage.cache_hits) == (4, 6, 2, 0)
        assert (usage.errors, usage.unparseable) == (0, 1)
        # q2-q4: 6 prompt + 1 completion words; "garbled q1": 7 + 5, paid three times
        assert (usage.prompt_tokens, usage.completion_tokens) == (3 * 6 + 3 * 7, 3 * 1 + 3 * 5)
        judge.check_error_rate(results)  # 25% <= 30%
        again = judge.judge_many(["garbled q1", "q2"], template_id="t")
        assert not again[0].cached and again[0].verdict is None  # asked again, not read from the cache
        assert again[1].cached and again[1].verdict is True
        assert (usage.items, usage.requests_sent, usage.reasks, usage.cache_hits, usage.unparseable) == (6, 9, 4, 1, 2)
        with pytest.raises(JudgeFailureError, match="1 unparseable") as info:
            judge.check_error_rate(results[:2])  # 50% > 30%
    assert "unparseable: The response partially" in str(info.value)
    assert server.request_count == 3 + 3 + 3
    cache = JudgeCache(tmp_path / "cache")
    assert len(cache) == 3  # q2, q3, q4: the unreadable answer is not kept
    cache.close()


def test_reask_turns_a_stray_nonverdict_into_the_verdict(server, tmp_path) -> None:
    server.fail_next(1, kind="nonverdict", match="q2")
    with Judge(make_settings(server, tmp_path, unparseable_retries=2)) as judge:
        [result] = judge.judge_many(["q2"], template_id="t")
        assert (result.verdict, result.raw, result.error) == (True, "Yes", None)
        assert (judge.usage.requests_sent, judge.usage.reasks, judge.usage.unparseable) == (2, 1, 0)
    assert server.requests_matching("q2") == 2


def test_no_reask_when_unparseable_retries_is_zero(server, tmp_path) -> None:
    server.fail_next(1, kind="nonverdict", match="q2")
    with Judge(make_settings(server, tmp_path, unparseable_retries=0)) as judge:
        [result] = judge.judge_many(["q2"], template_id="t")
    assert result.verdict is None and result.error == "unparseable: I am not sure."
    assert server.requests_matching("q2") == 1


@pytest.mark.parametrize("kind", ["malformed", "html", "empty_choices", "empty_content"])
def test_a_200_without_an_answer_is_retried_like_a_5xx(server, tmp_path, kind: str) -> None:
    server.fail_next(2, kind=kind, match="q4")
    with Judge(make_settings(server, tmp_path, retry_backoff=0.05)) as judge:
        results = judge.judge_many(["q3", "q4"], template_id="t")
        assert (judge.usage.requests_sent, judge.usage.reasks, judge.usage.errors) == (2, 0, 0)
        assert judge.backend.attempts == server.request_count == 4
    assert [r.verdict for r in results] == [False, True]
    assert server.requests_matching("q4") == 3 and server.fault_counts == {kind: 2}


@pytest.mark.parametrize(
    ("kind", "error"),
    [
        ("malformed", "malformed response (not JSON) after 1 retries"),
        ("html", "malformed response (not JSON) after 1 retries"),
        ("empty_choices", "empty response (no choices) after 1 retries"),
        ("empty_content", "empty answer (finish_reason=stop) after 1 retries"),
    ],
)
def test_persistent_garbage_is_an_error_and_not_cached(server, tmp_path, kind: str, error: str) -> None:
    server.fail_next(2, kind=kind, match="q2")
    with Judge(make_settings(server, tmp_path, max_retries=1, retry_backoff=0.05)) as judge:
        [result] = judge.judge_many(["q2"], template_id="t")
        assert (result.verdict, result.raw, result.error) == (None, None, error)
        assert (judge.usage.errors, judge.usage.unparseable) == (1, 0)
        [again] = judge.judge_many(["q2"], template_id="t")  # the faults are used up
    assert (again.verdict, again.cached) == (True, False)
    assert server.requests_matching("q2") == 3


def test_retry_backoff_setting_sets_the_wait_without_retry_after(server, tmp_path) -> None:
    server.fail_next(2, kind="429-bare", match="q2")
    with Judge(make_settings(server, tmp_path, retry_backoff=0.4)) as judge:
        start = time.perf_counter()
        [result] = judge.judge_many(["q2"], template_id="t")
        elapsed = time.perf_counter() - start
    assert result.verdict is True and server.requests_matching("q2") == 3
    # waits of 0.4 and 0.8 s, each shortened by at most a quarter (jitter): >= 0.9 s
    assert elapsed >= 0.9
    assert all("retry-after" not in str(body) for body in server.requests)


def test_seeded_random_faults_are_reproducible_whatever_the_order() -> None:
    """The fault of an attempt depends on the seed, the prompt and its attempt number only."""

    def drawn(order: list[str], seed: int) -> list[tuple[str, int, str | None]]:
        with FakeOpenAIServer(fault_rate=0.5, seed=seed, hang_s=0) as srv:
            out = []
            for prompt in order:
                before = dict(srv.fault_counts)
                fault = srv._record({}, None, [prompt])
                out.append((prompt, srv.attempts_for(prompt), fault.kind if fault else None))
                assert sum(srv.fault_counts.values()) == sum(before.values()) + (fault is not None)
            return sorted(out)

    prompts = [f"p{i}" for i in range(40)] * 3
    first = drawn(prompts, seed=3)
    assert first == drawn(list(reversed(prompts)), seed=3)
    assert first != drawn(prompts, seed=4)
    kinds = [kind for _, _, kind in first if kind]
    assert 30 <= len(kinds) <= 90  # ~half of 120
    assert len(set(kinds)) >= 6


def test_custom_parser_is_used(server, tmp_path) -> None:
    with Judge(make_settings(server, tmp_path), parser=lambda raw: raw.rstrip(".").upper()) as judge:
        assert [r.verdict for r in judge.judge_many(["q1", "q2"], template_id="t")] == ["NO", "YES"]


def _results(n_ok: int, n_err: int) -> list[JudgeResult]:
    ok = [JudgeResult(raw="Yes", verdict=True, error=None, cached=False)] * n_ok
    bad = [
        JudgeResult(raw=None, verdict=None, error=f"http 500 after 6 retries #{i % 2}", cached=False)
        for i in range(n_err)
    ]
    return ok + bad


def test_check_error_rate_threshold(tmp_path) -> None:
    judge = Judge(JudgeSettings(model="m", base_url="http://127.0.0.1:9/v1", cache_dir=str(tmp_path)))
    judge.check_error_rate(_results(95, 5))  # 5% is not above 5%
    judge.check_error_rate(_results(10, 0))
    judge.check_error_rate([])
    with pytest.raises(JudgeFailureError) as info:
        judge.check_error_rate(_results(94, 6))
    message = str(info.value)
    assert "6/100" in message and "6 errors, 0 unparseable" in message
    assert "http 500 after 6 retries #0" in message and "http 500 after 6 retries #1" in message
    judge.close()


def test_key_is_used_but_never_stored_or_logged(server, tmp_path, monkeypatch, caplog) -> None:
    caplog.set_level(logging.DEBUG)
    monkeypatch.setenv("MY_JUDGE_KEY", SECRET)
    settings = make_settings(server, tmp_path, api_key_env="MY_JUDGE_KEY", max_retries=1, max_error_rate=0.0)
    server.fail_next(1, kind="429", match="q1")
    server.fail_next(5, kind="401", match="q3")
    with Judge(settings) as judge:
        results = judge.judge_many(["q1", "q2", "q3", "garbled q4"], template_id="t")
        with pytest.raises(JudgeFailureError) as info:
            judge.check_error_rate(results)
        summary = judge.usage.summary()
    assert server.auth_headers and set(server.auth_headers) == {f"Bearer {SECRET}"}
    assert [r.verdict for r in results[:2]] == [False, True]
    assert results[2].error.startswith("http 401")
    stored = b"".join(p.read_bytes() for p in (tmp_path / "cache").iterdir())
    assert SECRET.encode() not in stored
    cache = JudgeCache(tmp_path / "cache")
    assert len(cache) == 2  # q1 and q2; neither the 401 nor the unparseable answer is cached
    cache.close()
    for text in (
        str(settings.public_dict()),
        repr(settings),
        str(settings.fingerprint()),
        summary,
        caplog.text,
        repr(results),
        str(info.value),
    ):
        assert SECRET not in text


def test_missing_key_for_openai_is_a_config_error(tmp_path) -> None:
    with Judge(JudgeSettings(model="gpt-4", cache_dir=str(tmp_path))) as judge:
        with pytest.raises(JudgeConfigError, match="OPENAI_API_KEY"):
            judge.judge_many(["q1"], template_id="t")


# ---------------------------------------------------------------- the fake server itself


def test_fake_server_serves_models_and_text_completions() -> None:
    with FakeOpenAIServer(answer=lambda p, b: p.upper(), models=["tiny"]) as srv:
        client = openai.OpenAI(base_url=srv.base_url, api_key="EMPTY", max_retries=0)
        assert [m.id for m in client.models.list()] == ["tiny"]
        completion = client.completions.create(model="tiny", prompt=["a b", "c"])
        assert [c.text for c in completion.choices] == ["A B", "C"]
        assert (completion.usage.prompt_tokens, completion.usage.completion_tokens) == (3, 3)
        client.close()
        with pytest.raises(ValueError):
            srv.fail_next(1, kind="teapot")
        with pytest.raises(ValueError):
            FakeOpenAIServer(fault_rate=0.1, fault_kinds=["429", "gremlins"])


@pytest.mark.parametrize("sent_of_body", [0, 10])
def test_fake_server_records_no_request_whose_body_never_fully_arrived(sent_of_body: int) -> None:
    """A client killed between its headers and the end of its body (SIGKILL mid-request) asked
    nothing: the server must not record it (it once did, as an empty prompt)."""
    import socket

    body = json.dumps({"model": "m", "messages": [{"role": "user", "content": "q1"}]}).encode()
    with FakeOpenAIServer(latency_s=0.0) as srv:
        host, port = srv.base_url.split("//")[1].split("/")[0].split(":")
        with socket.create_connection((host, int(port))) as sock:
            head = (f"POST /v1/chat/completions HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
                    f"Content-Length: {len(body)}\r\n\r\n").encode()  # fmt: skip
            sock.sendall(head + body[:sent_of_body])
        time.sleep(0.3)  # the handler reads what arrived and sees the connection closed
        assert (srv.request_count, dict(srv.prompt_attempts)) == (0, {})
        client = openai.OpenAI(base_url=srv.base_url, api_key="EMPTY", max_retries=0)
        client.chat.completions.create(model="m", messages=[{"role": "user", "content": "q1"}])
        client.close()
        assert (srv.request_count, dict(srv.prompt_attempts)) == (1, {"q1": 1})


def test_served_model_name_is_returned_cached_and_recorded(tmp_path) -> None:
    """The model the server says answered (completion.model), kept with the cached answer."""
    from lm_eval_persian_culture.judge.filter import judge_identity

    with FakeOpenAIServer(answer=scripted, reported_model="gpt-4-0613") as srv:
        settings = make_settings(srv, tmp_path)
        with Judge(settings) as judge:
            [fresh] = judge.judge_many(["q2"], template_id="t")
            assert judge.describe()["served_models"] == ["gpt-4-0613"]
        with Judge(settings) as judge:  # a new run: from the cache
            [cached] = judge.judge_many(["q2"], template_id="t")
            assert judge_identity(judge, cached) == {"judge_model": "gpt-4", "judge_served_model": "gpt-4-0613"}
    assert fresh.served_model == cached.served_model == "gpt-4-0613" and cached.cached
    assert srv.request_count == 1


def test_cache_written_before_served_model_was_recorded_still_reads(tmp_path) -> None:
    import sqlite3

    conn = sqlite3.connect(tmp_path / "judge_cache.sqlite3")
    conn.execute(
        "CREATE TABLE answers (key TEXT PRIMARY KEY, template_id TEXT NOT NULL, fingerprint TEXT NOT NULL, "
        "raw TEXT NOT NULL, prompt_tokens INTEGER NOT NULL, completion_tokens INTEGER NOT NULL, "
        "created_at REAL NOT NULL)"
    )
    conn.execute("INSERT INTO answers VALUES ('k', 't', '{}', 'Yes', 6, 1, 0)")
    conn.commit()
    conn.close()
    cache = JudgeCache(tmp_path)
    assert cache.get_many(["k"]) == {"k": CachedAnswer("Yes", 6, 1, None)}
    cache.put("k2", template_id="t", fingerprint={}, answer=CachedAnswer("No", 6, 1, "m-0613"))
    assert cache.get_many(["k2"])["k2"].served_model == "m-0613"
    cache.close()


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({"error": {"message": "upstream busy"}}, (None, "malformed response (not a chat completion)", True)),
        ({"choices": []}, (None, "empty response (no choices)", True)),
        (
            {"choices": [{"message": {"content": ""}, "finish_reason": "length"}]},
            (None, "empty answer (finish_reason=length): raise judge_max_tokens", False),
        ),
        # content as a list of parts (some servers), usage absent: the text parts, no tokens counted
        (
            {"model": "m", "choices": [{"message": {"content": [{"type": "text", "text": "Ye"}, {"text": "s"}]}}]},
            (CachedAnswer("Yes", 0, 0, "m"), None, False),
        ),
        (
            {"choices": [{"message": {"content": "No"}}], "usage": {"prompt_tokens": 7, "completion_tokens": True}},
            (CachedAnswer("No", 7, 0, None), None, False),
        ),
    ],
)
def test_completion_bodies_are_read_as_json_without_response_models(tmp_path, body, expected) -> None:
    from lm_eval_persian_culture.judge.remote import OpenAIBackend

    backend = OpenAIBackend(JudgeSettings(model="m", base_url="http://127.0.0.1:9/v1", cache_dir=str(tmp_path)))
    assert backend._answer(body) == expected
