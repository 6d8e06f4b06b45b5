"""``lm-eval-persian report`` and ``export`` on results folders of real tiny-model runs (tests/report/conftest.py)."""

from __future__ import annotations

import csv
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from lm_eval_persian_culture.report.build import build
from lm_eval_persian_culture.report.render import write_html, write_markdown
from lm_eval_persian_culture.report.stats import wilson_interval

BIN = Path(sys.executable).parent
pytestmark = pytest.mark.e2e


def cli(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "MPLBACKEND": "Agg"}
    return subprocess.run([str(BIN / "lm-eval-persian"), *args], capture_output=True, text=True, env=env, timeout=600)


def results_of(out: Path) -> dict:
    return json.loads(next(out.rglob("results_*.json")).read_text(encoding="utf-8"))


def samples_of(out: Path, task: str) -> list[dict]:
    path = next(out.rglob(f"samples_{task}_*.jsonl"))
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.fixture(scope="module")
def report_dir(report_runs, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("report")
    proc = cli("report", str(report_runs["a"]), str(report_runs["b"]), "--out", str(out), "--bootstrap", "200")
    assert proc.returncode == 0, proc.stderr[-3000:]
    return out


def test_tables_hold_the_reported_values_with_wilson_intervals(report_runs, tmp_path):
    report = build([report_runs["a"]], tmp_path, resamples=100)
    results = results_of(report_runs["a"])
    row = next(r for r in report.rows if r.task == "taarof_expected")
    score = row.scores["accuracy"]
    assert score.value == results["results"]["taarof_expected"]["accuracy,judge"]
    # n and k by hand from the samples: judged docs (verdict not None) and the Yes verdicts among them
    verdicts = [s["accuracy"]["verdict"] for s in samples_of(report_runs["a"], "taarof_expected")]
    judged = [v for v in verdicts if v is not None]
    assert score.n == len(judged) and score.value == pytest.approx(sum(judged) / len(judged))
    assert (score.low, score.high) == pytest.approx(wilson_interval(sum(judged), len(judged)))
    assert score.method == "wilson"


def test_derived_figures_get_a_bootstrap_interval_around_the_reported_value(report_runs, tmp_path):
    report = build([report_runs["a"]], tmp_path, resamples=200)
    results = results_of(report_runs["a"])["results"]
    divan = next(r for r in report.rows if r.task == "divan_binary")
    bias = divan.scores["acquiescence_bias"]
    assert bias.value == results["divan_binary"]["acquiescence_bias,extract"]
    # --limit 12 keeps pair 1 under all five prompts and pair 2 under prompt 1: two clusters
    assert bias.n == 2
    # The tiny model's replies are unreadable, so every item scores alike (invalid, wrong): resampling can only
    # give [v, v]. A rate at 0 then gets Wilson's 0/n over its clusters; a signed difference no interval at all.
    assert [s["accuracy"]["invalid"] for s in samples_of(report_runs["a"], "divan_binary")] == [1] * 12
    assert bias.value == 0.0 and bias.method == "" and not bias.has_interval
    accuracy = divan.scores["accuracy"]
    assert accuracy.value == 0.0 and accuracy.n == 2 and accuracy.method == "wilson"
    assert (accuracy.low, accuracy.high) == pytest.approx(wilson_interval(0, 2))
    gap = next(r for r in report.rows if r.task == "taarof_gender").scores["gender_gap"]
    assert gap.method == "bootstrap" and gap.n == 6  # 12 docs = 6 gender pairs
    assert -1.0 <= gap.low <= gap.high <= 1.0


def test_report_files_charts_and_offline_html(report_dir):
    md = (report_dir / "report.md").read_text(encoding="utf-8")
    page = (report_dir / "report.html").read_text(encoding="utf-8")
    pngs = sorted((report_dir / "charts").glob("*.png"))
    svgs = sorted((report_dir / "charts").glob("*.svg"))
    assert len(pngs) >= 6 and len(svgs) == len(pngs)
    for png in pngs:
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 5000, png
        assert f"charts/{png.name}" in md and f"charts/{png.name}" in page
    # self-contained: every chart embedded, nothing fetched from the network
    assert page.count("data:image/png;base64,") == len(pngs)
    assert not re.search(r"(?:src|href)=[\"']https?://", page)
    for title in ("TaarofBench", "DivanBench", "Side by side with other tasks", "Differences", "Missing"):
        assert title in md
    # charts name the model and n, and warn that n is small
    names = " ".join(p.name for p in pngs)
    assert "taarof_expected_vs_non_taarof" in names and "acquiescence_bias" in names and "gender_gap" in names


def test_runs_with_different_judges_are_kept_apart(report_dir):
    md = (report_dir / "report.md").read_text(encoding="utf-8")
    section = md.split("## Differences")[1].split("##")[0]
    assert "`taarof_expected`: judge differs between rows" in section
    assert "judge_model=judge-a" in section and "judge_model=judge-b" in section


def test_side_by_side_puts_standard_tasks_next_to_the_pack(report_runs, report_dir):
    md = (report_dir / "report.md").read_text(encoding="utf-8")
    table = md.split("## Side by side with other tasks")[1].split("##")[0]
    header = table.strip().splitlines()[0]
    assert "taarof_expected (accuracy)" in header and "std_copy (exact_match)" in header
    for name, out in report_runs.items():
        results = results_of(out)["results"]
        model_line = next(
            line for line in table.splitlines() if "tiny" in line and (name == "a") == ("tiny-b" not in line)
        )
        assert f"{results['std_copy']['exact_match,none']:.3f}" in model_line


def test_paper_reference_rows_sit_beside_matching_rows(report_runs, tmp_path, monkeypatch):
    import lm_eval_persian_culture.report.build as build_module

    reference = {
        "benchmark": "taarof",
        "model": "GPT-4o",
        "task": "taarof_expected",
        "metric": "accuracy",
        "value": 0.4051,
        "source": "Table 3",
    }
    monkeypatch.setattr(build_module, "load_references", lambda: [reference])
    report = build([report_runs["a"]], tmp_path, resamples=50)
    md = write_markdown(report, tmp_path).read_text(encoding="utf-8")
    line = next(row for row in md.splitlines() if row.startswith("| paper: GPT-4o"))
    assert "| taarof_expected |" in line and "0.405 (Table 3)" in line
    assert 'class="paper"' in write_html(report, tmp_path).read_text(encoding="utf-8")


def test_export_partai_and_csv_and_hf_leaderboard(report_runs, tmp_path):
    # a taarof group row exists only when the group ran; here the leaderboard column falls back to empty
    proc = cli("export", str(report_runs["a"]), "--format", "partai", "--out", str(tmp_path / "partai.csv"))
    assert proc.returncode == 0, proc.stderr
    rows = list(csv.DictReader((tmp_path / "partai.csv").open(encoding="utf-8")))
    assert len(rows) == 1 and rows[0]["Model"].endswith("tiny-llama0")
    assert rows[0]["Precision"] == "float32"
    assert rows[0]["TaarofBench"] == ""  # the group did not run: empty, never 0
    proc = cli("export", str(report_runs["a"]), "--format", "hf-leaderboard", "--out", str(tmp_path / "hf"))
    assert proc.returncode == 0, proc.stderr
    result = json.loads(next((tmp_path / "hf" / "results").rglob("*.json")).read_text())
    request = json.loads(next((tmp_path / "hf" / "requests").glob("*.json")).read_text())
    assert set(result) == {"config", "results"} and result["config"]["model_dtype"] == "float32"
    assert request["status"] == "FINISHED" and request["precision"] == "float32"


def _write(name: str, text: str):
    def make(d: Path) -> Path:
        (d / name).write_text(text, encoding="utf-8")
        return d / name

    return make


def _empty_folder(d: Path) -> Path:
    (d / "empty").mkdir()
    return d / "empty"


@pytest.mark.parametrize(
    "make, first_line",
    [
        (lambda d: d / "nope", "no such file or folder"),
        (_empty_folder, "no results_*.json in this folder"),
        (_write("results_x.json", '{"results": {"taarof": {'), "not valid JSON"),
        (_write("samples_taarof_x.jsonl", "{}\n"), "is a samples file"),
        (_write("other.json", '{"hello": 1}'), "not an lm-eval results file"),
    ],
    ids=["missing", "empty-folder", "truncated", "samples-file", "not-results"],
)
def test_report_input_errors_are_one_line_exit_2(tmp_path, make, first_line):
    path = make(tmp_path)
    proc = cli("report", str(path), "--out", str(tmp_path / "r"))
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert first_line in proc.stderr.strip().splitlines()[-1] and str(path) in proc.stderr
