"""The shared data-source mechanism: local dir, schema errors naming file/row/field, provenance."""

from __future__ import annotations

import json
import shutil

import pytest

from lm_eval_persian_culture.data.sources import (
    Column,
    DataNotFoundError,
    DataSchemaError,
    HubSource,
    Schema,
    SourceFile,
    load_rows,
)
from lm_eval_persian_culture.tasks.taarof import utils as taarof


def _copy_taarof(shared_data, tmp_path):
    dst = tmp_path / "taarof"
    dst.mkdir()
    for name in ("taarof-expected.jsonl", "non-taarof.jsonl"):
        shutil.copy(shared_data / "taarof" / name, dst / name)
    return dst


def _rewrite_row(path, index, **changes):
    lines = path.read_text(encoding="utf-8").splitlines()
    row = json.loads(lines[index])
    for k, v in changes.items():
        if v is KeyError:
            row.pop(k)
        else:
            row[k] = v
    lines[index] = json.dumps(row)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_env_var_selects_the_data_dir(shared_data, monkeypatch):
    monkeypatch.setenv("PERSIAN_CULTURE_DATA_DIR", str(shared_data))
    rows, provenance = load_rows(taarof.SOURCES["non_taarof"])
    assert len(rows) == 139 and provenance.startswith(f"local:{shared_data}/taarof/non-taarof.jsonl sha256:")


def test_metadata_data_dir_wins_over_env(shared_data, tmp_path, monkeypatch):
    monkeypatch.setenv("PERSIAN_CULTURE_DATA_DIR", str(tmp_path / "nowhere"))
    rows, _ = load_rows(taarof.SOURCES["expected"], {"data_dir": str(shared_data)})
    assert len(rows) == 311


def test_missing_file_in_data_dir_is_a_clear_error(tmp_path):
    with pytest.raises(DataNotFoundError, match=r"taarof/taarof-expected\.jsonl: not found"):
        load_rows(taarof.SOURCES["expected"], {"data_dir": str(tmp_path)})


def test_empty_field_names_file_row_and_field(shared_data, tmp_path):
    path = _copy_taarof(shared_data, tmp_path) / "taarof-expected.jsonl"
    _rewrite_row(path, 17, Annotations="   ")
    with pytest.raises(DataSchemaError) as e:
        load_rows(taarof.SOURCES["expected"], {"data_dir": str(tmp_path)})
    assert str(e.value) == f"{path}: row 18: field 'Annotations' is empty"


def test_missing_field_names_the_columns(shared_data, tmp_path):
    path = _copy_taarof(shared_data, tmp_path) / "taarof-expected.jsonl"
    _rewrite_row(path, 0, Utterance=KeyError)
    with pytest.raises(DataSchemaError, match=r"columns found .* \(missing \['Utterance'\]\)"):
        load_rows(taarof.SOURCES["expected"], {"data_dir": str(tmp_path)})
    _rewrite_row(path, 0, Utterance="hi")
    _rewrite_row(path, 5, Utterance=KeyError)
    with pytest.raises(DataSchemaError, match=r"row 6: field 'Utterance' is missing"):
        load_rows(taarof.SOURCES["expected"], {"data_dir": str(tmp_path)})


def test_unexpected_value_is_reported(shared_data, tmp_path):
    path = _copy_taarof(shared_data, tmp_path) / "non-taarof.jsonl"
    _rewrite_row(path, 3, Setting="Party")
    with pytest.raises(DataSchemaError, match=r"row 4: field 'Setting' has value 'Party', expected one of"):
        load_rows(taarof.SOURCES["non_taarof"], {"data_dir": str(tmp_path)})
    _rewrite_row(path, 3, Setting="Casual", Topic="Gift,Dancing")
    with pytest.raises(DataSchemaError, match=r"row 4: field 'Topic' names unknown topic\(s\) \['Dancing'\]"):
        load_rows(taarof.SOURCES["non_taarof"], {"data_dir": str(tmp_path)})


def test_broken_json_line_is_reported_with_line_number(shared_data, tmp_path):
    path = _copy_taarof(shared_data, tmp_path) / "non-taarof.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    lines[9] = lines[9][:-5]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(
        DataSchemaError, match=r"non-taarof\.jsonl: row 10 \(line 10\): field 'Annotations': not valid JSON"
    ):
        load_rows(taarof.SOURCES["non_taarof"], {"data_dir": str(tmp_path)})


def test_wrong_type_and_csv_source(tmp_path):
    (tmp_path / "bench").mkdir()
    (tmp_path / "bench" / "items.csv").write_text("id,answer\n1,2\n2,x\n", encoding="utf-8")
    source = SourceFile("bench", "items.csv", Schema((Column("id", kind=int), Column("answer", kind=int))))
    with pytest.raises(DataSchemaError, match=r"items\.csv: row 2: field 'answer' expected int, got str 'x'"):
        load_rows(source, {"data_dir": str(tmp_path)})


def test_csv_reader_keeps_quoted_line_breaks_bom_and_crlf(tmp_path):
    """Strict CSV reading still takes what well-formed CSV allows (the shared ISN file has no final line break)."""
    from lm_eval_persian_culture.data.sources import read_local

    path = tmp_path / "items.csv"
    path.write_bytes('\ufeffid,text\r\n1,"سطر یک\r\nسطر دو, با ویرگول"\r\n2,آخر'.encode("utf-8"))
    assert read_local(path) == [{"id": "1", "text": "سطر یک\r\nسطر دو, با ویرگول"}, {"id": "2", "text": "آخر"}]


def test_bad_json_inside_a_file_is_not_called_truncated(tmp_path):
    from lm_eval_persian_culture.data.sources import read_local

    path = tmp_path / "items.jsonl"
    path.write_text('{"id": 1, "q": "a"}\n{"id": 2, "q": "b",, "x": 1}\n{"id": 3, "q": "c"}\n', encoding="utf-8")
    with pytest.raises(DataSchemaError, match=r"items\.jsonl: row 2 \(line 2\): field 'q': not valid JSON: "):
        read_local(path)
    path = tmp_path / "items.json"  # JSON lines under a .json name: the JSON-lines error is the one shown
    path.write_text('{"id": 1, "q": "a"}\n{"id": 2, "q": "b', encoding="utf-8")
    with pytest.raises(DataSchemaError, match=r"items\.json: row 2 \(line 2\): field 'q': the record is cut off"):
        read_local(path)


def test_a_json_list_of_records_names_row_and_field_of_a_bad_byte(tmp_path):
    from lm_eval_persian_culture.data.sources import read_local

    path = tmp_path / "items.json"
    text = json.dumps([{"id": 1, "q": "a"}, {"id": 2, "q": "@"}], ensure_ascii=False, indent=2)
    path.write_bytes(text.encode("utf-8").replace(b"@", "ب".encode("cp1256")))
    with pytest.raises(DataSchemaError, match=r"items\.json: row 2 \(line 8\): field 'q': not valid UTF-8 \(byte 0xc8"):
        read_local(path)


def test_hub_mapping_that_does_not_fit_lists_columns_found():
    from lm_eval_persian_culture.data.sources import _apply_column_map

    with pytest.raises(DataSchemaError) as e:
        _apply_column_map(
            [{"q": "?", "label": 1}], {"question": "question", "answer": "answer"}, "hf:x/y@main split=test"
        )
    assert "columns found ['q', 'label']" in str(e.value) and "missing ['question', 'answer']" in str(e.value)


def test_online_default_is_pinned_to_the_release_commit():
    for source in taarof.SOURCES.values():
        assert taarof.RELEASE_COMMIT in source.url
    assert HubSource("a/b", "0123abc", "test").revision == "0123abc"


def test_schema_error_happens_before_generation(shared_data, tmp_path, tiny_model):
    """A malformed source stops the run before the model loads (the pre-flight runs each task's loader)."""
    import lm_eval

    import lm_eval_persian_culture as pack

    path = _copy_taarof(shared_data, tmp_path) / "non-taarof.jsonl"
    _rewrite_row(path, 2, Context="")
    tm = pack.task_manager(include_defaults=False, metadata={"data_dir": str(tmp_path), "judge_model": "none"})
    from lm_eval_persian_culture.harness.preflight import PreflightError

    with pytest.raises((DataSchemaError, PreflightError), match=r"row 3: field 'Context' is empty"):
        lm_eval.simple_evaluate(
            model="hf", model_args=f"pretrained={tiny_model},dtype=float32", device="cpu",
            tasks=["taarof_non_taarof"], task_manager=tm, limit=2,
        )  # fmt: skip
