"""Bad data for every benchmark: one clear error naming file, row and field, before any model time.

One table (``CASES``): each row is a benchmark, a corruption written into a copy of that benchmark's
data in ``tmp_path``, and the file, row and field the error must name. The data are the fixtures the
benchmarks' own tests use (TaarofBench and TARAZ's BLEnD/ISN from ``../shared/data``; DivanBench,
PerCul and CAC from ``tests/<benchmark>/fixtures``; ISN-SAQ's file written here, as
``tests/taraz/test_taraz_tasks.py`` does), laid out as a data dir (``tasks/<benchmark>/README.md``).

Every row runs through ``lm_eval.simple_evaluate(model="hf", model_args="pretrained=<a folder, no model>")``:
the pack's pre-flight must stop it with one ``PreflightError`` holding exactly one data problem; had
the run gone past the pre-flight, loading the model path would have failed instead. One row per
benchmark (``cli=True``) also runs through the real ``lm_eval run`` CLI, all in one call (lm-eval
indexes its ~15k built-in tasks on each call): exit status 2, one numbered line per corruption, no
traceback, and the model path never mentioned.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.reliability.pack_data import build_data_dir, csv_text

# A folder (the pre-flight's model check passes) that no model loads from: reaching it would fail in transformers.
NO_MODEL = str(Path(__file__).resolve().parent)
# Persian written in Windows-1256 (the common non-UTF-8 encoding of Persian files).
CP1256 = "سلام".encode("cp1256")
MARK = "@@NOT-UTF8@@"


# --------------------------------------------------------------------------- reading and writing copies
def read_rows(path: Path) -> list[dict]:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".csv":
        return list(csv.DictReader(io.StringIO(text)))
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def jsonl_text(rows: list[dict]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)


def replace(path: Path, data: str | bytes) -> None:
    """Write a real file where the data dir had a link (the fixture itself is never touched)."""
    path.unlink(missing_ok=True)
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)


def dump(path: Path, rows: list[dict], **kw) -> str:
    return csv_text(rows, **kw) if path.suffix == ".csv" else jsonl_text(rows)


# --------------------------------------------------------------------------- corruptions
Corrupt = Callable[[Path], None]  # gets the file's path in the data dir


def edit(fn: Callable[[list[dict]], None]) -> Corrupt:
    def corrupt(path: Path) -> None:
        rows = read_rows(path)
        fn(rows)
        replace(path, dump(path, rows))

    return corrupt


def drop(row: int, field: str) -> Corrupt:
    return edit(lambda rows: rows[row].pop(field))


def put(row: int, field: str, value) -> Corrupt:
    return edit(lambda rows: rows[row].__setitem__(field, value))


def same_id(row: int, as_row: int, field: str) -> Corrupt:
    return edit(lambda rows: rows[row].__setitem__(field, rows[as_row][field]))


def delete_row(row: int) -> Corrupt:
    return edit(lambda rows: rows.pop(row))


def not_utf8(row: int, field: str) -> Corrupt:
    """Some Persian of the field's value written in Windows-1256 bytes."""

    def corrupt(path: Path) -> None:
        rows = read_rows(path)
        rows[row][field] = f"{rows[row][field]} {MARK}"
        replace(path, dump(path, rows).encode("utf-8").replace(MARK.encode(), CP1256))

    return corrupt


def cut_in(field: str, row: int = -1, keep: int = 3, quote_all: bool = False) -> Corrupt:
    """Truncate the file a few characters into ``field`` of ``row`` (default: the last record)."""

    def corrupt(path: Path) -> None:
        rows = read_rows(path)
        rows = rows[: len(rows) if row == -1 else row + 1]
        text = dump(path, rows, **({"quote_all": quote_all} if path.suffix == ".csv" else {}))
        value = str(rows[-1][field])
        start = text.rindex(json.dumps(value, ensure_ascii=False) if path.suffix != ".csv" else value)
        replace(path, text[: start + keep])

    return corrupt


# BLEnD's annotations: one JSON object keyed by question id (Iran_data.json, pretty-printed as released).
def blend_edit(fn: Callable[[list[tuple[str, dict]]], None]) -> Corrupt:
    def corrupt(path: Path) -> None:
        items = list(json.loads(path.read_text(encoding="utf-8")).items())
        fn(items)
        body = ",\n".join(f"    {json.dumps(k)}: {json.dumps(v, ensure_ascii=False, indent=4)}" for k, v in items)
        replace(path, "{\n" + body + "\n}\n")

    return corrupt


def blend_set(row: int, field: str, value) -> Corrupt:
    def fn(items):
        if value is KeyError:
            items[row][1].pop(field)
        else:
            items[row][1][field] = value

    return blend_edit(fn)


def blend_duplicate(row: int, of_row: int) -> Corrupt:
    return blend_edit(lambda items: items.insert(row, items[of_row]))


def blend_empty_answers(row: int) -> Corrupt:
    return blend_edit(lambda items: items[row][1]["annotations"][1].__setitem__("answers", []))


def blend_not_utf8(row: int) -> Corrupt:
    def corrupt(path: Path) -> None:
        blend_set(row, "question", MARK)(path)
        path.write_bytes(path.read_bytes().replace(MARK.encode(), CP1256))

    return corrupt


def blend_cut(row: int) -> Corrupt:
    def corrupt(path: Path) -> None:
        blend_edit(lambda items: None)(path)
        text = path.read_text(encoding="utf-8")
        key = list(json.loads(text))[row]
        start = text.index(f'"{key}": {{')
        start = text.index('"question": "', start) + len('"question": "') + 4
        replace(path, text[:start])

    return corrupt


def percul_as_csv_not_utf8(row: int, field: str) -> Corrupt:
    """PerCul's split as a CSV with the hub's columns (a data-dir layout the loader reads), one
    field of it in Windows-1256 bytes; the .jsonl copy is removed so the CSV is read."""

    def corrupt(path: Path) -> None:
        rows = read_rows(path.with_suffix(".jsonl"))
        path.with_suffix(".jsonl").unlink()
        rows[row][field] = f"{rows[row][field]} {MARK}"
        replace(path, csv_text(rows).encode("utf-8").replace(MARK.encode(), CP1256))

    return corrupt


@dataclass(frozen=True)
class Case:
    benchmark: str
    corruption: str
    task: str
    file: str  # under the data dir
    corrupt: Corrupt
    row: int
    field: str
    says: str  # what the message says is wrong
    cli: bool = False  # also through the real lm_eval CLI

    @property
    def id(self) -> str:
        return f"{self.benchmark}-{self.corruption}".replace(" ", "_")


TAAROF = "taarof/taarof-expected.jsonl"
DIVAN_B, DIVAN_F, DIVAN_S = "divan/binary.jsonl", "divan/factual.jsonl", "divan/scenario.jsonl"
PERCUL_FA, PERCUL_EN = "percul/original_persian.jsonl", "percul/gpt_english_translation.jsonl"
BLEND = "taraz/blend_iran/Iran_data.json"
ISN_SAQ = "taraz/ISN/isn_farsi_saq.csv"
ISN = "taraz/isn/[ISN] FINAL - wo_demographiccols-updated.csv"
CAC_C, CAC_A = "cac/conversations.jsonl", "cac/annotations.jsonl"
CUT = "the record is cut off: the file ends mid-record (truncated?)"
NOT_UTF8 = "not valid UTF-8 (byte 0xd3"  # the first byte of "سلام" in Windows-1256

CASES = [
    # TaarofBench (the real release; its rows have no id: the Persian rendering's `row` is the id)
    Case("taarof", "missing field", "taarof_expected", TAAROF, drop(5, "Context"), 5, "Context", "is missing"),
    Case("taarof", "wrong type", "taarof_expected", TAAROF, put(7, "Utterance", 42), 7, "Utterance",
         "expected str, got int 42"),
    Case("taarof", "empty string", "taarof_expected", TAAROF, put(3, "Annotations", "\u200c \u00a0"), 3, "Annotations",
         "is empty"),
    Case("taarof", "duplicate id", "taarof_expected_fa", "taarof/taarof-expected.fa.jsonl", same_id(4, 3, "row"), 4,
         "row", "value 3 repeats row 4"),
    Case("taarof", "non-UTF-8", "taarof_expected", TAAROF, not_utf8(9, "Context"), 9, "Context", NOT_UTF8, cli=True),
    Case("taarof", "truncated", "taarof_expected", TAAROF, cut_in("Utterance"), 310, "Utterance", CUT),
    # DivanBench
    Case("divan", "missing field", "divan_factual", DIVAN_F, drop(1, "option_c"), 1, "option_c", "is missing"),
    Case("divan", "wrong type", "divan_binary", DIVAN_B, put(2, "id", ["b2n"]), 2, "id",
         "expected a string or integer id, got list"),
    Case("divan", "empty string", "divan_factual", DIVAN_F, put(0, "question", "  "), 0, "question", "is empty"),
    Case("divan", "duplicate id", "divan_factual", DIVAN_F, same_id(2, 0, "id"), 2, "id", "repeats row 1"),
    Case("divan", "broken pair (member missing)", "divan_binary", DIVAN_B, delete_row(3), 2, "pair_id",
         "has no positive statement", cli=True),
    Case("divan", "broken pair (two positives)", "divan_binary", DIVAN_B,
         edit(lambda rows: rows[1].update(polarity="positive", answer="yes")), 1, "polarity",
         "already has a positive statement (row 1)"),
    Case("divan", "non-UTF-8", "divan_scenario", DIVAN_S, not_utf8(1, "question"), 1, "question", NOT_UTF8),
    Case("divan", "truncated", "divan_binary", DIVAN_B, cut_in("statement"), 5, "statement", CUT),
    # PerCul
    Case("percul", "missing field", "percul", PERCUL_FA, drop(3, "Story"), 3, "Story", "is missing"),
    Case("percul", "wrong type", "percul", PERCUL_FA, put(4, "Correct Choice", "two"), 4, "Correct Choice",
         "expected int, got str 'two'"),
    Case("percul", "empty string", "percul", PERCUL_FA, put(2, "Choice 3", ""), 2, "Choice 3", "is empty"),
    Case("percul", "duplicate id", "percul_en", PERCUL_EN, same_id(5, 1, "ID"), 5, "ID", "repeats row 2"),
    Case("percul", "category outside the 11", "percul", PERCUL_FA, put(6, "Category", "Sports"), 6, "Category",
         "has value 'Sports', expected one of the 11 PerCul categories", cli=True),
    Case("percul", "non-UTF-8 (CSV)", "percul", "percul/original_persian.csv", percul_as_csv_not_utf8(3, "Story"), 3,
         "Story", NOT_UTF8),
    Case("percul", "truncated", "percul_en", PERCUL_EN, cut_in("Story"), 9, "Story", CUT),
    # TARAZ: BLEnD (keyed JSON), ISN-SAQ (CSV), the ISN derivation (CSV), PerCul-SAQ (PerCul's file)
    Case("taraz", "BLEnD missing field", "taraz_blend", BLEND, blend_set(12, "idks", KeyError), 12, "idks",
         "is missing"),
    Case("taraz", "BLEnD wrong type", "taraz_blend", BLEND, blend_set(20, "annotations", "میوه"), 20, "annotations",
         "expected list, got str"),
    Case("taraz", "BLEnD empty string", "taraz_blend", BLEND, blend_set(30, "question", " "), 30, "question",
         "is empty"),
    Case("taraz", "BLEnD duplicate id", "taraz_blend", BLEND, blend_duplicate(7, 2), 7, "id", "repeats row 3"),
    Case("taraz", "BLEnD empty reference list", "taraz_blend", BLEND, blend_empty_answers(0), 0, "annotations",
         "group 1 has an empty 'answers' list", cli=True),
    Case("taraz", "BLEnD non-UTF-8", "taraz_blend", BLEND, blend_not_utf8(40), 40, "question", NOT_UTF8),
    Case("taraz", "BLEnD truncated", "taraz_blend", BLEND, blend_cut(250), 250, "question", CUT),
    Case("taraz", "ISN-SAQ missing field", "taraz_isn_saq", ISN_SAQ,
         lambda p: replace(p, p.read_text(encoding="utf-8").replace(",برخاستن\n", "\n")), 1, "answer",
         "is missing: the row has 2 of the header's 3 columns"),
    Case("taraz", "ISN-SAQ empty reference", "taraz_isn_saq", ISN_SAQ, put(2, "answer", " "), 2, "answer", "is empty"),
    Case("taraz", "ISN-SAQ duplicate id", "taraz_isn_saq", ISN_SAQ, same_id(3, 0, "id"), 3, "id", "repeats row 1"),
    Case("taraz", "ISN-SAQ non-UTF-8", "taraz_isn_saq", ISN_SAQ, not_utf8(2, "question"), 2, "question", NOT_UTF8),
    Case("taraz", "ISN-SAQ truncated (in a quoted field)", "taraz_isn_saq", ISN_SAQ,
         cut_in("question", quote_all=True), 3, "question", CUT),
    Case("taraz", "ISN-SAQ truncated (mid-row)", "taraz_isn_saq", ISN_SAQ, cut_in("question"), 3, "answer",
         f"is missing: {CUT}"),
    Case("taraz", "ISN empty norm (reference)", "taraz_isn_saq_derived", ISN, put(10, "Norm - FA", ""), 10,
         "Norm - FA", "is empty"),
    Case("taraz", "PerCul-SAQ category outside the 11", "taraz_percul_saq", PERCUL_FA, put(6, "Category", "Sports"), 6,
         "Category", "expected one of the 11 PerCul categories"),
    # CAC
    Case("cac", "missing field", "cac_america", CAC_C, drop(2, "response_3"), 2, "response_3", "is missing"),
    Case("cac", "wrong type", "cac_america", CAC_A, put(4, "pick", "five"), 4, "pick", "expected int, got str 'five'"),
    Case("cac", "empty string", "cac_america", CAC_C, put(1, "situation", ""), 1, "situation", "is empty"),
    Case("cac", "duplicate id", "cac_cross_country", CAC_C, same_id(3, 0, "id"), 3, "id", "repeats row 1"),
    Case("cac", "pick above 5", "cac_america", CAC_A, put(5, "pick", 6), 5, "pick",
         "has value 6, expected a response number 1-5", cli=True),
    Case("cac", "pick 0", "cac_iran", "cac/annotations_iran.jsonl", put(0, "pick", "0"), 0, "pick",
         "has value 0, expected a response number 1-5"),
    Case("cac", "non-UTF-8", "cac_america", CAC_C, not_utf8(4, "first_turn"), 4, "first_turn", NOT_UTF8),
    Case("cac", "truncated", "cac_america", CAC_A, cut_in("annotator"), 143, "annotator", CUT),
]  # fmt: skip

RUN_SETTINGS = {"judge_model": "none", "embedding_model": "const"}


def corrupted_data_dir(tmp_path: Path, shared_data: Path, cases) -> Path:
    root = build_data_dir(tmp_path / "data", shared_data)
    for case in cases:
        case.corrupt(root / case.file)
    return root


def assert_names_file_row_field(message: str, case: Case, root: Path) -> None:
    where = re.escape(f"{root / case.file}: row {case.row + 1}")  # rows counted from 1: the corrupted index + 1
    assert re.match(where + r"\b", message), f"{case.id}: {message}"
    assert f"field {case.field!r}" in message, f"{case.id}: {message}"
    assert case.says in message, f"{case.id}: {message}"
    assert "Traceback" not in message and "\n" not in message.strip()


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_data_is_one_error_naming_file_row_and_field(case, shared_data, tmp_path):
    import lm_eval

    import lm_eval_persian_culture as pack
    from lm_eval_persian_culture.harness.preflight import PreflightError

    root = corrupted_data_dir(tmp_path, shared_data, [case])
    tm = pack.task_manager(include_defaults=False, metadata={"data_dir": str(root), **RUN_SETTINGS})
    with pytest.raises(PreflightError) as caught:  # the model path is never reached
        lm_eval.simple_evaluate(model="hf", model_args=f"pretrained={NO_MODEL}", tasks=[case.task], task_manager=tm)
    [problem] = caught.value.problems
    assert (problem.kind, problem.tasks) == ("data", [case.task]), problem
    assert_names_file_row_field(problem.message, case, root)


# Benchmarks whose bad data is tested only by their own tests, at the loader (DataSchemaError naming file, row
# and field), not yet through lm-eval's pre-flight and CLI here.
NOT_IN_THE_TABLE_YET = {
    "masal": "tests/masal/test_masal_data.py::test_schema_errors_name_file_row_and_field",
    "ghazal": "tests/ghazal/test_ghazal_data.py::test_malformed_files_name_file_row_and_field",
}


def test_every_benchmark_and_corruption_is_in_the_table():
    from lm_eval_persian_culture.tasks._benchmark import benchmark_folders

    wanted = {
        "taarof": {"missing field", "wrong type", "empty string", "duplicate id", "non-UTF-8", "truncated"},
        "divan": {"missing field", "wrong type", "empty string", "duplicate id", "broken pair", "non-UTF-8",
                  "truncated"},
        "percul": {"missing field", "wrong type", "empty string", "duplicate id", "category outside the 11",
                   "non-UTF-8", "truncated"},
        "taraz": {"missing field", "wrong type", "empty string", "duplicate id", "empty reference", "non-UTF-8",
                  "truncated"},
        "cac": {"missing field", "wrong type", "empty string", "duplicate id", "pick", "non-UTF-8", "truncated"},
    }  # fmt: skip
    for benchmark, corruptions in wanted.items():
        mine = [c.corruption for c in CASES if c.benchmark == benchmark]
        for corruption in corruptions:
            assert any(corruption in m for m in mine), (benchmark, corruption)
    assert {c.benchmark for c in CASES if c.cli} == set(wanted)
    # every benchmark folder is in the table, or named here with where its bad data is tested instead (so a new
    # folder fails this test until one or the other is written)
    assert set(wanted) | set(NOT_IN_THE_TABLE_YET) == {p.name for p in benchmark_folders()}


@pytest.mark.e2e
def test_bad_data_through_the_lm_eval_cli(shared_data, tmp_path):
    """One row per benchmark, all in one `lm_eval run`: one numbered line each, exit 2, no model loaded."""
    cases = [c for c in CASES if c.cli]
    root = corrupted_data_dir(tmp_path, shared_data, cases)
    out = tmp_path / "OUT"
    env = {**os.environ, "LMEVAL_LOG_LEVEL": "WARNING"}
    proc = subprocess.run(
        [str(Path(sys.executable).parent / "lm_eval"), "run", "--model", "hf", "--model_args", f"pretrained={NO_MODEL}",
         "--tasks", ",".join(c.task for c in cases), "--output_path", str(out),
         "--metadata", json.dumps({"data_dir": str(root), **RUN_SETTINGS})],
        capture_output=True, text=True, env=env, timeout=600,
    )  # fmt: skip
    if "Tasks not found" in proc.stderr and "did you mean" not in proc.stderr:
        pytest.skip("the startup hook that makes plain lm_eval find the pack is not installed")
    assert proc.returncode == 2, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
    assert NO_MODEL not in proc.stderr + proc.stdout  # the model was never loaded
    assert not out.exists()
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    head = lines.index(f"pre-flight: {len(cases)} problems found before loading the model (nothing was generated):")
    numbered = lines[head + 1 : head + 1 + len(cases)]
    for i, (line, case) in enumerate(zip(numbered, cases), start=1):
        prefix = f"  {i}. data [{case.task}]: "
        assert line.startswith(prefix), line
        assert_names_file_row_field(line[len(prefix) :], case, root)
