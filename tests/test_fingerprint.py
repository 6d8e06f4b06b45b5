"""The one model-directory fingerprint (data/fingerprint.py) shared by the local judge and TARAZ's
embedder (issue 32): correct under ``~/.cache`` and any path with hidden folders."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

from lm_eval_persian_culture.data.fingerprint import directory_fingerprint
from lm_eval_persian_culture.judge import local
from lm_eval_persian_culture.tasks.taraz import embeddings

EMPTY_SHA256 = hashlib.sha256(b"").hexdigest()  # e3b0c442...: the digest of nothing


def _model(folder: Path, weights: bytes) -> Path:
    folder.mkdir(parents=True)
    (folder / "config.json").write_text('{"model_type": "bert"}', encoding="utf-8")
    (folder / "1_Pooling").mkdir()
    (folder / "1_Pooling" / "config.json").write_text('{"pooling_mode_mean_tokens": true}', encoding="utf-8")
    (folder / "model.safetensors").write_bytes(weights)
    return folder


def _by_hand(files: dict[str, bytes]) -> str:
    """sha256 over '<relative path>\\0<sha256 of the content>\\n', in path order (the documented format)."""
    combined = hashlib.sha256()
    for rel in sorted(files):
        combined.update(f"{rel}\0{hashlib.sha256(files[rel]).hexdigest()}\n".encode())
    return combined.hexdigest()


def test_a_model_under_a_cache_folder_is_hashed_in_full(tmp_path):
    model = _model(tmp_path / "home" / ".cache" / "huggingface" / "minilm", b"weights-A")
    expected = _by_hand({
        "1_Pooling/config.json": b'{"pooling_mode_mean_tokens": true}',
        "config.json": b'{"model_type": "bert"}',
        "model.safetensors": b"weights-A",
    })  # fmt: skip
    assert directory_fingerprint(model) == expected != EMPTY_SHA256


def test_two_models_under_cache_differ_and_one_model_in_two_places_agrees(tmp_path):
    cache = tmp_path / "home" / ".cache" / "torch" / "sentence_transformers"
    first = _model(cache / "model-a", b"weights-A")
    second = _model(cache / "model-b", b"weights-B")
    copy = tmp_path / "models" / "model-a"
    shutil.copytree(first, copy)
    assert directory_fingerprint(first) != directory_fingerprint(second)
    assert directory_fingerprint(first) == directory_fingerprint(copy)


def test_hidden_entries_inside_the_model_are_skipped(tmp_path):
    model = _model(tmp_path / "m", b"weights")
    before = directory_fingerprint(model)
    (model / ".cache" / "huggingface").mkdir(parents=True)
    (model / ".cache" / "huggingface" / "download.lock").write_text("x")
    (model / ".gitattributes").write_text("*.safetensors filter=lfs")
    assert directory_fingerprint(model) == before
    (model / "tokenizer.json").write_text("{}")
    assert directory_fingerprint(model) != before


def test_the_memo_only_saves_time(tmp_path):
    model = _model(tmp_path / ".cache" / "m", b"weights")
    memo = tmp_path / "judge-cache" / "hashes.json"
    first = directory_fingerprint(model, memo)
    assert memo.is_file() and directory_fingerprint(model, memo) == first == directory_fingerprint(model)
    (model / "model.safetensors").write_bytes(b"other weights!")  # new size: hashed again
    assert directory_fingerprint(model, memo) != first


def test_the_judge_and_the_embedder_use_the_same_fingerprint(tmp_path, monkeypatch):
    model = _model(tmp_path / "home" / ".cache" / "huggingface" / "judge-and-embedder", b"weights")
    monkeypatch.setattr(embeddings, "_identities", {})
    expected = directory_fingerprint(model)
    assert local.directory_hash(model, tmp_path / "judge-cache") == expected
    assert embeddings.model_identity(str(model))["directory_sha256"] == expected


def test_embedders_under_cache_get_different_fingerprints_in_the_results(tmp_path, monkeypatch):
    monkeypatch.setattr(embeddings, "_identities", {})
    cache = tmp_path / "home" / ".cache" / "huggingface"
    a = embeddings.model_identity(str(_model(cache / "a", b"weights-A")))["directory_sha256"]
    b = embeddings.model_identity(str(_model(cache / "b", b"weights-B")))["directory_sha256"]
    assert EMPTY_SHA256 not in (a, b) and a != b
