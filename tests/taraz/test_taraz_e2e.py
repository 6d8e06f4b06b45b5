"""TARAZ end to end: the real lm-eval CLI, the tiny Llama through ``--model hf``, the tiny BERT as
embedding model through sentence-transformers, the real BLEnD data, and (judged variant) the real
openai client against the local judge server. Every logged metric is recomputed from the logged
reply with the library functions and, for the cosines, with sentence-transformers directly."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest

from lm_eval_persian_culture.scoring.records import decode_record
from lm_eval_persian_culture.tasks.taraz import short_answer as sa
from lm_eval_persian_culture.testing.openai_server import FakeOpenAIServer

BIN = Path(sys.executable).parent


def run_cli(args: list[str], env_extra: dict | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "LMEVAL_LOG_LEVEL": "INFO", **(env_extra or {})}
    return subprocess.run([str(BIN / "lm-eval-persian"), *args], capture_output=True, text=True, env=env, timeout=900)


def read_outputs(out: Path):
    results = json.loads(max(out.rglob("results_*.json"), key=lambda p: p.name).read_text())
    samples = {
        p.name.split("samples_")[1].rsplit("_", 1)[0]: [json.loads(line) for line in p.read_text().splitlines()]
        for p in out.rglob("samples_*.jsonl")
    }
    return results, samples


def base_args(tiny_model, out, tasks, limit):
    return ["run", "--model", "hf", "--model_args", f"pretrained={tiny_model},dtype=float32", "--device", "cpu",
            "--tasks", tasks, "--limit", str(limit), "--apply_chat_template", "--log_samples",
            "--output_path", str(out), "--gen_kwargs", "max_gen_toks=24"]  # fmt: skip


@lru_cache(maxsize=2)
def _sentence_transformer(model_dir: Path):
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(str(model_dir), device="cpu")


def cosines(model_dir: Path, left: list[str], right: list[str]) -> float | None:
    """Max cosine over the pairs whose numbers agree (the pack's rule), by sentence-transformers."""
    if not left or not right:
        return None
    model = _sentence_transformer(model_dir)
    a = model.encode(left, convert_to_numpy=True)
    b = model.encode(right, convert_to_numpy=True)
    a = a / np.linalg.norm(a, axis=1, keepdims=True)
    b = b / np.linalg.norm(b, axis=1, keepdims=True)
    allowed = np.array([[sa.same_numbers(x, y) for y in right] for x in left])
    return float(np.where(allowed, a @ b.T, -1.0).max())


@pytest.mark.e2e
@pytest.mark.lmeval05  # also run under lm-eval 0.5 (.ci/run)
def test_taraz_blend_end_to_end(shared_data, tiny_model, tiny_embedder, tmp_path):
    out = tmp_path / "OUT"
    meta = {"data_dir": str(shared_data), "embedding_model": str(tiny_embedder)}
    proc = run_cli([*base_args(tiny_model, out, "taraz_blend", 4), "--metadata", json.dumps(meta)])
    assert proc.returncode == 0, proc.stderr[-4000:]
    results, samples = read_outputs(out)
    assert results["n-samples"]["taraz_blend"] == {"original": 456, "effective": 4}  # BLEnD's exclusion rule
    assert "deviations" in results["configs"]["taraz_blend"]["metadata"]
    scoring = results["configs"]["taraz_blend"]["metadata"]["scoring"]  # the model, set by --metadata
    assert scoring["embedding_model"]["model"] == str(tiny_embedder)
    assert scoring["embedding_model_set_by"] == "metadata embedding_model"
    assert scoring["embed_threshold"] == 0.85

    logged = samples["taraz_blend"]
    assert [s["doc"]["id"] for s in logged][:1] == ["Al-en-01"]
    prompt = logged[0]["arguments"]["gen_args_0"]["arg_0"]
    assert "سوال زیر را بخوانید و یک پاسخ بدون هیچ توضیحی ارائه دهید." in prompt
    records = []
    for s in logged:
        rec = decode_record(s["filtered_resps"][0])  # a JSON string; under lm-eval 0.5 a list of one
        reply, refs = s["resps"][0][0], s["doc"]["references"]
        assert rec["response"] == reply
        # recomputed independently of the filter: lexical metrics, items, and the cosines
        assert rec["exact_match"] == int(sa.exact_match(reply, refs))
        for kind, hit in sa.rouge_matches(reply, refs).items():
            assert rec[kind] == int(hit)
        assert rec["weighted_exact_match"] == sa.blend_weighted_score(reply, s["doc"]["annotations"])
        assert rec["sentences"] == sa.sentences(reply)
        texts = sa.comparison_texts(reply, refs)
        for metric in ("embed", "hybrid"):
            expected = cosines(tiny_embedder, texts[f"{metric}_left"], texts[f"{metric}_right"])
            if expected is None:
                assert rec[f"{metric}_cosine"] is None and rec[f"{metric}_match"] == 0
            else:
                assert rec[f"{metric}_cosine"] == pytest.approx(expected, abs=1e-4)
                assert rec[f"{metric}_match"] == int(expected > 0.85)  # the paper: "above"
        for metric in (*sa.METRICS, "weighted_exact_match"):
            assert s[metric] == rec[metric]
        records.append(rec)
    r = results["results"]["taraz_blend"]
    for metric in (*sa.METRICS, "weighted_exact_match"):
        assert r[f"{metric},score"] == pytest.approx(np.mean([rec[metric] for rec in records]))
    assert "taraz embeddings: 100%" in proc.stderr  # one batched pass, with a progress bar


def scripted_judge(prompt: str, body: dict) -> str:
    """isn-env-000: "1"; isn-env-001: "0"; isn-env-002: unparseable -> judge_match 1/2, 1 error."""
    if "Question ID: isn-env-000\n" in prompt:
        return "1"
    if "Question ID: isn-env-001\n" in prompt:
        return "0"
    return "I cannot tell."


@pytest.mark.e2e
def test_taraz_judged_variant_against_local_judge(shared_data, tiny_model, tiny_embedder, tmp_path):
    out = tmp_path / "OUT"
    with FakeOpenAIServer(answer=scripted_judge, models=("judge-model",)) as server:
        meta = {"data_dir": str(shared_data), "embedding_model": str(tiny_embedder), "judge_model": "judge-model",
                "judge_base_url": server.base_url, "judge_max_error_rate": 0.5}  # fmt: skip
        args = [*base_args(tiny_model, out, "taraz_isn_saq_derived_judged", 3), "--metadata", json.dumps(meta)]
        proc = run_cli(args)
        assert proc.returncode == 0, proc.stderr[-4000:]
        assert server.request_count == 3  # the unparseable answer not re-asked (temperature 0)
        results, samples = read_outputs(out)
        r = results["results"]["taraz_isn_saq_derived_judged"]
        assert r["judge_match,score"] == pytest.approx(1 / 2)
        assert r["judge_errors,score"] == 1
        assert "derived_by_project" in results["configs"]["taraz_isn_saq_derived_judged"]["metadata"]
        recs = [json.loads(s["filtered_resps"][0]) for s in samples["taraz_isn_saq_derived_judged"]]
        assert [rec["judge_match"] for rec in recs] == [1, 0, None]
        assert recs[2]["judge_error"].startswith("unparseable")
        # the paper's judge prompt, built from the logged reply and references, is what was sent
        first = samples["taraz_isn_saq_derived_judged"][0]
        expected_prompt = sa.judge_prompt("isn-env-000", first["resps"][0][0], first["doc"]["references"])
        assert server.requests_matching(expected_prompt) == 1
        # a re-run pays the judge only for the unreadable answer, which was not cached
        proc2 = run_cli(args)
        assert proc2.returncode == 0, proc2.stderr[-4000:]
        assert server.request_count == 3 + 1


@pytest.mark.e2e
def test_paper_embedding_model_fails_at_load_not_mid_run(shared_data, tiny_model, tmp_path):
    # The default (the paper's model) cannot be downloaded on these machines: one clear error at load.
    out = tmp_path / "OUT"
    proc = run_cli([*base_args(tiny_model, out, "taraz_blend", 2), "--metadata",
                    json.dumps({"data_dir": str(shared_data)})])  # fmt: skip
    assert proc.returncode != 0
    assert "maux-gte-persian-v3" in proc.stderr
    assert "Traceback" not in proc.stderr, proc.stderr[proc.stderr.find("Traceback") - 1500 :][:3000]
    # at pre-flight, before the model loads: found (not) as every model is, in one line
    assert ("settings [taraz_blend]: embedding_model=xmanii/maux-gte-persian-v3: not a local folder, not in the "
            "Hugging Face cache") in proc.stderr  # fmt: skip
    assert not list(out.rglob("samples_*.jsonl"))  # nothing generated


@pytest.mark.e2e
def test_predict_only_runs_without_an_embedding_model(shared_data, tiny_model, tmp_path):
    # No embedding model anywhere: without --predict_only this run stops at load (test above).
    out = tmp_path / "OUT"
    env = {k: v for k, v in os.environ.items() if k != "PERSIAN_CULTURE_EMBEDDING_MODEL"}
    proc = subprocess.run(
        [str(BIN / "lm-eval-persian"), *base_args(tiny_model, out, "taraz_blend", 1), "--predict_only",
         "--metadata", json.dumps({"data_dir": str(shared_data)})],
        capture_output=True, text=True, env=env, timeout=900,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-4000:]
    _, samples = read_outputs(out)
    record = json.loads(samples["taraz_blend"][0]["filtered_resps"][0])
    assert record["hybrid_match"] is None and record["embedding_error"] == "embedding model disabled"
