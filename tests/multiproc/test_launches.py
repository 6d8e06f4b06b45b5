"""Two processes give what one process gives, and the judge is asked once per item per launch.

Three launches of the same judged evaluation (``run_launch.py``: TaarofBench's taarof_expected judged,
DivanBench's five-prompt divan_binary with the LLM extractor for unreadable replies, PerCul's paired
percul_fa_en, whose unreadable replies go to the LLM extractor too; scripted replies, ``--limit 16``),
each against its own local judge server and its own empty judge cache:

* one process;
* data parallel: ``torchrun --nproc_per_node 2``, lm-eval shards the docs over the two ranks (PerCul's
  Persian stories all land on rank 0 and their English twins on rank 1, DivanBench's pairs are split)
  and gathers the per-doc values on rank 0;
* every process runs the whole loop (``torchrun --nproc_per_node 2``, lm-eval's world size 1 in each,
  LOCAL_RANK 0 and 1), as under HF ``tp_plan``.

Rank 0's metrics and samples must equal the one-process run's; the judge server must see each
judge prompt exactly once and the pre-flight's GET /models once per launch.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from lm_eval_persian_culture.testing.openai_server import FakeOpenAIServer
from tests.divan import divan_testlib
from tests.multiproc.run_launch import TASKS, judge_answer
from tests.percul import percul_testlib
from tests.reliability.judged_runs import JUDGE_MODEL

REPO = Path(__file__).resolve().parents[2]
LIMIT = 16
TORCHRUN = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node", "2"]

pytestmark = pytest.mark.e2e


def launch(mode: str, data_dir: Path, out: Path) -> dict:
    """Run one launch against a fresh judge server and cache; what every process wrote, and the server's counts."""
    cmd = (TORCHRUN if mode != "single" else [sys.executable]) + ["-m", "tests.multiproc.run_launch"]
    with FakeOpenAIServer(answer=judge_answer, models=(JUDGE_MODEL,)) as server:
        args = [*cmd, "--mode", mode, "--data-dir", str(data_dir), "--judge-url", server.base_url,
                "--cache", str(out / f"cache-{mode}"), "--out", str(out / mode), "--limit", str(LIMIT)]  # fmt: skip
        env = {**os.environ, "PYTHONPATH": str(REPO), "OMP_NUM_THREADS": "1"}
        start = time.monotonic()
        proc = subprocess.run(args, cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
        seconds = time.monotonic() - start
        assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
        attempts = dict(server.prompt_attempts)
        probes = server.model_list_requests
    ranks = sorted(out.glob(f"{mode}.rank*.json"))
    return {
        "procs": [json.loads(p.read_text(encoding="utf-8")) for p in ranks],
        "attempts": attempts,
        "probes": probes,
        "seconds": seconds,
    }


@pytest.fixture(scope="module")
def launches(launch_data_dir, tmp_path_factory) -> dict:
    out = tmp_path_factory.mktemp("launches")
    found = {mode: launch(mode, launch_data_dir, out) for mode in ("single", "dp", "replicated")}
    print("launch wall times: " + ", ".join(f"{m} {r['seconds']:.1f} s" for m, r in found.items()))
    return found


def canonical(value) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def expected_judge_prompts(single: dict) -> int:
    """TaarofBench: one verdict per doc; DivanBench and PerCul: one extraction per reply their answer
    sheets make unreadable (tests/divan/divan_testlib.py, tests/percul/percul_testlib.py)."""
    samples = single["results"]["samples"]
    unreadable = sum(
        divan_testlib.SHEET[s["doc"]["item_id"]][s["doc"]["prompt_id"] - 1] is None for s in samples["divan_binary"]
    )
    unreadable_percul = sum(
        percul_testlib.SHEET[s["doc"]["id"]][0 if s["doc"]["language"] == "fa" else 1] is None
        for s in samples["percul_fa_en"]
    )
    return len(samples["taarof_expected"]) + unreadable + unreadable_percul


def test_one_process_baseline_covers_what_the_launches_must_keep(launches):
    [single] = launches["single"]["procs"]
    samples = single["results"]["samples"]
    assert [len(samples[t]) for t in TASKS] == [LIMIT] * 3
    # the fixture's first 16 binary docs reach system prompt 3, where b2p's reply is unreadable
    # and PerCul's first 8 stories hold two unreadable replies (3_O_FOO in English, 6_O_RIT in Persian)
    assert expected_judge_prompts(single) == LIMIT + 1 + 2
    percul = samples["percul_fa_en"]
    assert [s["doc"]["language"] for s in percul] == ["fa", "en"] * (LIMIT // 2)
    assert single["requests_sent"] == LIMIT + 1 + 2


@pytest.mark.parametrize("mode", ["dp", "replicated"])
def test_two_processes_give_the_one_process_metrics_and_samples(launches, mode):
    [single] = launches["single"]["procs"]
    writer, other = launches[mode]["procs"]
    assert other["results"] is None  # lm-eval returns results in one process only
    for part in ("results", "n-samples", "samples"):
        for task in TASKS:
            assert canonical(writer["results"][part][task]) == canonical(single["results"][part][task]), (part, task)


@pytest.mark.parametrize("mode", ["single", "dp", "replicated"])
def test_judge_asked_once_per_item_and_pre_flight_once_per_launch(launches, mode):
    run = launches[mode]
    [single] = launches["single"]["procs"]
    assert set(run["attempts"].values()) == {1}
    assert len(run["attempts"]) == expected_judge_prompts(single)
    assert run["attempts"].keys() == launches["single"]["attempts"].keys()
    assert run["probes"] == 1


def test_data_parallel_ranks_judge_their_own_shards(launches):
    rank0, rank1 = launches["dp"]["procs"]
    assert rank0["lm_world_size"] == rank1["lm_world_size"] == 2
    assert rank0["requests_sent"] > 0 and rank1["requests_sent"] > 0
    assert rank0["requests_sent"] + rank1["requests_sent"] == len(launches["dp"]["attempts"])


def test_every_process_mode_judges_in_local_rank_0_only(launches):
    leader, follower = launches["replicated"]["procs"]
    assert (leader["env"]["LOCAL_RANK"], follower["env"]["LOCAL_RANK"]) == ("0", "1")
    assert leader["lm_world_size"] == follower["lm_world_size"] == 1
    total = len(launches["replicated"]["attempts"])
    assert leader["requests_sent"] == total and leader["cache_hits"] == 0
    # the other process waited for LOCAL_RANK 0's verdicts and read every one of them from the cache
    assert follower["requests_sent"] == 0 and follower["cache_hits"] == follower["items"] == total
