"""Each benchmark's reader against its reply corpus of issue #22 (tests/extraction/corpus/*.jsonl, written
and labelled by people who never saw the rules; see benchmark_corpus.py).

Prints, per benchmark and language, read right / wrong option / invalid and the answers invented for
replies that state none (``pytest -s``, or the failure message). Asserts the principle (no wrong option,
no invented answer) and the right-reading count measured when the rules were last changed, which each
task README states; a change that reads more must update both.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .benchmark_corpus import BENCHMARKS, measure, report, rows

# Read right, as measured (and stated in tasks/<benchmark>/README.md as "<right> of <total>").
RIGHT = {"percul": 216, "cac": 215, "divan": 210}
README = Path(__file__).resolve().parents[2] / "lm_eval_persian_culture" / "tasks"


@pytest.mark.parametrize("benchmark", BENCHMARKS)
def test_corpus_is_large_and_covers_both_languages(benchmark):
    corpus = rows(benchmark)
    assert len(corpus) >= 150
    for lang in ("fa", "en"):
        assert sum(r["lang"] == lang for r in corpus) >= 50, lang
    assert sum(r["label"] is None for r in corpus) >= 30  # hedges, refusals, echoes, cut-off reasoning
    assert all(r["benchmark"] == benchmark for r in corpus)


@pytest.mark.parametrize("benchmark", BENCHMARKS)
def test_reader_never_reads_a_wrong_option_or_invents_an_answer(benchmark):
    tallies, _ = measure(benchmark)
    summary = report(benchmark)
    print("\n" + summary)
    assert tallies["all"].wrong == 0, summary
    assert tallies["all"].invented == 0, summary
    assert tallies["all"].right == RIGHT[benchmark], summary


@pytest.mark.parametrize("benchmark", BENCHMARKS)
def test_readme_states_the_measured_figure(benchmark):
    tallies, _ = measure(benchmark)
    text = (README / benchmark / "README.md").read_text(encoding="utf-8")
    assert f"{tallies['all'].right} of {tallies['all'].total}" in text
