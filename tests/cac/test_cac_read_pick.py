"""How CAC reads a pick: the shared answer grammar over the five labels and the five response texts."""

from __future__ import annotations

import json

import pytest
from cac_testlib import FIXTURES

from lm_eval_persian_culture.tasks.cac import utils

DOC = json.loads((FIXTURES / "cac" / "conversations.jsonl").read_text(encoding="utf-8").splitlines()[2])  # c3, pie


@pytest.mark.parametrize(
    "reply, expected",
    [
        ("3", (3, "rule")),
        ("I'd go with response 4.", (4, "rule")),
        # a response's text, read by the grammar like an option's text
        ('"Would you perhaps enjoy a slice, dear?"', (3, "rule")),
        ("GRANDPARENT: You must take a slice of it right now!", (1, "rule")),
        # quoted with other punctuation (curly quotes and apostrophe), or in capitals without commas
        ("The best reply is “You may have a slice if you’d like.”", (5, "rule")),
        ("WOULD YOU PERHAPS ENJOY A SLICE DEAR", (3, "rule")),
        # one response rejected, the other chosen
        ("Not 'You must take a slice of it right now!' but 'You may have a slice if you'd like.'", (5, "rule")),
        # two response texts quoted, neither chosen: no single pick
        ("'You must take a slice of it right now!' or 'You may have a slice if you'd like.'", (None, None)),
        ("Something kind about pie.", (None, None)),
        # a number wins over quoted text
        ("2 - 'Then you should have a slice of it right here!'", (2, "rule")),
    ],
)
def test_read_pick(reply, expected):
    assert utils.read_pick(reply, DOC) == expected


def test_filter_records_how_each_pick_was_read():
    out = [
        json.loads(r)
        for r in utils.extract_filter(
            [["4"], ["The best reply is “You may have a slice if you’d like.”"], ["hmm"]], [DOC] * 3
        )
    ]
    assert [(r["pick"], r["read_by"]) for r in out] == [(4, "rule"), (5, "rule"), (None, None)]
    assert out[2]["reply"] == "hmm"
