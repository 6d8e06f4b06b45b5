"""GhazalBench's data: the release read from a data dir (../shared/data/ghazal), its counts, the Saadi prompts the
pack rebuilds, and one clear error per malformed file."""

from __future__ import annotations

import collections
import shutil
from pathlib import Path

import openpyxl
import pytest

from lm_eval_persian_culture.data.sources import DataSchemaError, load_rows
from lm_eval_persian_culture.tasks.ghazal.source import SOURCES, completion_docs, recognition_docs

FILES = (
    "completionQsHafez.xlsx",
    "completionQsSaadi.xlsx",
    "completionQsEnglish.xlsx",
    "multipleChoiceQsHafez.xlsx",
    "multipleChoiceQsSaadi.xlsx",
)


@pytest.fixture(scope="module")
def settings(shared_data) -> dict:
    if not (shared_data / "ghazal" / FILES[0]).is_file():
        pytest.skip("../shared/data/ghazal is missing")
    return {"data_dir": str(shared_data)}


def test_counts(settings):
    # the paper's and SOURCE.md's counts: 438 Hafez couplets, 498 Saadi, 350 sonnet couplets, in every cue
    sizes = {name: len(load_rows(source, settings)[0]) for name, source in SOURCES.items()}
    assert sizes == {
        "completion_hafez": 438,
        "completion_saadi": 498,
        "completion_english": 350,
        "recognition_hafez": 438,
        "recognition_saadi": 498,
    }
    for poet, cues, n in (
        ("hafez", ("name", "prose", "para", "salient", "shuffle"), 438),
        ("saadi", ("name", "prose", "para", "shuffle"), 498),
        ("shakespeare", ("name", "salient", "shuffle"), 350),
    ):
        for cue in cues:
            docs, provenance = completion_docs(poet, cue, settings)
            assert len(docs) == n and len({(d["poem"], d["couplet"]) for d in docs}) == n, (poet, cue)
            assert provenance.startswith("local:") and "sha256:" in provenance
    for poet, n in (("hafez", 438), ("saadi", 498)):
        for cue in ("baseline", "prose", "para"):
            docs, _ = recognition_docs(poet, cue, settings)
            assert len(docs) == n
            # three options: the couplet's own second hemistich, one of the same ghazal, one of the same poet
            assert {tuple(sorted(d["roles"])) for d in docs} == {("Correct", "Same Ghazal", "Same Poet")}
        docs, _ = recognition_docs(poet, "shuffle", settings)
        assert len(docs) == n and {tuple(sorted(d["roles"])) for d in docs} == {("Correct", "Shuffled")}
    # the right letter is spread over the options (not always the same position)
    docs, _ = recognition_docs("hafez", "baseline", settings)
    assert collections.Counter(d["answer"] for d in docs) == {"الف": 151, "ب": 154, "ج": 133}


def _hafez_question(settings, column: str, row: int = 0) -> str:
    rows, _ = load_rows(SOURCES["completion_hafez"], settings)
    return rows[row][column]


# Saadi's first couplet, as the release spells it (its first hemistich; the shuffled second hemistich and the
# paraphrase of its recognition file)
SAADI_FIRST = "ای نفسِ خرّمِ بادِ صبا"
SAADI_GOLD = "از برِ یار آمده\u200cای، مرحبا"
SAADI_SHUFFLED = "یار از آمده\u200cای، مرحبا برِ"
SAADI_PARA = (
    "نسیم بامدادی که باعث زنده شدن روح می\u200cشود، شایسته تحسین است؛ زیرا از نزد معشوق می\u200cآید و عطر "
    "دلپذیر و تازه\u200cاش ناشی از حضور در کنار اوست."
)
HAFEZ_FIRST = "صلاح کار کجا و من خراب کجا"  # Hafez's first couplet
HAFEZ_SHUFFLED = "ره به کجاست ببین کجا تفاوت تا از"
HAFEZ_PARA = (
    "میان تدبیر درست در کارها و وضعیت آشفته و ناهشیار من، تضاد عمیقی وجود دارد؛ ملاحظه کن که فاصله میان من و "
    "سامان دادن به امور تا چه اندازه زیاد است."
)


def test_saadi_prompts_are_the_hafez_ones_with_saadis_couplet(settings):
    """Expected prompts derived by hand from the released Hafez cells: the poet's name and the couplet's texts
    swapped for Saadi's (not through the pack's template code)."""
    name = _hafez_question(settings, "Question (Name)")
    shuffle = _hafez_question(settings, "Question (Name + Shuffle)")
    para = _hafez_question(settings, "Question (Name + Para)")
    docs = {cue: completion_docs("saadi", cue, settings)[0][0] for cue in ("name", "para", "shuffle")}
    assert docs["name"]["prompt"] == name.replace("حافظ", "سعدی").replace(HAFEZ_FIRST, SAADI_FIRST)
    assert docs["para"]["prompt"] == para.replace("حافظ", "سعدی").replace(HAFEZ_FIRST, SAADI_FIRST).replace(
        HAFEZ_PARA, SAADI_PARA
    )
    assert docs["shuffle"]["prompt"] == shuffle.replace("حافظ", "سعدی").replace(
        f"<first_verse>{HAFEZ_FIRST}", f"<first_verse>{SAADI_FIRST}"
    ).replace(HAFEZ_SHUFFLED, SAADI_SHUFFLED)
    assert all(d["gold"] == SAADI_GOLD and d["first"] == SAADI_FIRST for d in docs.values())
    assert docs["name"]["prompt"].endswith(f"مصراع اول:\n<first_verse>{SAADI_FIRST}</first_verse>")
    # every Saadi prompt's instructions name Saadi only (the shuffle cue's worked examples are Hafez's lines, not
    # his name; one Saadi prose says خداحافظی)
    for cue in ("name", "prose", "para", "shuffle"):
        prompts = [d["prompt"].split("<first_verse>")[0] for d in completion_docs("saadi", cue, settings)[0]]
        assert not any("حافظ" in p for p in prompts) and all("سعدی" in p for p in prompts), cue


def test_hafez_and_english_prompts_are_the_released_cells(settings):
    docs, _ = completion_docs("hafez", "salient", settings)
    assert docs[0]["prompt"] == _hafez_question(settings, "Question (Name + Salient)")
    assert docs[0]["prompt"].endswith('واژه\u200cها:\n["تفاوت", "کجا"]') and docs[0]["gold"] == (
        "ببین تفاوت ره از کجاست تا به کجا"
    )
    docs, _ = completion_docs("shakespeare", "name", settings)
    assert docs[0]["first"] == "When forty winters shall besiege thy brow,"
    assert docs[0]["gold"] == "And dig deep trenches in thy beauty’s field,"
    assert docs[0]["prompt"].endswith("<first_line>When forty winters shall besiege thy brow,</first_line>")


def _copy_with(settings, tmp_path: Path, filename: str, edit) -> dict:
    """A data dir whose ``filename`` is the release's with ``edit(sheet)`` applied."""
    folder = tmp_path / "ghazal"
    folder.mkdir(parents=True)
    for name in FILES:
        shutil.copy(Path(settings["data_dir"]) / "ghazal" / name, folder / name)
    book = openpyxl.load_workbook(folder / filename)
    edit(book.worksheets[0])
    book.save(folder / filename)
    return {"data_dir": str(tmp_path)}


def _column(sheet, name: str) -> int:
    return next(c.column for c in sheet[1] if c.value == name)


def test_malformed_files_name_file_row_and_field(settings, tmp_path):
    def no_separator(sheet):  # data row 4 (rows counted from 1) is sheet row 5 (sheet row 1 is the header)
        sheet.cell(5, _column(sheet, "Couplet Text")).value = "یک مصراع بی جداکننده"

    bad = _copy_with(settings, tmp_path / "a", "completionQsHafez.xlsx", no_separator)
    with pytest.raises(DataSchemaError, match=r"completionQsHafez\.xlsx: row 4: field 'Couplet Text' expected"):
        completion_docs("hafez", "name", bad)

    def unknown_role(sheet):
        sheet.cell(2, _column(sheet, "Answer Key")).value = "{'الف': 'Same Poet', 'ب': 'Correct', 'ج': 'Other'}"

    bad = _copy_with(settings, tmp_path / "b", "multipleChoiceQsSaadi.xlsx", unknown_role)
    with pytest.raises(DataSchemaError, match=r"multipleChoiceQsSaadi\.xlsx: row 1: field 'Answer Key' has unknown"):
        recognition_docs("saadi", "baseline", bad)

    def other_template(sheet):  # a Hafez prompt worded differently: no single template for Saadi's
        cell = sheet.cell(12, _column(sheet, "Question (Name)"))
        cell.value = cell.value.replace("لطفاً", "لطفا")

    bad = _copy_with(settings, tmp_path / "c", "completionQsHafez.xlsx", other_template)
    with pytest.raises(DataSchemaError, match=r"field 'Question \(Name\)': rows 1 and 11 use different templates"):
        completion_docs("saadi", "name", bad)


def test_a_missing_file_says_where_it_belongs(tmp_path):
    (tmp_path / "ghazal").mkdir()
    with pytest.raises(FileNotFoundError, match=r"ghazal/completionQsEnglish\.xlsx: not found"):
        completion_docs("shakespeare", "name", {"data_dir": str(tmp_path)})
