"""What an export may say about the evaluated model, read from where it is recorded, never guessed.

In order: the results JSON (lm-eval's ``model_num_parameters``, ``model_sha``, ``model_dtype``), then the model's
own files: a local folder (``pretrained=/path``) or the hub cache's snapshot of a hub id (found with
``huggingface_hub.try_to_load_from_cache``, which never touches the network):

* parameters: the tensor shapes in the ``*.safetensors`` headers (every shard the index names must be there);
* revision: the commit of a cached snapshot (``.../models--org--name/snapshots/<commit>/``), or the ``revision=``
  a hub id was run with; a plain local folder has none;
* license: the ``license`` of the model card's YAML header (README.md).

A fact found nowhere is left out (``None``), so a leaderboard file never shows an invented ``0`` or ``main``.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

SHA = re.compile(r"^[0-9a-f]{40}$")
HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")


def _model_folder(model: str, revision: str | None) -> Path | None:
    """The folder holding the model's files: the local path itself, or the cached snapshot of a hub id."""
    path = Path(model).expanduser()
    if path.is_dir():
        return path
    if not HUB_ID.match(model):
        return None
    try:
        from huggingface_hub import try_to_load_from_cache

        found = try_to_load_from_cache(model, "config.json", revision=revision or None)
    except Exception:  # noqa: BLE001 - a malformed id or cache: the fact stays unknown
        return None
    return Path(found).parent if isinstance(found, str) else None


def snapshot_commit(folder: Path) -> str | None:
    """The commit of a hub-cache snapshot folder (``models--org--name/snapshots/<commit>``), else None."""
    parent = folder.parent
    if SHA.match(folder.name) and parent.name == "snapshots" and parent.parent.name.startswith("models--"):
        return folder.name
    return None


def safetensors_parameters(folder: Path) -> int | None:
    """The parameter count from the safetensors headers (shapes only; no tensor is read), or None when the
    weights are not all there as safetensors."""
    from safetensors import safe_open

    index = folder / "model.safetensors.index.json"
    if index.is_file():
        try:
            names = sorted(set(json.loads(index.read_text(encoding="utf-8"))["weight_map"].values()))
        except (ValueError, KeyError, TypeError):
            return None
        files = [folder / name for name in names]
    else:
        files = sorted(folder.glob("*.safetensors"))
    if not files or not all(f.is_file() for f in files):
        return None
    total = 0
    try:
        for path in files:
            with safe_open(str(path), framework="numpy") as handle:
                total += sum(math.prod(handle.get_slice(key).get_shape()) for key in handle.keys())
    except Exception:  # noqa: BLE001 - a truncated or foreign file: the count stays unknown
        return None
    return total or None


def card_license(folder: Path) -> str | None:
    """The ``license`` the model card's YAML header declares, or None."""
    readme = folder / "README.md"
    if not readme.is_file():
        return None
    try:
        from huggingface_hub import ModelCard

        value = ModelCard.load(readme).data.get("license")
    except Exception:  # noqa: BLE001 - a card without a readable header says nothing
        return None
    return str(value) if isinstance(value, str) and value.strip() else None


def model_facts(model: str, revision: str | None = None) -> dict:
    """{"params", "revision", "license"} read from the model's files; a value is None where nothing says it."""
    facts: dict = {"params": None, "revision": None, "license": None}
    folder = _model_folder(model, revision)
    if folder is None:
        return facts
    facts["params"] = safetensors_parameters(folder)
    facts["revision"] = snapshot_commit(folder)
    facts["license"] = card_license(folder)
    return facts


def is_hub_id(model: str) -> bool:
    """A hub id (``org/name``) that is not a local folder."""
    return bool(HUB_ID.match(model)) and not Path(model).expanduser().exists()


__all__ = ["card_license", "is_hub_id", "model_facts", "safetensors_parameters", "snapshot_commit"]
