"""The report names who judged each run, and a paper row sits beside a run judged by another judge only with a
note (issue #34, point 4). Hand-written results files: taarof_expected, 4 of 10 judged Yes (accuracy 0.4).

The paper's judge is read from TaarofBench's references.json: GPT-4 at temperature 0 (paper sec. 3,
"Evaluation Protocol"), so a run judged by `fake-judge`, by an `hf:` model or by a jury gets the note, and a run
judged by `gpt-4` (or its dated snapshot `gpt-4-0613`) does not.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lm_eval_persian_culture.report.build import build
from lm_eval_persian_culture.report.judges import judge_from_value, same_judge, task_judge
from lm_eval_persian_culture.report.references import load_references
from lm_eval_persian_culture.report.render import write_markdown
from lm_eval_persian_culture.report.runs import Run, load_runs


def write_run(folder: Path, metadata: dict, ts: str = "2026-11-25T07-00-00.000000", model: str = "org/m") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    data = {
        "results": {"taarof_expected": {"accuracy,judge": 0.4, "judge_errors,judge": 0}},
        "group_subtasks": {},
        "configs": {"taarof_expected": {"metadata": {"version": 2.0, **metadata}}},
        "n-samples": {"taarof_expected": {"original": 10, "effective": 10}},
        "config": {"model": "hf", "model_args": f"pretrained={model}"},
    }
    (folder / f"results_{ts}.json").write_text(json.dumps(data), encoding="utf-8")
    return folder


def taarof_table(md: str) -> list[str]:
    section = md.split("## TaarofBench", 1)[1].split("\n## ", 1)[0]
    return [line for line in section.splitlines() if line.startswith("|")]


def report_md(tmp_path: Path, runs: Path) -> str:
    report = build([runs], tmp_path / "out", resamples=20)
    (tmp_path / "out").mkdir(exist_ok=True)
    return write_markdown(report, tmp_path / "out").read_text(encoding="utf-8")


FAKE = {"judge_model": "fake-judge", "judge": {"backend": "openai-compatible", "model": "fake-judge"}}


def test_a_fake_judged_run_is_named_and_the_gpt4_paper_rows_get_a_note(tmp_path):
    md = report_md(tmp_path, write_run(tmp_path / "runs", FAKE))
    runs = md.split("## Runs", 1)[1].split("\n## ", 1)[0]
    assert "judge: fake-judge" in runs
    header, _sep, *rows = taarof_table(md)
    assert header.startswith("| model | task | judge |")
    (mine,) = [r for r in rows if r.startswith("| org/m ")]
    assert "| fake-judge |" in mine
    paper = [r for r in rows if r.startswith("| paper: ")]
    # GPT-4o, Claude 3.5 Haiku, DeepSeek V3, Dorna, Llama-3-8B and three human groups have a taarof_expected row
    assert len(paper) == 8
    judged = [r for r in paper if "Humans" not in r]
    assert len(judged) == 5 and all("| gpt-4 † |" in r for r in judged)
    assert all("†" not in r for r in paper if "Humans" in r)  # the human study had no judge
    note = "† `taarof_expected`: the paper's rows were scored by gpt-4, the runs' rows by fake-judge (org/m)"
    assert note in md


@pytest.mark.parametrize("judge", ["gpt-4", "gpt-4-0613", "openai/gpt-4"])
def test_a_run_judged_by_the_papers_judge_gets_no_note(tmp_path, judge):
    md = report_md(tmp_path, write_run(tmp_path / "runs", {"judge": {"model": judge}}))
    assert "†" not in "\n".join(taarof_table(md)) and "were scored by" not in md


def test_an_hf_judge_and_a_jury_are_not_the_papers_judge(tmp_path):
    write_run(tmp_path / "runs", {"judge": {"model": "hf:Qwen/Qwen2.5-1.5B-Instruct", "revision": "abc"}})
    jury = {"members": [{"model": "gpt-4"}, {"model": "hf:org/j2"}, {"model": "j3"}], "aggregation": "majority"}
    write_run(tmp_path / "runs", {"judge": jury}, ts="2026-11-25T08-00-00.000000", model="org/n")
    md = report_md(tmp_path, tmp_path / "runs")
    assert "judge: hf:Qwen/Qwen2.5-1.5B-Instruct" in md and "judge: jury of 3, majority: gpt-4, hf:org/j2, j3" in md
    note = next(line for line in md.splitlines() if line.startswith("_† `taarof_expected`"))
    assert (
        "hf:Qwen/Qwen2.5-1.5B-Instruct (org/m)" in note and "jury of 3, majority: gpt-4, hf:org/j2, j3 (org/n)" in note
    )


def test_judge_shapes_read_generically():
    assert judge_from_value({"model": "a", "backend": "x"}).models == ("a",)
    assert judge_from_value([{"model": "a"}, "b"]).models == ("a", "b")
    assert judge_from_value({"jury": ["a", "b", "c"], "rule": "majority"}).label == "jury of 3, majority: a, b, c"
    assert judge_from_value("none") is None and judge_from_value(None) is None and judge_from_value([]) is None
    assert not same_judge(judge_from_value("gpt-4o"), "gpt-4") and not same_judge(
        judge_from_value("gpt-4-turbo"), "gpt-4"
    )
    assert not same_judge(judge_from_value(["gpt-4", "gpt-4"]), "gpt-4")  # a jury is never the paper's one judge


def test_a_judge_setting_alone_names_no_judge(tmp_path):
    # --metadata lands in every task: an unjudged task (no judge_errors) carries judge_model without being judged
    data = {
        "results": {"divan_binary": {"binary_accuracy,none": 0.5}, "taarof_expected": {"judge_errors,judge": 0}},
        "configs": {
            "divan_binary": {"metadata": {"judge_model": "fake-judge"}},
            "taarof_expected": {"metadata": {"judge_model": "fake-judge"}},
        },
    }
    run = Run(tmp_path / "results_x.json", data, tmp_path, "x")
    assert task_judge(run, "divan_binary") is None
    assert task_judge(run, "taarof_expected").models == ("fake-judge",)


def test_the_judge_is_read_from_sample_records_when_results_lack_it(tmp_path):
    write_run(tmp_path / "runs", {})
    record = {"response": "r", "verdict": "yes", "judge_model": "hf:org/judge", "judge_revision": "abc"}
    line = {"doc_id": 0, "doc": {}, "filter": "judge", "filtered_resps": [json.dumps(record)]}
    (tmp_path / "runs" / "samples_taarof_expected_2026-11-25T07-00-00.000000.jsonl").write_text(json.dumps(line) + "\n")
    (run,) = load_runs([tmp_path / "runs"])
    assert task_judge(run, "taarof_expected").models == ("hf:org/judge",)


def test_the_papers_judges_are_recorded_in_references():
    # TaarofBench: every model row judged by GPT-4 (sec. 3), no human row; TARAZ: only LLM-judge (GPT-5, sec. 4).
    # The judge check's row (GPT-4's 94% agreement with human labels) is scored against labels, by no judge.
    taarof = load_references("taarof")
    judged = [r for r in taarof if r.get("kind", "model") == "model" and r["task"] != "taarof_judge_check"]
    assert {r.get("judge") for r in judged} == {"gpt-4"}
    assert all("judge" not in r for r in taarof if r["task"] == "taarof_judge_check")
    assert all("judge" not in r for r in taarof if r.get("kind") == "human")
    taraz = load_references("taraz")
    assert {r.get("judge") for r in taraz if r["metric"] == "judge_match"} == {"gpt-5"}
    assert all("judge" not in r for r in taraz if r["metric"] != "judge_match")


# The shapes branch jury31 (issue #31) writes: metadata.judge = {"jury": [members], "tie_rule", "figures"}, and a
# sample record naming every member under "jury" with judge_model "jury(a, b, c)"
JURY31_METADATA = {
    "jury": [
        {"name": "a", "backend": "openai-compatible", "model": "judge-a", "settings": {"temperature": 0.0}},
        {"name": "b", "backend": "transformers (in-process)", "model": "hf:org/j-b", "revision": "abc"},
        {"name": "c", "backend": "openai-compatible", "model": "judge-c"},
    ],
    "tie_rule": "not_met",
    "figures": {"fleiss_kappa": 0.5},
}


def test_a_jury_as_branch_jury31_records_it(tmp_path):
    write_run(tmp_path / "runs", {"judge": JURY31_METADATA})
    (run,) = load_runs([tmp_path / "runs"])
    judge = task_judge(run, "taarof_expected")
    assert judge.models == ("judge-a", "hf:org/j-b", "judge-c") and judge.is_jury
    assert judge.label == "jury of 3, majority, tie: not_met: judge-a, hf:org/j-b, judge-c"
    assert judge.members[0]["temperature"] == 0.0 and judge.members[1]["revision"] == "abc"


def test_a_jury_read_from_its_sample_records(tmp_path):
    write_run(tmp_path / "runs", {})
    record = {
        "verdict": "yes",
        "judge_model": "jury(judge-a, judge-b, judge-c)",
        "jury": [{"judge": n, "verdict": "yes", "judge_model": f"judge-{n}"} for n in "abc"],
        "jury_tie_rule": "first",
    }
    line = {"doc_id": 0, "doc": {}, "filter": "judge", "filtered_resps": [json.dumps(record)]}
    (tmp_path / "runs" / "samples_taarof_expected_2026-11-25T07-00-00.000000.jsonl").write_text(json.dumps(line) + "\n")
    (run,) = load_runs([tmp_path / "runs"])
    assert task_judge(run, "taarof_expected").label == "jury of 3, majority, tie: first: judge-a, judge-b, judge-c"
