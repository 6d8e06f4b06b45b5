"""``lm-eval-persian export`` on hand-written results files: which runs may fill a leaderboard column.

The files are lm-eval 0.4.13's layout (``results``, ``group_subtasks``, ``n-samples``, ``config``), written
here so each case (a --limit run, a run of taarof_expected alone, a full run) is known exactly.
"""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from lm_eval_persian_culture.report.export import export
from lm_eval_persian_culture.report.runs import ReportInputError

BIN = Path(sys.executable).parent
SIZES = {"taarof_expected": 311, "taarof_non_taarof": 139}


def write_run(
    folder: Path,
    model: str,
    results: dict,
    limit: int | None = None,
    groups: dict | None = None,
    ts: str = "2026-11-25T07-00-00.000000",
    params: int = 129024,
) -> Path:
    leaves = [t for t in results if t not in (groups or {})]
    n_samples = {t: {"original": SIZES[t], "effective": min(SIZES[t], limit) if limit else SIZES[t]} for t in leaves}
    data = {
        "results": {t: {f"{m},judge": v for m, v in metrics.items()} for t, metrics in results.items()},
        "group_subtasks": groups or {},
        "n-samples": n_samples,
        "config": {
            "model": "hf",
            "model_args": f"pretrained={model}",
            "model_num_parameters": params,
            "model_dtype": "torch.bfloat16",
            "model_sha": "abc",
            "limit": float(limit) if limit else None,
        },
    }
    out = folder / model.replace("/", "__")
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"results_{ts}.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def taarof_group(accuracy: float) -> dict:
    return {
        "taarof": {"accuracy": accuracy},
        "taarof_expected": {"accuracy": accuracy},
        "taarof_non_taarof": {"accuracy": accuracy},
    }


GROUPS = {"taarof": ["taarof_expected", "taarof_non_taarof"]}


def read_rows(path: Path) -> list[dict]:
    return list(csv.DictReader(path.open(encoding="utf-8")))


def test_a_limit_run_is_refused_unless_allowed_and_then_marked(tmp_path):
    write_run(tmp_path / "runs", "org/m", taarof_group(0.4), limit=5, groups=GROUPS)
    out = tmp_path / "lb.csv"
    with pytest.raises(ReportInputError) as err:
        export([tmp_path / "runs"], "partai", out)
    # 5 of 311 + 5 of 139 docs: the group rests on 10 of 450
    assert "org/m: TaarofBench: 10 of 450 docs (--limit 5)" in str(err.value)
    assert "--allow-subset" in str(err.value) and not out.exists()
    export([tmp_path / "runs"], "partai", out, allow_subset=True)
    (row,) = read_rows(out)
    assert row["TaarofBench"] == "40.00" and row["Subset"] == "TaarofBench: 10 of 450 docs (--limit 5)"
    export([tmp_path / "runs"], "hf-leaderboard", tmp_path / "hf", allow_subset=True)
    result = json.loads(next((tmp_path / "hf" / "results").rglob("*.json")).read_text(encoding="utf-8"))
    assert result["config"]["subset"] == ["TaarofBench: 10 of 450 docs (--limit 5)"]


def test_a_full_run_is_exported_unmarked_with_a_whole_parameter_count(tmp_path):
    write_run(tmp_path / "runs", "org/m", taarof_group(0.25), groups=GROUPS)
    export([tmp_path / "runs"], "partai", tmp_path / "lb.csv")
    (row,) = read_rows(tmp_path / "lb.csv")
    assert row["TaarofBench"] == "25.00" and row["Subset"] == ""
    assert row["#Params (B)"] == "0.000129"  # 129,024 parameters: not "0.00"
    export([tmp_path / "runs"], "csv", tmp_path / "scores.csv")
    (row,) = read_rows(tmp_path / "scores.csv")
    assert row["parameters"] == "129024"  # not 129023.99999999999
    assert row["TaarofBench"] == "0.25" and row["subset"] == ""


def test_a_limit_run_no_longer_latest_does_not_block_the_full_one(tmp_path):
    write_run(tmp_path / "runs", "org/m", taarof_group(0.9), limit=5, groups=GROUPS, ts="2026-11-25T06-00-00.0")
    write_run(tmp_path / "runs", "org/m", taarof_group(0.3), groups=GROUPS, ts="2026-11-25T07-00-00.0")
    export([tmp_path / "runs"], "partai", tmp_path / "lb.csv")
    (row,) = read_rows(tmp_path / "lb.csv")
    assert row["TaarofBench"] == "30.00" and row["Subset"] == ""


def test_taarof_expected_alone_leaves_the_column_empty_and_says_why(tmp_path):
    # the README's main job: taarof_expected (311 scenarios) is not TaarofBench's accuracy over all 450
    write_run(tmp_path / "runs", "org/m", {"taarof_expected": {"accuracy": 0.5}})
    env = {**os.environ, "MPLBACKEND": "Agg"}
    proc = subprocess.run(
        [
            str(BIN / "lm-eval-persian"),
            "export",
            str(tmp_path / "runs"),
            "--format",
            "partai",
            "--out",
            str(tmp_path / "lb.csv"),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    (row,) = read_rows(tmp_path / "lb.csv")
    assert row["TaarofBench"] == ""
    warning = next(line for line in proc.stderr.splitlines() if line.startswith("warning:"))
    assert "'TaarofBench' (`taarof` accuracy) left empty" in warning
    assert "`taarof_expected` (311 docs)" in warning and "run `--tasks taarof`" in warning


def test_subset_refusal_is_one_message_exit_2(tmp_path):
    write_run(tmp_path / "runs", "org/m", taarof_group(0.4), limit=5, groups=GROUPS)
    proc = subprocess.run(
        [
            str(BIN / "lm-eval-persian"),
            "export",
            str(tmp_path / "runs"),
            "--format",
            "csv",
            "--out",
            str(tmp_path / "s.csv"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "Re-run without --limit, or pass --allow-subset" in proc.stderr.strip().splitlines()[-1]


def test_subset_counts_the_leaves_of_nested_groups():
    from lm_eval_persian_culture.report.export import scored_docs, subset_note
    from lm_eval_persian_culture.report.runs import Run

    data = {
        "results": {},
        "config": {"limit": 5.0},
        "group_subtasks": {
            "persian_culture": ["taarof", "cac"],
            "taarof": ["taarof_expected", "taarof_non_taarof"],
            "cac": ["cac_america"],
        },
        "n-samples": {
            "taarof_expected": {"original": 311, "effective": 5},
            "taarof_non_taarof": {"original": 139, "effective": 5},
            "cac_america": {"original": 48, "effective": 5},
        },
    }
    run = Run(Path("results_x.json"), data, Path("."), "x")
    assert scored_docs(run, "persian_culture") == (15, 311 + 139 + 48)
    assert subset_note(run, "cac") == "5 of 48 docs (--limit 5)"
