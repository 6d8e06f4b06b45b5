"""lm-eval-persian agreement: verdicts of two runs matched by doc identity; kappa worked out by hand."""

from __future__ import annotations

import json
import math
import random
import subprocess
import sys
from pathlib import Path

import pytest

from lm_eval_persian_culture.scoring.agreement import cohen_kappa, compare, load_run, main

BIN = Path(sys.executable).parent


def write_samples(folder: Path, task: str, items: list[tuple[dict, object]], ts: str = "2026-01-01T00-00-00.0") -> None:
    folder.mkdir(parents=True, exist_ok=True)
    lines = []
    for i, (doc, verdict) in enumerate(items):
        record = {"response": "r", "verdict": verdict, "judge_raw": None if verdict is None else str(verdict)}
        lines.append(json.dumps({"doc_id": i, "doc": doc, "filtered_resps": [json.dumps(record)]}))
    (folder / f"samples_{task}_{ts}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")


def doc(row: int, kind: str, provenance: str) -> dict:
    return {"row": row, "Type": kind, "Utterance": f"u{row}", "provenance": provenance, "judge_reply_format": "paper"}


@pytest.fixture()
def runs(tmp_path):
    """Task taarof_expected, 10 items judged by both runs + 1 unjudged in B + 1 only in A.

    A: Y Y Y Y Y N N N N N   B: Y Y Y Y N Y Y N N N
    yy=4 yn=1 ny=2 nn=3: p_o = 7/10; p_yes(A) = 5/10, p_yes(B) = 6/10;
    p_e = .5*.6 + .5*.4 = .5; kappa = (.7 - .5) / (1 - .5) = 0.4.

    Task taarof_combined, per type:
    taarof-expected A: Y Y N N, B: Y N N N -> p_o=3/4, p_e=.5*.25+.5*.75=.5, kappa=.5
    non-taarof      A: Y N,     B: Y N     -> p_o=1,   p_e=.5,            kappa=1
    all: yy=2 yn=1 ny=0 nn=3 -> p_o=5/6, p_e=(3/6)(2/6)+(3/6)(4/6)=.5, kappa=(5/6-.5)/.5=2/3
    """
    a_verdicts = ["yes"] * 5 + ["no"] * 5
    b_verdicts = ["yes"] * 4 + ["no", "yes", "yes", "no", "no", "no"]
    a_items = [(doc(i, "taarof-expected", "local:/a"), v) for i, v in enumerate(a_verdicts)]
    b_items = [(doc(i, "taarof-expected", "local:/b"), v) for i, v in enumerate(b_verdicts)]
    a_items += [(doc(10, "taarof-expected", "local:/a"), "yes"), (doc(11, "taarof-expected", "local:/a"), "no")]
    b_items += [(doc(10, "taarof-expected", "local:/b"), None)]
    random.Random(0).shuffle(b_items)  # matched by identity, not position
    write_samples(tmp_path / "A" / "model", "taarof_expected", a_items)
    write_samples(tmp_path / "B" / "model", "taarof_expected", b_items)

    ca = [("taarof-expected", "yes"), ("taarof-expected", "yes"), ("taarof-expected", "no"), ("taarof-expected", "no"),
          ("non-taarof", "yes"), ("non-taarof", "no")]  # fmt: skip
    cb = ["yes", "no", "no", "no", "yes", "no"]
    write_samples(tmp_path / "A" / "model", "taarof_combined", [(doc(i, k, "x"), v) for i, (k, v) in enumerate(ca)])
    write_samples(tmp_path / "B" / "model", "taarof_combined",
                  [({**doc(i, k, "y"), "judge_reply_format": "json"}, v)
                   for i, ((k, _), v) in enumerate(zip(ca, cb))])  # fmt: skip
    return tmp_path / "A", tmp_path / "B"


def test_kappa_by_hand():
    assert cohen_kappa(4, 1, 2, 3) == pytest.approx(0.4)
    assert cohen_kappa(1, 1, 0, 2) == pytest.approx(0.5)
    assert math.isnan(cohen_kappa(3, 0, 0, 0))  # one label only: chance agreement 1
    assert cohen_kappa(0, 5, 5, 0) == pytest.approx(-1.0)


def test_kappa_matches_sklearn():
    metrics = pytest.importorskip("sklearn.metrics")
    a = [1] * 4 + [1] + [0] * 2 + [0] * 3
    b = [1] * 4 + [0] + [1] * 2 + [0] * 3
    assert cohen_kappa(4, 1, 2, 3) == pytest.approx(metrics.cohen_kappa_score(a, b))


def test_agreement_per_task_and_type(runs):
    report = compare(load_run(runs[0]), load_run(runs[1]))
    exp = report["taarof_expected"]["all"]
    assert (exp.n, exp.both_yes, exp.a_yes_b_no, exp.a_no_b_yes, exp.both_no) == (10, 4, 1, 2, 3)
    assert exp.raw_agreement == pytest.approx(0.7) and exp.kappa == pytest.approx(0.4)
    assert (exp.unjudged, exp.only_a, exp.only_b) == (1, 1, 0)
    comb = report["taarof_combined"]
    assert comb["taarof-expected"].kappa == pytest.approx(0.5)
    assert comb["non-taarof"].kappa == pytest.approx(1.0) and comb["non-taarof"].raw_agreement == 1.0
    assert comb["all"].raw_agreement == pytest.approx(5 / 6) and comb["all"].kappa == pytest.approx(2 / 3)


def test_cli_prints_and_writes_json(runs, tmp_path):
    out = tmp_path / "agreement.json"
    proc = subprocess.run([str(BIN / "lm-eval-persian"), "agreement", str(runs[0]), str(runs[1]), "--json", str(out)],
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    line = next(row for row in proc.stdout.splitlines() if row.startswith("taarof_expected") and " all " in row)
    assert line.split()[2:5] == ["10", "0.700", "0.400"]
    data = json.loads(out.read_text())
    assert data["taarof_combined"]["all"]["kappa"] == pytest.approx(2 / 3)


def test_missing_samples_is_one_clear_error(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    assert main([str(tmp_path / "empty"), str(tmp_path / "empty")]) == 2
    assert "no samples_*.jsonl files (run lm-eval with --log_samples)" in capsys.readouterr().err


def _strict_json(text: str):
    """json.loads that refuses the NaN/Infinity tokens Python writes by default (not JSON)."""

    def refuse(token):
        raise ValueError(f"not JSON: {token}")

    return json.loads(text, parse_constant=refuse)


def test_json_output_is_valid_json_with_null_for_undefined_kappa(tmp_path):
    # Both runs say Yes to every item: one label only, chance agreement 1, kappa undefined (n/a)
    items = [(doc(i, "taarof-expected", "p"), "yes") for i in range(3)]
    write_samples(tmp_path / "A", "taarof_expected", items)
    write_samples(tmp_path / "B", "taarof_expected", items)
    out = tmp_path / "agreement.json"
    assert main([str(tmp_path / "A"), str(tmp_path / "B"), "--json", str(out)]) == 0
    data = _strict_json(out.read_text(encoding="utf-8"))
    assert data["taarof_expected"]["all"]["kappa"] is None
    assert data["taarof_expected"]["all"]["raw_agreement"] == 1.0 and data["taarof_expected"]["all"]["n"] == 3


def test_truncated_samples_line_names_file_line_and_column_once(tmp_path, capsys):
    write_samples(tmp_path / "A", "taarof_expected", [(doc(0, "taarof-expected", "p"), "yes")])
    path = next((tmp_path / "A").glob("samples_*.jsonl"))
    cut = '{"doc_id": 1, "doc": {"row": "cut'
    path.write_text(path.read_text() + cut + "\n", encoding="utf-8")
    column = cut.index('"cut') + 1  # 1-based column of the string left open
    assert main([str(tmp_path / "A"), str(tmp_path / "A")]) == 2
    err = capsys.readouterr().err.strip()
    assert f"{path}: line 2: not valid JSON (Unterminated string starting at column {column})" in err
    assert "at at" not in err
