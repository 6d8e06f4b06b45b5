"""A run with nothing to chart (only a built-in task) still gets its report: the --out folder is created
even though no chart creates it (issue #26: it crashed writing report.md into a folder that did not exist)."""

from __future__ import annotations

import json

from lm_eval_persian_culture.report import report_main


def test_report_of_a_run_without_charts_creates_its_out_folder(tmp_path, capsys):
    run = tmp_path / "run"
    run.mkdir()
    results = {
        "results": {"arc_easy": {"acc,none": 0.25, "acc_stderr,none": 0.1}},
        "configs": {"arc_easy": {"task": "arc_easy"}},
        "n-samples": {"arc_easy": {"original": 4, "effective": 4}},
        "config": {"model": "hf", "model_args": "pretrained=tiny"},
    }
    (run / "results_2026-11-25T08-00-00.json").write_text(json.dumps(results), encoding="utf-8")
    out = tmp_path / "new" / "report"

    assert report_main([str(run), "--out", str(out)]) == 0

    md = (out / "report.md").read_text(encoding="utf-8")
    assert "arc_easy" in md and "0.250" in md
    assert (out / "report.html").is_file()
    assert not (out / "charts").exists()


def test_report_help_is_plain_text_and_names_the_default_out(capsys):
    import pytest

    with pytest.raises(SystemExit) as done:
        report_main(["--help"])
    assert done.value.code == 0
    text = capsys.readouterr().out
    assert "``" not in text  # the module docstring's markup stays out of --help
    assert "(default: report" in " ".join(text.split())
