"""Sentence embeddings for TARAZ's cosine metrics: one model per process, batched over a task.

The model is chosen by the ``embedding_model`` setting (``--metadata`` key, or the environment
variable ``PERSIAN_CULTURE_EMBEDDING_MODEL``; a hub id or a local directory), default the
paper's ``xmanii/maux-gte-persian-v3``. :func:`prepare_embedding_model` runs when a task loads
(before any generation): it checks that the model can run here and loads it once; every later
task of the run reuses it (state lives here, in the installed package, because task utils
files are re-executed per YAML). :func:`embed` encodes every text of a task in batches, with a
progress bar, on the GPU when there is one.

The default model is a fine-tune of ``Alibaba-NLP/gte-multilingual-base`` whose architecture
("NewModel") exists only as remote code (``Alibaba-NLP/new-impl``). That code is known to fail
under transformers 5 (it worked with transformers 4.57 + sentence-transformers 5.x). Rather than
an IndexError in the middle of a run, such a model is refused at task load under transformers
>= 5 with a message naming the versions that work (see :data:`REMOTE_CODE_MESSAGE`).
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import Any, Mapping, Protocol, Sequence

import numpy as np

logger = logging.getLogger("lm_eval_persian_culture")

DEFAULT_EMBEDDING_MODEL = "xmanii/maux-gte-persian-v3"
EMBEDDING_MODEL_ENV = "PERSIAN_CULTURE_EMBEDDING_MODEL"
EMBEDDING_BATCH_ENV = "PERSIAN_CULTURE_EMBEDDING_BATCH_SIZE"
# Architectures that ship only as remote code broken by transformers 5.
_GTE_REMOTE_MARKERS = ("Alibaba-NLP/new-impl", "NewModel", "NewConfig")

REMOTE_CODE_MESSAGE = (
    "embedding_model={model!r} uses the gte-multilingual 'NewModel' remote code (Alibaba-NLP/new-impl), "
    "which fails under transformers {installed} (transformers 5 changed the internals it relies on; runs "
    "end in an IndexError). It works with transformers 4.57 and sentence-transformers 5.x:\n"
    "  pip install 'transformers>=4.51,<5' 'sentence-transformers>=5,<6'\n"
    "(in a separate environment if lm-eval needs transformers 5 there), or choose another sentence-"
    "transformers model with --metadata '{{\"embedding_model\": \"<hub id or local dir>\"}}' or "
    "${env}. Offline, the remote code must sit next to the weights (see the TARAZ README)."
)


class EmbeddingConfigError(ValueError):
    """The embedding model cannot be used here; raised at task load, before generation."""


class Encoder(Protocol):
    def encode(self, sentences: Sequence[str], **kwargs: Any) -> Any: ...


_encoders: dict[str, Encoder] = {}
_active: str | None = None


def embedding_model_name(settings: Mapping[str, Any] | None = None) -> str:
    """``embedding_model`` from --metadata, else $PERSIAN_CULTURE_EMBEDDING_MODEL, else the paper's."""
    value = (settings or {}).get("embedding_model") or os.environ.get(EMBEDDING_MODEL_ENV)
    return str(value).strip() if value else DEFAULT_EMBEDDING_MODEL


def _local_config(name: str) -> dict | None:
    """config.json of a local dir or of the hub cache (never downloads)."""
    path = Path(name).expanduser()
    if path.is_dir():
        cfg = path / "config.json"
        return json.loads(cfg.read_text(encoding="utf-8")) if cfg.is_file() else None
    try:
        from huggingface_hub import try_to_load_from_cache

        cached = try_to_load_from_cache(name, "config.json")
    except Exception:  # noqa: BLE001 - a malformed id is reported when the model loads
        return None
    if isinstance(cached, str) and os.path.isfile(cached):
        return json.loads(Path(cached).read_text(encoding="utf-8"))
    return None


def needs_gte_remote_code(name: str, config: dict | None) -> bool:
    if name.rstrip("/").endswith("maux-gte-persian-v3") or "gte-multilingual" in name:
        return True
    if not config:
        return False
    text = json.dumps({k: config.get(k) for k in ("auto_map", "architectures", "model_type")})
    return any(marker in text for marker in _GTE_REMOTE_MARKERS) or config.get("model_type") == "new"


def check_compatible(name: str, transformers_version: str | None = None) -> None:
    """Refuse, with the versions that work, a model whose remote code breaks on this transformers."""
    if transformers_version is None:
        import transformers

        transformers_version = transformers.__version__
    major = int(transformers_version.split(".")[0])
    if major >= 5 and needs_gte_remote_code(name, _local_config(name)):
        raise EmbeddingConfigError(
            REMOTE_CODE_MESSAGE.format(model=name, installed=transformers_version, env=EMBEDDING_MODEL_ENV)
        )


def _device() -> str:
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def load_encoder(name: str) -> Encoder:
    """The sentence-transformers model, loaded once per process."""
    if name not in _encoders:
        check_compatible(name)
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as err:  # pragma: no cover - a declared dependency
            raise EmbeddingConfigError(f"sentence-transformers is not installed: {err}") from None
        device = _device()
        logger.info("loading embedding model %s on %s", name, device)
        try:
            _encoders[name] = SentenceTransformer(name, device=device, trust_remote_code=True)
        except (OSError, ValueError) as err:
            raise EmbeddingConfigError(
                f"embedding_model={name!r} could not be loaded: {err}\nOffline, point embedding_model "
                f"(--metadata or ${EMBEDDING_MODEL_ENV}) at a local directory holding the model."
            ) from None
    return _encoders[name]


def register_encoder(name: str, encoder: Encoder) -> None:
    """Use ``encoder`` for ``name`` (tests; or a model object built by the caller)."""
    _encoders[name] = encoder


def prepare_embedding_model(settings: Mapping[str, Any] | None) -> str:
    """At task load: resolve, check and load the run's embedding model; returns its name."""
    global _active
    name = embedding_model_name(settings)
    load_encoder(name)
    _active = name
    return name


def active_model() -> str:
    return _active or prepare_embedding_model({})


def embed(texts: Sequence[str], model: str | None = None, desc: str = "embedding") -> dict[str, np.ndarray]:
    """Unit vectors for the distinct texts, encoded in batches with a progress bar."""
    name = model or active_model()
    encoder = load_encoder(name)
    unique = list(dict.fromkeys(t for t in texts if t))
    if not unique:
        return {}
    batch_size = int(os.environ.get(EMBEDDING_BATCH_ENV, "64"))
    logger.info("%s: %d distinct texts with %s", desc, len(unique), name)
    from tqdm.auto import tqdm

    chunks = []
    with tqdm(total=len(unique), desc=desc, unit="text") as bar:
        for start in range(0, len(unique), batch_size):
            batch = unique[start : start + batch_size]
            chunks.append(np.asarray(
                encoder.encode(batch, batch_size=batch_size, show_progress_bar=False, convert_to_numpy=True),
                dtype=np.float32,
            ))  # fmt: skip
            bar.update(len(batch))
    vectors = np.concatenate(chunks, axis=0)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    vectors = vectors / np.where(norms == 0, 1.0, norms)
    return dict(zip(unique, vectors))


def max_cosine(left: Sequence[str], right: Sequence[str], vectors: Mapping[str, np.ndarray]) -> float | None:
    """Highest cosine between any text of ``left`` and any of ``right``; None when either is empty."""
    a = [vectors[t] for t in left if t in vectors]
    b = [vectors[t] for t in right if t in vectors]
    if not a or not b:
        return None
    return float(np.max(np.stack(a) @ np.stack(b).T))


__all__ = [
    "DEFAULT_EMBEDDING_MODEL",
    "EMBEDDING_MODEL_ENV",
    "EmbeddingConfigError",
    "active_model",
    "check_compatible",
    "embed",
    "embedding_model_name",
    "load_encoder",
    "max_cosine",
    "needs_gte_remote_code",
    "prepare_embedding_model",
    "register_encoder",
]
