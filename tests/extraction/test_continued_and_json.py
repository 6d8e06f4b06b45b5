"""Issue #33's labelled replies (tests/extraction/corpus/continued_and_json.jsonl, labelled before any
reader ran on them): a reply that goes on into an invented next item in the prompt's shape is read up to
that item ("3\\n\\nConversation 2: ... Response 1: ..." is 3, not 1), a reply that echoes the prompt's
opening header first is still read, a pick given in JSON with the usual keys is read, and an option the
item does not have is no answer. Each row is read by its benchmark's own reader (benchmark_corpus.read)."""

from __future__ import annotations

import json

import pytest

from .benchmark_corpus import CORPUS_DIR, Tally, read

ROWS = [
    json.loads(line)
    for line in (CORPUS_DIR / "continued_and_json.jsonl").read_text(encoding="utf-8").splitlines()
    if line.strip()
]


def test_the_corpus_covers_every_option_reading_benchmark_and_both_forms():
    assert len(ROWS) == 52
    for benchmark in ("percul", "cac", "divan"):
        mine = [r for r in ROWS if r["benchmark"] == benchmark]
        assert any("continues into invented item" in r["shapes"] for r in mine), benchmark
        assert any("prompt echoed first" in r["shapes"] for r in mine), benchmark
        assert any("JSON" in r["shapes"] for r in mine), benchmark
        assert any(r["label"] is None for r in mine), benchmark


@pytest.mark.parametrize("row", ROWS, ids=[r["id"] for r in ROWS])
def test_each_reply_reads_as_labelled(row):
    assert read(row) == row["label"], row["reply"]


def test_issue_33s_two_reply_forms():
    by_note = {r["reply"]: r for r in ROWS}
    assert read(by_note['{"response": 3}']) == 3
    (cac_continued,) = [r for r in ROWS if r.get("note", "").startswith("issue #33's example")]
    assert read(cac_continued) == 3


def test_no_wrong_option_and_no_invented_answer():
    tally = Tally()
    for row in ROWS:
        tally.add(row["label"], read(row))
    print("\n" + tally.line("continued_and_json corpus"))
    assert (tally.wrong, tally.invented, tally.missed) == (0, 0, 0), tally.line("continued_and_json corpus")
