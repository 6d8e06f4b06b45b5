"""``export --format eee`` (Every Eval Ever 0.3.0, validated against the published schema in fixtures/eee/) and
``export --format eval-results`` (Hugging Face model-card ``.eval_results/*.yaml``, read back with huggingface_hub's
own parser): both carry the interval, n, the judge (or jury) and whether the run was a subset (issue #34, point 7).

The runs are hand-written lm-eval 0.4.13 results files: TaarofBench's group at accuracy 0.4 over its 450 scenarios
(311 + 139), judged by `fake-judge`, and DivanBench's three accuracies (no judge). The expected intervals are
computed here from Wilson's formula, not by the pack's code.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
import yaml

from lm_eval_persian_culture.report.export import export

SCHEMA = Path(__file__).parent / "fixtures" / "eee" / "eval.schema.json"
SIZES = {"taarof_expected": 311, "taarof_non_taarof": 139, "divan_factual": 40, "divan_binary": 60}
FAKE = {"backend": "openai-compatible", "model": "fake-judge", "settings": {"temperature": 0.0}}
# a jury as branch jury31 (issue #31) records it: members under "jury", a strict majority with a tie rule
JURY = {"jury": [{"name": "a", "model": "gpt-4"}, {"name": "b", "model": "hf:org/j2"}, {"name": "c", "model": "j3"}],
        "tie_rule": "not_met"}  # fmt: skip


def write_run(folder: Path, judge: dict | None = FAKE, limit: int | None = None) -> Path:
    results = {
        "taarof": {"accuracy,judge": 0.4},
        "taarof_expected": {"accuracy,judge": 0.4, "judge_errors,judge": 0},
        "taarof_non_taarof": {"accuracy,judge": 0.4, "judge_errors,judge": 0},
        "divan": {"factual_accuracy,none": 0.25, "binary_accuracy,none": 0.5, "scenario_accuracy,none": 0.75},
    }
    leaves = ["taarof_expected", "taarof_non_taarof", "divan_factual", "divan_binary"]
    meta = {"judge_model": "fake-judge", **({"judge": judge} if judge else {})}
    data = {
        "results": results,
        "group_subtasks": {"taarof": leaves[:2], "divan": leaves[2:]},
        "configs": {t: {"metadata": meta} for t in leaves[:2]},
        "n-samples": {t: {"original": SIZES[t], "effective": min(SIZES[t], limit or SIZES[t])} for t in leaves},
        "config": {"model": "hf", "model_args": "pretrained=org/m", "model_dtype": "torch.bfloat16", "limit": limit},
        "lm_eval_version": "0.4.13",
        "date": 1764226800.0,  # 2025-11-27T07:00:00Z
    }
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "results_2026-11-27T07-00-00.000000.json").write_text(json.dumps(data), encoding="utf-8")
    return folder


def wilson(k: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return centre - half, centre + half


def eee_files(out: Path) -> dict[str, dict]:
    return {p.relative_to(out).parts[0]: json.loads(p.read_text(encoding="utf-8")) for p in out.rglob("*.json")}


def test_eee_records_validate_against_the_published_schema(tmp_path):
    import jsonschema

    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    assert schema["version"] == "0.3.0"
    export([write_run(tmp_path / "runs")], "eee", tmp_path / "eee", resamples=20)
    records = eee_files(tmp_path / "eee")
    assert sorted(records) == ["divan", "taarof"]  # one record per benchmark, data/<benchmark>/<developer>/<model>/
    assert all(p.parts[-3:-1] == ("org", "m") for p in (tmp_path / "eee").rglob("*.json"))
    for record in records.values():
        jsonschema.Draft7Validator(schema).validate(record)
        assert record["eval_library"]["name"] == "lm_eval" and record["eval_library"]["version"] == "0.4.13"
        assert record["model_info"]["id"] == "org/m" and record["source_metadata"]["source_type"] == "evaluation_run"


def test_eee_carries_interval_n_judge_and_subset(tmp_path):
    export([write_run(tmp_path / "runs")], "eee", tmp_path / "eee", resamples=20)
    (result,) = eee_files(tmp_path / "eee")["taarof"]["evaluation_results"]
    details = result["score_details"]
    assert details["score"] == 0.4
    interval = details["uncertainty"]["confidence_interval"]
    assert (interval["lower"], interval["upper"]) == pytest.approx(wilson(180, 450))  # 0.4 of 450 scenarios
    assert interval["confidence_level"] == 0.95 and details["uncertainty"]["num_samples"] == 450
    assert details["details"]["subset"] == "false" and details["details"]["docs_scored"] == "450"
    (judge,) = result["metric_config"]["llm_scoring"]["judges"]
    assert judge["model_info"]["name"] == "fake-judge" and judge["temperature"] == 0.0
    divan = eee_files(tmp_path / "eee")["divan"]["evaluation_results"]
    assert [r["evaluation_name"] for r in divan] == ["DivanBench factual", "DivanBench binary", "DivanBench scenario"]
    assert all("llm_scoring" not in r["metric_config"] for r in divan)  # nobody judged DivanBench


def test_eee_records_a_jury_as_a_jury_and_a_subset_as_a_subset(tmp_path):
    import jsonschema

    export([write_run(tmp_path / "runs", JURY, limit=5)], "eee", tmp_path / "eee", allow_subset=True, resamples=20)
    record = eee_files(tmp_path / "eee")["taarof"]
    jsonschema.Draft7Validator(json.loads(SCHEMA.read_text(encoding="utf-8"))).validate(record)
    (result,) = record["evaluation_results"]
    scoring = result["metric_config"]["llm_scoring"]
    assert [j["model_info"]["name"] for j in scoring["judges"]] == ["gpt-4", "hf:org/j2", "j3"]
    assert scoring["aggregation_method"] == "majority_vote" and scoring["additional_details"]["jury"] == "true"
    assert scoring["additional_details"]["rule"] == "majority, tie: not_met"
    details = result["score_details"]["details"]
    assert details["subset"] == "true" and (details["docs_scored"], details["docs_total"]) == ("10", "450")
    assert result["score_details"]["uncertainty"]["num_samples"] == 10


def test_eval_results_yaml_round_trips_through_huggingface_hub(tmp_path):
    from huggingface_hub import eval_result_entries_to_yaml, parse_eval_result_entries

    warnings: list[str] = []
    paths = export(
        [write_run(tmp_path / "runs")],
        "eval-results",
        tmp_path / "card",
        resamples=20,
        hub_datasets={"taarof": "org/taarofbench"},
        warnings=warnings,
    )
    assert {p.name for p in paths} == {
        "taarofbench.yaml",
        "divanbench_factual.yaml",
        "divanbench_binary.yaml",
        "divanbench_scenario.yaml",
    }
    assert all(p.parent == tmp_path / "card" / ".eval_results" for p in paths)
    data = yaml.safe_load((tmp_path / "card" / ".eval_results" / "taarofbench.yaml").read_text(encoding="utf-8"))
    (entry,) = parse_eval_result_entries(data)
    assert (entry.dataset_id, entry.task_id, entry.value) == ("org/taarofbench", "taarof", 0.4)
    assert entry.date == "2025-11-27T07:00:00Z"
    low, high = wilson(180, 450)
    notes = dict(part.split(": ", 1) for part in entry.notes.split("; ")[1:])
    assert notes["metric"] == "accuracy" and notes["n"] == "450" and notes["judge"] == "fake-judge"
    assert notes["subset"] == "false" and notes["interval"] == f"95% [{low:.6g}, {high:.6g}] (wilson)"
    assert eval_result_entries_to_yaml([entry]) == data  # nothing the reader does not know
    divan = yaml.safe_load((tmp_path / "card" / ".eval_results" / "divanbench_binary.yaml").read_text())
    (entry,) = parse_eval_result_entries(divan)
    assert (entry.dataset_id, entry.task_id, entry.value) == ("divanbench/divanbench", "divan_binary_accuracy", 0.5)
    assert "judge: none" in entry.notes


def test_eval_results_leaves_out_a_benchmark_without_a_hub_dataset_and_says_so(tmp_path):
    warnings: list[str] = []
    paths = export([write_run(tmp_path / "runs")], "eval-results", tmp_path / "card", resamples=20, warnings=warnings)
    assert "taarofbench.yaml" not in {p.name for p in paths} and len(paths) == 3
    (line,) = [w for w in warnings if "TaarofBench" in w]
    assert "--hub-dataset taarof=<org/name>" in line
