"""Assemble the report: tables per benchmark with the papers' reference rows, charts, the side-by-side
table with standard lm-eval tasks, a differences section, and what is missing."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

from lm_eval_persian_culture.report.benchmarks import Benchmark, benchmark_of, benchmarks, breakdown_of
from lm_eval_persian_culture.report.charts import Chart, draw
from lm_eval_persian_culture.report.references import load_references
from lm_eval_persian_culture.report.runs import Run, known_task_versions, load_runs
from lm_eval_persian_culture.report.scores import Score, breakdown_scores, metric_records, run_scores
from lm_eval_persian_culture.tasks._benchmark import (
    BreakdownCharts,
    ChartSpec,
    ConditionChart,
    MetricsChart,
    ModelsChart,
    TasksChart,
)

# Task metadata that changes what a score means; rows that differ in any of these are never merged.
FINGERPRINT_FIELDS = {
    "data": ("data", "data_dir"),
    "judge": ("judge_model", "judge_jury", "judge_jury_tie"),  # one judge, or a jury and its tie rule
    "prompt version": ("prompt_version",),
    "extraction": ("extraction_mode",),  # each benchmark adds its own (Benchmark.fingerprint)
    "task version": ("version",),
    "pack version": ("pack_version",),
}


def fingerprint_fields(task: str) -> dict[str, tuple[str, ...]]:
    """The metadata keys that change what a task's score means: the pack-wide ones and its benchmark's own."""
    fields = dict(FINGERPRINT_FIELDS)
    bench = benchmark_of(task)
    for label, keys in bench.fingerprint if bench else ():
        fields[label] = (*fields.get(label, ()), *keys)
    return fields


def _fingerprint(run: Run, task: str) -> tuple[tuple[str, str], ...]:
    meta = run.task_metadata(task)
    parts = []
    for label, keys in fingerprint_fields(task).items():
        values = [f"{k}={meta[k]}" for k in keys if meta.get(k) not in (None, "")]
        if label == "data":
            provenance = _provenance(run, task)
            if provenance:
                values = [provenance]
        if values:
            parts.append((label, "; ".join(str(v) for v in values)))
    return tuple(parts)


def _provenance(run: Run, task: str) -> str:
    samples = run.samples(task)
    if not samples:
        return ""
    found = sorted(
        {str((s.get("doc") or {}).get("provenance")) for s in samples if (s.get("doc") or {}).get("provenance")}
    )
    return ", ".join(found)


@dataclass
class Row:
    model: str
    task: str
    run: Run
    fingerprint: tuple[tuple[str, str], ...]
    scores: dict[str, Score] = field(default_factory=dict)
    also_in: list[Path] = field(default_factory=list)  # older runs with the same model, task and fingerprint

    @property
    def is_group(self) -> bool:
        return self.task in self.run.groups


@dataclass
class Report:
    runs: list[Run]
    rows: list[Row]
    charts: list[Chart]
    differences: list[str]
    missing: list[str]
    warnings: list[str]
    references: list[dict]


def collect_rows(runs: list[Run], resamples: int) -> list[Row]:
    latest: dict[tuple, Row] = {}
    for run in runs:  # oldest first: a later run with the same fingerprint replaces an earlier one
        by_task: dict[str, dict[str, Score]] = {}
        for s in run_scores(run, resamples):
            by_task.setdefault(s.task, {})[s.metric] = s
        for task, scores in by_task.items():
            key = (run.model, task, _fingerprint(run, task))
            row = Row(run.model, task, run, key[2], scores)
            if key in latest:
                row.also_in = [*latest[key].also_in, latest[key].run.path]
            latest[key] = row
    return list(latest.values())


def differences(rows: list[Row]) -> list[str]:
    """Lines naming every field in which rows of the same task differ (never merged silently)."""
    lines = []
    by_task: dict[str, list[Row]] = {}
    for row in rows:
        by_task.setdefault(row.task, []).append(row)
    for task, task_rows in sorted(by_task.items()):
        if len(task_rows) < 2:
            continue
        labels = sorted({label for r in task_rows for label, _ in r.fingerprint})
        for label in labels:
            values = {
                r.model + (f" ({r.run.path.name})" if sum(x.model == r.model for x in task_rows) > 1 else ""): dict(
                    r.fingerprint
                ).get(label, "(not recorded)")
                for r in task_rows
            }
            if len(set(values.values())) > 1:
                detail = "; ".join(f"{m}: {v}" for m, v in values.items())
                lines.append(f"`{task}`: {label} differs between rows: {detail}")
    for row in rows:
        if row.also_in:
            lines.append(
                f"`{row.task}` for {row.model}: {len(row.also_in)} earlier run(s) with the same settings "
                f"({', '.join(p.name for p in row.also_in)}); the latest, {row.run.path.name}, is shown"
            )
    return lines


def missing_items(runs: list[Run]) -> list[str]:
    """Metrics a run reports as NaN, said aloud with their cause: items cut by --limit, none in the data,
    or items the judge gave no verdict for."""
    lines = []
    for run in runs:
        for task, metrics in run.results.items():
            nan = sorted(
                k.partition(",")[0]
                for k, v in metrics.items()
                if isinstance(v, float) and math.isnan(v) and not k.partition(",")[0].endswith("_stderr")
            )
            by_cause: dict[str, list[str]] = {}
            for metric in nan:
                by_cause.setdefault(missing_cause(run, task, metric), []).append(metric)
            for cause, names in by_cause.items():
                lines.append(f"{run.model_label} / `{task}`: no value for {', '.join(names)}: {cause}; not drawn")
    return lines


def missing_cause(run: Run, task: str, metric: str) -> str:
    """Why a metric has no value: the judge gave no verdict for its items, --limit cut them, or none exist."""
    n = run.n_samples(task)
    original = ((run.data.get("n-samples") or {}).get(task) or {}).get("original")
    cut = isinstance(original, int) and n is not None and n < original
    errors = next((v for k, v in run.results.get(task, {}).items() if k.startswith("judge_errors,")), None)
    no_verdict = "the judge gave no verdict for any of their items" + (
        f" (judge_errors={int(errors)} of {n} docs)" if isinstance(errors, (int, float)) else ""
    )
    samples = run.samples(task)
    records = metric_records(samples, task, metric) if samples else None
    if records:
        if all("verdict" in r and r["verdict"] is None for r in records):
            return no_verdict
        return "undefined over their items"
    if records is None and isinstance(errors, (int, float)) and n and errors >= n:
        return no_verdict  # no samples logged, but no doc of the task got a verdict
    if cut:
        return f"none of their items among the {n} of {original} docs scored (cut by --limit)"
    if records is None:
        return f"no item among the {n} docs (run without --log_samples: cause not checked)"
    return f"no item of it among the {n} docs of the data"


def version_warnings(runs: list[Run]) -> list[str]:
    known = known_task_versions()
    lines = []
    for run in runs:
        for task, version in (run.data.get("versions") or {}).items():
            if (
                task in known
                and known[task] is not None
                and version is not None
                and float(version) != float(known[task])
            ):
                lines.append(
                    f"{run.path}: `{task}` was scored by task version {version}; this pack has version "
                    f"{known[task]}: compare with care"
                )
    return lines


# --------------------------------------------------------------------------- charts
def _series_by_model(rows: list[Row], tasks: list[str], metric: str) -> dict[str, list[Score | None]]:
    models = list(dict.fromkeys(r.model for r in rows))
    out = {}
    for model in models:
        got = {r.task: r.scores.get(metric) for r in rows if r.model == model}
        out[_short(model)] = [got.get(t) for t in tasks]
    return out


def _short(model: str) -> str:
    return model.split("/")[-1] if model.startswith(("/", ".", "~")) else model


def _title_models(rows: list[Row]) -> str:
    models = list(dict.fromkeys(_short(r.model) for r in rows))
    return ", ".join(models[:3]) + (f" +{len(models) - 3}" if len(models) > 3 else "")


def _task_order(rows: list[Row]) -> list[str]:
    """Groups first, each followed by its own subtasks; loose tasks after."""
    tasks = list(dict.fromkeys(r.task for r in rows))
    groups = {r.task: r.run.groups.get(r.task, []) for r in rows if r.is_group}
    ordered: list[str] = []
    for g in [t for t in tasks if t in groups]:
        ordered.append(g)
        ordered += [t for t in groups[g] if t in tasks and t not in ordered]
    ordered += [t for t in tasks if t not in ordered]
    return ordered


def headline_chart(bench: Benchmark, rows: list[Row]) -> Chart | None:
    tasks = _task_order(rows)
    metric = next((m for m in bench.headline if any(m in r.scores for r in rows)), None)
    if metric is None:
        return None
    labels = [f"{t} [group]" if any(r.task == t and r.is_group for r in rows) else f"   {t}" for t in tasks]
    return Chart(
        f"{bench.title}: {metric} per task and group - {_title_models(rows)}",
        labels,
        _series_by_model(rows, tasks, metric),
        xlabel=f"{metric} (95% interval)",
    )


def condition_charts(spec: ConditionChart, rows: list[Row]) -> list[Chart]:
    charts = []
    for model in dict.fromkeys(r.model for r in rows):
        got = {r.task: r.scores.get(spec.metric) for r in rows if r.model == model}
        cats: list[str] = []
        series: dict[str, list[Score | None]] = {label: [] for label, _ in spec.families}
        for label, suffix in spec.conditions:
            values = [got.get(f"{family}{suffix}") for _, family in spec.families]
            if any(values):
                cats.append(label)
                for (family_label, _), value in zip(spec.families, values):
                    series[family_label].append(value)
        if cats:
            charts.append(Chart(f"{spec.title} - {_short(model)}", cats, series, xlabel=spec.xlabel))
    return charts


def models_charts(spec: ModelsChart, rows: list[Row]) -> list[Chart]:
    chosen = next(([r for r in rows if r.task == task] for task in spec.tasks if any(r.task == task for r in rows)), [])
    if not chosen:
        return []
    return [
        Chart(
            f"{spec.title} - {_title_models(chosen)}",
            [_short(r.model) for r in chosen],
            {label: [r.scores.get(metric) for r in chosen] for label, metric in spec.series},
            xlabel=spec.xlabel,
            signed=spec.signed,
            error_kind=spec.error_kind,
        )
    ]


def breakdown_charts(spec: BreakdownCharts, bench: Benchmark, rows: list[Row]) -> list[Chart]:
    """Per-category (PerCul), per-axis/relationship (CAC), per-topic (TaarofBench) accuracy across models."""
    charts = []
    for task in dict.fromkeys(r.task for r in rows if not r.is_group):
        task_rows = [r for r in rows if r.task == task]
        per_model = {_short(r.model): {s.metric: s for s in breakdown_scores(r.run, task)} for r in task_rows}
        by_kind: dict[tuple[str, str], list[str]] = {}
        for metric in dict.fromkeys(m for scores in per_model.values() for m in scores):
            by_kind.setdefault(breakdown_of(task, metric), []).append(metric)
        for (prefix, label), metrics in by_kind.items():
            if len(metrics) < 2:
                continue
            cats = [m[len(prefix) :].replace("_", " ") for m in metrics]
            series = {model: [scores.get(m) for m in metrics] for model, scores in per_model.items()}
            charts.append(
                Chart(
                    f"{bench.title} {task}: accuracy by {label} - {_title_models(task_rows)}",
                    cats,
                    series,
                    xlabel=spec.xlabel,
                )
            )
    return charts


def tasks_charts(spec: TasksChart, rows: list[Row]) -> list[Chart]:
    tasks = [t for t in dict.fromkeys(r.task for r in rows) if t not in spec.exclude]
    if len(tasks) < spec.min_tasks:
        return []
    return [
        Chart(
            f"{spec.title} - {_title_models(rows)}",
            [t.removeprefix(spec.strip) for t in tasks],
            _series_by_model(rows, tasks, spec.metric),
            xlabel=spec.xlabel,
        )
    ]


def metrics_charts(spec: MetricsChart, bench: Benchmark, rows: list[Row]) -> list[Chart]:
    charts = []
    for task in dict.fromkeys(r.task for r in rows if not r.is_group):
        task_rows = [r for r in rows if r.task == task]
        metrics = [m for m in bench.headline if any(m in r.scores for r in task_rows)]
        if metrics:
            charts.append(
                Chart(
                    f"{spec.title.format(task=task)} - {_title_models(task_rows)}",
                    metrics,
                    {_short(r.model): [r.scores.get(m) for m in metrics] for r in task_rows},
                    xlabel=spec.xlabel,
                )
            )
    return charts


def declared_charts(spec: ChartSpec, bench: Benchmark, rows: list[Row]) -> list[Chart]:
    """The charts one declaration of a benchmark folder draws from its rows."""
    if isinstance(spec, ConditionChart):
        return condition_charts(spec, rows)
    if isinstance(spec, ModelsChart):
        return models_charts(spec, rows)
    if isinstance(spec, TasksChart):
        return tasks_charts(spec, rows)
    if isinstance(spec, MetricsChart):
        return metrics_charts(spec, bench, rows)
    if isinstance(spec, BreakdownCharts):
        return breakdown_charts(spec, bench, rows)
    raise TypeError(f"{bench.name}/benchmark.py: unknown chart declaration {spec!r}")


def build(inputs: list[Path], out_dir: Path, resamples: int = 1000) -> Report:
    runs = load_runs(inputs)
    rows = collect_rows(runs, resamples)
    charts: list[Chart] = []
    for bench in benchmarks().values():
        bench_rows = [r for r in rows if benchmark_of(r.task) is bench]
        if not bench_rows:
            continue
        chart = headline_chart(bench, bench_rows)
        candidates = ([chart] if chart else []) + [
            c for spec in bench.charts for c in declared_charts(spec, bench, bench_rows)
        ]
        for chart in candidates:
            chart.benchmark = bench.name
        charts += [c for c in candidates if not c.is_empty]
    for chart in charts:
        draw(chart, out_dir / "charts")
    references = load_references()
    return Report(runs, rows, charts, differences(rows), missing_items(runs), version_warnings(runs), references)
