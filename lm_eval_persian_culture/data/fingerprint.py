"""One fingerprint for a model directory: which files it holds and what is in them.

Used wherever a result must name the exact local model that produced it: the in-process judge
(``judge/local.py``, part of its cache key) and TARAZ's embedding model (``metadata.scoring``).

The digest is a sha256 over ``<relative path>\\0<sha256 of the file>\\n`` for every file under the
directory, in path order. Hidden entries (a name starting with ``.``: ``.git/``, ``.cache/`` that
``huggingface_hub`` keeps inside a downloaded folder) are skipped **relative to the directory**:
a model stored under ``~/.cache/huggingface/...`` is hashed in full (its own path holds hidden
folders, its files do not), so two models there get two fingerprints and one model copied to two
places gets one. Files reached through links (a hub snapshot links to ``blobs/``) are read through
the link.

Per-file digests can be remembered in a JSON file keyed by path, size, modification time and
inode, so multi-gigabyte weights are read once.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from pathlib import Path

log = logging.getLogger(__name__)


def model_files(directory: Path) -> list[tuple[str, Path]]:
    """(relative posix path, path) of every file of the model, hidden entries below it skipped."""
    directory = Path(directory)
    out = []
    for path in sorted(p for p in directory.rglob("*") if p.is_file()):
        rel = path.relative_to(directory)
        if any(part.startswith(".") for part in rel.parts):
            continue  # .cache/, .git/ inside the model folder: not part of the model
        out.append((rel.as_posix(), path))
    return out


def _file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 22), b""):
            digest.update(block)
    return digest.hexdigest()


def directory_fingerprint(directory: Path, memo_path: Path | None = None) -> str:
    """The sha256 fingerprint of a model directory (see the module docstring).

    ``memo_path``: a JSON file remembering per-file digests by path, size, mtime and inode (only a
    speed-up: it is rewritten when something new was hashed, and ignored when unreadable).
    """
    memo: dict[str, str] = {}
    if memo_path is not None:
        try:
            memo = json.loads(Path(memo_path).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            memo = {}
    combined = hashlib.sha256()
    changed = False
    for rel, path in model_files(directory):
        stat = path.stat()
        key = f"{path}|{stat.st_size}|{stat.st_mtime_ns}|{stat.st_ino}"
        digest = memo.get(key)
        if digest is None:
            digest = memo[key] = _file_sha256(path)
            changed = True
        combined.update(f"{rel}\0{digest}\n".encode())
    if changed and memo_path is not None:
        memo_path = Path(memo_path)
        try:
            memo_path.parent.mkdir(parents=True, exist_ok=True)
            tmp = memo_path.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_text(json.dumps(memo, indent=0), encoding="utf-8")
            tmp.replace(memo_path)
        except OSError as err:  # only a speed-up: hash again next time
            log.debug("could not save %s: %s", memo_path, err)
    return combined.hexdigest()


__all__ = ["directory_fingerprint", "model_files"]
