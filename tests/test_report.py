"""Charts from results JSON: the plotted values are the reported ones."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from lm_eval_persian_culture.report import charts_for

RESULTS = {
    "results": {
        "taarof": {"alias": "taarof", "accuracy,judge": 0.25, "accuracy_stderr,judge": 0.1},
        "taarof_expected": {
            "alias": " - taarof_expected",
            "accuracy,judge": 0.5,
            "accuracy_stderr,judge": "N/A",
            "judge_errors,judge": 1,
            "accuracy_topic_gift,judge": 1.0,
            "accuracy_topic_leaving,judge": 0.0,
            "accuracy_topic_payment,judge": float("nan"),
        },
        "hellaswag": {"acc,none": 0.3},
    },
    "configs": {},
}


def test_charts_hold_the_reported_values():
    overview, topics = charts_for(RESULTS)
    assert overview.labels == ["taarof", "taarof_expected"]
    assert overview.values == [0.25, 0.5] and overview.errors == [0.1, None]
    assert topics.title == "taarof_expected: accuracy by topic"
    # NaN (no judged doc in that topic) is left out rather than drawn as 0
    assert dict(zip(topics.labels, topics.values)) == {"gift": 1.0, "leaving": 0.0}


def test_report_cli_writes_pngs(tmp_path):
    run_dir = tmp_path / "OUT" / "model"
    run_dir.mkdir(parents=True)
    (run_dir / "results_2026.json").write_text(json.dumps(RESULTS))
    bin_dir = Path(sys.executable).parent
    proc = subprocess.run(
        [str(bin_dir / "lm-eval-persian"), "report", str(tmp_path / "OUT"), "--out", str(tmp_path / "charts")],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    pngs = sorted((tmp_path / "charts").glob("*.png"))
    assert len(pngs) == 2
    for p in pngs:
        assert p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and p.stat().st_size > 2000
