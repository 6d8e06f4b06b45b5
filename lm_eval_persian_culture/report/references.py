"""The papers' published numbers, machine-readable, one JSON file per benchmark.

Each benchmark folder holds its own ``tasks/<benchmark>/references.json``; ``lm-eval-persian report`` puts
the rows beside a run's scores where task, condition and metric match. Values are on the pack's
own scale (accuracies as fractions 0-1, signed differences as fractions), so a reference row and
a results-JSON value are directly comparable; ``printed`` keeps the figure as the paper prints it.

File layout::

    {
      "benchmark": "percul",
      "paper": "<citation>",
      "notes": ["how the numbers were read, what does not match and why", ...],
      "rows": [
        {"model": "GPT-4o", "task": "percul", "metric": "macro_accuracy", "value": 0.7345,
         "printed": "73.45", "source": "Table 3", "condition": "persian", "n": 592,
         "kind": "model" | "human", "note": "...", "judge": "gpt-4"},
        ...
      ]
    }

``model``, ``task`` (a pack task or group), ``metric`` (a metric that task reports), ``value``
and ``source`` (table or figure of the paper) are required; the rest is optional. ``judge`` names the
model that scored a judged row (the paper's judge: ``gpt-4`` for TaarofBench, ``gpt-5`` for TARAZ's
``judge_match``); the report notes every run row judged by another judge beside such a row.

A paper whose table is not available (not published, or not readable from here) says so instead of rows::

    {"benchmark": "masal", "paper": "<citation>",
     "no_published_table": "only the abstract's figures could be read: contextual above 0.90 ...",
     "rows": []}

``no_published_table`` (a non-empty note) and rows exclude each other; the report prints the note in the
benchmark's section where the paper's rows would be.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from lm_eval_persian_culture.errors import PackUserError
from lm_eval_persian_culture.tasks._benchmark import benchmarks

REQUIRED = {"model": str, "task": str, "metric": str, "value": (int, float), "source": str}
OPTIONAL = {"printed": str, "condition": str, "n": int, "kind": str, "note": str, "std": (int, float), "judge": str}
KINDS = ("model", "human")


NO_TABLE = "no_published_table"


class ReferenceFileError(PackUserError, ValueError):
    """A reference file does not have the documented shape."""


def reference_files() -> dict[str, Path]:
    """{benchmark: its references.json}, for every benchmark folder that has one."""
    return {name: b.references_path for name, b in benchmarks().items() if b.references_path.is_file()}


def validate(data: Any, origin: str) -> list[dict]:
    """The rows of a parsed reference file; ReferenceFileError naming origin, row and field."""
    if not isinstance(data, dict):
        raise ReferenceFileError(f"{origin}: expected a JSON object with 'benchmark', 'paper' and 'rows'")
    for key in ("benchmark", "paper"):
        if not isinstance(data.get(key), str) or not data[key].strip():
            raise ReferenceFileError(f"{origin}: field {key!r} must be a non-empty string")
    rows = data.get("rows")
    if NO_TABLE in data:
        if not isinstance(data[NO_TABLE], str) or not data[NO_TABLE].strip():
            raise ReferenceFileError(f"{origin}: field {NO_TABLE!r} must be a non-empty note (why there is no table)")
        if rows not in (None, []):
            raise ReferenceFileError(f"{origin}: field {NO_TABLE!r} says there is no table, but 'rows' has rows")
        return []
    if not isinstance(rows, list) or not rows:
        raise ReferenceFileError(
            f"{origin}: field 'rows' must be a non-empty list (or say {NO_TABLE!r} with a note, and no rows)"
        )
    for i, row in enumerate(rows, start=1):  # rows counted from 1
        if not isinstance(row, dict):
            raise ReferenceFileError(f"{origin}: row {i}: expected an object")
        for name, kind in REQUIRED.items():
            if name not in row:
                raise ReferenceFileError(f"{origin}: row {i}: field {name!r} is missing")
            if not isinstance(row[name], kind) or isinstance(row[name], bool):
                raise ReferenceFileError(f"{origin}: row {i}: field {name!r} has the wrong type: {row[name]!r}")
        for name, value in row.items():
            if name in REQUIRED:
                continue
            if name not in OPTIONAL:
                raise ReferenceFileError(f"{origin}: row {i}: unknown field {name!r}")
            if not isinstance(value, OPTIONAL[name]) or isinstance(value, bool):
                raise ReferenceFileError(f"{origin}: row {i}: field {name!r} has the wrong type: {value!r}")
        if not math.isfinite(float(row["value"])):
            raise ReferenceFileError(f"{origin}: row {i}: field 'value' is not a finite number")
        if row.get("kind", "model") not in KINDS:
            raise ReferenceFileError(f"{origin}: row {i}: field 'kind' must be one of {list(KINDS)}")
    return [{**row, "benchmark": data["benchmark"]} for row in rows]


def _read(path: Path) -> Any:
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except json.JSONDecodeError as err:
        raise ReferenceFileError(f"{path}: not valid JSON: {err.msg} (line {err.lineno})") from None


def load_file(path: Path) -> list[dict]:
    return validate(_read(path), str(path))


def no_table_note(path: Path) -> str | None:
    """The file's ``no_published_table`` note (checked), or None when it holds the paper's rows."""
    data = _read(path)
    validate(data, str(path))
    return data[NO_TABLE].strip() if NO_TABLE in data else None


def reference_notes() -> dict[str, str]:
    """{benchmark: why its paper has no table here}, for the benchmarks whose references.json says so."""
    notes = {name: no_table_note(path) for name, path in reference_files().items()}
    return {name: note for name, note in notes.items() if note}


def load_references(benchmark: str | None = None) -> list[dict]:
    """Every reference row (or one benchmark's), each with its ``benchmark`` field added."""
    rows: list[dict] = []
    for name, path in reference_files().items():
        if benchmark is None or name == benchmark:
            rows.extend(load_file(path))
    return rows


__all__ = [
    "NO_TABLE",
    "ReferenceFileError",
    "load_file",
    "load_references",
    "no_table_note",
    "reference_files",
    "reference_notes",
    "validate",
]
