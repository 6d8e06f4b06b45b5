"""Judge faults at a 20% rate, over whole judged tasks run through real lm-eval.

Each test runs a task twice with the same scripted replies (``ScriptedLM``): once against a judge
server that never fails, once against one where a seeded 20% of all attempts fail, the kind drawn
among every fault a judge meets (``FAULT_KINDS``: 429 with and without Retry-After, 500, 503, a hang
past ``judge_timeout``, a dropped connection, a malformed JSON body, empty choices, an answer that is
no verdict). The final per-sample records and the metrics must be identical, and the counters must
add up: every fault costs exactly one more attempt (an HTTP retry, or a re-ask of an unreadable
answer), nothing is lost and nothing is counted twice.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from lm_eval_persian_culture.judge.cache import CACHE_FILENAME
from lm_eval_persian_culture.testing.openai_server import FAULT_KINDS, FakeOpenAIServer
from tests.reliability.judged_runs import (
    JUDGE_MODEL,
    divan_extraction,
    evaluate,
    judge_settings,
    judges_of,
    per_sample,
    scores,
    taarof_verdict,
    taraz_verdict,
)

FAULT_RATE = 0.2
SEED = 15
HANG_S = 2.0  # past judge_timeout=1.0 (judged_runs.judge_settings)
RETRY_AFTER_S = 0.05


def faulty_server(answer) -> FakeOpenAIServer:
    return FakeOpenAIServer(
        answer=answer, models=(JUDGE_MODEL,), fault_rate=FAULT_RATE, fault_kinds=FAULT_KINDS, seed=SEED,
        retry_after=RETRY_AFTER_S, hang_s=HANG_S,
    )  # fmt: skip


def run_clean_and_faulty(tasks, answer, base_meta, tmp_path: Path):
    """The same evaluation against a fault-free and a faulty server (separate caches)."""
    with FakeOpenAIServer(answer=answer, models=(JUDGE_MODEL,)) as clean:
        clean_res = evaluate(tasks, {**base_meta, **judge_settings(clean.base_url, tmp_path / "clean-cache")})
        clean_attempts = clean.request_count
        clean_prompts = set(clean.prompt_attempts)
        clean_timeouts = sum(j.backend.timeouts for j in judges_of(clean.base_url))
    faulty = faulty_server(answer)
    try:
        faulty_res = evaluate(tasks, {**base_meta, **judge_settings(faulty.base_url, tmp_path / "faulty-cache")})
    finally:
        faulty.close()
    # the fault-free run asked each distinct prompt once (and again only after a client timeout,
    # which a busy machine can cause: counted by the client)
    assert clean_attempts == len(clean_prompts) + clean_timeouts
    return clean_res, faulty_res, clean_prompts, faulty


def assert_same_outcome(clean_res: dict, faulty_res: dict, tasks: list[str]) -> None:
    for task in tasks:
        assert per_sample(faulty_res, task) == per_sample(clean_res, task), task
        assert scores(faulty_res, task) == scores(clean_res, task), task


def assert_faults_ridden_out(faulty: FakeOpenAIServer, clean_prompts: set[str], tmp_path: Path, judges) -> dict:
    """Counters at the server, in the Judge and in the cache agree; returns the fault counts."""
    counts = dict(faulty.fault_counts)
    injected = sum(counts.values())
    # every kind occurred, at about the configured rate (seeded: the same counts every run)
    assert set(counts) == set(FAULT_KINDS), counts
    assert 0.15 <= injected / faulty.request_count <= 0.25, (injected, faulty.request_count)
    # the same prompts as the fault-free run, none lost
    assert set(faulty.prompt_attempts) == clean_prompts
    backends = [j.backend for j in judges]
    timeouts = sum(b.timeouts for b in backends)
    assert timeouts >= counts["hang"]
    # each fault cost exactly one more attempt; a slow answer the client gave up on costs one too
    # (timeouts beyond the injected hangs: none on a quiet machine)
    assert faulty.request_count == len(clean_prompts) + injected + (timeouts - counts["hang"])
    assert sum(b.attempts for b in backends) == faulty.request_count  # the client counts what the server saw
    usage = [j.usage for j in judges]
    # answers asked of the backend: one per distinct prompt, plus one re-ask per non-verdict answer
    assert sum(u.reasks for u in usage) == counts["nonverdict"]
    assert sum(u.requests_sent for u in usage) == len(clean_prompts) + counts["nonverdict"]
    assert sum(u.errors + u.unparseable + u.cache_hits for u in usage) == 0
    # the cache holds one readable answer per distinct prompt, nothing else
    conn = sqlite3.connect(tmp_path / "faulty-cache" / CACHE_FILENAME)
    assert conn.execute("SELECT COUNT(*) FROM answers").fetchone()[0] == len(clean_prompts)
    assert conn.execute("SELECT COUNT(*) FROM answers WHERE raw = ?", (faulty.nonverdict_text,)).fetchone()[0] == 0
    conn.close()
    # for the record (pytest -s): the mix this run met
    print(
        f"faults {counts} = {injected} of {faulty.request_count} attempts; {len(clean_prompts)} prompts, "
        f"{sum(u.reasks for u in usage)} re-asks, {timeouts} client timeouts"
    )
    return counts


@pytest.mark.e2e
def test_taarof_full_task_at_20_percent_faults_matches_a_fault_free_run(shared_data, tmp_path):
    tasks = ["taarof_expected"]
    clean, faulty_res, prompts, faulty = run_clean_and_faulty(
        tasks, taarof_verdict, {"data_dir": str(shared_data)}, tmp_path
    )
    samples = per_sample(faulty_res, "taarof_expected")
    assert len(samples) == 311 and len(prompts) == 311  # the whole task, every reply judged
    assert_same_outcome(clean, faulty_res, tasks)
    records = [s[1][0] for s in samples]
    assert all('"judge_error": null' in r for r in records)
    r = scores(faulty_res, "taarof_expected")
    assert r["judge_errors,judge"] == 0
    # accuracy by hand: the share of prompts the scripted judge says Yes to
    assert r["accuracy,judge"] == pytest.approx(sum(taarof_verdict(p, {}) == "Yes" for p in prompts) / 311)
    # how hard the judge was pressed for a verdict is in the results
    assert faulty_res["configs"]["taarof_expected"]["metadata"]["judge"]["settings"]["unparseable_retries"] == 2
    assert_faults_ridden_out(faulty, prompts, tmp_path, judges_of(faulty.base_url))


@pytest.mark.e2e
def test_taraz_judged_task_at_20_percent_faults_matches_a_fault_free_run(shared_data, tiny_embedder, tmp_path):
    tasks = ["taraz_blend_judged"]
    meta = {"data_dir": str(shared_data), "embedding_model": str(tiny_embedder)}
    clean, faulty_res, prompts, faulty = run_clean_and_faulty(tasks, taraz_verdict, meta, tmp_path)
    samples = per_sample(faulty_res, "taraz_blend_judged")
    assert len(samples) == len(prompts) > 400  # every BLEnD question kept by BLEnD's exclusion rule
    assert_same_outcome(clean, faulty_res, tasks)
    r = scores(faulty_res, "taraz_blend_judged")
    assert r["judge_errors,score"] == 0
    assert r["judge_match,score"] == pytest.approx(sum(taraz_verdict(p, {}) == "1" for p in prompts) / len(prompts))
    assert_faults_ridden_out(faulty, prompts, tmp_path, judges_of(faulty.base_url))


def write_divan_fixture(folder: Path) -> dict[str, int]:
    """DivanBench at the paper's sizes (100 factual, 81 pairs, 53 scenario), by repeating the test
    fixture's items with numbered ids and texts."""
    source = Path(__file__).resolve().parents[1] / "divan" / "fixtures" / "divan"
    sizes = {"factual": 100, "binary": 162, "scenario": 53}
    (folder / "divan").mkdir(parents=True)
    for kind, size in sizes.items():
        rows = [json.loads(line) for line in (source / f"{kind}.jsonl").read_text().splitlines() if line.strip()]
        out = []
        copy = 0
        while len(out) < size:
            for row in rows:
                new = dict(row, id=f"{row['id']}-{copy}")
                text_field = "statement" if kind == "binary" else "question"
                new[text_field] = f"{row[text_field]} ({copy})"
                if kind == "binary":
                    new["pair_id"] = f"{row['pair_id']}-{copy}"
                out.append(new)
            copy += 1
        (folder / "divan" / f"{kind}.jsonl").write_text(
            "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in out[:size]), encoding="utf-8"
        )
    return sizes


@pytest.mark.e2e
def test_divan_llm_extractor_at_20_percent_faults_matches_a_fault_free_run(tmp_path):
    # the paper's pipeline (divan_pipeline=paper): the LLM extractor reads every reply
    sizes = write_divan_fixture(tmp_path / "data")
    tasks = ["divan_factual_sp1", "divan_binary_sp1", "divan_scenario_sp1"]
    meta = {"data_dir": str(tmp_path / "data"), "divan_pipeline": "paper"}
    clean, faulty_res, prompts, faulty = run_clean_and_faulty(tasks, divan_extraction, meta, tmp_path)
    assert len(prompts) == sum(sizes.values()) == 315
    assert [len(per_sample(faulty_res, t)) for t in tasks] == [100, 162, 53]
    assert_same_outcome(clean, faulty_res, tasks)
    for task in tasks:
        records = [json.loads(filtered[0]) for _, filtered, _ in per_sample(faulty_res, task)]
        assert all(r["llm_error"] is None and r["llm_raw"] for r in records)
        # by hand from the scripted extractor: NONE leaves a reply invalid, anything else is the LLM's reading
        none_share = sum(r["llm_raw"] == "NONE" for r in records) / len(records)
        assert 0 < none_share < 0.5
        assert scores(faulty_res, task)["invalid_rate,extract"] == pytest.approx(none_share)
        assert scores(faulty_res, task)["llm_extracted_rate,extract"] == pytest.approx(1 - none_share)
    # the MCQ and the yes/no extractor are two Judges (two parsers) on the same server
    judges = judges_of(faulty.base_url)
    assert len(judges) == 2
    assert_faults_ridden_out(faulty, prompts, tmp_path, judges)
