"""The report on hand-written runs whose every number is known: a run whose judge gave no verdict, the same
model re-judged later, a topic cut by --limit, the HTML run list, the chart legend.

The files follow lm-eval 0.4.13's layout (results_<ts>.json beside samples_<task>_<ts>.jsonl) and the pack's
per-doc judge record ({"verdict", "topics", "judged", "paper_yes", ...}).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from lm_eval_persian_culture.report.build import build, missing_items
from lm_eval_persian_culture.report.charts import Chart, figure_for
from lm_eval_persian_culture.report.render import side_by_side, write_html, write_markdown
from lm_eval_persian_culture.report.runs import load_runs
from lm_eval_persian_culture.report.scores import Score
from lm_eval_persian_culture.report.stats import wilson_interval

NAN = float("nan")
TOPICS = ["Gift", "Dining", "Payment", "Gift", "Dining"]


def write_run(folder: Path, ts: str, verdicts: list[int | None], judge: str, limit_of: int | None = None) -> Path:
    """taarof_expected over 5 docs (topics TOPICS) with these verdicts; results computed here from them."""
    judged = [v for v in verdicts if v is not None]
    records = [
        {"verdict": v, "topics": [t], "group": None, "pair": None, "judged": True, "paper_yes": int(v == 1)}
        for v, t in zip(verdicts, TOPICS)
    ]
    metrics = {
        "accuracy": sum(judged) / len(judged) if judged else NAN,
        "accuracy_paper": sum(r["paper_yes"] for r in records) / len(records),
        "judge_errors": len(verdicts) - len(judged),
    }
    for topic in ("Gift", "Dining", "Payment", "Leaving"):
        got = [r["verdict"] for r in records if topic in r["topics"] and r["verdict"] is not None]
        metrics[f"accuracy_topic_{topic.lower()}"] = sum(got) / len(got) if got else NAN
    folder.mkdir(parents=True, exist_ok=True)
    data = {
        "results": {"taarof_expected": {f"{k},judge": v for k, v in metrics.items()}},
        "group_subtasks": {},
        "configs": {"taarof_expected": {"metadata": {"judge_model": judge, "version": 1.0}}},
        "n-samples": {"taarof_expected": {"original": limit_of or len(verdicts), "effective": len(verdicts)}},
        "config": {
            "model": "hf",
            "model_args": "pretrained=org/m",
            "limit": float(len(verdicts)) if limit_of else None,
        },
    }
    (folder / f"results_{ts}.json").write_text(json.dumps(data), encoding="utf-8")
    with open(folder / f"samples_taarof_expected_{ts}.jsonl", "w", encoding="utf-8") as f:
        for i, (rec, topic) in enumerate(zip(records, TOPICS)):
            doc = {"row": i, "Topic": topic, "Type": "taarof-expected", "provenance": "local:/x"}
            f.write(json.dumps({"doc_id": i, "doc": doc, "filter": "judge", **{k: rec for k in metrics}}) + "\n")
    return folder


@pytest.fixture()
def failed_then_rejudged(tmp_path):
    """The same model: first a run whose judge answered nothing readable, then a re-judged run (2 of 5 Yes)."""
    write_run(tmp_path / "runs", "2026-11-25T06-00-00.000000", [None] * 5, judge="echo-judge")
    write_run(tmp_path / "runs", "2026-11-25T07-00-00.000000", [1, 0, 1, 0, 0], judge="gpt-4")
    return tmp_path / "runs"


def test_an_all_failed_run_gets_the_interval_of_0_out_of_n(failed_then_rejudged, tmp_path):
    report = build([failed_then_rejudged], tmp_path / "out", resamples=50)
    failed = next(r for r in report.rows if r.scores["judge_errors"].value == 5)
    paper = failed.scores["accuracy_paper"]
    # TaarofBench's script divides by every item, unjudged ones counted 0: 0 of 5, as any other 0/5
    assert paper.value == 0.0 and paper.n == 5 and paper.method == "wilson"
    assert (paper.low, paper.high) == pytest.approx(wilson_interval(0, 5))  # [0, 0.434], not [0, 0]
    assert "accuracy" not in failed.scores  # no verdict at all: no accuracy, never 0


def test_side_by_side_takes_one_run_and_one_metric_per_cell(failed_then_rejudged, tmp_path):
    report = build([failed_then_rejudged], tmp_path / "out", resamples=50)
    header, rows = side_by_side(report)
    assert header == ["model", "taarof_expected (accuracy)"]  # not also "(accuracy_paper)" from the failed run
    # the latest run's accuracy, 2/5; marked: another run of this model and task has other settings (judge)
    assert rows == [["org/m", "0.400 *"]]


def test_side_by_side_shows_a_dash_when_the_latest_run_has_no_value(tmp_path):
    write_run(tmp_path / "runs", "2026-11-25T06-00-00.000000", [1, 0, 1, 0, 0], judge="gpt-4")
    write_run(tmp_path / "runs", "2026-11-25T07-00-00.000000", [None] * 5, judge="gpt-4")
    report = build([tmp_path / "runs"], tmp_path / "out", resamples=50)
    header, rows = side_by_side(report)
    assert header == ["model", "taarof_expected (accuracy)"] and rows == [["org/m", "-"]]


def test_missing_names_the_judge_not_limit_when_no_verdict_came(failed_then_rejudged):
    lines = missing_items(load_runs([failed_then_rejudged]))
    failed = [line for line in lines if "accuracy," in line or "accuracy_topic_gift" in line]
    assert len(failed) == 1, lines
    # accuracy and every topic present in the 5 docs: the judge gave no verdict (5 docs; 2 Gift, 2 Dining, 1 Payment)
    assert (
        "no value for accuracy, accuracy_topic_dining, accuracy_topic_gift, accuracy_topic_payment: the judge "
        "gave no verdict for any of their items (judge_errors=5 of 5 docs)"
    ) in failed[0]
    assert "--limit" not in failed[0]
    leaving = [line for line in lines if "accuracy_topic_leaving" in line]
    assert leaving and all("no item of it among the 5 docs of the data" in line for line in leaving)


def test_missing_names_limit_when_limit_cut_the_topic(tmp_path):
    write_run(tmp_path / "runs", "2026-11-25T06-00-00.000000", [1, 0, 1, 0, 0], judge="gpt-4", limit_of=311)
    (line,) = missing_items(load_runs([tmp_path / "runs"]))
    assert "accuracy_topic_leaving: none of their items among the 5 of 311 docs scored (cut by --limit)" in line


def test_html_renders_backticks_as_code(failed_then_rejudged, tmp_path):
    report = build([failed_then_rejudged], tmp_path, resamples=50)
    page = write_html(report, tmp_path).read_text(encoding="utf-8")
    body = re.sub(r"<(style|script)>.*?</\1>", "", page, flags=re.S)
    body = re.sub(r'src="data:[^"]*"', "", body)
    assert "`" not in body
    run_path = str(report.runs[0].path)
    assert f"<code>{run_path}</code>" in page
    assert "<code>taarof_expected</code>" in page  # in the Differences list
    assert f"`{run_path}`" in write_markdown(report, tmp_path).read_text(encoding="utf-8")  # markdown keeps them


def _score(value: float, n: int = 12) -> Score:
    low, high = wilson_interval(round(value * n), n)
    return Score(run=None, task="t", metric="accuracy", value=value, n=n, low=low, high=high, method="wilson")


def test_chart_legend_covers_no_value_label():
    # The non-taarof bar near 1.0 puts its label where a legend in the lower right used to sit
    chart = Chart(
        "TaarofBench: taarof-expected vs non-taarof by condition - m",
        ["standard", "Persian", "no-country"],
        {
            "taarof-expected": [_score(0.4), _score(0.5), _score(0.45)],
            "non-taarof": [_score(0.9), _score(0.95), _score(0.97)],
        },
    )
    fig = figure_for(chart)
    try:
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        ax = fig.axes[0]
        legend = ax.get_legend().get_window_extent(renderer)
        labels = [t.get_window_extent(renderer) for t in ax.texts]
        assert len(labels) == 6
        assert not any(legend.overlaps(box) for box in labels)
        figure_box = fig.bbox
        assert figure_box.x0 <= legend.x0 and legend.x1 <= figure_box.x1  # and it is not cut off
    finally:
        import matplotlib.pyplot as plt

        plt.close(fig)


def test_value_labels_stand_clear_of_the_error_bar_caps():
    # 1 of 1 correct: the Wilson interval ends at 1.000, so the cap sits where the bar ends, and the label began
    # right there (" 1.000 (n=1)": a space's width from the cap)
    chart = Chart("t - m", ["a", "b"], {"m": [_score(1.0, n=1), _score(0.5, n=12)]})
    fig = figure_for(chart)
    try:
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        ax = fig.axes[0]
        texts = sorted(ax.texts, key=lambda t: -t.get_window_extent(renderer).y0)  # top bar first
        assert [t.get_text() for t in texts] == ["1.000 (n=1)", "0.500 (n=12)"]  # no space standing in for a gap
        for text, s in zip(texts, chart.series["m"]):
            box = text.get_window_extent(renderer)
            cap_x, _ = ax.transData.transform((s.high, (box.y0 + box.y1) / 2))  # the cap at the interval's end
            points = (box.x0 - cap_x) * 72 / fig.dpi
            assert points >= 3, f"{text.get_text()!r} starts {points:.1f} pt right of its error bar's cap"
    finally:
        import matplotlib.pyplot as plt

        plt.close(fig)
