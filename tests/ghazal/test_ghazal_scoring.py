"""The pack's completion scorer gives every reply the label the authors' scripts give it.

The reference is the authors' own code, run as it is: ``calcRecallPersian.py`` / ``calcRecallEnglish.py`` from
../shared/data/ghazal (never copied into the repository) read ``completionQs.xlsx`` / ``completionQsEnglish.xlsx``
from their working directory, label each model column and write the labels back. The test writes the replies
into such a file (the same reply in each of the four model columns), runs the script in a temporary folder,
reads its labels and compares them with :func:`tasks.ghazal.scoring.score_reply`, reply by reply.
"""

from __future__ import annotations

import collections
import subprocess
import sys
from pathlib import Path

import pandas as pd
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

MODELS = ("Claude Sonnet 4.5", "DeepSeek V3.2", "Gemma 3 27B Instruct", "Gemma 3 12B Instruct")
SCRIPTS = {  # language -> (script, the file it reads, its gold column)
    "fa": ("calcRecallPersian.py", "completionQs.xlsx", "Correct"),
    "en": ("calcRecallEnglish.py", "completionQsEnglish.xlsx", "Second Line"),
}


def authors_labels(ghazal_data: Path, language: str, replies: list[str], golds: list[str], tmp: Path) -> list[str]:
    """The labels the authors' script gives (run in ``tmp``, as it is, on a file of these replies)."""
    script, filename, gold_column = SCRIPTS[language]
    frame = pd.DataFrame({gold_column: golds, **{m: replies for m in MODELS}})
    frame.to_excel(tmp / filename, index=False)
    run = subprocess.run(
        [sys.executable, str(ghazal_data / script)], cwd=tmp, capture_output=True, text=True, timeout=300
    )
    assert run.returncode == 0, run.stderr[-2000:]
    out = pd.read_excel(tmp / filename, dtype=str, keep_default_na=False)
    # the script saw exactly these replies (the spreadsheet round trip kept every character)
    assert out[MODELS[0]].tolist() == replies and out[gold_column].tolist() == golds
    labels = out[f"Score ({MODELS[0]})"].tolist()
    for model in MODELS[1:]:
        assert out[f"Score ({model})"].tolist() == labels
    return labels


@pytest.fixture(scope="module")
def ghazal_data(shared_data) -> Path:
    folder = shared_data / "ghazal"
    if not (folder / "calcRecallPersian.py").is_file():
        pytest.skip("../shared/data/ghazal holds no authors' scripts")
    return folder


def _golds(ghazal_data: Path, poet: str, rows: list[int]) -> list[tuple[str, str]]:
    docs, _ = completion_docs(poet, "name", {"data_dir": str(ghazal_data.parent)})
    return [(docs[i]["first"], docs[i]["gold"]) for i in rows]


def _agreement(ghazal_data, language, corpus, tmp_path):
    replies = [reply for _, reply, _ in corpus]
    golds = [gold for _, _, gold in corpus]
    reference = authors_labels(ghazal_data, language, replies, golds, tmp_path)
    ours = [score_reply(reply, gold, language)[0] for reply, gold in zip(replies, golds)]
    differ = [(kind, reply, gold, r, o) for (kind, reply, gold), r, o in zip(corpus, reference, ours) if r != o]
    assert not differ, f"{len(differ)} of {len(corpus)} labels differ, e.g. {differ[:3]}"
    return reference


def test_persian_labels_equal_the_authors_script(ghazal_data, tmp_path):
    # Hafez and Saadi second hemistichs (rows with a normalised gold of 40+ characters among them: the second
    # length band), and whole couplets and prose paraphrases as golds for the 40-80 and 80+ bands
    golds = _golds(ghazal_data, "hafez", [0, 1, 2, 10, 11, 15, 50, 106, 200, 231, 300, 437])
    golds += _golds(ghazal_data, "saadi", [0, 5, 70, 99, 244, 300, 450, 454, 497])
    docs, _ = completion_docs("hafez", "prose", {"data_dir": str(ghazal_data.parent)})
    golds += [("", f"{d['first']} / {d['gold']}") for d in docs[20:26]]
    golds += [("", d["prompt"].rsplit("<couplet_prose>", 1)[1].split("</couplet_prose>")[0]) for d in docs[30:33]]
    corpus = cases(golds, "fa")
    reference = _agreement(ghazal_data, "fa", corpus, tmp_path)
    assert len(corpus) >= 300
    counts = collections.Counter(reference)
    assert min(counts[COMPLETE], counts[PARTIAL], counts[NON_RETRIEVAL]) >= 40, counts  # every label, often
    kinds = collections.Counter(kind.split(":")[0] for kind, _, _ in corpus)
    assert kinds["variant"] >= 100 and kinds["untagged"] >= 25 and kinds["edits"] >= 200, kinds
    bands = collections.Counter(allowed_edits(normalize_persian(g)) for _, _, g in corpus)
    assert min(bands[1], bands[2], bands[3]) >= 20, bands  # each length band's allowance is exercised


def test_english_labels_equal_the_authors_script(ghazal_data, tmp_path):
    golds = _golds(ghazal_data, "shakespeare", [0, 1, 2, 3, 40, 100, 200, 349])
    docs, _ = completion_docs("shakespeare", "name", {"data_dir": str(ghazal_data.parent)})
    golds += [("", f"{d['first']} {d['gold']}") for d in docs[60:63]]  # 80+ characters: the third band
    corpus = cases(golds, "en")
    reference = _agreement(ghazal_data, "en", corpus, tmp_path)
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
