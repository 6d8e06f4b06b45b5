"""One data-source mechanism for every benchmark of the pack.

A benchmark declares its release files as :class:`SourceFile` objects (where the file lives
online, its schema) and reads them with :func:`load_rows` (then :func:`to_dataset`) from its
``custom_dataset`` hook. The loader then:

* reads a local copy when a data directory is set (``--metadata '{"data_dir": ...}'`` or
  ``PERSIAN_CULTURE_DATA_DIR``), laid out like ``../shared/data/<benchmark>/<file>``;
  otherwise the pinned online release (a Hugging Face hub id at a revision, or a raw file
  of the authors' GitHub release at a commit), through ``datasets``;
* checks every row against the benchmark's schema and raises one :class:`DataSchemaError`
  naming the file, row and field (or the columns found vs expected) before the model
  generates anything; a local file is read strictly: bytes that are not UTF-8, a record cut
  off by a truncated copy, malformed JSON or CSV, and an id given twice are such errors too;
* reads spreadsheets (``.xlsx``, the first sheet; GhazalBench's release format) with openpyxl, locally
  and from a pinned URL (``datasets`` has no spreadsheet builder);
* stamps every doc with a ``provenance`` string (local path + sha256, or hub id + revision,
  or URL at a commit) that lm-eval logs with each sample, and logs it once per file.
"""

from __future__ import annotations

import codecs
import csv
import hashlib
import io
import json
import logging
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lm_eval_persian_culture.errors import PackUserError

logger = logging.getLogger("lm_eval_persian_culture")

DATA_DIR_ENV = "PERSIAN_CULTURE_DATA_DIR"
# A base URL that stands in for https://raw.githubusercontent.com/ (a mirror, or a local server in tests): the
# pinned path (owner/repo/commit/file) is kept, only the host changes.
RAW_MIRROR_ENV = "PERSIAN_CULTURE_RAW_MIRROR"
RAW_GITHUB = "https://raw.githubusercontent.com/"
PROVENANCE_FIELD = "provenance"


class DataSchemaError(PackUserError, ValueError):
    """A benchmark source does not have the documented shape."""


class DataNotFoundError(PackUserError, FileNotFoundError):
    """A configured local data directory lacks a file the benchmark needs."""


# Characters that show nothing: a field holding only these (and whitespace) is empty.
_INVISIBLE_CHARS = "\u200b\u200c\u200d\u200e\u200f\u2060\ufeff"


def _blank(value: str) -> bool:
    """Only whitespace and invisible characters (stripped from both ends in turn: no copy of a long text)."""
    previous = None
    while value and value != previous:
        previous, value = value, value.strip().strip(_INVISIBLE_CHARS)
    return not value


def id_problem(value: Any) -> str | None:
    """``Column(..., kind=object, check=id_problem)``: an id is a non-empty string or an integer."""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        return f"expected a string or integer id, got {type(value).__name__} {value!r}"
    if isinstance(value, str) and _blank(value):
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
        if self.kind is str and not self.allow_empty and _blank(value):
            return "is empty"
        if self.choices is not None and value not in self.choices:
            return f"has value {value!r}, expected one of {list(self.choices)}"
        if self.check is not None:
            return self.check(value)
        return None


@dataclass(frozen=True)
class Schema:
    columns: tuple[Column, ...]
    unique: tuple[str, ...] = ()  # id fields: a value may appear in one row only

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
            raise DataSchemaError(f"{origin}: columns found {found}, expected at least {expected} (missing {missing})")
        for i, row in enumerate(rows, start=1):  # rows counted from 1 in every message, as lines are
            for col in self.columns:
                if col.name not in row:
                    raise DataSchemaError(f"{origin}: row {i}: field {col.name!r} is missing")
                msg = col.problem(row[col.name])
                if msg:
                    raise DataSchemaError(f"{origin}: row {i}: field {col.name!r} {msg}")
        for name in self.unique:
            check_unique(rows, name, origin)


def check_unique(rows: Sequence[Mapping[str, Any]], name: str, origin: str) -> None:
    """A repeated id (compared as text, surrounding spaces ignored) names both rows."""
    seen: dict[str, int] = {}
    for i, row in enumerate(rows, start=1):
        key = str(row[name]).strip()
        if key in seen:
            raise DataSchemaError(f"{origin}: row {i}: field {name!r} value {row[name]!r} repeats row {seen[key]}")
        seen[key] = i


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
        return {".jsonl": "json", ".json": "json", ".csv": "csv", ".parquet": "parquet", ".xlsx": "xlsx"}.get(
            suffix, suffix
        )


def resolve_data_dir(settings: Mapping[str, Any] | None = None) -> Path | None:
    """``data_dir`` from --metadata wins over ``PERSIAN_CULTURE_DATA_DIR``; None means online. A data dir
    that is no folder is one error (every task that reads data says the same line, which the pre-flight
    shows once), not one "not found" per file."""
    given = (settings or {}).get("data_dir")
    value = given or os.environ.get(DATA_DIR_ENV)
    if not value:
        return None
    path = Path(value).expanduser().resolve()
    if not path.is_dir():
        setting = "data_dir (--metadata)" if given else f"${DATA_DIR_ENV}"
        raise DataNotFoundError(
            f"data_dir {path}: no such folder (set by {setting}); it must hold <benchmark>/<file> "
            "(`lm-eval-persian data` shows each benchmark's layout)"
        )
    return path


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


# --------------------------------------------------------------------------- reading local files
# Every reader names the row and, where it can be told, the field of what is wrong: bytes that are
# not UTF-8 (a file saved in Windows-1256, say), a record cut off by a truncated copy, bad JSON.

TRUNCATED = "the record is cut off: the file ends mid-record (truncated?)"


def _json_path(prefix: str) -> list[list]:
    """The JSON containers still open at the end of ``prefix``, outermost first, each as
    ``[bracket, current key, index of the current item]``; used to say where an error sits."""
    stack: list[list] = []
    last_string = None
    i, n = 0, len(prefix)
    while i < n:
        c = prefix[i]
        if c == '"':
            j = i + 1
            while j < n and prefix[j] != '"':
                j += 2 if prefix[j] == "\\" else 1
            last_string = prefix[i + 1 : j]
            i = j + 1
            continue
        if c in "{[":
            stack.append([c, None, 0])
        elif c in "}]":
            if stack:
                stack.pop()
        elif c == ":" and stack and stack[-1][0] == "{":
            stack[-1][1] = last_string
        elif c == "," and stack:
            stack[-1][2] += 1
        i += 1
    return stack


def _field_part(name: Any) -> str:
    return f": field {name!r}" if isinstance(name, str) and name else ""


def _where_in_jsonl(prefix: str) -> str:
    """'row R (line L): field F' for a position in a JSON-lines file, given the text before it."""
    lines = prefix.split("\n")
    row = sum(1 for line in lines[:-1] if line.strip()) + 1
    stack = _json_path(lines[-1])
    return f"row {row} (line {len(lines)})" + _field_part(stack[0][1] if stack else None)


def _where_in_json(prefix: str) -> str:
    """'row R (id K): field F' for a position in a JSON document (a list of records, or records keyed by id)."""
    stack = _json_path(prefix)
    line = prefix.count("\n") + 1
    if not stack:
        return f"line {line}"
    outer, inner = stack[0], (stack[1] if len(stack) > 1 else None)
    where = f"row {outer[2] + 1}" + (
        f" (id {outer[1]!r}, line {line})" if outer[0] == "{" and outer[1] else f" (line {line})"
    )
    return where + _field_part(inner[1] if inner and inner[0] == "{" else None)


def _where_in_csv(prefix: str) -> str:
    """'row R (line L): field F' for a position in a CSV file (row 1 is the first record after the header)."""
    records = list(csv.reader(io.StringIO(prefix)))
    line = prefix.count("\n") + 1
    if len(records) < 2 or prefix.endswith(("\n", "\r")):
        if not records:
            return f"the header (line {line})"
        if prefix.endswith(("\n", "\r")):  # the position opens a new record
            header = records[0]
            return f"row {len(records)} (line {line})" + _field_part(header[0] if header else None)
        return f"the header (line {line})"
    header, current = records[0], records[-1]
    field_index = len(current) - 1
    name = header[field_index] if 0 <= field_index < len(header) else None
    return f"row {len(records) - 1} (line {line})" + _field_part(name)


def read_text(path: Path, where: Callable[[str], str]) -> str:
    """The file as UTF-8 text (a BOM is dropped); bytes that are not UTF-8 are one error saying
    where they sit (``where`` turns the text before them into 'row R (line L): field F')."""
    data = path.read_bytes()
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8) :]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        prefix = data[: err.start].decode("utf-8", errors="replace")
        column = len(prefix) - (prefix.rfind("\n") + 1) + 1
        raise DataSchemaError(
            f"{path}: {where(prefix)}: not valid UTF-8 (byte 0x{data[err.start]:02x} at column {column}); "
            "save the file as UTF-8"
        ) from None


def _read_jsonl(path: Path, text: str | None = None) -> list[dict]:
    text = read_text(path, _where_in_jsonl) if text is None else text
    lines = text.split("\n")
    last = max((i for i, line in enumerate(lines) if line.strip()), default=-1)
    rows = []
    for index, line in enumerate(lines):
        if not line.strip():
            continue
        lineno = index + 1
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as e:
            stack = _json_path(line[: e.pos])
            field_part = _field_part(stack[0][1] if stack else None)
            if index == last and (e.pos >= len(line.rstrip()) or e.msg.startswith("Unterminated string")):
                raise DataSchemaError(f"{path}: row {len(rows) + 1} (line {lineno}){field_part}: {TRUNCATED}") from None
            raise DataSchemaError(
                f"{path}: row {len(rows) + 1} (line {lineno}){field_part}: not valid JSON: {e.msg} (column {e.colno})"
            ) from None
        if not isinstance(obj, dict):
            raise DataSchemaError(f"{path}: row {len(rows) + 1} (line {lineno}): expected a JSON object")
        rows.append(obj)
    return rows


class _JsonObject(dict):
    """A parsed JSON object that remembers keys it saw twice (json.loads keeps the last silently)."""

    repeated: list[tuple[str, int, int]]


def _object_pairs(pairs: list[tuple[str, Any]]) -> _JsonObject:
    obj, first = _JsonObject(pairs), {}
    obj.repeated = []
    for i, (key, _) in enumerate(pairs):
        if key in first:
            obj.repeated.append((key, first[key], i))
        first.setdefault(key, i)
    return obj


def load_json(path: Path) -> Any:
    """A JSON document, read strictly: non-UTF-8 bytes, a cut-off end and ids (keys) given twice
    are errors naming the row and field."""
    text = read_text(path, _where_in_json)
    try:
        data = json.loads(text, object_pairs_hook=_object_pairs)
    except json.JSONDecodeError as e:
        where = _where_in_json(text[: e.pos])
        if e.pos >= len(text.rstrip()) or e.msg.startswith("Unterminated string"):
            raise DataSchemaError(f"{path}: {where}: {TRUNCATED}") from None
        raise DataSchemaError(f"{path}: {where}: not valid JSON: {e.msg} (column {e.colno})") from None
    if isinstance(data, _JsonObject) and data.repeated:  # records keyed by id: an id given twice
        key, first, second = data.repeated[0]
        raise DataSchemaError(f"{path}: row {second + 1}: field 'id' value {key!r} repeats row {first + 1}")
    records = list(data.values()) if isinstance(data, dict) else data if isinstance(data, list) else []
    for row, record in enumerate(records, start=1):
        if isinstance(record, _JsonObject) and record.repeated:
            key = record.repeated[0][0]
            raise DataSchemaError(f"{path}: row {row}: field {key!r} is given twice in one record")
    return data


def _read_json(path: Path) -> list[dict]:
    data = load_json(path)
    if isinstance(data, dict):  # keyed by id, as BLEnD's annotation files are
        data = [{"id": k, **v} if isinstance(v, dict) else {"id": k, "value": v} for k, v in data.items()]
    if not isinstance(data, list):
        raise DataSchemaError(f"{path}: expected a list or an object of records")
    return data


def _read_csv(path: Path) -> list[dict]:
    text = read_text(path, _where_in_csv)
    ends_cut = not text.endswith(("\n", "\r"))  # no line break after the last record
    total_lines = text.count("\n") + (1 if ends_cut else 0)
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    rows: list[dict] = []
    header: list[str] | None = None
    done_lines = 0  # lines read up to the end of the last complete record
    try:
        for cells in reader:
            if header is None:
                header, done_lines = cells, reader.line_num
                continue
            if not any(c.strip() for c in cells):
                done_lines = reader.line_num
                continue
            if len(cells) < len(header):
                why = (TRUNCATED if ends_cut and reader.line_num == total_lines
                       else f"the row has {len(cells)} of the header's {len(header)} columns")  # fmt: skip
                where = f"row {len(rows) + 1} (line {done_lines + 1})"
                raise DataSchemaError(f"{path}: {where}: field {header[len(cells)]!r} is missing: {why}")
            rows.append(dict(zip(header, cells)))
            done_lines = reader.line_num
    except csv.Error as e:  # strict mode: an unclosed quote at the end of the file is a cut-off record
        record_start = sum(len(line) for line in io.StringIO(text, newline="").readlines()[:done_lines])
        partial = next(csv.reader(io.StringIO(text[record_start:], newline="")), [])
        name = header[len(partial) - 1] if header and 0 < len(partial) <= len(header) else None
        why = TRUNCATED if "unexpected end of data" in str(e) else f"not valid CSV: {e}"
        raise DataSchemaError(
            f"{path}: row {len(rows) + 1} (line {done_lines + 1}){_field_part(name)}: {why}"
        ) from None
    return rows


def _first_line_is_a_record(path: Path) -> bool:
    with open(path, "rb") as f:
        for raw in f:
            if raw.strip():
                try:
                    return isinstance(json.loads(raw.decode("utf-8-sig", errors="replace")), dict)
                except json.JSONDecodeError:
                    return False
    return False


def read_local(path: Path) -> list[dict]:
    suffix = path.suffix.lower()
    if suffix == ".jsonl":
        return _read_jsonl(path)
    if suffix == ".json":
        try:
            return _read_jsonl(path)
        except DataSchemaError:
            if _first_line_is_a_record(path):  # JSON lines after all: its error is the one to show
                raise
            return _read_json(path)
    if suffix == ".csv":
        return _read_csv(path)
    if suffix == ".xlsx":
        return read_xlsx(path.read_bytes(), str(path))
    if suffix == ".parquet":  # the hub's own storage format (pyarrow comes with datasets)
        import pyarrow as pa
        import pyarrow.parquet as pq

        try:
            return pq.read_table(path).to_pylist()
        except (pa.ArrowException, OSError) as e:
            raise DataSchemaError(f"{path}: not a readable parquet file: {e}") from None
    raise DataSchemaError(f"{path}: unsupported file type {suffix!r}")


_XLSX_ROWS: dict[bytes, list[dict]] = {}  # sha1 of the file -> its records (parsing is slow; tasks share files)


def read_xlsx(data: bytes, origin: str) -> list[dict]:
    """The first sheet of a spreadsheet as records (the header row names the fields; empty cells are None,
    rows with no value at all are skipped; a whole number is an int: a spreadsheet keeps every number a float).
    A file read before in this process is parsed once (each call gets its own copies of the records)."""
    digest = hashlib.sha1(data).digest()
    if digest not in _XLSX_ROWS:
        _XLSX_ROWS[digest] = _parse_xlsx(data, origin)
    return [dict(row) for row in _XLSX_ROWS[digest]]


def _parse_xlsx(data: bytes, origin: str) -> list[dict]:
    import zipfile

    import openpyxl

    try:
        book = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    except (zipfile.BadZipFile, OSError, KeyError, ValueError) as e:
        raise DataSchemaError(f"{origin}: not a readable .xlsx file: {e}") from None
    rows = book.worksheets[0].iter_rows(values_only=True)
    header = next(rows, None)
    if header is None:
        return []
    names = [str(h) if h is not None else "" for h in header]
    records = [
        {name: int(v) if isinstance(v, float) and v.is_integer() else v for name, v in zip(names, row)}
        for row in rows
        if any(v is not None for v in row)
    ]
    book.close()
    return records


def online_url(url: str) -> str:
    """``url`` with https://raw.githubusercontent.com/ replaced by ``PERSIAN_CULTURE_RAW_MIRROR`` when set."""
    mirror = os.environ.get(RAW_MIRROR_ENV)
    if mirror and url.startswith(RAW_GITHUB):
        return mirror.rstrip("/") + "/" + url[len(RAW_GITHUB) :]
    return url


_DOWNLOADED: dict[str, bytes] = {}  # url -> bytes, once per process (every task of a benchmark reads the same files)


def download(url: str, timeout: float = 60.0) -> bytes:
    """The bytes at ``url`` (pinned release files never change, so they are kept for the process)."""
    if url not in _DOWNLOADED:
        import urllib.parse
        import urllib.request

        parts = urllib.parse.urlsplit(url)
        quoted = urllib.parse.urlunsplit(parts._replace(path=urllib.parse.quote(parts.path)))
        with urllib.request.urlopen(quoted, timeout=timeout) as response:  # noqa: S310 - a pinned https URL
            _DOWNLOADED[url] = response.read()
    return _DOWNLOADED[url]


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


def local_path(source: SourceFile, data_dir: Path) -> Path:
    """Where ``source`` lies in a local data dir (``<data_dir>/<benchmark>/<file>``); a clear error if absent."""
    path = data_dir / source.benchmark / source.filename
    if not path.is_file():
        if source.url is None and source.hub is None:  # nothing online to fall back to: say so
            otherwise = (
                "this file has no public release the pack can download: bring your own copy "
                "(`lm-eval-persian data` shows each benchmark's layout)."
            )
        else:
            otherwise = f"unset data_dir/{DATA_DIR_ENV} to read the online release instead."
        raise DataNotFoundError(
            f"{path}: not found. The data dir {data_dir} must hold "
            f"{source.benchmark}/{source.filename} (<data_dir>/<benchmark>/<file>, see the Data table in "
            "docs/data.md); "
            f"{otherwise}"
        )
    return path


def load_rows(source: SourceFile, settings: Mapping[str, Any] | None = None) -> tuple[list[dict], str]:
    """Read, map and validate one source file. Returns (rows, provenance)."""
    data_dir = resolve_data_dir(settings)
    if data_dir is not None:
        path = local_path(source, data_dir)
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

        url = online_url(source.url)
        try:
            if source.fmt == "xlsx":
                rows = read_xlsx(download(url), url)
            else:
                rows = datasets.load_dataset(source.fmt, data_files={"data": url}, split="data").to_list()
        except DataSchemaError:
            raise
        except Exception as err:  # offline, unreachable, moved: one line saying what to do, not datasets' error
            raise DataNotFoundError(
                f"{source.benchmark}/{source.filename}: could not read the online release {url} "
                f"({type(err).__name__}: {' '.join(str(err).split())[:200]}). Check the connection (and that "
                f"HF_DATASETS_OFFLINE is unset), or download the file to <data_dir>/{source.benchmark}/"
                f"{source.filename} and set data_dir (--metadata '{{\"data_dir\": ...}}' or {DATA_DIR_ENV})."
            ) from err
        origin = url
        provenance = f"url:{url}"
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
