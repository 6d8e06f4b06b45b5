"""Every benchmark is one folder: it declares everything particular to it, and nothing outside names it.

For each folder under ``tasks/`` with a ``benchmark.py``: a README with the lm-eval task-README sections,
a report entry that names its own tasks and metrics, a well-formed ``references.json``, a tests folder, a
row in the README catalogue and a member in the suite. Then a sixth benchmark, added to a copy of the
package as a new contributor would (its folder only), gets a report table and its reference rows.
"""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from lm_eval_persian_culture.report.references import load_file, no_table_note
from lm_eval_persian_culture.tasks._benchmark import (
    TASKS_DIR,
    benchmark_folders,
    benchmarks,
    chart_problems,
    suite_members,
    task_owners,
)

REPO = Path(__file__).resolve().parents[1]
FOLDERS = [p.name for p in benchmark_folders()]
FIVE = ("taarof", "divan", "percul", "taraz", "cac")
README_SECTIONS = ("Paper", "Citation", "Groups", "Checklist")


def test_the_five_benchmarks_are_found_by_folder():
    assert {"cac", "divan", "percul", "taarof", "taraz"} <= set(FOLDERS)
    # ordered as the suite lists them (the report's table order)
    assert [b for b in benchmarks() if b in FIVE] == ["taarof", "divan", "percul", "taraz", "cac"]


@pytest.mark.parametrize("name", FOLDERS)
def test_one_folder_shape_with_explicit_hooks(name):
    """utils.py is the module the YAMLs name, and every name they use is defined or imported in it by name
    (findable by grep: no globals().update), next to the generator and the declaration."""
    folder = TASKS_DIR / name
    for required in ("__init__.py", "utils.py", "_generate_configs.py", "benchmark.py"):
        assert (folder / required).is_file(), f"tasks/{name}/{required} is missing"
    for path in folder.glob("*.py"):
        assert "globals()" not in path.read_text(encoding="utf-8"), f"tasks/{name}/{path.name} writes globals()"
    tree = ast.parse((folder / "utils.py").read_text(encoding="utf-8"))
    defined = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            defined.add(node.name)
        elif isinstance(node, ast.Assign):
            defined |= {n.id for t in node.targets for n in ast.walk(t) if isinstance(n, ast.Name)}
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            defined |= {(a.asname or a.name).split(".")[0] for a in node.names}
    used = set()
    for path in [*folder.glob("*.yaml"), *folder.glob("*_yaml")]:
        used |= set(re.findall(r"!function utils\.(\w+)", path.read_text(encoding="utf-8")))
    assert used, f"tasks/{name}: no YAML names a utils hook"
    assert not used - defined, f"tasks/{name}/utils.py does not define {sorted(used - defined)}"


def utils_problem(path: Path) -> str | None:
    """Why lm-eval cannot take functions from this utils.py, or None. lm-eval executes a task folder's utils.py
    outside ``sys.modules`` for every ``!function``; a module that fails there (a ``@dataclass`` or another class
    whose decorator looks its module up in ``sys.modules``) makes lm-eval report only "Module ... has no
    function '<name>'", hiding the cause."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("utils", path)
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as err:  # noqa: BLE001 - any failure is the finding
        return (
            f"{path} fails when lm-eval executes it (outside sys.modules, as for every !function): "
            f'{type(err).__name__}: {err}. lm-eval would report this only as "Module ... has no function ...". '
            "A @dataclass or other class defined in utils.py does this: define it in another module of the folder "
            "(or use the shared tasks/_option_task.py) and import it."
        )
    return None


@pytest.mark.parametrize("name", FOLDERS)
def test_utils_runs_as_lm_eval_executes_it(name):
    problem = utils_problem(TASKS_DIR / name / "utils.py")
    assert problem is None, problem


def test_a_dataclass_in_utils_is_caught_with_its_cause(tmp_path):
    path = tmp_path / "utils.py"
    # the house header (from __future__ import annotations) makes dataclass look its module up in sys.modules
    path.write_text(
        "from __future__ import annotations\n\nfrom dataclasses import dataclass\n\n\n@dataclass\nclass Item:\n"
        "    x: int\n\n\ndef f(doc):\n    return 1\n"
    )
    problem = utils_problem(path)
    assert problem is not None and "AttributeError" in problem and "@dataclass" in problem


@pytest.mark.parametrize("name", FOLDERS)
def test_every_declared_chart_can_be_drawn(name):
    """A chart whose metric is no table column (or names no task) would be silently missing from every report."""
    problems = chart_problems(benchmarks()[name])
    assert not problems, "\n".join(problems)


def test_a_chart_that_cannot_be_drawn_is_named():
    from dataclasses import replace

    from lm_eval_persian_culture.tasks._benchmark import ConditionChart, ModelsChart, TasksChart

    bench = replace(
        benchmarks()["cac"],
        charts=(
            ModelsChart(
                "Literal trap", tasks=("cac_cross_country",), series=(("trap", "literal_trap_rate"),), xlabel=""
            ),
            TasksChart("Per task", metric="invalid_rate", xlabel=""),
            ModelsChart("Nowhere", tasks=("no_such_task",), series=(("acc", "range_accuracy"),), xlabel=""),
            ConditionChart("Cond", "range_accuracy", (("CAC", "cac"),), (("Mars", "_mars"),), ""),
        ),
    )
    problems = chart_problems(bench)
    # invalid_rate is a table column of CAC: that chart can be drawn
    assert len(problems) == 3, problems
    assert problems[0].startswith("tasks/cac/benchmark.py: ModelsChart 'Literal trap' draws 'literal_trap_rate'")
    assert "which is no table column" in problems[0]
    assert "no_such_task" in problems[1] and "condition 'Mars' names no task" in problems[2]


@pytest.mark.parametrize("name", FOLDERS)
def test_folder_has_readme_with_lm_eval_sections(name):
    readme = TASKS_DIR / name / "README.md"
    assert readme.is_file(), f"tasks/{name}/README.md is missing"
    headings = re.findall(r"^#{2,3} (.+)$", readme.read_text(encoding="utf-8"), re.M)
    for section in README_SECTIONS:
        assert any(h.startswith(section) for h in headings), f"tasks/{name}/README.md has no '{section}' section"


@pytest.mark.parametrize("name", FOLDERS)
def test_report_entry_names_its_own_tasks(name):
    bench = benchmarks()[name]
    assert bench.name == name and bench.title
    owned = {task for task, owner in task_owners().items() if owner == name}
    assert owned, f"tasks/{name}/ defines no task YAML"
    for column, task, _metric in bench.leaderboard:
        assert task in owned, f"tasks/{name}/benchmark.py: leaderboard column {column!r} names {task!r}, not its task"
    for task in bench.conditions:
        assert task in owned, f"tasks/{name}/benchmark.py: condition of {task!r}, not its task"
    yaml_text = "\n".join(p.read_text(encoding="utf-8") for p in (TASKS_DIR / name).glob("*.yaml"))
    for metric in bench.headline:
        assert re.search(rf"metric: {re.escape(metric)}\b", yaml_text), f"{name}: headline {metric!r} in no YAML"


@pytest.mark.parametrize("name", FOLDERS)
def test_references_sit_in_the_folder(name):
    path = benchmarks()[name].references_path
    assert path.is_file(), f"tasks/{name}/references.json is missing"
    rows = load_file(path)
    if not rows:  # the paper's table is not available: the file says why (no_published_table)
        assert no_table_note(path), f"tasks/{name}/references.json has neither rows nor a no_published_table note"
    assert {r["benchmark"] for r in rows} <= {name}


@pytest.mark.parametrize("name", FOLDERS)
def test_tests_folder_exists(name):
    folder = REPO / "tests" / name
    assert folder.is_dir() and list(folder.glob("test_*.py")), f"tests/{name}/ has no test_*.py"


@pytest.mark.parametrize("name", FOLDERS)
def test_catalogue_row_and_suite_member(name):
    title = benchmarks()[name].title
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    catalogue = readme.split("## Task catalogue", 1)[1].split("\n## ", 1)[0]
    assert re.search(rf"^\| {re.escape(title)} \|", catalogue, re.M), f"README catalogue has no row for {title}"
    owners = task_owners()
    assert any(owners.get(m) == name for m in suite_members()), f"persian_culture.yaml has no member of {name}"


@pytest.mark.parametrize("name", FOLDERS)
def test_shared_layers_never_name_a_benchmark_folder(name):
    """Nothing outside tasks/ imports a benchmark folder: the harness, report and scoring find them through
    tasks/_benchmark.py. (A benchmark may read another's data: TARAZ's PerCul-SAQ is PerCul's stories.)"""
    package = REPO / "lm_eval_persian_culture"
    pattern = re.compile(
        rf"lm_eval_persian_culture\.tasks\.{name}\b|from lm_eval_persian_culture\.tasks import [^\n]*\b{name}\b"
    )
    offenders = []
    for path in package.rglob("*.py"):
        rel = path.relative_to(package)
        if rel.parts[0] == "tasks":
            continue
        if pattern.search(path.read_text(encoding="utf-8")):
            offenders.append(str(rel))
    assert not offenders, f"modules outside tasks/{name}/ import it: {offenders}"


# --------------------------------------------------------------------------- a sixth benchmark
PROVERBS_BENCHMARK = """
from lm_eval_persian_culture.tasks._benchmark import Benchmark, TasksChart

BENCHMARK = Benchmark(
    name="proverbs",
    title="Persian Proverbs",
    headline=("accuracy",),
    proportions=frozenset({"accuracy"}),
    leaderboard=(("Proverbs", "proverbs", "accuracy"),),
    charts=(TasksChart("Persian Proverbs: accuracy per task", metric="accuracy", xlabel="accuracy"),),
)
"""
PROVERBS_YAML = """task: proverbs
dataset_path: json
dataset_kwargs:
  data_files: proverbs.jsonl
test_split: train
output_type: generate_until
doc_to_text: "{{question}}"
doc_to_target: "{{answer}}"
metric_list:
  - metric: accuracy
    aggregation: mean
    higher_is_better: true
metadata:
  version: 1.0
"""
PROVERBS_REFERENCES = {
    "benchmark": "proverbs",
    "paper": "A proverbs paper",
    "rows": [{"model": "GPT-4o", "task": "proverbs", "metric": "accuracy", "value": 0.71, "source": "Table 1"}],
}


def test_a_sixth_benchmark_needs_only_its_folder(tmp_path):
    """Copy the package, add tasks/proverbs/ (and nothing else): lm-eval indexes its task, the export has its
    column, and the report shows its table row and its paper row."""
    copy = tmp_path / "src" / "lm_eval_persian_culture"
    shutil.copytree(REPO / "lm_eval_persian_culture", copy, ignore=shutil.ignore_patterns("__pycache__"))
    folder = copy / "tasks" / "proverbs"
    folder.mkdir()
    (folder / "__init__.py").write_text("")
    (folder / "benchmark.py").write_text(PROVERBS_BENCHMARK)
    (folder / "proverbs.yaml").write_text(PROVERBS_YAML)
    (folder / "references.json").write_text(json.dumps(PROVERBS_REFERENCES))
    results = tmp_path / "out" / "results_2026-01-01T00-00-00.000000.json"
    results.parent.mkdir()
    results.write_text(
        json.dumps(
            {
                "results": {"proverbs": {"alias": "proverbs", "accuracy,none": 0.5, "accuracy_stderr,none": "N/A"}},
                "configs": {"proverbs": {"task": "proverbs", "metadata": {"version": 1.0}}},
                "versions": {"proverbs": 1.0},
                "n-samples": {"proverbs": {"original": 10, "effective": 10}},
                "config": {"model": "hf", "model_args": "pretrained=my-model"},
            }
        )
    )
    script = textwrap.dedent(f"""
        import lm_eval_persian_culture
        assert lm_eval_persian_culture.__file__.startswith({str(copy)!r}), lm_eval_persian_culture.__file__
        from lm_eval_persian_culture.report import report_main
        from lm_eval_persian_culture.report.export import leaderboard_columns
        from lm_eval_persian_culture.tasks._benchmark import benchmark_of
        assert benchmark_of("proverbs").title == "Persian Proverbs"
        assert ("Proverbs", "proverbs", "accuracy") in leaderboard_columns()
        assert "proverbs" in lm_eval_persian_culture.task_manager(include_defaults=False).all_tasks
        report_main([{str(results.parent)!r}, "--out", {str(tmp_path / "report")!r}, "--bootstrap", "10"])
    """)
    env = {**os.environ, "PYTHONPATH": str(copy.parent), "PERSIAN_CULTURE_DISABLE_AUTOLOAD": "1"}
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=300, cwd=tmp_path
    )  # not the repository root, whose package would shadow the copy
    assert out.returncode == 0, out.stderr[-3000:]
    md = (tmp_path / "report" / "report.md").read_text(encoding="utf-8")
    table = md.split("## Persian Proverbs", 1)[1].split("\n## ", 1)[0]
    # the run's row with its Wilson interval (5 of 10) and the paper's row from references.json
    assert "| my-model | proverbs | 0.500 [0.237, 0.763] n=10 |" in table
    assert "| paper: GPT-4o | proverbs | 0.710 (Table 1) |" in table
