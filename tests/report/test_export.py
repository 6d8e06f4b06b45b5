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


def _write_results(folder: Path, model: str, results: dict, config: dict | None = None) -> Path:
    """A results file for tasks whose sizes the test gives ({task: (value, docs)}); metric hybrid_match."""
    data = {
        "results": {t: {"hybrid_match,none": v} for t, (v, _n) in results.items()},
        "n-samples": {t: {"original": n, "effective": n} for t, (_v, n) in results.items()},
        "config": {"model": "hf", "model_args": f"pretrained={model}", **(config or {})},
    }
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "results_2026-11-27T07-00-00.000000.json").write_text(json.dumps(data), encoding="utf-8")
    return folder


def test_another_task_of_the_same_benchmark_is_no_stand_in(tmp_path):
    # TARAZ's BLEnD questions are not its PerCul-SAQ questions: no warning that taraz_blend stood in for them
    warnings: list[str] = []
    export([_write_results(tmp_path / "runs", "org/m", {"taraz_blend": (0.5, 456)})], "csv", tmp_path / "s.csv",
           warnings=warnings)  # fmt: skip
    (row,) = read_rows(tmp_path / "s.csv")
    assert row["TARAZ BLEnD-fa"] == "0.5" and row["TARAZ PerCul-SAQ"] == ""
    assert warnings == []


def test_a_variant_of_the_column_task_is_a_stand_in(tmp_path):
    warnings: list[str] = []
    runs = _write_results(tmp_path / "runs", "org/m", {"taraz_percul_saq_judged": (0.5, 592)})
    export([runs], "csv", tmp_path / "s.csv", warnings=warnings)
    (line,) = warnings
    assert "'TARAZ PerCul-SAQ' (`taraz_percul_saq` hybrid_match) left empty" in line
    assert "`taraz_percul_saq_judged` (592 docs)" in line


def _request(out: Path) -> dict:
    return json.loads(next((out / "requests").glob("*.json")).read_text(encoding="utf-8"))


def test_hf_leaderboard_request_invents_no_model_facts(tmp_path):
    # a local model the export cannot read: lm-eval counted 129,024 parameters, recorded revision "main" (its
    # default) and no sha; nothing says the license
    runs = _write_results(
        tmp_path / "runs",
        str(tmp_path / "gone" / "tiny"),
        {"taraz_blend": (0.5, 456)},
        {"model_num_parameters": 129024, "model_revision": "main", "model_sha": "", "model_dtype": "float32"},
    )
    export([runs], "hf-leaderboard", tmp_path / "hf")
    request = _request(tmp_path / "hf")
    assert request["params"] == 0.000129  # billions; was 0.0 (rounded to 3 decimals)
    assert "revision" not in request and "license" not in request and "likes" not in request


def _safetensors(folder: Path, shapes: dict[str, tuple[int, ...]]) -> None:
    import torch
    from safetensors.torch import save_file

    folder.mkdir(parents=True, exist_ok=True)
    save_file({k: torch.zeros(*s, dtype=torch.bfloat16) for k, s in shapes.items()}, str(folder / "model.safetensors"))


def test_model_facts_come_from_the_local_folder_and_its_card(tmp_path):
    # a hub-cache snapshot folder: its commit is the revision; the card's YAML header gives the license
    commit = "0123456789abcdef0123456789abcdef01234567"
    folder = tmp_path / "hub" / "models--org--tiny" / "snapshots" / commit
    _safetensors(folder, {"embed": (100, 16), "lm_head": (16, 100), "norm": (16,)})
    (folder / "README.md").write_text("---\nlicense: apache-2.0\n---\n# tiny\n", encoding="utf-8")
    runs = _write_results(tmp_path / "runs", str(folder), {"taraz_blend": (0.5, 456)}, {"model_dtype": "bfloat16"})
    export([runs], "hf-leaderboard", tmp_path / "hf")
    request = _request(tmp_path / "hf")
    # 100*16 + 16*100 + 16 = 3,216 parameters, read from the safetensors header
    assert request["params"] == 3216 / 1e9 and request["license"] == "apache-2.0" and request["revision"] == commit
    export([runs], "csv", tmp_path / "s.csv")
    (row,) = read_rows(tmp_path / "s.csv")
    assert row["parameters"] == "3216" and row["model_sha"] == commit


def test_an_uncached_hub_model_gets_only_what_the_run_recorded(tmp_path):
    runs = _write_results(tmp_path / "runs", "no-such-org-34/no-such-model", {"taraz_blend": (0.5, 456)},
                          {"model_revision": "v2", "model_dtype": "bfloat16"})  # fmt: skip
    export([runs], "hf-leaderboard", tmp_path / "hf")
    request = _request(tmp_path / "hf")
    assert request["revision"] == "v2"  # what the hub id was run at
    assert "params" not in request and "license" not in request


def test_exports_name_the_judge(tmp_path):
    path = write_run(tmp_path / "runs", "org/m", taarof_group(0.25), groups=GROUPS)
    data = json.loads(path.read_text(encoding="utf-8"))
    data["configs"] = {t: {"metadata": {"judge": {"model": "fake-judge"}}} for t in GROUPS["taarof"]}
    path.write_text(json.dumps(data), encoding="utf-8")
    export([tmp_path / "runs"], "partai", tmp_path / "lb.csv")
    (row,) = read_rows(tmp_path / "lb.csv")
    assert row["Judge"] == "fake-judge"
    export([tmp_path / "runs"], "csv", tmp_path / "s.csv")
    assert read_rows(tmp_path / "s.csv")[0]["judge"] == "fake-judge"
    export([tmp_path / "runs"], "hf-leaderboard", tmp_path / "hf")
    result = json.loads(next((tmp_path / "hf" / "results").rglob("*.json")).read_text(encoding="utf-8"))
    assert result["config"]["judge"]["taarof"]["models"] == ["fake-judge"]
