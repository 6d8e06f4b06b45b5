"""One data-source mechanism for every benchmark of the pack.

A benchmark declares its release files as :class:`SourceFile` objects (where the file lives
online, its schema) and calls :func:`load_dataset_dict` from its ``custom_dataset`` hook.
The loader then:

* reads a local copy when a data directory is set (``--metadata '{"data_dir": ...}'`` or
  ``PERSIAN_CULTURE_DATA_DIR``), laid out like ``../shared/data/<benchmark>/<file>``;
  otherwise the pinned online release (a Hugging Face hub id at a revision, or a raw file
  of the authors' GitHub release at a commit), through ``datasets``;
* checks every row against the benchmark's schema and raises one :class:`DataSchemaError`
  naming the file, row and field (or the columns found vs expected) before the model
  generates anything;
* stamps every doc with a ``provenance`` string (local path + sha256, or hub id + revision,
  or URL at a commit) that lm-eval logs with each sample, and logs it once per file.
"""

from __future__ import annotations

import csv
import hashlib
import json
import logging
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

logger = logging.getLogger("lm_eval_persian_culture")

DATA_DIR_ENV = "PERSIAN_CULTURE_DATA_DIR"
PROVENANCE_FIELD = "provenance"


class DataSchemaError(ValueError):
    """A benchmark source does not have the documented shape."""


class DataNotFoundError(FileNotFoundError):
    """A configured local data directory lacks a file the benchmark needs."""


def id_problem(value: Any) -> str | None:
    """``Column(..., kind=object, check=id_problem)``: an id is a non-empty string or an integer."""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        return f"expected a string or integer id, got {type(value).__name__} {value!r}"
    if isinstance(value, str) and not value.strip():
        return "is empty"
    return None


@dataclass(frozen=True)
class Column:
    """One field every row must carry."""

    name: str
    kind: type = str
    choices: tuple | None = None
    allow_empty: bool = False
    check: Callable[[Any], str | None] | None = None  # returns an error text or None

    def problem(self, value: Any) -> str | None:
        if value is None:
            return "is missing (null)"
        if self.kind is int and isinstance(value, str) and value.strip().lstrip("-").isdigit():
            value = int(value)
        if self.kind is int and isinstance(value, bool):
            return f"expected an integer, got {value!r}"
        if not isinstance(value, self.kind):
            return f"expected {self.kind.__name__}, got {type(value).__name__} {value!r}"
        if self.kind is str and not self.allow_empty and not value.strip():
            return "is empty"
        if self.choices is not None and value not in self.choices:
            return f"has value {value!r}, expected one of {list(self.choices)}"
        if self.check is not None:
            return self.check(value)
        return None


@dataclass(frozen=True)
class Schema:
    columns: tuple[Column, ...]

    @property
    def names(self) -> list[str]:
        return [c.name for c in self.columns]

    def validate(self, rows: Sequence[Mapping[str, Any]], origin: str) -> None:
        """Raise DataSchemaError on the first problem, naming origin, row and field."""
        if not rows:
            raise DataSchemaError(f"{origin}: no rows found")
        expected = self.names
        found = list(rows[0].keys())
        missing = [c for c in expected if c not in found]
        if missing:
            raise DataSchemaError(
                f"{origin}: columns found {found}, expected at least {expected} "
                f"(missing {missing})"
            )
        for i, row in enumerate(rows):
            for col in self.columns:
                if col.name not in row:
                    raise DataSchemaError(f"{origin}: row {i}: field {col.name!r} is missing")
                msg = col.problem(row[col.name])
                if msg:
                    raise DataSchemaError(f"{origin}: row {i}: field {col.name!r} {msg}")


@dataclass(frozen=True)
class HubSource:
    """A split of a Hugging Face hub dataset pinned to a revision."""

    repo_id: str
    revision: str
    split: str
    name: str | None = None
    # hub column -> pack column; the hub layout is mapped onto the pack's schema
    column_map: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class SourceFile:
    """One file of a benchmark release and where it can be read from."""

    benchmark: str  # folder under the data dir, e.g. "taarof"
    filename: str  # path under that folder, e.g. "taarof-expected.jsonl"
    schema: Schema
    url: str | None = None  # raw file of the authors' release, pinned to a commit
    hub: HubSource | None = None

    @property
    def fmt(self) -> str:
        suffix = Path(self.filename).suffix.lower()
        return {".jsonl": "json", ".json": "json", ".csv": "csv", ".parquet": "parquet"}.get(suffix, suffix)


def resolve_data_dir(settings: Mapping[str, Any] | None = None) -> Path | None:
    """``data_dir`` from --metadata wins over ``PERSIAN_CULTURE_DATA_DIR``; None means online."""
    value = (settings or {}).get("data_dir") or os.environ.get(DATA_DIR_ENV)
    return Path(value).expanduser().resolve() if value else None


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _read_jsonl(path: Path) -> list[dict]:
    rows = []
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, start=1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as e:
                raise DataSchemaError(f"{path}: row {len(rows)} (line {lineno}): not valid JSON: {e.msg}") from None
            if not isinstance(obj, dict):
                raise DataSchemaError(f"{path}: row {len(rows)} (line {lineno}): expected a JSON object")
            rows.append(obj)
    return rows


def _read_json(path: Path) -> list[dict]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise DataSchemaError(f"{path}: not valid JSON: {e.msg} (line {e.lineno})") from None
    if isinstance(data, dict):  # keyed by id, as BLEnD's annotation files are
        data = [{"id": k, **v} if isinstance(v, dict) else {"id": k, "value": v} for k, v in data.items()]
    if not isinstance(data, list):
        raise DataSchemaError(f"{path}: expected a list or an object of records")
    return data


def _read_csv(path: Path) -> list[dict]:
    with open(path, encoding="utf-8-sig", newline="") as f:
        return [dict(r) for r in csv.DictReader(f)]


def read_local(path: Path) -> list[dict]:
    suffix = path.suffix.lower()
    if suffix == ".jsonl":
        return _read_jsonl(path)
    if suffix == ".json":
        try:
            return _read_jsonl(path)
        except DataSchemaError:
            return _read_json(path)
    if suffix == ".csv":
        return _read_csv(path)
    if suffix == ".parquet":  # the hub's own storage format (pyarrow comes with datasets)
        import pyarrow as pa
        import pyarrow.parquet as pq

        try:
            return pq.read_table(path).to_pylist()
        except (pa.ArrowException, OSError) as e:
            raise DataSchemaError(f"{path}: not a readable parquet file: {e}") from None
    raise DataSchemaError(f"{path}: unsupported file type {suffix!r}")


def _apply_column_map(rows: list[dict], column_map: Mapping[str, str], origin: str) -> list[dict]:
    if not column_map:
        return rows
    found = list(rows[0].keys()) if rows else []
    missing = [c for c in column_map if c not in found]
    if missing:
        raise DataSchemaError(
            f"{origin}: the hub layout does not fit the pack's mapping: columns found {found}, "
            f"mapping expects {list(column_map)} (missing {missing})"
        )
    return [{column_map.get(k, k): v for k, v in row.items()} for row in rows]


def load_rows(source: SourceFile, settings: Mapping[str, Any] | None = None) -> tuple[list[dict], str]:
    """Read, map and validate one source file. Returns (rows, provenance)."""
    data_dir = resolve_data_dir(settings)
    if data_dir is not None:
        path = data_dir / source.benchmark / source.filename
        if not path.is_file():
            raise DataNotFoundError(
                f"{path}: not found. The data dir {data_dir} must hold "
                f"{source.benchmark}/{source.filename} (layout of ../shared/data); unset "
                f"data_dir/{DATA_DIR_ENV} to read the online release instead."
            )
        rows = read_local(path)
        provenance = f"local:{path} sha256:{sha256_file(path)}"
        origin = str(path)
    elif source.hub is not None:
        import datasets

        hub = source.hub
        ds = datasets.load_dataset(hub.repo_id, hub.name, revision=hub.revision, split=hub.split)
        origin = f"hf:{hub.repo_id}@{hub.revision} split={hub.split}"
        rows = _apply_column_map(ds.to_list(), hub.column_map, origin)
        provenance = origin
    elif source.url is not None:
        import datasets

        ds = datasets.load_dataset(source.fmt, data_files={"data": source.url}, split="data")
        rows = ds.to_list()
        origin = source.url
        provenance = f"url:{source.url}"
    else:  # pragma: no cover - a SourceFile without any location is a programming error
        raise DataNotFoundError(
            f"{source.benchmark}/{source.filename}: no public release is known; "
            f"set data_dir or {DATA_DIR_ENV} to a local copy"
        )
    source.schema.validate(rows, origin)
    logger.info("%s/%s: %d rows from %s", source.benchmark, source.filename, len(rows), provenance)
    return rows, provenance


def to_dataset(rows: Iterable[Mapping[str, Any]], provenance: str):
    """A ``datasets.Dataset`` whose docs each carry the provenance string."""
    import datasets

    return datasets.Dataset.from_list([{**row, PROVENANCE_FIELD: provenance} for row in rows])
