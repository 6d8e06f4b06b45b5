"""Who judges under which launch, the cache on network filesystems, order-free aggregation (no lm-eval runs)."""

from __future__ import annotations

import itertools
import os
import sqlite3
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from lm_eval_persian_culture.judge import Judge, JudgeSettings, cache_key
from lm_eval_persian_culture.judge import cache as cache_module
from lm_eval_persian_culture.judge import client as client_module
from lm_eval_persian_culture.judge import launch as launch_module
from lm_eval_persian_culture.judge.cache import CACHE_FILENAME, CachedAnswer, JudgeCache, filesystem_type
from lm_eval_persian_culture.judge.launch import Launch, SharedBatch, _reset_batch_numbers, shared_batch
from lm_eval_persian_culture.scoring.aggregations import mean_or_nan
from lm_eval_persian_culture.tasks.divan.aggregations import std_or_nan
from lm_eval_persian_culture.testing.openai_server import FakeOpenAIServer

TORCHRUN_ENV = {"RANK": "1", "LOCAL_RANK": "1", "WORLD_SIZE": "2", "TORCHELASTIC_RUN_ID": "abc",
                "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": "29500", "TORCHELASTIC_RESTART_COUNT": "0"}  # fmt: skip


def test_launch_from_torchrun_env():
    launch = Launch.from_env(TORCHRUN_ENV)
    assert (launch.rank, launch.local_rank, launch.world_size, launch.first) == (1, 1, 2, False)
    rank0 = Launch.from_env({**TORCHRUN_ENV, "RANK": "0", "LOCAL_RANK": "0"})
    assert rank0.first and rank0.launch_id == launch.launch_id  # one launch, one id in every process
    restarted = Launch.from_env({**TORCHRUN_ENV, "TORCHELASTIC_RESTART_COUNT": "1"})
    assert restarted.launch_id != launch.launch_id  # a restarted launch does not see the last one's batches
    plain = Launch.from_env({})
    assert (plain.rank, plain.local_rank, plain.world_size, plain.first) == (0, 0, 1, True)


@pytest.fixture(autouse=True)
def _fresh_batch_numbers():
    _reset_batch_numbers()
    yield
    _reset_batch_numbers()


def test_shared_batch_only_when_every_process_runs_the_whole_loop():
    follower = Launch.from_env(TORCHRUN_ENV)
    leader = Launch.from_env({**TORCHRUN_ENV, "RANK": "0", "LOCAL_RANK": "0"})
    # lm-eval's world size 1 while the launch has 2 processes: torchrun with tp_plan
    first = shared_batch("t:1", leader, world_size=1)
    assert first == SharedBatch(leader.launch_id, "t:1#0", judging=True, local_rank=0)
    assert shared_batch("t:1", leader, world_size=1).batch_id == "t:1#1"  # batches numbered in call order
    assert shared_batch("t:2", leader, world_size=1).batch_id == "t:2#0"  # per prompt template
    _reset_batch_numbers()
    assert shared_batch("t:1", follower, world_size=1) == SharedBatch(leader.launch_id, "t:1#0", False, 1)
    # data parallel (lm-eval shards the docs), one process, or outside an lm-eval evaluation: no coordination
    assert shared_batch("t:1", follower, world_size=2) is None
    assert shared_batch("t:1", Launch.from_env({}), world_size=1) is None
    assert shared_batch("t:1", follower) is None  # no lm-eval evaluate() on this call stack


def test_waiting_process_takes_the_judging_process_verdicts_and_asks_for_nothing(tmp_path, monkeypatch):
    with FakeOpenAIServer(models=("judge-model",)) as server:
        settings = JudgeSettings.from_settings({"judge_model": "judge-model", "judge_base_url": server.base_url,
                                                "judge_cache_dir": str(tmp_path)})  # fmt: skip
        judge = Judge(settings)
        key = cache_key(judge.fingerprint(), "tpl", "prompt one")
        cache = JudgeCache(tmp_path)
        cache.put(key, template_id="tpl", fingerprint=judge.fingerprint(), answer=CachedAnswer("Yes", 5, 1))
        cache.mark_batch_finished("launch-1", "tpl#0")
        batch = SharedBatch("launch-1", "tpl#0", judging=False, local_rank=1)
        monkeypatch.setattr(client_module, "shared_batch", lambda template_id: batch)
        results = judge.judge_many(["prompt one", "prompt two"], template_id="tpl")
        judge.close()
        cache.close()
        assert server.request_count == 0
    assert (results[0].verdict, results[0].cached, results[0].error) == (True, True, None)
    assert (results[1].verdict, results[1].error) == (None, "no verdict from the judging process (LOCAL_RANK 0)")
    assert (judge.usage.requests_sent, judge.usage.cache_hits, judge.usage.errors) == (0, 1, 1)


def test_judging_process_marks_its_batch_finished_even_when_judging_fails(tmp_path, monkeypatch):
    settings = JudgeSettings.from_settings({"judge_model": "judge-model", "judge_base_url": "http://127.0.0.1:9/v1",
                                            "judge_cache_dir": str(tmp_path)})  # fmt: skip
    judge = Judge(settings)
    monkeypatch.setattr(client_module, "shared_batch", lambda t: SharedBatch("l", "tpl#0", True, 0))

    def broken(*args, **kwargs):
        raise RuntimeError("judge crashed")

    monkeypatch.setattr(judge, "_judge_here", broken)
    with pytest.raises(RuntimeError):
        judge.judge_many(["p"], template_id="tpl")
    assert judge._cache.batch_finished("l", "tpl#0")  # the waiting processes are released
    judge.close()


MOUNTS = """\
/dev/sda1 / ext4 rw,relatime 0 0
server:/export /mnt/shared nfs4 rw,relatime 0 0
/dev/sdb1 /mnt/shared/local\\040disk xfs rw 0 0
"""


def test_filesystem_type_is_the_longest_mount_holding_the_path():
    assert filesystem_type("/home/me/cache", MOUNTS) == "ext4"
    assert filesystem_type("/mnt/shared/cache", MOUNTS) == "nfs4"
    assert filesystem_type("/mnt/shared/local disk/cache", MOUNTS) == "xfs"
    assert filesystem_type("/mnt/sharedother", MOUNTS) == "ext4"  # a prefix of the name is not a parent


def journal_mode_of_new_cache(folder) -> str:
    JudgeCache(folder).close()
    conn = sqlite3.connect(folder / CACHE_FILENAME)
    try:
        return conn.execute("PRAGMA journal_mode").fetchone()[0]
    finally:
        conn.close()


def test_cache_on_a_network_filesystem_uses_the_rollback_journal(tmp_path, monkeypatch, caplog):
    monkeypatch.setattr(cache_module, "filesystem_type", lambda path: "nfs4")
    assert journal_mode_of_new_cache(tmp_path / "nfs") == "delete"
    assert "network filesystem (nfs4)" in caplog.text
    monkeypatch.setattr(cache_module, "filesystem_type", lambda path: "ext4")
    assert journal_mode_of_new_cache(tmp_path / "local") == "wal"


def test_means_and_spreads_do_not_depend_on_the_order_of_values():
    # data parallel hands an aggregation rank 0's values, then rank 1's: not the doc order
    values = [0.1, 0.2, 0.3, 0.7, 1 / 3]
    means = {mean_or_nan(list(p)) for p in itertools.permutations(values)}
    stds = {std_or_nan(list(p)) for p in itertools.permutations(values)}
    assert len(means) == 1 and len(stds) == 1
    assert means.pop() == pytest.approx(sum(values) / 5)


def test_waiting_process_is_released_when_the_judging_process_ends_without_its_batch(tmp_path, monkeypatch):
    """Sampled replies can differ between processes: LOCAL_RANK 0 may never reach a batch another process has."""
    monkeypatch.setattr(launch_module.tempfile, "gettempdir", lambda: str(tmp_path))
    settings = JudgeSettings.from_settings({"judge_model": "judge-model", "judge_base_url": "http://127.0.0.1:9/v1",
                                            "judge_cache_dir": str(tmp_path / "cache")})  # fmt: skip
    judge = Judge(settings)
    monkeypatch.setattr(client_module, "shared_batch", lambda t: SharedBatch("launch-2", "tpl#3", False, 1))
    launch_module._mark_ended("launch-2")  # what LOCAL_RANK 0's exit leaves
    [result] = judge.judge_many(["p"], template_id="tpl")
    judge.close()
    assert (result.verdict, result.error) == (None, "no verdict from the judging process (LOCAL_RANK 0)")
    assert judge.usage.requests_sent == 0


def test_only_local_rank_0_of_a_launch_leaves_an_end_marker():
    code = ("import atexit, lm_eval_persian_culture.judge.launch as l; "
            "print(l._ended_marker(l.Launch.from_env().launch_id))")  # fmt: skip
    for local_rank, expected in (("0", True), ("1", False)):
        env = {**os.environ, **TORCHRUN_ENV, "LOCAL_RANK": local_rank, "RANK": local_rank,
               "TORCHELASTIC_RUN_ID": f"test-{uuid.uuid4().hex}"}  # fmt: skip
        marker = Path(subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                                     check=True).stdout.strip())  # fmt: skip
        assert marker.exists() is expected
        marker.unlink(missing_ok=True)


def test_report_bootstrap_of_samples_logged_rank_by_rank_equals_doc_order(tmp_path):
    """lm-eval writes a data-parallel run's samples rank 0's docs first, then rank 1's: the report's
    cluster bootstrap (which draws clusters by position) must give the one-process interval."""
    from lm_eval_persian_culture.report.runs import Run
    from lm_eval_persian_culture.report.scores import aggregation_for, score

    task, metric = "divan_binary", "acquiescence_bias"
    samples = []
    for pair in range(20):  # 20 statement pairs under one prompt; answers vary by a fixed rule
        for side, polarity in enumerate(("positive", "negative")):
            record = {"prompt_id": 1, "pair_id": pair, "polarity": polarity, "type": "binary",
                      "correct": int((pair * 7 + side * 3) % 5 < 3), "invalid": 0, "llm": 0}  # fmt: skip
            samples.append({"doc_id": 2 * pair + side, "doc": {"pair_id": pair}, "filter": "extract", metric: record})
    value = aggregation_for(task, metric)([s[metric] for s in samples])

    def interval(logged: list[dict]):
        run = Run(path=tmp_path / "results.json", data={"results": {task: {f"{metric},extract": value}}},
                  samples_dir=tmp_path, timestamp="t")  # fmt: skip
        run._samples[task] = logged
        found = score(run, task, metric, resamples=300)
        assert found.method == "bootstrap"
        return found.value, found.low, found.high

    # two ranks get docs 0, 2, 4, ... and 1, 3, 5, ...; three ranks 0, 3, 6, ...
    assert interval(samples[0::2] + samples[1::2]) == interval(samples)
    assert interval(samples[0::3] + samples[1::3] + samples[2::3]) == interval(samples)
