"""What a benchmark folder declares about itself, and how the pack finds its benchmark folders.

Each ``tasks/<benchmark>/benchmark.py`` defines ``BENCHMARK = Benchmark(...)``: its title, the metrics its
report table shows, how its intervals are computed, its breakdowns, its charts and its leaderboard columns.
The declaration is data only (the report draws it), so a benchmark folder never imports the report.

Which benchmark a task belongs to is decided by where its YAML lives (``tasks/<benchmark>/*.yaml``), never
by a name prefix; the references beside it are ``tasks/<benchmark>/references.json``. Adding a benchmark
means adding a folder: nothing here or in the report names one.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path

TASKS_DIR = Path(__file__).resolve().parent
SUITE_YAML = TASKS_DIR / "persian_culture.yaml"


def tasks_dir() -> str:
    """Absolute path of the folder that holds the pack's task YAMLs (for ``lm_eval --include_path``)."""
    return str(TASKS_DIR)


DECLARATION = "benchmark.py"  # the module a folder must have to be a benchmark
REFERENCES = "references.json"


# --------------------------------------------------------------------------- charts, declared
@dataclass(frozen=True)
class ConditionChart:
    """Per model: one category per condition, one bar per task family (task = family + condition suffix)."""

    title: str
    metric: str
    families: tuple[tuple[str, str], ...]  # (series label, task name without the condition suffix)
    conditions: tuple[tuple[str, str], ...]  # (category label, task-name suffix)
    xlabel: str


@dataclass(frozen=True)
class ModelsChart:
    """One category per model, one bar per metric, from the first of ``tasks`` the runs hold."""

    title: str
    tasks: tuple[str, ...]
    series: tuple[tuple[str, str], ...]  # (series label, metric)
    xlabel: str
    signed: bool = False
    error_kind: str = "interval"


@dataclass(frozen=True)
class TasksChart:
    """One category per task (``exclude`` left out, ``strip`` removed from labels), one bar per model."""

    title: str
    metric: str
    xlabel: str
    exclude: tuple[str, ...] = ()
    strip: str = ""
    min_tasks: int = 2


@dataclass(frozen=True)
class MetricsChart:
    """Per task: one category per headline metric the runs report, one bar per model."""

    title: str  # formatted with {task}
    xlabel: str


@dataclass(frozen=True)
class BreakdownCharts:
    """Per task and breakdown (see ``Benchmark.breakdowns``): one category per value, one bar per model."""

    xlabel: str = "accuracy (95% Wilson interval)"


ChartSpec = ConditionChart | ModelsChart | TasksChart | MetricsChart | BreakdownCharts


# --------------------------------------------------------------------------- datasets, declared
PUBLIC, GATED, UNPUBLISHED = "public", "gated (Hugging Face token)", "not published: bring your own copy"


@dataclass(frozen=True)
class Dataset:
    """One dataset a group of the pack's tasks reads."""

    name: str
    tasks: tuple[str, ...]  # the tasks (and groups) that read it; a trailing * matches a prefix
    access: str  # PUBLIC, GATED or UNPUBLISHED
    online: str  # where the online release lives ("" when there is none)
    files: tuple[str, ...]  # under <data_dir>
    layout: str  # the file format and fields the loader expects
    load: Callable[[dict], str]  # reads and checks the data under these settings; returns what it found
    probe_url: str | None = None  # one URL whose answer tells whether the online release can be read
    hub_repo: str | None = None
    note: str = ""

    def serves(self, task: str) -> bool:
        return any(task == t or (t.endswith("*") and task.startswith(t[:-1])) for t in self.tasks)

    @property
    def needs(self) -> str:
        if self.access == PUBLIC:
            return "nothing: read online at run time; offline, a local copy in a data dir (layout above)"
        if self.access == GATED:
            return (
                f"accept the terms on https://huggingface.co/datasets/{self.hub_repo} and log in "
                "(`huggingface-cli login` or HF_TOKEN); or a local copy in a data dir (layout above)"
            )
        return "your own copy in a data dir, in the layout above"


@dataclass(frozen=True)
class Requirement:
    """Something beyond data files a group of the pack's tasks needs to run (a judge, an embedding model),
    checked by ``lm-eval-persian data`` without loading anything."""

    name: str  # "judge", "embedding model"
    tasks: tuple[str, ...]  # the tasks and groups that need it: names or shell-style patterns ("taraz*judged")
    check: Callable[[dict], tuple[bool, str]]  # settings -> (met, what was found or what to do)

    def serves(self, task: str) -> bool:
        import fnmatch

        return any(fnmatch.fnmatchcase(task, pattern) for pattern in self.tasks)


def rows_summary(found: Sequence[tuple[str, int]]) -> str:
    """What a dataset loader found, as ``lm-eval-persian data`` prints it."""
    return ", ".join(f"{name}: {n} rows" for name, n in found)


def source_loader(module: str, name: str) -> Callable[[dict], str]:
    """A ``Dataset.load`` reading one ``SourceFile`` (``module.name``) under the given settings."""

    def load(settings: dict) -> str:
        from lm_eval_persian_culture.data.sources import load_rows

        src = getattr(importlib.import_module(module), name)
        return rows_summary([(src.filename, len(load_rows(src, settings)[0]))])

    return load


# --------------------------------------------------------------------------- the declaration
@dataclass(frozen=True)
class Benchmark:
    name: str  # the folder's name
    title: str
    headline: tuple[str, ...]  # metrics shown in tables, in order
    proportions: frozenset[str] = frozenset()  # k/n metrics: Wilson interval
    # proportions whose n is every item, unjudged ones included (a paper script's rule), not the judged ones
    over_all_items: frozenset[str] = frozenset()
    # differences that may be negative (a run's metadata.signed_metrics says so too, for runs that record it)
    signed: frozenset[str] = frozenset()
    # (metric-name prefix, what it breaks down by), drawn as per-category charts; first match wins
    breakdowns: tuple[tuple[str, str], ...] = ()
    # task -> (condition label) for tasks that are one condition of the benchmark
    conditions: dict[str, str] = field(default_factory=dict)
    leaderboard: tuple[tuple[str, str, str], ...] = ()  # (column, task, metric) for export
    charts: tuple[ChartSpec, ...] = ()  # drawn after the headline chart, in this order
    # (label, metadata keys) of its settings that change what a score means: runs that differ in them are never
    # merged into one report row (the report's own: data, judge, prompt and task versions)
    fingerprint: tuple[tuple[str, tuple[str, ...]], ...] = ()
    datasets: tuple[Dataset, ...] = ()  # what its tasks read, for `lm-eval-persian data` and the pre-flight
    requirements: tuple[Requirement, ...] = ()  # what else its tasks need to run (`lm-eval-persian data`)
    # (another benchmark's dataset name, its own tasks that read that dataset too)
    reads_datasets: tuple[tuple[str, tuple[str, ...]], ...] = ()
    data_note: str = ""  # what else its tasks need, said under `lm-eval-persian data`'s table
    # environment variables naming a scoring model its tasks load; set to "none" under --predict_only (nothing is
    # scored, so nothing is loaded), unless the user set them
    predict_only_env: tuple[str, ...] = ()
    # (subcommand, one-line help, "module:function") it adds to `lm-eval-persian`; function(argv) -> exit status,
    # run under the CLI's guard (a PackUserError: one line, exit 2). E.g. TaarofBench's `judge-check`.
    commands: tuple[tuple[str, str, str], ...] = ()
    folder: Path | None = None  # set on discovery

    @property
    def references_path(self) -> Path | None:
        return self.folder / REFERENCES if self.folder is not None else None


# --------------------------------------------------------------------------- discovery
def benchmark_folders(tasks_dir: Path = TASKS_DIR) -> list[Path]:
    """Every folder under tasks/ that declares a benchmark."""
    return sorted(p for p in tasks_dir.iterdir() if p.is_dir() and (p / DECLARATION).is_file())


_NAME_LINE = re.compile(r"^(task|group):[ \t]*([A-Za-z0-9_.\-]+)[ \t]*$", re.M)


def _yaml_names(path: Path) -> list[str]:
    """The task or group a pack YAML defines (its top-level scalar ``task:`` / ``group:``)."""
    return [m.group(2) for m in _NAME_LINE.finditer(path.read_text(encoding="utf-8"))]


def suite_members() -> list[str]:
    """The suite's member list (tasks/persian_culture.yaml), in order."""
    text = SUITE_YAML.read_text(encoding="utf-8")
    block = text.split("\ntask:", 1)[1] if "\ntask:" in text else ""
    return re.findall(r"^\s+-\s+([A-Za-z0-9_.\-]+)\s*$", block.split("\nmetadata:", 1)[0], re.M)


@cache
def task_yamls() -> dict[str, Path]:
    """{task or group name: the pack YAML that defines it}, the suite included."""
    return {name: path for path in sorted(TASKS_DIR.rglob("*.yaml")) for name in _yaml_names(path)}


@cache
def task_owners() -> dict[str, str]:
    """{task or group name: benchmark folder name} from where each YAML lives."""
    folders = {folder.name for folder in benchmark_folders()}
    owners = {}
    for name, path in task_yamls().items():
        top = path.relative_to(TASKS_DIR).parts[0]
        if top in folders:
            owners[name] = top
    return owners


@cache
def benchmarks() -> dict[str, Benchmark]:
    """{folder name: its declaration}, ordered as the suite lists them, then by name."""
    found = {}
    for folder in benchmark_folders():
        module = importlib.import_module(f"{__package__}.{folder.name}.{DECLARATION[:-3]}")
        found[folder.name] = replace(module.BENCHMARK, folder=folder)
    owners = task_owners()
    order = list(dict.fromkeys(owners[m] for m in suite_members() if m in owners))
    order += [name for name in sorted(found) if name not in order]
    return {name: found[name] for name in order if name in found}


def benchmark_of(task: str) -> Benchmark | None:
    """The benchmark whose folder defines this task or group, or None (not the pack's); lm-eval 0.5's
    ``<group>::<task>`` member names are read as the task's."""
    owner = task_owners().get(task) or task_owners().get(task.rsplit("::", 1)[-1])
    return benchmarks().get(owner) if owner else None


def yaml_task_names() -> frozenset[str]:
    """Every task and group the pack's YAMLs define, the suite included."""
    return frozenset(task_yamls())


def all_datasets() -> tuple[Dataset, ...]:
    """Every benchmark's datasets, in the benchmarks' order, each serving also the tasks of other benchmarks
    that declare they read it (``reads_datasets``)."""
    extra: dict[str, tuple[str, ...]] = {}
    for bench in benchmarks().values():
        for name, tasks in bench.reads_datasets:
            extra[name] = (*extra.get(name, ()), *tasks)
    found = [ds for bench in benchmarks().values() for ds in bench.datasets]
    unknown = set(extra) - {ds.name for ds in found}
    if unknown:
        raise ValueError(f"reads_datasets names no benchmark's dataset: {sorted(unknown)}")
    return tuple(replace(ds, tasks=(*ds.tasks, *extra[ds.name])) if ds.name in extra else ds for ds in found)


def all_requirements() -> tuple[Requirement, ...]:
    """Every benchmark's requirements beyond data files, in the benchmarks' order."""
    return tuple(r for bench in benchmarks().values() for r in bench.requirements)


def predict_only_env() -> tuple[str, ...]:
    """Every benchmark's scoring-model variables that --predict_only switches off."""
    return tuple(dict.fromkeys(var for bench in benchmarks().values() for var in bench.predict_only_env))


def benchmark_commands() -> dict[str, tuple[str, str]]:
    """{subcommand: (help, "module:function")} every benchmark adds to `lm-eval-persian`."""
    return {name: (help_, target) for bench in benchmarks().values() for name, help_, target in bench.commands}


def signed_metrics() -> frozenset[str]:
    """Every benchmark's differences that may be negative."""
    return frozenset().union(*(b.signed for b in benchmarks().values()))


def _folder_metrics(bench: Benchmark) -> frozenset[str]:
    """Every metric the YAMLs (and YAML templates) of the benchmark's folder list."""
    folder = bench.folder or TASKS_DIR / bench.name
    texts = [p.read_text(encoding="utf-8") for p in (*folder.glob("*.yaml"), *folder.glob("*_yaml"))]
    return frozenset(m for text in texts for m in re.findall(r"^\s*-\s*metric:\s*([A-Za-z0-9_]+)\s*$", text, re.M))


def chart_problems(bench: Benchmark, task_names: frozenset[str] | None = None) -> list[str]:
    """Why a chart the benchmark declares could not be drawn, one line each (empty: every one can).

    The report draws a chart from the table's scores, so a chart's metric must be a table column (``headline``)
    that the folder's tasks report, and the tasks a chart names must exist; otherwise the chart is silently
    missing from every report. The folder test (tests/test_benchmark_folders.py) fails on any line here."""
    names = yaml_task_names() if task_names is None else task_names
    reported = _folder_metrics(bench)
    where = f"tasks/{bench.name}/benchmark.py"
    problems: list[str] = []

    def check_metric(spec: object, metric: str) -> None:
        kind = type(spec).__name__
        if metric not in bench.headline:
            problems.append(f"{where}: {kind} {getattr(spec, 'title', '')!r} draws {metric!r}, which is no table "
                            f"column: add it to headline {bench.headline} or chart a headline metric")  # fmt: skip
        elif metric not in reported:
            problems.append(f"{where}: {kind} {getattr(spec, 'title', '')!r} draws {metric!r}, which no task YAML of "
                            f"the folder reports")  # fmt: skip

    for spec in bench.charts:
        if isinstance(spec, ConditionChart):
            check_metric(spec, spec.metric)
            for label, suffix in spec.conditions:
                if not any(f"{family}{suffix}" in names for _, family in spec.families):
                    problems.append(f"{where}: ConditionChart {spec.title!r}: condition {label!r} names no task "
                                    f"({', '.join(f + suffix for _, f in spec.families)})")  # fmt: skip
        elif isinstance(spec, ModelsChart):
            for _, metric in spec.series:
                check_metric(spec, metric)
            if not any(task in names for task in spec.tasks):
                problems.append(f"{where}: ModelsChart {spec.title!r} names no task of the pack: {spec.tasks}")
        elif isinstance(spec, TasksChart):
            check_metric(spec, spec.metric)
        elif isinstance(spec, MetricsChart):
            if not bench.headline:
                problems.append(f"{where}: MetricsChart {spec.title!r} needs headline metrics")
        elif isinstance(spec, BreakdownCharts):
            if not bench.breakdowns:
                problems.append(f"{where}: BreakdownCharts needs breakdowns (metric prefix, what it breaks down by)")
        else:
            problems.append(f"{where}: unknown chart declaration {spec!r} (one of {ChartSpec})")
    return problems


__all__ = [
    "GATED",
    "PUBLIC",
    "UNPUBLISHED",
    "Benchmark",
    "Dataset",
    "Requirement",
    "all_datasets",
    "all_requirements",
    "rows_summary",
    "source_loader",
    "BreakdownCharts",
    "ChartSpec",
    "chart_problems",
    "ConditionChart",
    "MetricsChart",
    "ModelsChart",
    "TasksChart",
    "benchmark_commands",
    "benchmark_folders",
    "benchmark_of",
    "benchmarks",
    "yaml_task_names",
    "predict_only_env",
    "signed_metrics",
    "suite_members",
    "tasks_dir",
    "task_owners",
    "task_yamls",
]
