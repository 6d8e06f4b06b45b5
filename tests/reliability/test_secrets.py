"""A recognisable fake API key must reach the judge server and nothing else: not the results, the
samples, the logs (DEBUG, the openai and httpx loggers included), nor any file of the judge cache.

The judged run (taarof_expected, all 311 replies scripted by ``ScriptedLM``) runs in its own process
(``run_judged.py``), saves results and samples with lm-eval's own ``EvaluationTracker`` as the CLI
does, and meets 20% judge faults of every kind, so error paths (retries, re-asks, error messages)
run too.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from lm_eval_persian_culture.testing.openai_server import FAULT_KINDS, FakeOpenAIServer
from tests.reliability.judged_runs import JUDGE_MODEL, taarof_verdict
from tests.reliability.run_judged import KEY_ENV

REPO = Path(__file__).resolve().parents[2]
CANARY = "sk-test-CANARY-7f3a9c1e5b2d4f60"


@pytest.mark.e2e
def test_the_judge_key_reaches_the_server_and_nothing_else(shared_data, tmp_path):
    cache, out, results_dir = tmp_path / "cache", tmp_path / "outcome.json", tmp_path / "results"
    server = FakeOpenAIServer(
        answer=taarof_verdict, models=(JUDGE_MODEL,), fault_rate=0.2, fault_kinds=FAULT_KINDS, seed=1,
        retry_after=0.05, hang_s=2.0,
    )  # fmt: skip
    try:
        env = {**os.environ, "PYTHONPATH": str(REPO), KEY_ENV: CANARY, "LMEVAL_LOG_LEVEL": "DEBUG"}
        proc = subprocess.run(
            [sys.executable, "-m", "tests.reliability.run_judged", "--data-dir", str(shared_data),
             "--judge-url", server.base_url, "--cache", str(cache), "--out", str(out),
             "--concurrency", "16", "--results-dir", str(results_dir), "--debug-log"],
            cwd=REPO, env=env, capture_output=True, text=True, timeout=300,
        )  # fmt: skip
    finally:
        server.close()
    assert proc.returncode == 0, proc.stderr[-3000:]

    # the key was used: every attempt carried it (so a test that never sent it would fail here)
    assert server.request_count >= 311 and set(server.auth_headers) == {f"Bearer {CANARY}"}
    assert sum(server.fault_counts.values()) > 0
    # the DEBUG log did capture the run's requests (so the grep below reads something real)
    assert "DEBUG" in proc.stderr and server.base_url.split("//")[1] in proc.stderr

    written = [p for p in [*results_dir.rglob("*"), *cache.rglob("*"), out] if p.is_file()]
    kinds = {p.name.split("_")[0] for p in results_dir.rglob("*.json*")}
    assert {"results", "samples"} <= kinds, kinds
    assert any(p.name.endswith(".sqlite3") for p in written)
    for text, where in [
        (proc.stdout, "stdout"),
        (proc.stderr, "stderr"),
        *((p.read_bytes().decode("utf-8", "replace"), str(p)) for p in written),
    ]:
        assert CANARY not in text, where
        assert "CANARY" not in text, where  # not even a fragment of it
