"""MasalBench's data contract: the authors' files in ../shared/data/masal (counts, options per item, the roles of
the answer keys), the pinned online location, and one error naming file, row and field for a bad row."""

from __future__ import annotations

import ast
import csv
import re
import shutil
from collections import Counter
from pathlib import Path

import pytest
from masal_testlib import FIXTURES

from lm_eval_persian_culture.data.sources import DataSchemaError
from lm_eval_persian_culture.tasks.masal import source
from lm_eval_persian_culture.tasks.masal.source import CONTEXTUAL, CROSS_CULTURAL, PARTS, load_items
from lm_eval_persian_culture.tasks.masal.utils import build_docs

LETTERS = ["الف", "ب", "ج", "د"]


def _raw_rows(path: Path) -> list[dict]:
    """The file read independently of the pack (stdlib csv, the answer key by ast)."""
    with open(path, encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


@pytest.fixture(scope="module")
def real(shared_data):
    folder = shared_data / "masal"
    if not (folder / CONTEXTUAL.filename).is_file():
        pytest.skip("../shared/data/masal is absent")
    settings = {"data_dir": str(shared_data)}
    return {name: (load_items(part, settings)[0], _raw_rows(folder / part.filename)) for name, part in PARTS.items()}


def test_item_counts_are_the_papers(real):
    # the abstract and SOURCE.md: 1,000 contextual items, 700 cross-cultural
    assert len(real["contextual"][0]) == len(real["contextual"][1]) == 1000
    assert len(real["cross_cultural"][0]) == len(real["cross_cultural"][1]) == 700


def test_options_per_item_and_role_counts(real):
    ctx, ctx_raw = real["contextual"]
    assert Counter(len(it["options"]) for it in ctx) == {4: 1000}
    # every contextual item: one option of each role (so each role's pick rate is over all 1,000 items)
    assert Counter(tuple(sorted(it["roles"])) for it in ctx) == {
        ("Correct", "Irrelevant", "Literal Trap", "Plausible but Wrong"): 1000
    }
    xc, xc_raw = real["cross_cultural"]
    assert Counter(len(it["options"]) for it in xc) == {2: 700}
    assert Counter(tuple(sorted(it["roles"])) for it in xc) == {("Equivalent", "Irrelevant"): 700}
    # where the right option sits, counted from the raw answer keys (stdlib csv + ast), and from the loader
    raw_ctx = Counter(next(k for k, v in ast.literal_eval(r["Answer Key"]).items() if v == "Correct") for r in ctx_raw)
    assert raw_ctx == {"الف": 255, "ب": 250, "ج": 256, "د": 239}
    assert Counter(it["letters"][it["answer_index"]] for it in ctx) == raw_ctx
    raw_trap = Counter(
        next(k for k, v in ast.literal_eval(r["Answer Key"]).items() if v == "Literal Trap") for r in ctx_raw
    )
    assert raw_trap == {"الف": 241, "ب": 247, "ج": 255, "د": 257}
    raw_xc = Counter(next(k for k, v in ast.literal_eval(r["Answer Key"]).items() if v == "Equivalent") for r in xc_raw)
    assert raw_xc == {"الف": 373, "ب": 327}
    assert Counter(it["letters"][it["answer_index"]] for it in xc) == raw_xc


def test_items_keep_the_question_verbatim_and_its_options(real):
    for name in PARTS:
        items, raw = real[name]
        for it, row in zip(items, raw):
            assert it["question"] == row["Question"]
            # each option line of the prompt is "<letter>) <text>", in order
            lines = row["Question"].split("گزینه‌ها:\n", 1)[1].split("\n")
            assert [f"{letter}) {text}" for letter, text in zip(it["letters"], it["options"])] == lines
            assert it["letters"] == LETTERS[: len(lines)]


def test_docs_carry_the_target_letter_and_provenance(shared_data):
    docs = build_docs("cross_cultural", {"data_dir": str(shared_data)})
    assert docs[0]["answer"] == "ب"  # row 0's key: {'الف': 'Irrelevant', 'ب': 'Equivalent'}
    assert docs[0]["id"] == "cross_cultural-0000" and docs[-1]["id"] == "cross_cultural-0699"
    assert re.fullmatch(r"local:.*/masal/crossCulturalQuestions\.csv sha256:[0-9a-f]{64}", docs[0]["provenance"])


def test_online_location_is_pinned_to_the_source_commit(shared_data):
    pinned = re.search(r"HEAD `([0-9a-f]{40})`", (shared_data / "masal" / "SOURCE.md").read_text()).group(1)
    assert source.RELEASE_COMMIT == pinned
    assert source.source_file(CONTEXTUAL).url == (
        f"https://raw.githubusercontent.com/kalhorghazal/MasalBench/{pinned}/contextualQuestions.csv"
    )
    mirror = source.source_file(CROSS_CULTURAL, {"masal_base_url": "http://127.0.0.1:8000/m/"})
    assert mirror.url == "http://127.0.0.1:8000/m/crossCulturalQuestions.csv"


def test_fixture_loads():
    settings = {"data_dir": str(FIXTURES)}
    assert [len(load_items(p, settings)[0]) for p in (CONTEXTUAL, CROSS_CULTURAL)] == [7, 4]


def _bad_copy(tmp_path: Path, filename: str, row: int, field: str, change) -> Path:
    shutil.copytree(FIXTURES / "masal", tmp_path / "masal")
    path = tmp_path / "masal" / filename
    rows = _raw_rows(path)
    rows[row][field] = change(rows[row][field])
    with open(path, "w", encoding="utf-8", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return path


@pytest.mark.parametrize(
    "filename, row, field, change, message",
    [
        ("contextualQuestions.csv", 2, "Answer Key", lambda v: v.replace("'Literal Trap'", "'Literal'"),
         "row 3: field 'Answer Key' has role 'Literal', expected one of ['Correct', 'Literal Trap', "
         "'Plausible but Wrong', 'Irrelevant']"),
        ("contextualQuestions.csv", 0, "Answer Key", lambda v: v.replace("'Literal Trap'", "'Correct'"),
         "row 1: field 'Answer Key' has 2 options marked 'Correct', expected exactly 1"),
        ("contextualQuestions.csv", 3, "Answer Key", lambda v: "ج",
         "row 4: field 'Answer Key' is not a dict literal such as {'الف': 'Correct', ...}: 'ج'"),
        ("contextualQuestions.csv", 4, "Question", lambda v: v.rsplit("\n", 1)[0],
         "row 5: field 'Question' has 3 options, expected 4 (الف, ب, ج, د)"),
        ("contextualQuestions.csv", 5, "Question", lambda v: v.replace("گزینه‌ها:", "Options:"),
         "row 6: field 'Question' has no line «گزینه‌ها:» before the options"),
        ("crossCulturalQuestions.csv", 1, "Answer Key", lambda v: "{'الف': 'Irrelevant', 'ج': 'Equivalent'}",
         "row 2: field 'Answer Key' names options ['الف', 'ج'], the question has ['الف', 'ب']"),
        ("crossCulturalQuestions.csv", 3, "Question", lambda v: v.replace("ب) ", "ج) "),
         "row 4: field 'Question' option line 2 «ج) Cheaters never prosper.» is not «ب) ...»"),
        ("crossCulturalQuestions.csv", 2, "Question", lambda v: " ", "row 3: field 'Question' is empty"),
    ],
)  # fmt: skip
def test_schema_errors_name_file_row_and_field(tmp_path, filename, row, field, change, message):
    path = _bad_copy(tmp_path, filename, row, field, change)
    part = next(p for p in PARTS.values() if p.filename == filename)
    with pytest.raises(DataSchemaError) as err:
        load_items(part, {"data_dir": str(tmp_path)})
    assert str(err.value) == f"{path}: {message}"


def test_a_missing_column_lists_the_columns_found(tmp_path):
    (tmp_path / "masal").mkdir()
    (tmp_path / "masal" / CONTEXTUAL.filename).write_text("Question,Key\nx,y\n", encoding="utf-8")
    with pytest.raises(DataSchemaError, match=r"\(missing \['Answer Key'\]\)"):
        load_items(CONTEXTUAL, {"data_dir": str(tmp_path)})


def test_every_conversation_has_two_lines_and_the_readme_shows_the_prompts_verbatim(real):
    readme = (Path(source.__file__).parent / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"^```[a-z]*\n(.*?)^```", readme, re.S | re.M)
    for part, opener in (("contextual", "مکالمه:\n"), ("cross_cultural", "ضرب‌المثل فارسی:\n")):
        items, _ = real[part]
        heads = {it["question"].split(opener, 1)[0] for it in items}
        assert len(heads) == 1  # one instruction for the whole file
        (head,) = heads
        shown = [b for b in blocks if b.startswith(head + opener)]
        assert len(shown) == 1, f"README shows no {part} prompt starting with the data's instruction"
        # after the instruction, the README's template has the data's own lines (placeholders aside)
        question_line = items[0]["question"].split("سؤال:\n", 1)[1].split("\n", 1)[0]
        assert question_line.split(" ", 1)[1] in shown[0]
    contexts = [it["question"].split("مکالمه:\n", 1)[1].split("\n\nسؤال:", 1)[0] for it in real["contextual"][0]]
    assert Counter(len(c.split("\n")) for c in contexts) == {2: 1000}
