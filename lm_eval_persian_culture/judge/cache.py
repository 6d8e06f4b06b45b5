"""On-disk cache of judge answers, so re-runs and crashed runs never pay twice.

One sqlite file per cache folder (WAL mode: concurrent readers, and several processes may share
it; on a network filesystem, where WAL is unsafe, the rollback journal). It also records which judge
batches a launch's judging process has finished, for the processes waiting on them (``launch.py``).
The key hashes the judge fingerprint, the prompt template id and the prompt, so a different judge
model (with the local model's revision), server, temperature, max_tokens, system prompt or template
is a miss. Only the judge's raw answer, token counts and the model name the server reported are
stored; never credentials (the fingerprint's URL is already redacted).
"""

from __future__ import annotations

import hashlib
import json
import logging
import sqlite3
import threading
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

CACHE_FILENAME = "judge_cache.sqlite3"
_BATCH_ROWS_KEPT_S = 7 * 24 * 3600  # a launch's finished batches matter only while it runs
# Filesystem types (as /proc/mounts names them) on which sqlite's WAL is unsafe.
NETWORK_FILESYSTEMS = frozenset({
    "nfs", "nfs4", "cifs", "smb3", "smbfs", "lustre", "gpfs", "beegfs", "ceph", "glusterfs", "fuse.glusterfs",
    "fuse.sshfs", "9p", "afs", "orangefs", "fuse.juicefs", "fuse.s3fs", "fuse.gcsfuse", "wekafs",
})  # fmt: skip
_BATCH = 500  # stay well under sqlite's bound-parameter limit


def filesystem_type(path: str | Path, mounts: str | None = None) -> str | None:
    """The filesystem type of the mount holding ``path`` (from /proc/mounts; None where it cannot be read)."""
    if mounts is None:
        try:
            mounts = Path("/proc/mounts").read_text()
        except OSError:
            return None
    target = Path(path).resolve()
    best: tuple[int, str | None] = (-1, None)
    for line in mounts.splitlines():
        fields = line.split()
        if len(fields) < 3:
            continue
        point = Path(fields[1].replace("\\040", " "))
        if (target == point or point in target.parents) and len(point.parts) > best[0]:
            best = (len(point.parts), fields[2])
    return best[1]


def cache_key(fingerprint: Mapping[str, Any], template_id: str, prompt: str) -> str:
    """sha256 of a canonical JSON of everything that determines the answer."""
    canonical = json.dumps(
        {"judge": dict(fingerprint), "template_id": template_id, "prompt": prompt},
        sort_keys=True,
        ensure_ascii=False,
        separators=(",", ":"),
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class CachedAnswer:
    raw: str
    prompt_tokens: int
    completion_tokens: int
    served_model: str | None = None  # the model the server says answered (completion.model)


class JudgeCache:
    """Thread-safe (one connection behind a lock) persistent map: key -> judge answer."""

    def __init__(self, cache_dir: str | Path) -> None:
        folder = Path(cache_dir).expanduser()
        folder.mkdir(parents=True, exist_ok=True)
        self.path = folder / CACHE_FILENAME
        self._lock = threading.Lock()
        # timeout: wait for another process's write instead of failing with "database is locked".
        self._conn = sqlite3.connect(self.path, timeout=30.0, check_same_thread=False)
        # WAL needs shared memory between the processes writing, which a network filesystem cannot
        # give across machines (sqlite.org/wal.html): there, the rollback journal.
        self.filesystem = filesystem_type(folder)
        journal = "DELETE" if self.filesystem in NETWORK_FILESYSTEMS else "WAL"
        if journal != "WAL":
            log.warning(
                "judge cache %s is on a network filesystem (%s): using sqlite's rollback journal, not WAL. Processes "
                "on several machines writing it at once rely on that filesystem's locks; a judge_cache_dir on local "
                "disk (one per machine) is the safe choice.", folder, self.filesystem,
            )  # fmt: skip
        with self._lock:
            self._conn.execute(f"PRAGMA journal_mode={journal}")
            self._conn.execute("PRAGMA synchronous=NORMAL")
            self._conn.execute(
                """CREATE TABLE IF NOT EXISTS answers (
                    key TEXT PRIMARY KEY,
                    template_id TEXT NOT NULL,
                    fingerprint TEXT NOT NULL,
                    raw TEXT NOT NULL,
                    prompt_tokens INTEGER NOT NULL,
                    completion_tokens INTEGER NOT NULL,
                    created_at REAL NOT NULL
                )"""
            )
            # Batches a launch's judging process has finished (see judge/launch.py): the launch's other
            # processes wait for their row, then read the verdicts.
            self._conn.execute(
                "CREATE TABLE IF NOT EXISTS finished_batches (launch TEXT NOT NULL, batch TEXT NOT NULL, "
                "finished_at REAL NOT NULL, PRIMARY KEY (launch, batch))"
            )
            columns = {row[1] for row in self._conn.execute("PRAGMA table_info(answers)")}
            if "served_model" not in columns:  # caches written before it was recorded
                try:
                    self._conn.execute("ALTER TABLE answers ADD COLUMN served_model TEXT")
                except sqlite3.OperationalError:  # another process added it just now
                    pass
            self._conn.commit()

    def get_many(self, keys: Iterable[str]) -> dict[str, CachedAnswer]:
        wanted = list(dict.fromkeys(keys))
        found: dict[str, CachedAnswer] = {}
        with self._lock:
            for start in range(0, len(wanted), _BATCH):
                chunk = wanted[start : start + _BATCH]
                rows = self._conn.execute(
                    "SELECT key, raw, prompt_tokens, completion_tokens, served_model FROM answers "
                    f"WHERE key IN ({','.join('?' * len(chunk))})",
                    chunk,
                )
                for key, raw, prompt_tokens, completion_tokens, served_model in rows:
                    found[key] = CachedAnswer(raw, prompt_tokens, completion_tokens, served_model)
        return found

    def put(
        self,
        key: str,
        *,
        template_id: str,
        fingerprint: Mapping[str, Any],
        answer: CachedAnswer,
    ) -> None:
        """Store one answer and commit at once, so a crash loses nothing already paid for."""
        with self._lock:
            self._conn.execute(
                "INSERT OR REPLACE INTO answers (key, template_id, fingerprint, raw, prompt_tokens, "
                "completion_tokens, created_at, served_model) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    key,
                    template_id,
                    json.dumps(dict(fingerprint), sort_keys=True, ensure_ascii=False),
                    answer.raw,
                    answer.prompt_tokens,
                    answer.completion_tokens,
                    time.time(),
                    answer.served_model,
                ),
            )
            self._conn.commit()

    def mark_batch_finished(self, launch: str, batch: str) -> None:
        """Record that this launch's judging process is done with ``batch`` (its verdicts are stored)."""
        now = time.time()
        with self._lock:
            self._conn.execute(
                "INSERT OR REPLACE INTO finished_batches (launch, batch, finished_at) VALUES (?, ?, ?)",
                (launch, batch, now),
            )
            self._conn.execute("DELETE FROM finished_batches WHERE finished_at < ?", (now - _BATCH_ROWS_KEPT_S,))
            self._conn.commit()

    def batch_finished(self, launch: str, batch: str) -> bool:
        with self._lock:
            row = self._conn.execute(
                "SELECT 1 FROM finished_batches WHERE launch = ? AND batch = ?", (launch, batch)
            ).fetchone()
        return row is not None

    def __len__(self) -> int:
        with self._lock:
            return self._conn.execute("SELECT COUNT(*) FROM answers").fetchone()[0]

    def close(self) -> None:
        with self._lock:
            self._conn.close()
