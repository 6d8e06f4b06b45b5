"""The papers' published numbers: every reference file is well formed and names real tasks and metrics."""

from __future__ import annotations

import json

import pytest
import yaml

import lm_eval_persian_culture as pack
from lm_eval_persian_culture.report.references import ReferenceFileError, load_file, reference_files, validate


class _Loader(yaml.SafeLoader):
    pass


_Loader.add_constructor("!function", lambda loader, node: loader.construct_scalar(node))


def _metrics_by_task() -> dict[str, set[str]]:
    """task or group name -> metric names its YAML (or its subtasks' YAMLs) declare."""
    metrics: dict[str, set[str]] = {}
    groups: dict[str, list[str]] = {}
    for path in pack.TASKS_DIR.rglob("*.yaml"):
        cfg = yaml.load(path.read_text(encoding="utf-8"), Loader=_Loader)
        if "group" in cfg:
            groups[cfg["group"]] = [t if isinstance(t, str) else t.get("task") for t in cfg["task"]]
            metrics.setdefault(cfg["group"], set()).update(m["metric"] for m in cfg.get("aggregate_metric_list") or [])
        else:
            metrics.setdefault(cfg["task"], set()).update(m["metric"] for m in cfg.get("metric_list") or [])
    changed = True
    while changed:  # a group also answers for the metrics of its subtasks and subgroups
        changed = False
        for group, members in groups.items():
            for member in members:
                extra = metrics.get(member, set()) - metrics[group]
                if extra:
                    metrics[group] |= extra
                    changed = True
    return metrics


@pytest.mark.parametrize("benchmark, path", sorted(reference_files().items()), ids=lambda x: str(x))
def test_reference_file_names_pack_tasks_and_metrics(benchmark, path):
    rows = load_file(path)
    known = _metrics_by_task()
    for i, row in enumerate(rows):
        assert row["benchmark"] == benchmark
        assert row["task"] in known, f"{path.name} row {i}: no pack task or group {row['task']!r}"
        assert row["metric"] in known[row["task"]], (
            f"{path.name} row {i}: {row['task']} has no metric {row['metric']!r}"
        )


@pytest.mark.parametrize(
    "data, message",
    [
        ([], "expected a JSON object"),
        ({"benchmark": "x", "paper": "p", "rows": []}, "'rows' must be a non-empty list"),
        (
            {"benchmark": "x", "paper": "p", "rows": [{"model": "m", "task": "t", "metric": "a", "source": "T1"}]},
            "row 1: field 'value' is missing",
        ),
        (
            {
                "benchmark": "x",
                "paper": "p",
                "rows": [{"model": "m", "task": "t", "metric": "a", "value": "0.5", "source": "T1"}],
            },
            "row 1: field 'value' has the wrong type",
        ),
        (
            {
                "benchmark": "x",
                "paper": "p",
                "rows": [{"model": "m", "task": "t", "metric": "a", "value": 0.5, "source": "T1", "colour": "red"}],
            },
            "row 1: unknown field 'colour'",
        ),
        (
            {
                "benchmark": "x",
                "paper": "p",
                "rows": [{"model": "m", "task": "t", "metric": "a", "value": 0.5, "source": "T1", "kind": "robot"}],
            },
            "row 1: field 'kind'",
        ),
    ],
)
def test_malformed_reference_data_is_named(data, message):
    with pytest.raises(ReferenceFileError, match=message.replace("(", r"\(").replace(")", r"\)")):
        validate(data, "ref.json")


def test_a_paper_without_a_table_says_so_with_a_note(tmp_path):
    from lm_eval_persian_culture.report.references import no_table_note

    note = "only the abstract's figures could be read (contextual above 0.90 for the eight models)"
    path = tmp_path / "references.json"
    path.write_text(json.dumps({"benchmark": "x", "paper": "p", "no_published_table": note, "rows": []}))
    assert load_file(path) == [] and no_table_note(path) == note
    for bad, message in (
        ({"no_published_table": " "}, "must be a non-empty note"),
        ({"no_published_table": note, "rows": [{"model": "m"}]}, "says there is no table, but 'rows' has rows"),
    ):
        with pytest.raises(ReferenceFileError, match=message):
            validate({"benchmark": "x", "paper": "p", **bad}, "ref.json")


def test_the_report_prints_the_note_where_the_papers_rows_would_be(tmp_path, monkeypatch):
    from lm_eval_persian_culture.report import render
    from lm_eval_persian_culture.report.build import Report, Row
    from lm_eval_persian_culture.report.scores import Score

    class _Run:  # a run of one unjudged task, with nothing recorded beyond its score
        groups: dict = {}
        model = "m"
        results: dict = {}

        def task_metadata(self, task: str) -> dict:
            return {}

        def samples(self, task: str) -> list:
            return []

    row = Row("m", "cac_japan", _Run(), ())
    row.scores = {"range_accuracy": Score(None, "cac_japan", "range_accuracy", 0.5)}
    monkeypatch.setattr(render, "reference_notes", lambda: {"cac": "the table is an image"})
    tables = {name: notes for name, _, _, _, notes in render.benchmark_tables(Report([], [row], [], [], [], [], []))}
    assert "Paper: no published table to compare with (the table is an image)." in tables["cac"]


def test_truncated_reference_file_names_the_file(tmp_path):
    path = tmp_path / "bench.json"
    path.write_text(json.dumps({"benchmark": "bench", "paper": "p"})[:-5], encoding="utf-8")
    with pytest.raises(ReferenceFileError, match="bench.json: not valid JSON"):
        load_file(path)
