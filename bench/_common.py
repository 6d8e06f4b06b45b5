"""Shared by the bench scripts: repo paths, the offline data dir, the tiny models, quiet logging."""

from __future__ import annotations

import logging
import os
import sys
import warnings
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = (REPO.parent / "shared" / "data").resolve()
# Real data where it exists here; the tests' fixtures (documented schema) where it does not.
DATA_SOURCES = {
    "taarof": SHARED_DATA / "taarof",
    "taraz": SHARED_DATA / "taraz",
    "divan": REPO / "tests" / "divan" / "fixtures" / "divan",
    "percul": REPO / "tests" / "percul" / "fixtures" / "percul",
    "cac": REPO / "tests" / "cac" / "fixtures" / "cac",
}
OFFLINE_ENV = {
    "HF_HUB_OFFLINE": "1",
    "HF_DATASETS_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "TOKENIZERS_PARALLELISM": "false",
    "HF_DATASETS_DISABLE_PROGRESS_BARS": "1",
}


def go_offline() -> None:
    for key, value in OFFLINE_ENV.items():
        os.environ.setdefault(key, value)


def quiet() -> None:
    """lm-eval and the pack log a lot per task; the figures are what matters here."""
    warnings.filterwarnings("ignore")
    for name in ("lm_eval", "lm-eval", "lm_eval_persian_culture", "datasets", "transformers", "sentence_transformers"):
        logging.getLogger(name).setLevel(logging.ERROR)
    os.environ.setdefault("LMEVAL_LOG_LEVEL", "ERROR")


def make_data_dir(root: Path) -> Path:
    """A data dir in the pack's layout (<dir>/<benchmark>/...) made of symlinks to DATA_SOURCES."""
    root.mkdir(parents=True, exist_ok=True)
    missing = [str(p) for p in DATA_SOURCES.values() if not p.exists()]
    if missing:
        sys.exit(f"bench needs the data beside the repo: missing {missing}")
    for name, source in DATA_SOURCES.items():
        link = root / name
        if not link.exists():
            link.symlink_to(source, target_is_directory=True)
    return root


def build_tiny_embedder(out: Path) -> Path:
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))
    from tests.taraz.tiny_embedder import build_tiny_embedder as build

    return build(out)


def build_tiny_model(out: Path) -> Path:
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))
    from tests.tiny_model import build_tiny_model as build

    return build(out)
