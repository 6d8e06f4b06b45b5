"""Shared fixtures: offline switches, the tiny model, the local judge server, data dirs."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# Nothing in the suite may reach for the network.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("HF_DATASETS_DISABLE_PROGRESS_BARS", "1")
# One BLAS/OpenMP thread per process: the tiny model's matrices are too small to share between cores,
# and on CI's 2 cores two threads spinning on them cost ~30% more CPU time than one (measured here).
os.environ.setdefault("OMP_NUM_THREADS", "1")

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = (REPO.parent / "shared" / "data").resolve()


@pytest.fixture(scope="session")
def shared_data() -> Path:
    if not (SHARED_DATA / "taarof" / "taarof-expected.jsonl").is_file():
        pytest.skip(f"{SHARED_DATA} is not beside the repo")
    return SHARED_DATA


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch, tmp_path):
    """No judge or data settings leak in from the developer's shell; judge cache per test."""
    for key in list(os.environ):
        if key.startswith("PERSIAN_CULTURE_"):
            monkeypatch.delenv(key)
    monkeypatch.setenv("PERSIAN_CULTURE_JUDGE_CACHE", str(tmp_path / "judge-cache"))


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory) -> Path:
    from tests.tiny_model import build_tiny_model

    return build_tiny_model(tmp_path_factory.mktemp("tiny-llama"))


@pytest.fixture(scope="session")
def tiny_embedder(tmp_path_factory) -> Path:
    """A tiny offline BERT as TARAZ's embedding model (the paper's cannot be downloaded here)."""
    from tests.taraz.tiny_embedder import build_tiny_embedder

    return build_tiny_embedder(tmp_path_factory.mktemp("tiny-bert"))
