"""The rule-based extractors against the labelled reply corpus (tests/extraction/corpus.py).

Prints the agreement (``pytest -s`` or the summary line pytest shows for a failure) and fails
on any disagreement: a wrong label where the reader's answer is clear, an answer invented for
a reply that states none, or a missed answer. tasks/divan/README.md quotes the figures.
"""

from __future__ import annotations

from lm_eval_persian_culture.scoring.extract import extract_choice, extract_yes_no, yes_no_label

from .corpus import choice_cases, is_persian, yes_no_cases


def _agreement():
    rows = []  # (kind, reply, expected, got, persian, note)
    for reply, options, label, note in choice_cases():
        rows.append(("choice", reply, label, extract_choice(reply, options), is_persian(reply), note))
    for reply, label, note in yes_no_cases():
        rows.append(("yes_no", reply, label, yes_no_label(extract_yes_no(reply)), is_persian(reply), note))
    return rows


def _summary(rows) -> str:
    def share(sel):
        sel = list(sel)
        ok = sum(1 for r in sel if r[2] == r[3])
        return f"{ok}/{len(sel)}"

    wrong = [r for r in rows if r[2] is not None and r[3] is not None and r[2] != r[3]]
    invented = [r for r in rows if r[2] is None and r[3] is not None]
    missed = [r for r in rows if r[2] is not None and r[3] is None]
    lines = [
        f"extraction corpus: {share(rows)} replies read as labelled "
        f"(choice {share(r for r in rows if r[0] == 'choice')}, yes/no {share(r for r in rows if r[0] == 'yes_no')}; "
        f"Persian {share(r for r in rows if r[4])}, English {share(r for r in rows if not r[4])}); "
        f"wrong labels {len(wrong)}, answers invented {len(invented)}, answers missed {len(missed)}"
    ]
    for kind, reply, expected, got, _, note in wrong + invented + missed:
        lines.append(f"  [{kind}] expected {expected!r} got {got!r} ({note}): {reply!r}")
    return "\n".join(lines)


def test_corpus_size_and_coverage():
    rows = _agreement()
    assert len(rows) >= 250
    assert sum(1 for r in rows if r[4]) >= 100 and sum(1 for r in rows if not r[4]) >= 100
    notes = " ".join(r[5] for r in rows)
    for style in ("think", "markdown", "echoed", "hedge", "refusal", "colloquial", "issue", "answer first",
                  "explanation first"):  # fmt: skip
        assert style in notes, style
    assert sum(1 for r in rows if r[2] is None) >= 30  # replies that state no answer


def test_extractors_agree_with_every_label():
    rows = _agreement()
    summary = _summary(rows)
    print("\n" + summary)
    assert all(r[2] == r[3] for r in rows), summary
