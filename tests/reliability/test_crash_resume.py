"""Crash and resume, and two runs sharing one judge cache, with the judging in real subprocesses.

A judged TaarofBench evaluation (taarof_expected, all 311 replies, scripted by ``ScriptedLM``) runs
in its own process (``run_judged.py``) against the local judge server in this process, which counts
the requests per prompt. The process is SIGKILLed when about half the verdicts have been asked
for; a second run with the same cache must ask only for what the cache lacks, and end with what an
uninterrupted run gives. Two runs started together on one cache directory must both finish, leave
the sqlite file intact, and hold every verdict.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from lm_eval_persian_culture.judge.cache import CACHE_FILENAME, cache_key
from lm_eval_persian_culture.testing.openai_server import FakeOpenAIServer
from tests.reliability.judged_runs import JUDGE_MODEL, evaluate, judge_settings, taarof_verdict
from tests.reliability.run_judged import KEY_ENV, outcome

REPO = Path(__file__).resolve().parents[2]
ITEMS = 311
LATENCY_S = 0.04  # with 4 requests in flight: ~3 s of judging, time enough to kill it midway


def start_run(
    shared_data: Path, server: FakeOpenAIServer, cache: Path, out: Path, key: str = "sk-run", timeout: float = 1.0
) -> subprocess.Popen:
    args = [sys.executable, "-m", "tests.reliability.run_judged", "--data-dir", str(shared_data),
            "--judge-url", server.base_url, "--cache", str(cache), "--out", str(out),
            "--timeout", str(timeout)]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(REPO), KEY_ENV: key}
    log = out.with_suffix(".log").open("w")  # a file, not a pipe nobody reads while it runs
    proc = subprocess.Popen(args, cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT, text=True)
    proc.log_path = out.with_suffix(".log")
    return proc


def log_tail(proc: subprocess.Popen) -> str:
    return proc.log_path.read_text(errors="replace")[-3000:]


def finish(proc: subprocess.Popen) -> None:
    proc.wait(timeout=300)
    assert proc.returncode == 0, log_tail(proc)


def cached_prompts(cache: Path, prompts) -> set[str]:
    """Which of ``prompts`` have an answer in the cache (keys recomputed from the stored fingerprint)."""
    conn = sqlite3.connect(cache / CACHE_FILENAME)
    rows = conn.execute("SELECT key, template_id, fingerprint FROM answers").fetchall()
    conn.close()
    keys = {key for key, _, _ in rows}
    [(template_id, fingerprint)] = {(t, f) for _, t, f in rows}
    found = {p for p in prompts if cache_key(json.loads(fingerprint), template_id, p) in keys}
    assert len(found) == len(rows)  # every stored answer belongs to a prompt the server saw
    return found


@pytest.fixture(scope="module")
def uninterrupted_run(shared_data, tmp_path_factory) -> tuple[dict, set[str]]:
    """The outcome of an uninterrupted run (in this process: the same code, less the start-up), and
    the judge prompts it sent."""
    tmp = tmp_path_factory.mktemp("uninterrupted")
    with FakeOpenAIServer(answer=taarof_verdict, models=(JUDGE_MODEL,)) as server:
        results = evaluate(["taarof_expected"], {"data_dir": str(shared_data), **judge_settings(server.base_url, tmp)})
        prompts = set(server.prompt_attempts)
    expected = json.loads(json.dumps(outcome(results, "taarof_expected"), ensure_ascii=False, sort_keys=True))
    assert len(expected["samples"]) == ITEMS and len(prompts) == ITEMS
    return expected, prompts


@pytest.fixture(scope="module")
def uninterrupted(uninterrupted_run) -> dict:
    return uninterrupted_run[0]


def wait_until_quiet(server: FakeOpenAIServer, quiet_s: float = 0.5, limit_s: float = 30) -> None:
    """Until no new request has reached the server for ``quiet_s``: requests a killed client sent
    just before it died may reach a busy server's handler threads late."""
    deadline = time.monotonic() + limit_s
    seen = server.request_count
    while time.monotonic() < deadline:
        time.sleep(quiet_s)
        if server.request_count == seen:
            return
        seen = server.request_count


@pytest.mark.e2e
def test_sigkill_midway_then_resume_asks_only_for_what_the_cache_lacks(shared_data, tmp_path, uninterrupted_run):
    uninterrupted, judge_prompts = uninterrupted_run
    cache = tmp_path / "cache"
    with FakeOpenAIServer(answer=taarof_verdict, models=(JUDGE_MODEL,), latency_s=LATENCY_S) as server:
        proc = start_run(shared_data, server, cache, tmp_path / "killed.json", key="sk-killed")
        deadline = time.monotonic() + 120
        while server.request_count < ITEMS // 2:
            assert proc.poll() is None, log_tail(proc)
            assert time.monotonic() < deadline, "the judged run never got halfway"
            time.sleep(0.005)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        assert proc.returncode == -signal.SIGKILL
        assert not (tmp_path / "killed.json").exists()
        wait_until_quiet(server)  # requests in flight at the kill reach the server, unanswered
        before = dict(server.prompt_attempts)
        done = cached_prompts(cache, before)
        # killed midway: about half are cached. What was asked but never stored (in flight, answered
        # but not yet written, or timed out and waiting for its retry on a busy machine) is not
        # bounded by judge_concurrency, and is not what this test is about: it is asked again below.
        assert ITEMS // 4 <= len(done) <= ITEMS - 20, len(done)

        # a generous timeout: a client timeout on a busy machine would re-send a request (not under test here)
        proc = start_run(shared_data, server, cache, tmp_path / "resumed.json", key="sk-resumed", timeout=30)
        finish(proc)
        usage_line = [
            line for line in proc.log_path.read_text().splitlines() if line.startswith("[lm-eval-persian] judge")
        ]
        # told apart by their keys, so a request of the killed run that reached the server late
        # is never counted as the resumed run's
        asked = server.prompts_sent_with("Bearer sk-resumed")
        all_prompts = set(server.prompt_attempts)
    # the prompts of an uninterrupted run, no more (a request cut by the kill is no prompt)
    assert all_prompts == judge_prompts
    # nothing cached before the kill was asked again; everything else was asked exactly once
    assert {p for p in done if asked[p]} == set()
    assert {p: asked[p] for p in all_prompts - done} == {p: 1 for p in all_prompts - done}
    # the resumed run's own usage line says the same: cache hits for what was done, requests for the rest
    assert len(usage_line) == 1, usage_line
    assert (
        f"{ITEMS} items, {ITEMS - len(done)} requests (0 re-asked), {len(done)} cache hits, 0 errors" in usage_line[0]
    )
    resumed = json.loads((tmp_path / "resumed.json").read_text())
    assert resumed == uninterrupted
    assert cached_prompts(cache, all_prompts) == all_prompts


@pytest.mark.e2e
def test_two_runs_sharing_one_cache_at_once(shared_data, tmp_path, uninterrupted):
    cache = tmp_path / "cache"
    both_judging = threading.Event()
    server: FakeOpenAIServer

    def answer_once_both_ask(prompt: str, body: dict) -> str:
        # No answer until both runs have sent requests (each run has its own key), so their judging
        # overlaps however unevenly the two processes start on a busy machine.
        if not both_judging.is_set():
            if len(set(server.auth_headers)) >= 2:
                both_judging.set()
            both_judging.wait(120)
        return taarof_verdict(prompt, body)

    server = FakeOpenAIServer(answer=answer_once_both_ask, models=(JUDGE_MODEL,), latency_s=0.01)
    try:
        runs = [
            start_run(shared_data, server, cache, tmp_path / f"run{i}.json", key=f"sk-run-{i}", timeout=120)
            for i in (1, 2)
        ]
        for proc in runs:
            finish(proc)
        attempts = dict(server.prompt_attempts)
        headers = list(server.auth_headers)
    finally:
        server.close()
    assert len(attempts) == ITEMS and set(attempts.values()) <= {1, 2}  # at most once per run
    # the two runs' requests interleave at the server: they judged at the same time
    first = [i for i, h in enumerate(headers) if h == "Bearer sk-run-1"]
    second = [i for i, h in enumerate(headers) if h == "Bearer sk-run-2"]
    assert first and second and len(first) + len(second) == len(headers)
    assert first[0] < second[-1] and second[0] < first[-1]
    conn = sqlite3.connect(cache / CACHE_FILENAME)
    assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    assert conn.execute("SELECT COUNT(*) FROM answers").fetchone()[0] == ITEMS
    conn.close()
    assert cached_prompts(cache, attempts) == set(attempts)  # every verdict stored, none lost
    for i in (1, 2):
        assert json.loads((tmp_path / f"run{i}.json").read_text()) == uninterrupted
