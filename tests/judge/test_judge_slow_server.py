"""Slow judges: the answer budget, the adaptive concurrency, and the "too slow" report, against the
local server made slow and single-slot (one request answered at a time, the rest queued). And served
judges that cannot help: one that does not answer in the verdict format, and a server that dies
mid-run; both are told to the user at once, and neither is asked again and again for nothing."""

from __future__ import annotations

import logging
import os
import re
import threading
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


def question(i: int) -> str:
    return f"Does reply {i:03d} follow the convention? Answer Yes or No."


def echo(prompt: str, body: dict) -> str:
    """A base model served as the judge: it repeats its prompt."""
    return prompt


# ---------------------------------------------------------------- a judge that ignores the format


def test_unparseable_retries_default_to_none_at_temperature_0_and_two_above() -> None:
    assert JudgeSettings(model="m").unparseable_retries == 0
    assert JudgeSettings(model="m", temperature=0.7).unparseable_retries == 2
    assert JudgeSettings(model="m", unparseable_retries=3).unparseable_retries == 3  # said: kept
    assert JudgeSettings.from_settings({"judge_model": "m", "judge_temperature": "0.5"}).unparseable_retries == 2


@pytest.mark.parametrize("temperature", [0.0, 0.7])
def test_echoing_judge_is_reported_at_once_with_an_example_and_not_reasked(tmp_path, caplog, temperature) -> None:
    """20 items to a judge that echoes its prompt: 20 requests (the issue saw 60: every item re-asked
    twice), every result without a verdict, and the user told, with one of its answers."""
    caplog.set_level(logging.WARNING, logger="lm_eval_persian_culture")
    n = 20
    with FakeOpenAIServer(answer=echo) as server:
        with Judge(settings_for(server, tmp_path, temperature=temperature, concurrency=4)) as judge:
            results = judge.judge_many([question(i) for i in range(n)], template_id="t")
            usage = judge.usage
    assert server.request_count == n
    assert (usage.requests_sent, usage.reasks, usage.unparseable) == (n, 0, n)
    assert all(r.verdict is None and r.error.startswith("unparseable: Does reply") for r in results)
    messages = [r.getMessage() for r in caplog.records]
    early = [m for m in messages if "the first 5 answers have no readable verdict" in m]
    final = [m for m in messages if "does not follow the verdict format: 20 of 20 answers could not be read" in m]
    assert len(early) == 1 and len(final) == 1, messages
    assert "e.g. 'Does reply 0" in final[0] and "Answer Yes or No.'" in final[0]  # one real answer, quoted


def test_a_stray_unreadable_answer_is_still_reasked_above_temperature_0(tmp_path, caplog) -> None:
    """The first-round rule does not stop re-asks when most answers are fine."""
    caplog.set_level(logging.WARNING, logger="lm_eval_persian_culture")
    with FakeOpenAIServer(answer=lambda p, b: "Yes") as server:
        server.fail_next(1, kind="nonverdict", match="reply 002")
        with Judge(settings_for(server, tmp_path, temperature=0.7)) as judge:
            results = judge.judge_many([question(i) for i in range(6)], template_id="t")
    assert [r.verdict for r in results] == [True] * 6
    assert server.request_count == 7 and server.attempts_for(question(2)) == 2
    assert not [r for r in caplog.records if "verdict format" in r.getMessage()]


def test_at_temperature_0_an_unreadable_answer_is_not_reasked(tmp_path) -> None:
    with FakeOpenAIServer(answer=lambda p, b: "Yes") as server:
        server.fail_next(1, kind="nonverdict", match="reply 002")
        with Judge(settings_for(server, tmp_path)) as judge:
            results = judge.judge_many([question(i) for i in range(6)], template_id="t")
    assert [r.verdict for r in results] == [True, True, None, True, True, True]
    assert results[2].error == "unparseable: I am not sure."
    assert server.request_count == 6


# ---------------------------------------------------------------- a judge server that dies mid-run


def test_judge_server_killed_mid_run_is_given_up_within_seconds(tmp_path, caplog) -> None:
    """judge_concurrency=1 (the README's advice for a one-slot server), 13 items, the server killed
    after answering 3. Retrying every refused connection 6 times cost ~21 s per item (3.5 minutes
    for these 10); now the first refusal is reported and the rest is given up within seconds."""
    caplog.set_level(logging.WARNING, logger="lm_eval_persian_culture")
    n, answered = 13, 3
    server: FakeOpenAIServer
    killed_at: list[float] = []
    killed = threading.Event()

    def kill() -> None:
        server.kill()
        killed_at.append(time.monotonic())
        killed.set()

    def answer_then_die(prompt: str, body: dict) -> str:
        if server.request_count == answered:  # the last answer: the process dies right after it
            threading.Timer(0.05, kill).start()
        elif server.request_count > answered:  # in flight when it dies: never answered
            killed.wait(10)
        return "Yes"

    server = FakeOpenAIServer(answer=answer_then_die)
    try:
        with Judge(settings_for(server, tmp_path, concurrency=1)) as judge:
            results = judge.judge_many([question(i) for i in range(n)], template_id="t")
            done_at = time.monotonic()
            usage, backend = judge.usage, judge.backend
    finally:
        server.close()
    assert [r.verdict for r in results[:answered]] == [True] * answered
    lost = results[answered:]
    assert all(r.verdict is None and r.raw is None for r in lost)
    assert all(r.error.startswith(f"judge server unreachable: {server.base_url} refused the connection") for r in lost)
    assert server.request_count == answered + 1  # the one in flight at the kill; nothing reached a dead server
    after_kill = done_at - killed_at[0]
    assert after_kill < 10, after_kill  # 6 retries per item with backoff: ~210 s
    # a refusal is one attempt; at most one per retry of the first lost item, plus one reset connection
    assert backend.attempts - answered <= 5, backend.attempts
    messages = [r.getMessage() for r in caplog.records]
    warned = [m for m in messages if "refused the connection (is it running?)" in m]
    gave_up = [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR]
    assert len(warned) == 1 and len(gave_up) == 1 and "is it running?" in gave_up[0], messages
    # the usage line counts the retries
    assert usage.retries == backend.retries == backend.attempts - (answered + 1) >= 2  # 4 items were tried
    assert f"{usage.retries} HTTP retries (0 timeouts)" in usage.summary()
    print(f"after the kill: {after_kill:.1f} s for {n - answered} items")


def test_a_server_that_comes_back_is_not_given_up(tmp_path) -> None:
    """One refusal, then the server answers again: nothing is given up."""
    with FakeOpenAIServer(answer=lambda p, b: "Yes") as server:
        host, port = server.base_url.split("//")[1].split("/")[0].split(":")
        server.kill()
        revived: list[FakeOpenAIServer] = []
        threading.Timer(0.3, lambda: revived.append(FakeOpenAIServer(answer=lambda p, b: "No", port=int(port)))).start()
        try:
            with Judge(settings_for(server, tmp_path, concurrency=1, retry_backoff=1.0)) as judge:
                results = judge.judge_many([question(i) for i in range(3)], template_id="t")
        finally:
            time.sleep(0.35)
            for s in revived:
                s.close()
    assert [r.verdict for r in results] == [False] * 3
    assert revived and revived[0].request_count == 3
