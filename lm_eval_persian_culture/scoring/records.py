"""Per-sample records that filters hand to ``process_results`` and lm-eval logs.

lm-eval writes ``filtered_resps`` into samples_*.jsonl with ``str()``, which would turn a
dict into a Python repr. Filters therefore emit JSON strings, which stay machine-readable
in the logs (``json.loads(sample["filtered_resps"][0])``).
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Callable, Sequence
from typing import Any


def encode_record(fields: dict) -> str:
    return json.dumps(fields, ensure_ascii=False)


def decode_record(value: Any) -> dict | None:
    """The record as a dict; None when ``value`` is not one of ours (e.g. another filter's text)."""
    if isinstance(value, list) and len(value) == 1:
        value = value[0]  # lm-eval 0.5 logs each response's filtered output as a list of one
    if isinstance(value, dict):
        return value
    if isinstance(value, str) and value.startswith("{"):
        try:
            decoded = json.loads(value)
        except json.JSONDecodeError:
            return None
        return decoded if isinstance(decoded, dict) else None
    return None


@functools.lru_cache(maxsize=1)
def filter_outputs_are_lists() -> bool:
    """Does lm-eval keep each response's filtered output a list, and flatten it for process_results?

    lm-eval 0.5 does (its ``take_first`` gives ``[r[0]]``; process_results gets the chain of them);
    0.4.13 keeps the output itself (``r[0]``) and hands process_results ``[output]``. Asked of
    lm-eval's own take_first filter, so the answer follows the installed lm-eval, not a version number.
    """
    try:
        from lm_eval.filters.selection import TakeFirstFilter

        return list(TakeFirstFilter().apply([["x"]], [{}])) == [["x"]]
    except Exception:  # noqa: BLE001 - no such filter: the 0.4 contract
        return False


def lm_eval_filter(fn: Callable) -> Callable:
    """A custom filter returning one record per response, handed to lm-eval in the shape it expects
    (see :func:`filter_outputs_are_lists`): ``process_results`` sees ``results[0] == record`` on both."""

    @functools.wraps(fn)
    def custom_filter(resps, docs):
        out = fn(resps, docs)
        return [[record] for record in out] if filter_outputs_are_lists() else out

    return custom_filter


def reply_texts(resps: Sequence) -> list[str]:
    """The reply text of each response lm-eval hands a filter (the first of its list; "" for none)."""
    return [(r[0] if isinstance(r, (list, tuple)) else r) or "" for r in resps]


def record_of(result: Any, fallback: Callable[[str], dict]) -> dict:
    """The per-doc record a benchmark's filter made (see :func:`decode_record`); when another filter
    ran instead of it, ``fallback(reply text)`` reads the reply here (by the rules only)."""
    record = decode_record(result)
    return fallback(str(result or "")) if record is None else record


def make_process_results(value: Callable[[Any, list], Any], metric_names: Sequence[str]) -> Callable[[Any, list], dict]:
    """A ``process_results`` hook: every metric of the task gets the same per-doc value
    ``value(doc, results)`` (each metric's aggregation reads what it needs from it); a record that
    carries ``jury_metrics`` (a jury's per-judge metrics) adds those per-doc values too."""

    def process_results(doc: Any, results: list) -> dict:
        record = value(doc, results)
        out = {name: record for name in metric_names}
        if isinstance(record, dict) and record.get("jury_metrics"):
            # a jury's per-judge metrics, registered on the task by its filter (judge/jury.py)
            out.update(record["jury_metrics"])
        return out

    return process_results


def json_error_text(err: json.JSONDecodeError, with_line: bool = True) -> str:
    """'<what> at line L, column C' (or '... at column C' for text parsed line by line) for a
    JSONDecodeError. Some of its messages already end in 'at' ("Unterminated string starting at"),
    so gluing ' at line' on would read 'at at line'."""
    where = f"line {err.lineno}, column {err.colno}" if with_line else f"column {err.colno}"
    return f"{err.msg} {where}" if err.msg.endswith(" at") else f"{err.msg} at {where}"


def json_safe(value: Any) -> Any:
    """``value`` with every NaN or infinity replaced by None, so ``json.dumps(..., allow_nan=False)``
    writes valid JSON (``null``) instead of the ``NaN`` tokens Python's json module emits by default."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    return value
