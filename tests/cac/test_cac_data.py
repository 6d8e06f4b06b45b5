"""CAC data: the pack's schema, checks before any model time (file, row, field), the cac_iran refusal,
ranges computed from the picks, the rendered App. B prompt."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from cac_testlib import ACCEPTED, ACCEPTED_IRAN, FIXTURES, data_dir_with_iran

from lm_eval_persian_culture.data.sources import DataNotFoundError, DataSchemaError
from lm_eval_persian_culture.tasks.cac import utils


def _copy(tmp_path: Path) -> Path:
    root = tmp_path / "data"
    shutil.copytree(FIXTURES / "cac", root / "cac")
    return root


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _write(path: Path, rows: list[dict]) -> None:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")


def _edit(root: Path, name: str, row: int, **changes) -> Path:
    path = root / "cac" / name
    rows = _rows(path)
    for key, value in changes.items():
        if value is _DROP:
            rows[row].pop(key)
        else:
            rows[row][key] = value
    _write(path, rows)
    return path


_DROP = object()


def test_docs_carry_the_ranges_computed_from_the_picks():
    docs = utils.build_docs(utils.COUNTRIES, utils.ANNOTATIONS, {"data_dir": str(FIXTURES)})
    assert len(docs) == 6 * 8
    # conversation-major: c1 under all eight countries, then c2, ...
    assert [d["conversation_id"] for d in docs[:9]] == ["c1"] * 8 + ["c2"]
    assert [d["country"] for d in docs[:8]] == list(utils.COUNTRIES)
    for d in docs:
        assert (d["accepted_first"], d["accepted_last"]) == ACCEPTED[d["conversation_id"]][d["country"]]
        assert d["provenance"].startswith("conversations: local:") and "annotations: local:" in d["provenance"]
        assert d["sigma"] == "sample"
    c3_china = next(d for d in docs if d["conversation_id"] == "c3" and d["country"] == "china")
    assert sorted(c3_china["picks"]) == [1, 2, 5] and c3_china["target"] == "1-4"
    assert c3_china["relationship"] == "grandparent_grandchild" and c3_china["stylistic_axis"] == "insistence_yielding"


def test_population_sigma_setting_changes_only_the_cell_it_should():
    docs = utils.build_docs(utils.COUNTRIES, utils.ANNOTATIONS, {"data_dir": str(FIXTURES), "cac_sigma": "population"})
    changed = [(d["conversation_id"], d["country"]) for d in docs
               if (d["accepted_first"], d["accepted_last"])
               != ACCEPTED[d["conversation_id"]][d["country"]]]  # fmt: skip
    assert changed == [("c3", "china")]  # {1,2,5}: 2..4 with the population sigma
    with pytest.raises(ValueError, match="cac_sigma='std'"):
        utils.build_docs(utils.COUNTRIES, utils.ANNOTATIONS, {"data_dir": str(FIXTURES), "cac_sigma": "std"})


def test_a_corrected_annotation_file_changes_the_ranges(tmp_path):
    root = _copy(tmp_path)
    rows = _rows(root / "cac" / "annotations.jsonl")
    # c2 / Japan was {1,1,1} -> 1..1; make it {1,1,3}: mu 5/3, s = sqrt((4/9+4/9+16/9)/2) = 1.1547,
    # ± 0.7783 -> [0.888, 2.445] -> 1..2
    i = next(k for k, r in enumerate(rows) if r["conversation_id"] == "c2" and r["country"] == "japan")
    rows[i]["pick"] = 3
    _write(root / "cac" / "annotations.jsonl", rows)
    docs = utils.build_docs({"japan": "Japan"}, utils.ANNOTATIONS, {"data_dir": str(root)})
    c2 = next(d for d in docs if d["conversation_id"] == "c2")
    assert (c2["accepted_first"], c2["accepted_last"]) == (1, 2)


@pytest.mark.parametrize(
    "name, row, changes, message",
    [
        ("annotations.jsonl", 5, {"pick": 6}, "row 6: field 'pick' has value 6, expected a response number 1-5"),
        ("annotations.jsonl", 0, {"pick": 0}, "row 1: field 'pick' has value 0"),
        ("annotations.jsonl", 3, {"pick": "x"}, "row 4: field 'pick' expected int"),
        ("annotations.jsonl", 2, {"pick": None}, "row 3: field 'pick' is missing"),
        ("annotations.jsonl", 7, {"country": "France"}, "row 8: field 'country' has value 'France'"),
        ("annotations.jsonl", 7, {"country": "Iran"}, "Iranian picks go into annotations_iran.jsonl"),
        (
            "annotations.jsonl",
            9,
            {"conversation_id": "c99"},
            "row 10: field 'conversation_id' value 'c99' names no conversation",
        ),
        (
            "annotations.jsonl",
            1,
            {"annotator": "america-1"},
            "row 2: field 'annotator' 'america-1' already picked for conversation 'c1' in America (row 1)",
        ),
        ("conversations.jsonl", 2, {"relationship": "Cousins"}, "row 3: field 'relationship' has value 'Cousins'"),
        ("conversations.jsonl", 4, {"stylistic_axis": "Humour"}, "row 5: field 'stylistic_axis' has value 'Humour'"),
        ("conversations.jsonl", 1, {"response_3": "  "}, "row 2: field 'response_3' is empty"),
        ("conversations.jsonl", 3, {"first_turn": _DROP}, "row 4: field 'first_turn' is missing"),
        ("conversations.jsonl", 5, {"id": "c1"}, "row 6: field 'id' value 'c1' repeats row 1"),
    ],
)
def test_bad_rows_are_named_before_any_model_time(tmp_path, name, row, changes, message):
    root = _copy(tmp_path)
    path = _edit(root, name, row, **changes)
    with pytest.raises(DataSchemaError) as err:
        utils.load_country("america", data_dir=str(root))
    assert str(path) in str(err.value)
    assert message in str(err.value)


def test_relationship_and_axis_spellings_are_accepted(tmp_path):
    root = _copy(tmp_path)
    _edit(root, "conversations.jsonl", 1, relationship="boss/employee", stylistic_axis="Politeness-Rudeness")
    _edit(root, "conversations.jsonl", 0, relationship="Neighbours")
    docs = utils.build_docs({"korea": "Korea"}, utils.ANNOTATIONS, {"data_dir": str(root)})
    assert [(d["relationship"], d["stylistic_axis"]) for d in docs[:2]] == [
        ("neighbors", "directness_indirectness"),
        ("boss_employee", "politeness_rudeness"),
    ]


def test_a_country_without_picks_for_a_conversation(tmp_path):
    root = _copy(tmp_path)
    path = root / "cac" / "annotations.jsonl"
    _write(path, [r for r in _rows(path) if not (r["conversation_id"] == "c4" and r["country"] == "nigeria")])
    with pytest.raises(
        DataSchemaError, match=r"conversation 'c4' has no pick from Nigeria \(field 'country' = 'nigeria'\)"
    ):
        utils.load_country("nigeria", data_dir=str(root))


def test_upstream_layout_that_does_not_fit_names_the_expected_columns(tmp_path):
    root = tmp_path / "data"
    (root / "cac").mkdir(parents=True)
    shutil.copy(FIXTURES / "cac" / "annotations.jsonl", root / "cac")
    # a guess at a spreadsheet-like upstream layout: other column names
    _write(
        root / "cac" / "conversations.jsonl",
        [{"Situation": "s", "Relationship": "Friends", "Initial statement": "t", "Response 1": "r"}],
    )
    with pytest.raises(DataSchemaError) as err:
        utils.load_country("india", data_dir=str(root))
    text = str(err.value)
    assert "conversations.jsonl" in text and "columns found ['Situation', 'Relationship'" in text
    assert (
        "fields id, situation, relationship, stylistic_axis, characters, first_turn, response_1, response_2, "
        "response_3, response_4, response_5"
    ) in text


def test_no_data_dir_says_where_the_data_must_go():
    with pytest.raises(
        DataNotFoundError,
        match=r"CAC: no data dir is set.*culturally_aware_conversations.*"
        r"<data_dir>/cac/conversations.jsonl",
    ):
        utils.load_country("japan")


def test_a_data_dir_without_cac_files(tmp_path):
    with pytest.raises(DataNotFoundError, match="cac/conversations.jsonl: not found"):
        utils.load_country("japan", data_dir=str(tmp_path))


# ---------------------------------------------------------------------------- cac_iran
def test_cac_iran_refuses_without_iranian_annotations(tmp_path):
    with pytest.raises(DataNotFoundError) as err:
        utils.load_iran(data_dir=str(FIXTURES))
    text = str(err.value)
    assert f"cac_iran: no Iranian annotations supplied: {FIXTURES / 'cac' / 'annotations_iran.jsonl'} not found" in text
    assert "never makes up ranges" in text
    with pytest.raises(
        DataNotFoundError,
        match=r"no Iranian annotations supplied: <data_dir>/cac/annotations_iran.jsonl \(no data dir is set\)",
    ):
        utils.load_iran()


def test_cac_iran_with_iranian_annotations(tmp_path):
    docs = utils.load_iran(data_dir=str(data_dir_with_iran(tmp_path)))["test"]
    assert len(docs) == 6
    assert {d["conversation_id"]: (d["accepted_first"], d["accepted_last"]) for d in docs} == ACCEPTED_IRAN
    assert {d["country_name"] for d in docs} == {"Iran"}


def test_iranian_file_holds_only_iranian_picks(tmp_path):
    root = data_dir_with_iran(tmp_path)
    path = _edit(root, "annotations_iran.jsonl", 4, country="japan")
    with pytest.raises(
        DataSchemaError, match=rf"{path}: row 5: field 'country' has value 'japan', expected one of \['Iran'\]"
    ):
        utils.load_iran(data_dir=str(root))


# ---------------------------------------------------------------------------- the prompt
def test_rendered_prompt_is_app_b_verbatim():
    docs = utils.build_docs({"japan": "Japan"}, utils.ANNOTATIONS, {"data_dir": str(FIXTURES)})
    expected = (
        "You are an expert in intercultural communication. Given a country, a social situation, a pair of characters, "
        "and the first turn in a conversation, your task is to select the response that best reflects the cultural "
        "and stylistic norms and communication practices of the specified country.\n"
        "\n"
        "Country: Japan\n"
        "Situation: Over the fence, Neighbor A tells Neighbor B that the roof of their shared boundary house got "
        "damaged in last night's storm.\n"
        "Characters: Neighbor A, Neighbor B\n"
        "First turn: Neighbor B: Hey, did you notice anything odd about the roof after the storm?\n"
        "\n"
        "Possible responses:\n"
        "\n"
        "1. Our shared roof was damaged by last night's storm.\n"
        "2. The storm wrecked our roof along the boundary last night.\n"
        "3. It appears that last night's storm damaged our shared roof.\n"
        "4. It seems the storm may have affected our roof.\n"
        "5. I'm not certain, but I've heard our roof might be affected.\n"
        "\n"
        "Your answer should be the number (1-5) corresponding to the response that best fits the cultural context. "
        "Generate only the number as your response, without any additional text or explanation."
    )
    assert utils.doc_to_text(docs[0]) == expected
