"""On-disk cache of judge answers, so re-runs and crashed runs never pay twice.

One sqlite file per cache folder (WAL mode: concurrent readers, and several processes may share
it). The key hashes the judge fingerprint, the prompt template id and the prompt, so a different
judge model (with the local model's revision), server, temperature, max_tokens, system prompt or
template is a miss. Only the judge's raw answer, token counts and the model name the server reported
are stored; never credentials (the fingerprint's URL is already redacted).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CACHE_FILENAME = "judge_cache.sqlite3"
_BATCH = 500  # stay well under sqlite's bound-parameter limit


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
        with self._lock:
            self._conn.execute("PRAGMA journal_mode=WAL")
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

    def __len__(self) -> int:
        with self._lock:
            return self._conn.execute("SELECT COUNT(*) FROM answers").fetchone()[0]

    def close(self) -> None:
        with self._lock:
            self._conn.close()
