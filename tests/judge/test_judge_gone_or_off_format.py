"""Served judges that cannot help: one that does not answer in the verdict format, and a server that
dies mid-run. Both are told to the user at once, and neither is asked again and again for nothing;
requests are counted at the local server (the real openai client over HTTP)."""

from __future__ import annotations

import logging
import os
import threading
import time

import pytest

from lm_eval_persian_culture.judge import Judge, JudgeSettings
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
            results = judge.judge_many([item(i) for i in range(n)], template_id="t")
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
            results = judge.judge_many([item(i) for i in range(6)], template_id="t")
    assert [r.verdict for r in results] == [True] * 6
    assert server.request_count == 7 and server.attempts_for(item(2)) == 2
    assert not [r for r in caplog.records if "verdict format" in r.getMessage()]


def test_at_temperature_0_an_unreadable_answer_is_not_reasked(tmp_path) -> None:
    with FakeOpenAIServer(answer=lambda p, b: "Yes") as server:
        server.fail_next(1, kind="nonverdict", match="reply 002")
        with Judge(settings_for(server, tmp_path)) as judge:
            results = judge.judge_many([item(i) for i in range(6)], template_id="t")
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
            results = judge.judge_many([item(i) for i in range(n)], template_id="t")
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
                results = judge.judge_many([item(i) for i in range(3)], template_id="t")
        finally:
            time.sleep(0.35)
            for s in revived:
                s.close()
    assert [r.verdict for r in results] == [False] * 3
    assert revived and revived[0].request_count == 3
