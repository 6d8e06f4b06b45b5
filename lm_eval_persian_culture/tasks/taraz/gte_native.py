"""gte-multilingual "NewModel" checkpoints (the paper's maux-gte-persian-v3) on transformers' own GteModel.

maux-gte-persian-v3 is a fine-tune of Alibaba-NLP/gte-multilingual-base, whose config says
``model_type: new`` with ``auto_map`` pointing at the remote code ``Alibaba-NLP/new-impl``. That code
breaks under transformers 5: models are built on the meta device and non-persistent buffers are
refilled only by the model's ``_init_weights``, which new-impl's does not do for ``position_ids`` and
the rotary caches (they keep garbage and ``rope_cos[position_ids]`` raises an IndexError).

transformers 5 ships the same architecture natively (``GteModel``, ``model_type: gte``) together with
a weight conversion for new-impl checkpoints (``conversion_mapping.py``: ``qkv_proj`` -> q/k/v,
``up_gate_proj`` -> up/gate, ``encoder.layer`` -> ``layers``). What it cannot read is the old config:
:func:`native_config` rewrites it, and :func:`native_model_dir` lays out the checkpoint with that
config (every other file linked, not copied) for sentence-transformers to load without remote code.

The one translation that is not a rename is the rope: new-impl's NTK scaling (``rope_scaling:
{"type": "ntk", "factor": f}``, no ``mixed_b``) always uses ``inv_freq = 1 / (theta*f)^(2i/d) /
f^(2/d)`` (its cache is built for max_position_embeddings * f), which is a linear rope with theta*f and
factor f^(2/d). tests/taraz/test_gte_native.py checks the whole forward pass against a
re-implementation of new-impl's, on random weights (the real weights cannot be downloaded here).
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

_COPIED = (
    "vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size",
    "hidden_act", "hidden_dropout_prob", "attention_probs_dropout_prob", "max_position_embeddings",
    "type_vocab_size", "initializer_range", "layer_norm_eps", "pad_token_id", "bos_token_id", "eos_token_id",
)  # fmt: skip


class UnsupportedCheckpoint(ValueError):
    """A NewModel setting the native class has no counterpart for."""


def is_new_impl(config: dict | None) -> bool:
    if not config:
        return False
    return config.get("model_type") == "new" or "NewModel" in (config.get("architectures") or [])


def native_available() -> bool:
    try:
        from transformers import GteConfig, GteModel  # noqa: F401
    except ImportError:
        return False
    return True


def native_config(config: dict) -> dict:
    """new-impl's config.json as a config of transformers' GteModel (see the module docstring)."""
    checks = {
        "position_embedding_type": ("rope", config.get("position_embedding_type", "rope")),
        "layer_norm_type": ("layer_norm", config.get("layer_norm_type", "layer_norm")),
        "logn_attention_scale": (False, bool(config.get("logn_attention_scale", False))),
    }
    for key, (supported, value) in checks.items():
        if value != supported:
            raise UnsupportedCheckpoint(f"{key}={value!r} (GteModel supports only {supported!r})")
    theta = float(config.get("rope_theta", 10000.0))
    head_dim = config["hidden_size"] // config["num_attention_heads"]
    scaling = config.get("rope_scaling")
    if not scaling:
        rope = {"rope_type": "default", "rope_theta": theta}
    else:
        kind = scaling.get("type") or scaling.get("rope_type")
        if kind != "ntk" or scaling.get("mixed_b") is not None:
            raise UnsupportedCheckpoint(f"rope_scaling={scaling!r} (only plain NTK is translated)")
        factor = float(scaling["factor"])
        if factor <= 1.0:  # new-impl keeps the plain rope then (its cache is not longer than the table)
            rope = {"rope_type": "default", "rope_theta": theta}
        else:
            rope = {"rope_type": "linear", "rope_theta": theta * factor, "factor": factor ** (2 / head_dim)}
    out: dict[str, Any] = {key: config[key] for key in _COPIED if key in config}
    out.update(model_type="gte", architectures=["GteModel"], rope_parameters=rope)
    return out


def native_model_dir(model_dir: Path) -> Path:
    """A folder holding ``model_dir``'s files (symlinked) with :func:`native_config` as config.json."""
    config = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
    target = Path(tempfile.mkdtemp(prefix="gte-native-"))
    for item in model_dir.iterdir():
        if item.name != "config.json":
            os.symlink(item.resolve(), target / item.name)
    (target / "config.json").write_text(json.dumps(native_config(config), indent=1), encoding="utf-8")
    return target


__all__ = ["UnsupportedCheckpoint", "is_new_impl", "native_available", "native_config", "native_model_dir"]
