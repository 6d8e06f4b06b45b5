"""The pack's completion scorer gives every reply the label the authors' scripts give it.

The reference is the authors' own code: ``calcRecallPersian.py`` / ``calcRecallEnglish.py`` from
../shared/data/ghazal (never copied into the repository). Each script is a notebook export: definitions, then a
loop per model column, ``df.at[i, score] = recallLabel(extractAnswer(row[model]), row[gold])`` over a spreadsheet.
Run whole, it fails under pandas 3 (it writes a label into a float column it made with ``np.nan``), so the test
executes the script's own statements except those that touch that spreadsheet (``df``; the test checks those
are all it leaves out), and applies its functions as its loop does.
"""

from __future__ import annotations

import ast
import collections
import contextlib
import io
from pathlib import Path

import pytest

from lm_eval_persian_culture.tasks.ghazal.scoring import (
    COMPLETE,
    NON_RETRIEVAL,
    PARTIAL,
    allowed_edits,
    extract_answer,
    normalize_persian,
    recall_label,
    score_reply,
)
from lm_eval_persian_culture.tasks.ghazal.source import completion_docs
from tests.ghazal.replies import cases

SCRIPTS = {"fa": ("calcRecallPersian.py", "recallLabel"), "en": ("calcRecallEnglish.py", "retrievalLabel")}


def _touches_the_spreadsheet(node: ast.stmt) -> bool:
    return any(isinstance(n, ast.Name) and n.id == "df" for n in ast.walk(node))


def authors_scorer(ghazal_data: Path, language: str):
    """``reply, gold -> label`` by the authors' script's own functions (its statements run, the spreadsheet's
    left out), composed as its per-row loop composes them."""
    script, label_fn = SCRIPTS[language]
    tree = ast.parse((ghazal_data / script).read_text(encoding="utf-8"))
    kept = [node for node in tree.body if not _touches_the_spreadsheet(node)]
    left_out = [node for node in tree.body if _touches_the_spreadsheet(node)]
    # what is left out is the spreadsheet's reading, display, the loops over its rows and its writing
    assert all(isinstance(n, (ast.Assign, ast.Expr, ast.For)) for n in left_out)
    loops = [n for n in left_out if isinstance(n, ast.For)]
    assert loops and all(f"{label_fn}(pred, gold)" in ast.unparse(n) and "extractAnswer(row[" in ast.unparse(n)
                         for n in loops)  # fmt: skip
    namespace: dict = {}
    exec(compile(ast.Module(body=kept, type_ignores=[]), script, "exec"), namespace)  # noqa: S102 - the reference
    extract, label = namespace["extractAnswer"], namespace[label_fn]

    def score(reply: str, gold: str) -> str:
        with contextlib.redirect_stdout(io.StringIO()):  # it prints "Format error", "long", "too long"
            return label(extract(reply), gold)

    return score


def authors_labels(ghazal_data: Path, language: str, replies: list[str], golds: list[str]) -> list[str]:
    score = authors_scorer(ghazal_data, language)
    return [score(reply, gold) for reply, gold in zip(replies, golds)]


@pytest.fixture(scope="module")
def ghazal_data(shared_data) -> Path:
    folder = shared_data / "ghazal"
    if not (folder / "calcRecallPersian.py").is_file():
        pytest.skip("../shared/data/ghazal holds no authors' scripts")
    return folder


def _golds(ghazal_data: Path, poet: str, rows: list[int]) -> list[tuple[str, str]]:
    docs, _ = completion_docs(poet, "name", {"data_dir": str(ghazal_data.parent)})
    return [(docs[i]["first"], docs[i]["gold"]) for i in rows]


def _agreement(ghazal_data, language, corpus):
    replies = [reply for _, reply, _ in corpus]
    golds = [gold for _, _, gold in corpus]
    reference = authors_labels(ghazal_data, language, replies, golds)
    ours = [score_reply(reply, gold, language)[0] for reply, gold in zip(replies, golds)]
    differ = [(kind, reply, gold, r, o) for (kind, reply, gold), r, o in zip(corpus, reference, ours) if r != o]
    assert not differ, f"{len(differ)} of {len(corpus)} labels differ, e.g. {differ[:3]}"
    return reference


def test_persian_labels_equal_the_authors_script(ghazal_data):
    # Hafez and Saadi second hemistichs (rows with a normalised gold of 40+ characters among them: the second
    # length band), and whole couplets and prose paraphrases as golds for the 40-80 and 80+ bands
    golds = _golds(ghazal_data, "hafez", [0, 1, 2, 10, 11, 15, 50, 106, 200, 231, 300, 437])
    golds += _golds(ghazal_data, "saadi", [0, 5, 70, 99, 244, 300, 450, 454, 497])
    docs, _ = completion_docs("hafez", "prose", {"data_dir": str(ghazal_data.parent)})
    golds += [("", f"{d['first']} / {d['gold']}") for d in docs[20:26]]
    golds += [("", d["prompt"].rsplit("<couplet_prose>", 1)[1].split("</couplet_prose>")[0]) for d in docs[30:33]]
    corpus = cases(golds, "fa")
    reference = _agreement(ghazal_data, "fa", corpus)
    assert len(corpus) >= 300
    counts = collections.Counter(reference)
    assert min(counts[COMPLETE], counts[PARTIAL], counts[NON_RETRIEVAL]) >= 40, counts  # every label, often
    kinds = collections.Counter(kind.split(":")[0] for kind, _, _ in corpus)
    assert kinds["variant"] >= 100 and kinds["untagged"] >= 25 and kinds["edits"] >= 200, kinds
    bands = collections.Counter(allowed_edits(normalize_persian(g)) for _, _, g in corpus)
    assert min(bands[1], bands[2], bands[3]) >= 20, bands  # each length band's allowance is exercised


def test_english_labels_equal_the_authors_script(ghazal_data):
    golds = _golds(ghazal_data, "shakespeare", [0, 1, 2, 3, 40, 100, 200, 349])
    docs, _ = completion_docs("shakespeare", "name", {"data_dir": str(ghazal_data.parent)})
    golds += [("", f"{d['first']} {d['gold']}") for d in docs[60:63]]  # 80+ characters: the third band
    corpus = cases(golds, "en")
    reference = _agreement(ghazal_data, "en", corpus)
    assert len(corpus) >= 100 and len(set(reference)) == 3


# Hand-worked cases: labels written from the scripts' definitions, not from either implementation's output.
GOLD = "ببین تفاوت ره از کجاست تا به کجا"  # 32 characters: 1 edit allowed, Partial up to 6 edits (6/32 <= 0.2)


@pytest.mark.parametrize(
    ("reply", "label", "format_error"),
    [
        (f"<answer>{GOLD}</answer>", COMPLETE, False),
        (f"\n <answer> {GOLD} </answer>\n", COMPLETE, False),
        (f"<answer>{GOLD.replace('ی', 'ي').replace('ک', 'ك')}</answer>", COMPLETE, False),  # normalised away
        (f"<answer>{GOLD.replace('ب', 'بِ', 1)}</answer>", COMPLETE, False),  # a kasra is removed
        (f"<answer>{GOLD[:-1]}</answer>", COMPLETE, False),  # one deletion
        (f"<answer>{GOLD[:-2]}</answer>", PARTIAL, False),  # two edits: 2/32
        (f"<answer>{'ک' * 6 + GOLD[6:]}</answer>", PARTIAL, False),  # six substitutions: 6/32 = 0.19
        (f"<answer>{'ک' * 7 + GOLD[7:]}</answer>", NON_RETRIEVAL, False),  # seven: 7/32 = 0.22
        (f"<answer>{GOLD[:-6]}</answer>", NON_RETRIEVAL, False),  # 6 cut, and the space left is stripped: 7/32
        (f"<answer>{GOLD} ۱</answer>", PARTIAL, False),  # digits are not normalised: two insertions
        (GOLD, NON_RETRIEVAL, True),  # no tags: the scripts score an empty prediction
        (f"پاسخ: <answer>{GOLD}</answer>", NON_RETRIEVAL, True),  # the tags must be the whole reply
        ("<answer></answer>", NON_RETRIEVAL, False),
    ],
)
def test_hand_worked_labels(reply, label, format_error):
    assert score_reply(reply, GOLD) == (label, format_error)


def test_extraction_and_bands_by_definition():
    assert extract_answer("<answer>a</answer> <answer>b</answer>") == "a</answer> <answer>b"  # as re.fullmatch does
    assert extract_answer("<answer>a") is None
    assert [allowed_edits("x" * n) for n in (39, 40, 79, 80)] == [1, 2, 2, 3]
    assert recall_label(None, "abc", "en") == NON_RETRIEVAL
    assert recall_label("x", "", "en") == COMPLETE  # an empty gold: 1 edit, within the allowance
