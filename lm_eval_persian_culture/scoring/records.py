"""Per-sample records that filters hand to ``process_results`` and lm-eval logs.

lm-eval writes ``filtered_resps`` into samples_*.jsonl with ``str()``, which would turn a
dict into a Python repr. Filters therefore emit JSON strings, which stay machine-readable
in the logs (``json.loads(sample["filtered_resps"][0])``).
"""

from __future__ import annotations

import json
from typing import Any


def encode_record(fields: dict) -> str:
    return json.dumps(fields, ensure_ascii=False)


def decode_record(value: Any) -> dict | None:
    """The record as a dict; None when ``value`` is not one of ours (e.g. another filter's text)."""
    if isinstance(value, dict):
        return value
    if isinstance(value, str) and value.startswith("{"):
        try:
            decoded = json.loads(value)
        except json.JSONDecodeError:
            return None
        return decoded if isinstance(decoded, dict) else None
    return None
