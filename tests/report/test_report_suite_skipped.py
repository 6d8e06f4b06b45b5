"""A run that left suite members out (suite_skip_unavailable) says so in the report's Runs section, with each
member and why (issue #34, point 3): the record is the one the pre-flight writes into the results."""

from __future__ import annotations

import json

from lm_eval_persian_culture.harness.preflight import SKIP_RESULTS_KEY
from lm_eval_persian_culture.report import render
from lm_eval_persian_culture.report.build import build
from lm_eval_persian_culture.report.render import write_markdown


def test_skipped_members_and_why_are_in_the_runs_section(tmp_path):
    runs = tmp_path / "runs"
    runs.mkdir()
    data = {
        "results": {"divan_binary": {"binary_accuracy,extract": 0.5}},
        "configs": {"divan_binary": {"metadata": {"version": 1.3}}},
        "n-samples": {"divan_binary": {"original": 4, "effective": 4}},
        "config": {"model": "hf", "model_args": "pretrained=org/m"},
        SKIP_RESULTS_KEY: {
            "persian_culture": {
                "ran": ["divan"],
                "skipped": {
                    "cac": {"tasks": ["cac_america"], "reasons": ["data: cac/conversations.jsonl: not found"]},
                    "percul": {"tasks": ["percul"], "reasons": ["data: gated on the hub", "judge: none"]},
                },
            }
        },
    }
    (runs / "results_2026-11-27T08-00-00.000000.json").write_text(json.dumps(data), encoding="utf-8")
    out = tmp_path / "out"
    out.mkdir()
    md = write_markdown(build([runs], out, resamples=20), out).read_text(encoding="utf-8")
    section = md.split("## Runs", 1)[1].split("\n## ", 1)[0]
    assert (
        "not run, by suite_skip_unavailable: `persian_culture`: `cac` skipped (data: cac/conversations.jsonl: not "
        "found), `persian_culture`: `percul` skipped (data: gated on the hub; judge: none)"
    ) in section


def test_a_run_without_the_record_says_nothing_of_skips(tmp_path):
    class _Run:
        data: dict = {"results": {}}

    assert render.skipped_members(_Run()) == []


def test_the_report_reads_the_key_the_preflight_writes():
    assert render.SUITE_SKIPPED_KEY == SKIP_RESULTS_KEY
