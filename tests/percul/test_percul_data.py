"""PerCul's data contract (source.py): local copies in three formats, validation, hub failures."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from lm_eval_persian_culture.data.sources import DataNotFoundError, DataSchemaError
from lm_eval_persian_culture.tasks.percul import source
from lm_eval_persian_culture.tasks.percul.source import CATEGORIES, SPLITS, load_items

FIXTURES = Path(__file__).resolve().parent / "fixtures"  # holds percul/<split>.jsonl
FA, EN = SPLITS["fa"], SPLITS["en"]


def _settings(data_dir: Path = FIXTURES) -> dict:
    return {"data_dir": str(data_dir)}


def _rows(split: str) -> list[dict]:
    path = FIXTURES / "percul" / f"{split}.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _write(tmp_path: Path, split: str, rows: list[dict]) -> Path:
    folder = tmp_path / "percul"
    folder.mkdir(exist_ok=True)
    path = folder / f"{split}.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def test_contract_constants():
    assert len(CATEGORIES) == 11 and len(set(CATEGORIES)) == 11
    assert SPLITS == {"fa": "original_persian", "en": "gpt_english_translation"}


def test_fixture_items_in_both_languages():
    fa, provenance = load_items(FA, _settings())
    en, _ = load_items(EN, _settings())
    path = FIXTURES / "percul" / "original_persian.jsonl"
    assert provenance.startswith(f"local:{path} sha256:")
    assert len(fa) == len(en) == 10
    assert all(set(it) == {"id", "category", "topic", "story", "options", "answer_index"} for it in fa + en)
    assert [it["id"] for it in fa] == [it["id"] for it in en]
    # Correct Choice in the file: 1,2,3,4,1,2,3,4,2,3 -> 0-based
    assert [it["answer_index"] for it in fa] == [0, 1, 2, 3, 0, 1, 2, 3, 1, 2]
    counts = {c: sum(it["category"] == c for it in fa) for c in CATEGORIES}
    assert {c: n for c, n in counts.items() if n} == {"Foods": 4, "Rituals": 3, "Objects": 2, "Music": 1}
    assert fa[0]["options"] == ["قورمه‌سبزی", "قیمه", "آش رشته", "کوکو سبزی"]
    assert en[0]["options"] == ["Ghormeh sabzi", "Gheymeh", "Ash reshteh", "Kuku sabzi"]
    assert fa[0]["id"] == "1_O_FOO" and isinstance(fa[0]["answer_index"], int)
    assert en[9]["options"][en[9]["answer_index"]] == "Santur"


def test_csv_and_parquet_copies_give_the_same_items(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = _rows(FA)
    (tmp_path / "percul").mkdir()
    with open(tmp_path / "percul" / f"{FA}.csv", "w", encoding="utf-8", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)  # Correct Choice becomes the text "1".."4"
    expected, _ = load_items(FA, _settings())
    got_csv, prov = load_items(FA, _settings(tmp_path))
    assert got_csv == expected and prov.startswith(f"local:{tmp_path}/percul/{FA}.csv sha256:")

    pq.write_table(pa.Table.from_pylist(_rows(EN)), tmp_path / "percul" / f"{EN}.parquet")
    got_parquet, prov = load_items(EN, _settings(tmp_path))
    assert got_parquet == load_items(EN, _settings())[0]
    assert prov.startswith(f"local:{tmp_path}/percul/{EN}.parquet sha256:")


def test_broken_parquet_is_named(tmp_path):
    (tmp_path / "percul").mkdir()
    (tmp_path / "percul" / f"{FA}.parquet").write_bytes(b"not parquet")
    with pytest.raises(DataSchemaError, match=rf"{FA}\.parquet: not a readable parquet file"):
        load_items(FA, _settings(tmp_path))


def test_missing_split_in_data_dir_names_the_accepted_files(tmp_path):
    (tmp_path / "percul").mkdir()
    with pytest.raises(DataNotFoundError) as e:
        load_items(EN, _settings(tmp_path))
    msg = str(e.value)
    assert f"{tmp_path}/percul/{EN}.jsonl: not found" in msg
    assert f"{EN}.csv" in msg and f"{EN}.parquet" in msg


def test_category_spelling_is_matched_without_case(tmp_path):
    rows = _rows(FA)
    rows[9]["Category"] = "  music "
    rows[0]["Category"] = "FOODS"
    _write(tmp_path, FA, rows)
    items, _ = load_items(FA, _settings(tmp_path))
    assert items[9]["category"] == "Music" and items[0]["category"] == "Foods"


@pytest.mark.parametrize(
    "row, change, message",
    [
        (
            3,
            {"Category": "Cuisine"},
            "row 4: field 'Category' has value 'Cuisine', expected one of the 11 PerCul categories",
        ),
        (5, {"Correct Choice": 5}, "row 6: field 'Correct Choice' has value 5, expected one of [1, 2, 3, 4]"),
        (0, {"Correct Choice": 0}, "row 1: field 'Correct Choice' has value 0, expected one of [1, 2, 3, 4]"),
        (2, {"Correct Choice": "B"}, "row 3: field 'Correct Choice' expected int, got str 'B'"),
        (7, {"Choice 3": "  "}, "row 8: field 'Choice 3' is empty"),
        (8, {"Choice 1": None}, "row 9: field 'Choice 1' is missing (null)"),
        (4, {"Story": ""}, "row 5: field 'Story' is empty"),
        (6, {"ID": "1_O_FOO"}, "row 7: field 'ID' value '1_O_FOO' repeats row 1"),
    ],
)
def test_schema_errors_name_file_row_and_field(tmp_path, row, change, message):
    rows = _rows(FA)
    rows[row].update(change)
    path = _write(tmp_path, FA, rows)
    with pytest.raises(DataSchemaError) as e:
        load_items(FA, _settings(tmp_path))
    assert str(e.value).startswith(f"{path}: ")
    assert message in str(e.value)


def test_missing_column_lists_the_columns_found(tmp_path):
    rows = _rows(EN)
    for r in rows:
        r.pop("Choice 4")
    _write(tmp_path, EN, rows)
    with pytest.raises(DataSchemaError, match=r"\(missing \['Choice 4'\]\)"):
        load_items(EN, _settings(tmp_path))


def test_unknown_split_is_refused():
    with pytest.raises(ValueError, match="expected one of"):
        load_items("train", _settings())


# --------------------------------------------------------------------------- the hub
def _hub_failure(monkeypatch, exc: Exception) -> list:
    import datasets

    calls = []

    def fake_load_dataset(*args, **kwargs):
        calls.append((args, kwargs))
        raise exc

    monkeypatch.setattr(datasets, "load_dataset", fake_load_dataset)
    return calls


def _gated_error() -> Exception:
    """What huggingface_hub raises for a gated repo (a 403 answer carrying X-Error-Code: GatedRepo)."""
    import requests
    from huggingface_hub.errors import GatedRepoError

    response = requests.Response()
    response.status_code = 403
    response.url = "https://huggingface.co/api/datasets/teias-ai/percul/revision/main"
    return GatedRepoError("403 Client Error. Cannot access gated repo for url ...", response=response)


def test_gated_hub_is_one_line_saying_what_to_do(monkeypatch):
    calls = _hub_failure(monkeypatch, _gated_error())
    with pytest.raises(DataNotFoundError) as e:
        load_items(FA)
    assert calls and calls[0][0][0] == "teias-ai/percul"
    assert calls[0][1]["revision"] == source.HUB_REVISION and calls[0][1]["split"] == FA
    msg = str(e.value)
    assert "\n" not in msg
    assert "gated" in msg and "https://huggingface.co/datasets/teias-ai/percul" in msg
    assert "huggingface-cli login" in msg and "HF_TOKEN" in msg and "data_dir" in msg
    assert e.value.__cause__ is None and e.value.__suppress_context__


def test_datasets_gated_message_is_recognised(monkeypatch):
    from datasets.exceptions import DatasetNotFoundError

    _hub_failure(
        monkeypatch,
        DatasetNotFoundError(
            "Dataset 'teias-ai/percul' is a gated dataset on the Hub. You must be authenticated to access it."
        ),
    )
    with pytest.raises(DataNotFoundError, match="gated dataset: accept its terms"):
        load_items(EN)


def test_unreachable_hub_is_one_line(monkeypatch):
    _hub_failure(monkeypatch, ConnectionError("Couldn't reach 'teias-ai/percul' on the Hub (LocalEntryNotFoundError)"))
    with pytest.raises(DataNotFoundError) as e:
        load_items(FA)
    msg = str(e.value)
    assert "\n" not in msg and "could not be read from the hub" in msg and "gated" not in msg
    assert "ConnectionError: Couldn't reach" in msg and "HF_HUB_OFFLINE" in msg
