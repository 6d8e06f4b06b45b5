"""lm-eval 0.5 writes a group's members as "<group>::<task>" (results keys, configs, n-samples, and the
samples file names); the report reads them under their task names, as 0.4.13 writes them, so paper
reference rows and per-task tables match, and it still finds each task's samples file.

The files are hand-written in the layout a real 0.5.0.dev1 run of `--tasks cac` wrote here (keys
`cac::cac_america` ..., `samples_cac::cac_america_<ts>.jsonl`, `group_subtasks: {"cac": [...]}`).
"""

from __future__ import annotations

import json

from lm_eval_persian_culture.report.runs import load_runs, unqualified_task_names

TS = "2026-11-25T08-00-00.000000"


def results_05(members: list[str]) -> dict:
    q = [f"cac::{m}" for m in members]
    return {
        "results": {
            **{k: {"alias": k, "range_accuracy,extract": 0.5} for k in q},
            "cac": {"range_accuracy,extract": 0.5},
        },
        "configs": {k: {"task": k.split("::")[1], "metadata": {"version": 1.1}} for k in q},
        "n-samples": {k: {"original": 48, "effective": 2} for k in q},
        "higher_is_better": {"cac": {}, **{k: {} for k in q}},
        "versions": {"cac": 1.1, **{k: 1.1 for k in q}},
        "group_subtasks": {"cac": q},
        "config": {"model": "hf", "model_args": "pretrained=tiny"},
    }


def test_qualified_names_read_as_task_names_and_samples_still_found(tmp_path):
    members = ["cac_america", "cac_japan"]
    (tmp_path / f"results_{TS}.json").write_text(json.dumps(results_05(members)), encoding="utf-8")
    sample = {"doc_id": 0, "doc": {"conversation_id": "c1"}, "filtered_resps": ["{}"]}
    (tmp_path / f"samples_cac::cac_japan_{TS}.jsonl").write_text(json.dumps(sample) + "\n", encoding="utf-8")

    [run] = load_runs([tmp_path])

    assert sorted(run.results) == ["cac", "cac_america", "cac_japan"]
    assert sorted(run.configs) == ["cac_america", "cac_japan"]
    assert run.groups == {"cac": ["cac_america", "cac_japan"]}
    assert run.n_samples("cac_japan") == 2
    assert run.samples("cac_japan") == [sample]
    assert run.samples("cac_america") is None  # no file was written for it


def test_a_task_under_two_groups_keeps_its_qualified_names():
    data = {"results": {"g1::t": {}, "g2::t": {}, "u::only": {}}, "group_subtasks": {"g1": ["g1::t"], "g2": ["g2::t"]}}
    renamed, sample_names = unqualified_task_names(data)
    assert sorted(renamed["results"]) == ["g1::t", "g2::t", "only"]
    assert sample_names == {"only": "u::only"}


def test_lm_eval_0_4_results_are_left_as_they_are():
    data = results_05([])
    data["results"] = {"cac_america": {}}
    assert unqualified_task_names(data) == (data, {})
