"""TARAZ through real lm-eval runs with scripted replies (no generating model): the embedding model
and the scoring settings in the results however the model was set, --predict_only without any
embedding model, and --num_fewshot pinned to 0."""

from __future__ import annotations

import hashlib
import json

import pytest

from lm_eval_persian_culture.tasks.taraz import embeddings
from tests.scripted_runs import evaluate, metrics


def first_reference(doc: dict, prompt: str) -> str:
    return doc["references"][0]


def files_sha256(folder) -> str:
    """sha256 over '<relative name>\\0<sha256 of the content>\\n' of every file, in name order: the
    directory fingerprint (data/fingerprint.py)."""
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        content = hashlib.sha256(path.read_bytes()).hexdigest()
        digest.update(f"{path.relative_to(folder).as_posix()}\0{content}\n".encode())
    return digest.hexdigest()


@pytest.fixture(autouse=True)
def _fresh_embedding_state(monkeypatch):
    monkeypatch.setattr(embeddings, "_active", None)
    monkeypatch.delenv(embeddings.EMBEDDING_MODEL_ENV, raising=False)


@pytest.mark.parametrize("how", ["env", "metadata"])
def test_results_name_the_embedding_model_however_it_was_set(shared_data, tiny_embedder, monkeypatch, how):
    metadata = {}
    if how == "env":
        monkeypatch.setenv(embeddings.EMBEDDING_MODEL_ENV, str(tiny_embedder))
    else:
        metadata["embedding_model"] = str(tiny_embedder)
    results = evaluate(["taraz_blend"], first_reference, shared_data, metadata=metadata, limit=3)
    assert metrics(results, "taraz_blend")["hybrid_match"] == 1.0  # each reply is a reference
    scoring = results["configs"]["taraz_blend"]["metadata"]["scoring"]
    assert scoring["embedding_model"] == {
        "model": str(tiny_embedder), "revision": None, "directory_sha256": files_sha256(tiny_embedder)}  # fmt: skip
    assert scoring["embedding_model_set_by"] == (
        f"${embeddings.EMBEDDING_MODEL_ENV}" if how == "env" else "metadata embedding_model")  # fmt: skip
    assert scoring["embed_threshold"] == 0.85 and scoring["numbers_must_agree"] is True
    assert scoring["hazm_backend"] in ("hazm", "hazm-normalizer")


def test_predict_only_needs_no_embedding_model(shared_data):
    # No embedding model is set: without --predict_only the paper's default would be refused at load
    # here, where the hub cannot be reached (see test_paper_embedding_model_fails_at_load_not_mid_run).
    results = evaluate(["taraz_blend"], first_reference, shared_data, limit=2, predict_only=True)
    assert embeddings.active_model() == embeddings.DISABLED
    samples = results["samples"]["taraz_blend"]
    assert [s["resps"][0][0] for s in samples] == [s["doc"]["references"][0] for s in samples]
    record = json.loads(samples[0]["filtered_resps"][0])
    assert record["embed_match"] is None and record["hybrid_match"] is None
    assert record["exact_match"] == 1  # the rule-based metrics are still in the record
    assert results["configs"]["taraz_blend"]["metadata"]["scoring"]["embedding_model"]["disabled"] is True


def test_num_fewshot_is_pinned_to_zero(shared_data, tiny_embedder):
    results = evaluate(["taraz_blend"], first_reference, shared_data, limit=2, num_fewshot=3,
                       metadata={"embedding_model": str(tiny_embedder)})  # fmt: skip
    assert results["n-shot"]["taraz_blend"] == 0
    prompts = [s["arguments"][0][0] for s in results["samples"]["taraz_blend"]]
    assert all(p.count("سوال:") == 1 for p in prompts)  # one question, no exemplars
