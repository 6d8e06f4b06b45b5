"""Corpus replies of issue #22 through real lm-eval runs (ScriptedLM, each benchmark's test fixtures):
every logged sample's reading equals what the benchmark's reader gives for that reply and doc directly,
so the filter, records and metrics score exactly what the corpus test measures."""

from __future__ import annotations

from pathlib import Path

import pytest

from lm_eval_persian_culture.scoring.records import decode_record
from lm_eval_persian_culture.tasks.cac import utils as cac
from lm_eval_persian_culture.tasks.divan import utils as divan
from lm_eval_persian_culture.tasks.percul import utils as percul
from tests import scripted_runs

from .benchmark_corpus import rows

TESTS = Path(__file__).resolve().parents[1]


def _replier(replies_for):
    """A ScriptedLM reply function handing out corpus replies in order, one per doc."""
    given: dict[str, str] = {}

    def reply(doc: dict, prompt: str) -> str:
        key = repr(sorted((k, str(v)) for k, v in doc.items()))
        if key not in given:
            pool = replies_for(doc)
            given[key] = pool[len(given) % len(pool)]
        return given[key]

    return reply


def _run(tasks, replies_for, fixtures: Path, **kwargs):
    return scripted_runs.evaluate(tasks, _replier(replies_for), fixtures, apply_chat_template=True, **kwargs)


def test_percul_samples_read_as_the_reader_reads_them():
    corpus = rows("percul")
    by_lang = {lang: [r["reply"] for r in corpus if r["lang"] == lang] for lang in ("fa", "en")}
    results = _run(["percul", "percul_en"], lambda doc: by_lang[doc["language"]], TESTS / "percul" / "fixtures")
    for task in ("percul", "percul_en"):
        samples = results["samples"][task]
        assert len(samples) == 10
        for s in samples:
            record = decode_record(s["filtered_resps"][0])
            reply = s["resps"][0][0]
            assert record["extracted"] == percul.read_answer(reply, s["doc"]), reply
            assert s["accuracy"]["correct"] == int(record["extracted"] == s["doc"]["answer"])
            assert s["accuracy"]["invalid"] == int(record["extracted"] is None)


def test_cac_samples_read_as_the_reader_reads_them():
    replies = [r["reply"] for r in rows("cac")]
    results = _run(["cac_japan"], lambda doc: replies[7:], TESTS / "cac" / "fixtures")
    samples = results["samples"]["cac_japan"]
    assert len(samples) == 6
    for s in samples:
        record = decode_record(s["filtered_resps"][0])
        assert record["pick"] == cac.read_pick(s["resps"][0][0], s["doc"])[0], s["resps"][0][0]
        assert s["range_accuracy"]["invalid"] == int(record["pick"] is None)


@pytest.mark.parametrize("task, kind", [("divan_factual", "option"), ("divan_binary", "yes_no")])
def test_divan_samples_read_as_the_reader_reads_them(task, kind):
    replies = [r["reply"] for r in rows("divan") if r["kind"] == kind]
    results = _run([task], lambda doc: replies, TESTS / "divan" / "fixtures")
    samples = results["samples"][task]
    assert len(samples) >= 20
    for s in samples:
        record = decode_record(s["filtered_resps"][0])
        assert record["extracted"] == divan.extract_rule(s["doc"], s["resps"][0][0]), s["resps"][0][0]
