"""Sentence embeddings for TARAZ's cosine metrics: one model per process, batched over a task.

The model is chosen by the ``embedding_model`` setting (``--metadata`` key, or the environment
variable ``PERSIAN_CULTURE_EMBEDDING_MODEL``; a hub id or a local directory), default the
paper's ``xmanii/maux-gte-persian-v3``. :func:`prepare_embedding_model` runs when a task loads
(before any generation): it checks that the model can run here and loads it once; every later
task of the run reuses it (state lives here, in the installed package, because task utils
files are re-executed per YAML). :func:`embed` encodes every text of a task in batches, with a
progress bar, on the GPU when there is one.

The default model is a fine-tune of ``Alibaba-NLP/gte-multilingual-base`` whose architecture
("NewModel") ships as remote code (``Alibaba-NLP/new-impl``), which fails under transformers 5 (it
worked with transformers 4.57 + sentence-transformers 5.x). Where transformers has its own
``GteModel`` (5.x releases that ship ``models/gte``), such a checkpoint is loaded through it without
remote code (:mod:`lm_eval_persian_culture.tasks.taraz.gte_native`); under a transformers 5 without it,
the model is refused at task load with a message naming the versions that work
(:data:`REMOTE_CODE_MESSAGE`) rather than failing with an IndexError mid-run.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from lm_eval_persian_culture.data.fingerprint import directory_fingerprint
from lm_eval_persian_culture.errors import PackUserError
from lm_eval_persian_culture.tasks.taraz import gte_native

logger = logging.getLogger("lm_eval_persian_culture")

DEFAULT_EMBEDDING_MODEL = "xmanii/maux-gte-persian-v3"
EMBEDDING_MODEL_ENV = "PERSIAN_CULTURE_EMBEDDING_MODEL"
EMBEDDING_BATCH_ENV = "PERSIAN_CULTURE_EMBEDDING_BATCH_SIZE"
# Architectures that ship only as remote code broken by transformers 5.
_GTE_REMOTE_MARKERS = ("Alibaba-NLP/new-impl", "NewModel", "NewConfig")

REMOTE_CODE_MESSAGE = (
    "embedding_model={model!r} uses the gte-multilingual 'NewModel' remote code (Alibaba-NLP/new-impl), "
    "which fails under transformers {installed} (transformers 5 changed the internals it relies on; runs "
    "end in an IndexError), and this transformers has no native GteModel to load it with instead. "
    "Upgrade transformers to a release with transformers.GteModel (5.24 has it), or use transformers "
    "4.57 and sentence-transformers 5.x:\n"
    "  pip install 'transformers>=4.51,<5' 'sentence-transformers>=5,<6'\n"
    "(in a separate environment if lm-eval needs transformers 5 there), or choose another sentence-"
    'transformers model with --metadata \'{{"embedding_model": "<hub id or local dir>"}}\' or '
    "${env}. Offline, the remote code must sit next to the weights (see the TARAZ README)."
)


class EmbeddingConfigError(PackUserError, ValueError):
    """The embedding model cannot be used here; raised at task load, before generation."""


class Encoder(Protocol):
    def encode(self, sentences: Sequence[str], **kwargs: Any) -> Any: ...


_encoders: dict[str, Encoder] = {}
_active: str | None = None


# "none": no embedding model (``--predict_only`` sets it, as it sets judge_model "none"): the
# embedding metrics are left unscored, every other metric and every reply is still logged.
DISABLED = "none"


def embedding_model_source(settings: Mapping[str, Any] | None = None) -> tuple[str, str]:
    """(model, where it was set): ``--metadata`` embedding_model, else $PERSIAN_CULTURE_EMBEDDING_MODEL,
    else the paper's."""
    value = (settings or {}).get("embedding_model")
    if value:
        return str(value).strip(), "metadata embedding_model"
    value = os.environ.get(EMBEDDING_MODEL_ENV)
    if value and value.strip():
        return value.strip(), f"${EMBEDDING_MODEL_ENV}"
    return DEFAULT_EMBEDDING_MODEL, "default (the paper's)"


def embedding_model_name(settings: Mapping[str, Any] | None = None) -> str:
    """``embedding_model`` from --metadata, else $PERSIAN_CULTURE_EMBEDDING_MODEL, else the paper's."""
    return embedding_model_source(settings)[0]


def is_disabled(name: str | None) -> bool:
    return (name or "").strip().lower() == DISABLED


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
    """Refuse, with the versions that work, a model whose remote code breaks on this transformers
    and that transformers' own GteModel cannot load instead."""
    if transformers_version is None:
        import transformers

        transformers_version = transformers.__version__
    major = int(transformers_version.split(".")[0])
    if major >= 5 and needs_gte_remote_code(name, _local_config(name)) and not gte_native.native_available():
        raise EmbeddingConfigError(
            REMOTE_CODE_MESSAGE.format(model=name, installed=transformers_version, env=EMBEDDING_MODEL_ENV)
        )


def _device() -> str:
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def _model_folder(name: str) -> Path:
    """A local folder, or the hub snapshot of an id (from the cache offline; downloaded online)."""
    path = Path(name).expanduser()
    if path.is_dir():
        return path
    from huggingface_hub import snapshot_download

    return Path(snapshot_download(name))


def _native_gte_source(name: str) -> str | None:
    """Under transformers 5, a gte-multilingual NewModel checkpoint as a folder transformers' own
    GteModel loads (gte_native); None for every other model."""
    import transformers

    if int(transformers.__version__.split(".")[0]) < 5 or not gte_native.native_available():
        return None
    if not needs_gte_remote_code(name, _local_config(name)):
        return None
    folder = _model_folder(name)
    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    if not gte_native.is_new_impl(config):
        return None
    try:
        return str(gte_native.native_model_dir(folder))
    except gte_native.UnsupportedCheckpoint as err:
        raise EmbeddingConfigError(f"embedding_model={name!r}: transformers' GteModel cannot load it: {err}") from None


def load_encoder(name: str) -> Encoder:
    """The sentence-transformers model, loaded once per process."""
    if name not in _encoders:
        from lm_eval_persian_culture.data.hub import ModelNotFound, locate_model

        try:  # a local folder, a cached snapshot or a reachable hub, found before torch is imported
            locate_model(name, f"embedding_model={name}")
        except ModelNotFound as err:
            raise EmbeddingConfigError(
                f"{err}. Set embedding_model (--metadata or ${EMBEDDING_MODEL_ENV}) to a local folder holding the "
                "model, or 'none' to leave the embedding metrics out"
            ) from None
        check_compatible(name)
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as err:  # pragma: no cover - a declared dependency
            raise EmbeddingConfigError(f"sentence-transformers is not installed: {err}") from None
        device = _device()
        try:
            native = _native_gte_source(name)
            if native is not None:
                logger.info("loading embedding model %s on %s with transformers' GteModel", name, device)
                try:
                    _encoders[name] = SentenceTransformer(native, device=device)
                finally:  # links and a config only; the model is in memory now
                    shutil.rmtree(native, ignore_errors=True)
            else:
                logger.info("loading embedding model %s on %s", name, device)
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


def batch_size() -> int:
    """$PERSIAN_CULTURE_EMBEDDING_BATCH_SIZE (64 when unset), a positive whole number."""
    value = os.environ.get(EMBEDDING_BATCH_ENV, "64")
    try:
        size = int(value)
    except ValueError:
        size = 0
    if size < 1:
        raise EmbeddingConfigError(f"{EMBEDDING_BATCH_ENV}={value!r}: give a positive whole number (the default is 64)")
    return size


def embedding_requirement(settings: Mapping[str, Any] | None) -> tuple[bool, str]:
    """(met, detail) for ``lm-eval-persian data``: the run's embedding model is a local folder, a cached hub
    snapshot or on a reachable hub (``data.hub.locate_model``; nothing is loaded), or switched off."""
    from lm_eval_persian_culture.data.hub import ModelNotFound, locate_model

    name, source = embedding_model_source(settings)
    if is_disabled(name):
        return True, "embedding_model=none: the embedding metrics are left out"
    try:
        where = locate_model(name, f"embedding_model={name}")
    except ModelNotFound as err:
        return False, f"{err} (set by {source}); or embedding_model=none to leave the embedding metrics out"
    shown = {"directory": "a local folder", "cache": "in the hub cache", "hub": "on the hub"}[where.source]
    return True, f"embedding model {name} ({source}): {shown}"


def prepare_embedding_model(settings: Mapping[str, Any] | None) -> str:
    """At task load: resolve, check and load the run's embedding model; returns its name."""
    global _active, _source
    name, _source = embedding_model_source(settings)
    if not is_disabled(name):
        batch_size()  # a bad value stops the run here, not after generation
        load_encoder(name)
    _active = name
    return name


_source: str | None = None


def _hf_cache_revision(path: Path) -> str | None:
    """The commit of a hub snapshot directory (``.../snapshots/<commit>/``), else None."""
    parts = path.resolve().parts
    if len(parts) >= 2 and parts[-2] == "snapshots":
        return parts[-1]
    return None


_identities: dict[str, dict] = {}


def model_identity(name: str) -> dict:
    """Which embedding model scored: its id or directory, plus its hub revision (a cached hub
    snapshot) or a sha256 of the directory's files; computed once per process."""
    if name in _identities:
        return _identities[name]
    out: dict[str, Any] = {"model": name}
    path = Path(name).expanduser()
    if is_disabled(name):
        out["disabled"] = True
    elif path.is_dir():
        out["revision"] = _hf_cache_revision(path)
        out["directory_sha256"] = directory_fingerprint(path)
    else:
        try:  # a hub id: sentence-transformers keeps no revision, the hub cache knows it
            from huggingface_hub import try_to_load_from_cache

            cached = try_to_load_from_cache(name, "config.json")
        except Exception:  # noqa: BLE001 - not a hub id (recorded as given)
            cached = None
        out["revision"] = _hf_cache_revision(Path(cached).parent) if isinstance(cached, str) else None
    _identities[name] = out
    return out


def recorded_settings(name: str | None = None, threshold: float | None = None) -> dict:
    """Everything that shaped the embedding metrics, for the results' ``metadata.scoring``."""
    import importlib.metadata as md

    name = name or active_model()

    def version(dist: str) -> str | None:
        try:
            return md.version(dist)
        except md.PackageNotFoundError:
            return None

    return {
        "embedding_model": model_identity(name),
        "embedding_model_set_by": _source if name == _active else None,
        "embed_threshold": threshold,
        "embedding_batch_size": batch_size(),
        "sentence_transformers": version("sentence-transformers"),
        "transformers": version("transformers"),
    }


def active_model() -> str:
    return _active or prepare_embedding_model({})


def embed(texts: Sequence[str], model: str | None = None, desc: str = "embedding") -> dict[str, np.ndarray]:
    """Unit vectors for the distinct texts, encoded in batches with a progress bar."""
    name = model or active_model()
    if is_disabled(name):
        raise EmbeddingConfigError("no embedding model (embedding_model is 'none'): nothing can be embedded")
    encoder = load_encoder(name)
    unique = list(dict.fromkeys(t for t in texts if t))
    if not unique:
        return {}
    size = batch_size()
    logger.info("%s: %d distinct texts with %s", desc, len(unique), name)
    from tqdm.auto import tqdm

    chunks = []
    with tqdm(total=len(unique), desc=desc, unit="text") as bar:
        for start in range(0, len(unique), size):
            batch = unique[start : start + size]
            chunks.append(np.asarray(
                encoder.encode(batch, batch_size=size, show_progress_bar=False, convert_to_numpy=True),
                dtype=np.float32,
            ))  # fmt: skip
            bar.update(len(batch))
    vectors = np.concatenate(chunks, axis=0)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    vectors = vectors / np.where(norms == 0, 1.0, norms)
    return dict(zip(unique, vectors))


def max_cosine(
    left: Sequence[str],
    right: Sequence[str],
    vectors: Mapping[str, np.ndarray],
    allowed: Callable[[str, str], bool] | None = None,
) -> float | None:
    """Highest cosine between any text of ``left`` and any of ``right``; None when either is empty.

    ``allowed(a, b)`` False leaves that pair out (its cosine counts as -1)."""
    a = [t for t in left if t in vectors]
    b = [t for t in right if t in vectors]
    if not a or not b:
        return None
    sims = np.stack([vectors[t] for t in a]) @ np.stack([vectors[t] for t in b]).T
    if allowed is not None:
        mask = np.array([[allowed(x, y) for y in b] for x in a], dtype=bool)
        sims = np.where(mask, sims, -1.0)
    return float(np.max(sims))


__all__ = [
    "DEFAULT_EMBEDDING_MODEL",
    "DISABLED",
    "EMBEDDING_MODEL_ENV",
    "EmbeddingConfigError",
    "active_model",
    "batch_size",
    "check_compatible",
    "embed",
    "embedding_model_name",
    "embedding_model_source",
    "is_disabled",
    "model_identity",
    "recorded_settings",
    "load_encoder",
    "max_cosine",
    "needs_gte_remote_code",
    "prepare_embedding_model",
    "register_encoder",
]
