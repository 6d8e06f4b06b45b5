"""The local judge end to end: a real `lm-eval-persian run --model hf` with the tiny model as the
evaluated model and, under a hub id from an offline Hugging Face cache, as the judge (no key, no
server). Its verdicts are garbage; they must be counted in judge_errors, not crash the run; and a
re-run with the judge's weights gone must still succeed, from the verdict cache, loading nothing.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lm_eval_persian_culture.judge import parse_yes_no

BIN = Path(sys.executable).parent
JUDGE_ID = "pack-tests/tiny-judge"


def make_hub_cache(root: Path, repo_id: str, model_dir: Path) -> tuple[str, Path]:
    """Lay ``model_dir`` out as the Hugging Face cache does (refs/main -> snapshots/<commit>/)."""
    commit = hashlib.sha1(repo_id.encode()).hexdigest()
    repo = root / ("models--" + repo_id.replace("/", "--"))
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text(commit)
    snapshot = repo / "snapshots" / commit
    shutil.copytree(model_dir, snapshot)
    return commit, snapshot


def run_cli(args: list[str], env_extra: dict) -> subprocess.CompletedProcess:
    env = {**os.environ, "LMEVAL_LOG_LEVEL": "INFO", **env_extra}
    env.pop("OPENAI_API_KEY", None)  # the local judge needs none
    return subprocess.run([str(BIN / "lm-eval-persian"), *args], capture_output=True, text=True, env=env, timeout=900)


def latest_outputs(out: Path) -> tuple[dict, list[dict]]:
    results = json.loads(max(out.rglob("results_*.json"), key=lambda p: p.name).read_text())
    samples_file = max(out.rglob("samples_taarof_expected_*.jsonl"), key=lambda p: p.name)
    return results, [json.loads(line) for line in samples_file.read_text().splitlines()]


@pytest.mark.e2e
def test_tiny_model_as_local_judge_end_to_end_and_cached_rerun_loads_nothing(shared_data, tiny_model, tmp_path):
    hub = tmp_path / "hub"
    commit, snapshot = make_hub_cache(hub, JUDGE_ID, tiny_model)
    out = tmp_path / "OUT"
    metadata = {
        "data_dir": str(shared_data),
        "judge_model": f"hf:{JUDGE_ID}",
        "judge_max_error_rate": 1.0,  # the default (0.05) would fail the run on garbage verdicts
    }
    args = [
        "run", "--model", "hf", "--model_args", f"pretrained={tiny_model},dtype=float32", "--device", "cpu",
        "--tasks", "taarof_expected", "--limit", "4", "--apply_chat_template", "--log_samples",
        "--output_path", str(out), "--metadata", json.dumps(metadata),
    ]  # fmt: skip
    env = {"HF_HUB_CACHE": str(hub), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    proc = run_cli(args, env)
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert f"Loading judge model {JUDGE_ID}" in proc.stderr
    results, samples = latest_outputs(out)

    records = [json.loads(s["filtered_resps"][0]) for s in samples]
    assert len(records) == 4
    # counted independently from the judge's raw answers in the samples
    unjudged = [r for r in records if parse_yes_no(r["judge_raw"]) is None]
    assert [r["verdict"] is None for r in records] == [parse_yes_no(r["judge_raw"]) is None for r in records]
    metrics = results["results"]["taarof_expected"]
    assert metrics["judge_errors,judge"] == len(unjudged)
    assert len(unjudged) >= 3, [r["judge_raw"] for r in records]  # random weights rarely start with Yes/No
    assert all(r["judge_error"].startswith("unparseable") for r in unjudged)
    # which judge: in every sample record, and in the results
    for record in records:
        assert record["judge_model"] == f"hf:{JUDGE_ID}" and record["judge_revision"] == commit
        assert record["judge_cached"] is False
    judge_meta = results["configs"]["taarof_expected"]["metadata"]["judge"]
    assert judge_meta["model"] == f"hf:{JUDGE_ID}" and judge_meta["revision"] == commit
    assert judge_meta["backend"] == "transformers (in-process)" and judge_meta["device"] == "cpu"
    assert judge_meta["settings"]["max_tokens"] == 16

    # Re-run with the judge's weights gone: every verdict comes from the cache, no model is loaded.
    for weights in snapshot.glob("*.safetensors"):
        weights.unlink()
    proc2 = run_cli(args, env)
    assert proc2.returncode == 0, proc2.stderr[-4000:]
    assert "Loading judge model" not in proc2.stderr
    results2, samples2 = latest_outputs(out)
    records2 = [json.loads(s["filtered_resps"][0]) for s in samples2]
    assert all(r["judge_cached"] for r in records2)
    assert [r["judge_raw"] for r in records2] == [r["judge_raw"] for r in records]
    assert results2["results"]["taarof_expected"]["judge_errors,judge"] == len(unjudged)
