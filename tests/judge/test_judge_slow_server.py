"""Slow judges: the answer budget, the adaptive concurrency, and the "too slow" report, against the
local server made slow and single-slot (one request answered at a time, the rest queued)."""

from __future__ import annotations

import logging
import os
import re
import time

import pytest

from lm_eval_persian_culture.judge import VERDICT_MAX_TOKENS, AdaptiveLimit, Judge, JudgeSettings
from lm_eval_persian_culture.testing.openai_server import FakeOpenAIServer


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.startswith("PERSIAN_CULTURE_JUDGE_") or name in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
            monkeypatch.delenv(name)


def settings_for(server: FakeOpenAIServer, tmp_path, **overrides) -> JudgeSettings:
    return JudgeSettings(
        **{"model": "judge-model", "base_url": server.base_url, "cache_dir": str(tmp_path / "cache"), **overrides}
    )


def item(i: int) -> str:
    return f"<item {i:03d}>"  # unique substrings, so the server can count attempts per item


# ---------------------------------------------------------------- the answer budget


def test_verdict_prompts_ask_for_a_small_answer_budget_which_is_in_the_cache_key(tmp_path) -> None:
    with FakeOpenAIServer(answer=lambda p, b: "Yes") as server:
        with Judge(settings_for(server, tmp_path)) as judge:
            judge.judge_many([item(0)], template_id="t")
            # another prompt kind may default to a bigger budget: a different answer, so a cache miss
            [longer] = judge.judge_many([item(0)], template_id="t", max_tokens=64)
            [again] = judge.judge_many([item(0)], template_id="t", max_tokens=64)
        with Judge(settings_for(server, tmp_path, max_tokens=5)) as judge:  # judge_max_tokens overrides both
            judge.judge_many([item(0)], template_id="t")
            judge.judge_many([item(0)], template_id="t", max_tokens=64)
    assert VERDICT_MAX_TOKENS == 16
    assert [body["max_tokens"] for body in server.requests] == [16, 64, 5]
    assert not longer.cached and again.cached


# ---------------------------------------------------------------- the adaptive limit


def test_adaptive_limit_halves_once_per_round_and_grows_by_one_per_round_of_answers() -> None:
    limit = AdaptiveLimit(8)
    first_round = [limit.acquire() for _ in range(8)]
    assert limit.acquire(timeout=0.01) is None  # all 8 slots taken
    assert limit.release(first_round[0], congested=True) is True
    assert limit.limit == 4  # half of the 8 in flight
    # the other 7 were sent under the old limit: their timeouts do not cut again
    for slot in first_round[1:]:
        assert limit.release(slot, congested=True) is False
    assert limit.limit == 4 and limit.in_flight == 0
    # a request sent after the cut that times out cuts again (half of what is in flight)
    second = [limit.acquire() for _ in range(4)]
    limit.release(second[0], congested=True)
    assert limit.limit == 2
    for slot in second[1:]:
        limit.release(slot, answered=True)  # 3 answers at limit 2: +1/2 each -> 3.5 -> 3
    assert limit.limit == 3
    assert limit.stats.decreases == 2 and limit.stats.lowest == 2
    # never below 1, never above the ceiling
    for _ in range(5):
        limit.release(limit.acquire(), congested=True)
    assert limit.limit == 1
    for _ in range(200):
        limit.release(limit.acquire(), answered=True)
    assert limit.limit == 8


# ---------------------------------------------------------------- a slow single-slot server


def test_single_slot_server_all_verdicts_arrive_with_backoff_and_few_resends(tmp_path, caplog) -> None:
    """24 items, default judge_concurrency (64), a server answering one request per 0.1 s and a
    1 s client timeout: ~10 answers fit in the first timeout, the rest time out. Without backing
    off every round re-sends what is left; with it the limit drops to what the server can serve."""
    caplog.set_level(logging.WARNING, logger="lm_eval_persian_culture")
    n = 24
    with FakeOpenAIServer(answer=lambda p, b: "Yes", latency_s=0.1, slots=1) as server:
        with Judge(settings_for(server, tmp_path, timeout=1.0)) as judge:
            results = judge.judge_many([item(i) for i in range(n)], template_id="t")
            backend = judge.backend
        per_item = [server.requests_matching(item(i)) for i in range(n)]

    assert [r.verdict for r in results] == [True] * n and all(r.error is None for r in results)
    assert server.served == n  # each verdict answered once; everything else was a cancelled wait
    assert server.request_count == n + server.abandoned
    # backed off: the limit was cut below the number of items, and timeouts happened
    assert backend.timeouts >= 1 and backend.limit.stats.decreases >= 1
    assert backend.limit.stats.lowest <= n // 2
    # not re-sent many times over: (the issue saw every request sent 7 times)
    assert server.request_count <= 2 * n, (server.request_count, per_item, backend.limit.stats.history)
    assert max(per_item) <= 4, per_item
    # the run said so, naming the URL, the pace and the settings to change
    slow = [r.getMessage() for r in caplog.records if "is slow" in r.getMessage()]
    assert slow, caplog.text
    assert server.base_url in slow[0] and "judge_concurrency" in slow[0] and "judge_timeout" in slow[0]
    assert re.search(r"\d+ of 24 answered in \d+ s .*the remaining \d+ need ~\d+ s", slow[0]), slow[0]


def test_judge_slower_than_the_timeout_even_alone_is_given_up_quickly(tmp_path, caplog) -> None:
    """Every answer takes 3 s, the timeout is 0.3 s: nothing can ever arrive. The judge gives up once a
    request alone in flight has timed out twice, instead of spending all 7 attempts of every item."""
    caplog.set_level(logging.WARNING, logger="lm_eval_persian_culture")
    n = 6
    with FakeOpenAIServer(answer=lambda p, b: "Yes", latency_s=3.0, slots=1) as server:
        with Judge(settings_for(server, tmp_path, timeout=0.3, max_retries=6)) as judge:
            start = time.perf_counter()
            results = judge.judge_many([item(i) for i in range(n)], template_id="t")
            elapsed = time.perf_counter() - start
        sent = server.request_count

    assert all(r.verdict is None and r.raw is None for r in results)
    assert all(r.error.startswith("judge too slow: no answer within judge_timeout=0.3s") for r in results)
    assert server.served == 0
    assert sent < n * 7 / 2, sent  # burning the whole retry budget would be 42 requests
    assert elapsed < 15, elapsed
    given_up = [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR]
    assert given_up and server.base_url in given_up[0] and "raise judge_timeout" in given_up[0]
    assert "none of 6 answered yet" in given_up[0]


def test_server_slot_mode_serves_one_request_at_a_time() -> None:
    """The test server itself: with one slot, 4 concurrent requests of 0.2 s take ~0.8 s in all."""
    import concurrent.futures

    import openai

    with FakeOpenAIServer(answer=lambda p, b: "Yes", latency_s=0.2, slots=1) as server:
        client = openai.OpenAI(base_url=server.base_url, api_key="EMPTY", max_retries=0)
        start = time.perf_counter()
        with concurrent.futures.ThreadPoolExecutor(4) as pool:
            replies = list(pool.map(
                lambda i: client.chat.completions.create(model="m", messages=[{"role": "user", "content": str(i)}]),
                range(4),
            ))  # fmt: skip
        elapsed = time.perf_counter() - start
        client.close()
    assert [r.choices[0].message.content for r in replies] == ["Yes"] * 4
    assert elapsed >= 0.8 - 0.05
    assert server.served == 4 and server.abandoned == 0 and server.max_queued >= 2
