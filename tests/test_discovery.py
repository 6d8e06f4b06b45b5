"""Plain `lm_eval` finds the pack: the startup hook installed with the package.

The console script and `simple_evaluate` run in subprocesses, as a user runs them: a fresh
interpreter whose only link to the pack is the installed `.pth` hook (no wrapper, no flag).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import lm_eval_persian_culture as pack
from lm_eval_persian_culture import harness
from lm_eval_persian_culture.testing.openai_server import FakeOpenAIServer

REPO = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
DIVAN_FIXTURES = REPO / "tests" / "divan" / "fixtures"
HOOK_MODULE = "_lm_eval_persian_culture_autoload"
DISABLE = "PERSIAN_CULTURE_DISABLE_AUTOLOAD"


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PERSIAN_CULTURE_")}
    env.update(LMEVAL_LOG_LEVEL="WARNING", **extra)
    return env


def run(args: list[str], cwd: Path, timeout: int = 900, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(args, capture_output=True, text=True, cwd=cwd, env=clean_env(**env), timeout=timeout)


def python(code: str, cwd: Path, **env: str) -> subprocess.CompletedProcess:
    return run([sys.executable, "-c", code], cwd, **env)


# ------------------------------------------------------------------ interpreter start
def test_startup_registers_the_hook_and_imports_nothing_heavy(tmp_path):
    out = python(
        "import sys, json; print(json.dumps([type(sys.meta_path[0]).__module__, sorted(sys.modules)]))", tmp_path
    )
    assert out.returncode == 0, out.stderr
    first_finder, modules = json.loads(out.stdout)
    assert first_finder == HOOK_MODULE
    heavy = {"lm_eval", "lm_eval_persian_culture", "torch", "transformers", "datasets", "numpy", "yaml"}
    assert {m.split(".")[0] for m in modules} & heavy == set()


INDEX_PROBE = (
    "import json, lm_eval_persian_culture as pack\n"
    "from pathlib import Path\n"
    "import lm_eval.tasks\n"
    "from lm_eval.tasks import TaskManager, manager\n"
    "real = manager.TaskIndex.build\n"
    "def build(paths, *a, **k):  # lm-eval's own ~14,700 YAMLs cost ~10 s and are not under test\n"
    "    return real([p for p in paths if Path(p) != Path(lm_eval.tasks.__file__).parent], *a, **k)\n"
    "manager.TaskIndex.build = staticmethod(build)\n"
    "tm = TaskManager()\n"  # lm-eval's default index, which the hook widens
    "print(json.dumps({'tasks': tm.all_subtasks, 'groups': tm.all_groups, 'include_path': tm.include_path}))\n"
)


def test_hook_indexes_the_pack_when_lm_eval_builds_its_index(tmp_path):
    out = python(INDEX_PROBE, tmp_path)
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    assert got["include_path"] == [pack.tasks_dir()]
    assert {"taarof_expected", "divan", "divan_binary", "divan_binary_sp3", "taarof_gender"} <= set(got["tasks"])
    assert {"taarof", "persian_culture"} <= set(got["groups"])


@pytest.mark.parametrize("value", ["1", "true"])
def test_environment_variable_switches_the_hook_off(tmp_path, value):
    out = python(INDEX_PROBE, tmp_path, **{DISABLE: value})
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    assert got["include_path"] is None and got["tasks"] == [] and got["groups"] == []


def test_wrapper_with_hook_off_still_has_the_pack(tmp_path):
    # lm-eval-persian installs the pack explicitly; the switch only concerns plain lm_eval.
    code = "from lm_eval_persian_culture.harness import install_into_lm_eval as i; i(); " + INDEX_PROBE
    out = python(code, tmp_path, **{DISABLE: "1"})
    assert out.returncode == 0, out.stderr
    assert "taarof_expected" in json.loads(out.stdout)["tasks"]


# ------------------------------------------------------------------ exactly once
@pytest.fixture()
def indexed_paths(monkeypatch):
    """Every list of folders lm-eval's TaskIndex is asked to scan, from here on."""
    from lm_eval.tasks import manager

    harness.install_into_lm_eval()
    harness.install_into_lm_eval()  # hook and wrapper both call it: must stay one patch
    import lm_eval.tasks

    seen: list[list[Path]] = []
    real_build = manager.TaskIndex.build
    builtin = Path(lm_eval.tasks.__file__).resolve().parent

    def spy(paths, *args, **kwargs):  # TaskIndex.build is a staticmethod
        seen.append([Path(p).resolve() for p in paths])
        # recorded, not built: lm-eval's own ~14,700 YAMLs (~10 s) are not under test here
        return real_build([p for p in paths if Path(p).resolve() != builtin], *args, **kwargs)

    monkeypatch.setattr(manager.TaskIndex, "build", staticmethod(spy))
    return seen


def test_pack_is_indexed_exactly_once_however_it_is_reached(indexed_paths, tmp_path):
    import lm_eval.tasks
    from lm_eval.tasks import TaskManager

    builtin = Path(lm_eval.tasks.__file__).resolve().parent
    TaskManager()  # the hook alone
    TaskManager(include_path=pack.tasks_dir() + "/")  # plus --include_path
    TaskManager(None, [str(tmp_path), pack.tasks_dir()])  # positional, a list
    pack.task_manager(include_defaults=False)  # the Python API (it adds the folder itself too)
    TaskManager(None, [str(tmp_path), pack.tasks_dir()], False)  # include_defaults=False: as the caller says
    assert len(indexed_paths) == 5
    for paths in indexed_paths:
        assert paths.count(pack.TASKS_DIR) == 1, paths
    assert indexed_paths[2] == [builtin, pack.TASKS_DIR, tmp_path.resolve()]  # user's folder last: it wins
    assert indexed_paths[4] == [tmp_path.resolve(), pack.TASKS_DIR]  # lm-eval's own order, untouched


def test_include_defaults_false_leaves_the_pack_out(indexed_paths, tmp_path):
    """The pack counts among lm-eval's defaults: include_defaults=False means the folders named alone."""
    from lm_eval.tasks import TaskManager

    TaskManager(include_defaults=False)
    TaskManager(include_path=str(tmp_path), include_defaults=False)
    assert indexed_paths == [[], [tmp_path.resolve()]]


def test_not_indexed_by_the_pack_when_lm_eval_discovers_the_entry_point(indexed_paths, monkeypatch):
    # A future lm-eval that reads the `lm_eval.tasks` entry-point group indexes the pack itself.
    import lm_eval.tasks
    from lm_eval.tasks import TaskManager

    monkeypatch.setattr(harness.discovery, "lm_eval_discovers_entry_points", lambda: True)
    TaskManager()
    TaskManager(include_path=pack.tasks_dir())
    assert indexed_paths == [[Path(lm_eval.tasks.__file__).resolve().parent]] * 2


@pytest.fixture()
def fresh_detection():
    harness.discovery.lm_eval_discovers_entry_points.cache_clear()
    yield harness.discovery.lm_eval_discovers_entry_points
    harness.discovery.lm_eval_discovers_entry_points.cache_clear()


@pytest.mark.lmeval05  # also run under lm-eval 0.5 (.ci/run)
def test_lm_evals_own_task_discovery_is_detected_by_feature_not_by_source_text(fresh_detection, monkeypatch):
    """lm-eval 0.4.14 may index installed task packages itself: by PR #4015's function, or by a task group among
    the plugin groups its registry declares (as #4013/#4014 did for models and metrics). Either is found from
    what lm-eval HAS; the text of manager.py (which the old check read) plays no part."""
    import lm_eval.api.registry as registry
    from lm_eval.tasks import manager

    discovers = fresh_detection
    assert not discovers()  # neither lm-eval 0.4.13 nor 0.5.0.dev1 discovers task packages
    monkeypatch.setattr(manager, "discover_plugin_task_paths", lambda: [pack.tasks_dir()], raising=False)
    discovers.cache_clear()
    assert discovers()  # it lists the folder our entry point names: lm-eval indexes the pack itself
    monkeypatch.setattr(manager, "discover_plugin_task_paths", lambda: ["/elsewhere/tasks"])
    discovers.cache_clear()
    assert not discovers()  # a discovery that does not find the pack: the pack adds its folder
    monkeypatch.delattr(manager, "discover_plugin_task_paths")
    monkeypatch.setattr(registry, "PLUGIN_GROUPS", {"model": "lm_eval.models", "task": "lm_eval.tasks"}, raising=False)
    discovers.cache_clear()
    assert discovers()
    monkeypatch.setattr(registry, "PLUGIN_GROUPS", {"model": "lm_eval.models", "filter": "lm_eval.filters"})
    discovers.cache_clear()
    assert not discovers()  # models and filters only (lm-eval main today): tasks are still ours to index


def test_a_discovering_lm_eval_never_gets_the_pack_indexed_twice(indexed_paths, fresh_detection, monkeypatch):
    import lm_eval.tasks
    from lm_eval.tasks import TaskManager, manager

    monkeypatch.setattr(manager, "discover_plugin_task_paths", lambda: [pack.tasks_dir()], raising=False)
    fresh_detection.cache_clear()
    TaskManager()
    TaskManager(include_path=pack.tasks_dir())
    pack.task_manager(include_defaults=False)
    builtin = Path(lm_eval.tasks.__file__).resolve().parent
    # the pack's folder is left to lm-eval's own discovery: the pack adds it to no include path
    assert indexed_paths == [[builtin], [builtin], []]
    assert not harness.discovery.only_pack_tasks(["taarof_expected"])  # lm-eval's own index decides then


def test_a_run_of_pack_tasks_only_skips_lm_evals_builtin_index(indexed_paths, tmp_path):
    from lm_eval.tasks import TaskManager

    with harness.discovery.skip_builtin_index(["taarof_expected", "divan_sp1", "persian_culture"]) as skipped:
        tm = TaskManager()
    assert skipped
    assert indexed_paths[-1] == [pack.TASKS_DIR]  # the pack alone: lm-eval's ~14,700 YAMLs were not read
    assert "taarof_expected" in tm.all_subtasks and "persian_culture" in tm.all_groups
    # Anything else asked for (a built-in name, a YAML path) keeps lm-eval's whole index.
    assert not harness.discovery.only_pack_tasks(["taarof_expected", "hellaswag"])
    assert not harness.discovery.only_pack_tasks(["/tmp/my_task.yaml"])
    # The user's own --include_path tasks beside the pack's need no built-in index either.
    (tmp_path / "mine.yaml").write_text(
        "task: my_own_task\ndataset_path: json\noutput_type: generate_until\ndoc_to_text: q\ndoc_to_target: a\n"
    )
    assert harness.discovery.only_pack_tasks(["my_own_task", "taarof_expected"], include_path=str(tmp_path))
    assert not harness.discovery.only_pack_tasks(["my_own_task", "taarof_expected"])
    with harness.discovery.skip_builtin_index(["taarof_expected", "hellaswag"]) as skipped:
        assert not skipped
    # An explicit include_defaults is the caller's choice, and the switch is off again outside.
    with harness.discovery.skip_builtin_index(["taarof_expected"]):
        TaskManager(include_defaults=False)
    assert not harness.discovery._builtin_index_skipped


def test_wrapper_with_the_same_include_path_indexes_once(tmp_path):
    # The wrapper and the hook both patch; --include_path names the same folder a third time.
    code = (
        "import sys\n"
        "from lm_eval.tasks import manager\n"
        "real = manager.TaskIndex.build\n"
        "def spy(paths, *a, **k):\n"
        "    print('INDEX', [str(p) for p in paths], file=sys.stderr)\n"
        "    return real(paths, *a, **k)\n"
        "manager.TaskIndex.build = staticmethod(spy)\n"
        "from lm_eval_persian_culture.harness.cli import main\n"
        "main(sys.argv[1:])\n"
    )
    args = ["validate", "--tasks", "taarof_expected", "--include_path", pack.tasks_dir()]
    # validate runs the pre-flight too: give it the data and say no judge is wanted
    out = run(
        [sys.executable, "-c", code, *args],
        tmp_path,
        PERSIAN_CULTURE_DATA_DIR=str(REPO.parent / "shared" / "data"),
        PERSIAN_CULTURE_JUDGE_MODEL="none",
    )
    assert out.returncode == 0, out.stdout + out.stderr
    calls = [json.loads(line[len("INDEX ") :].replace("'", '"'))
             for line in out.stderr.splitlines() if line.startswith("INDEX ")]  # fmt: skip
    # two indexes: the check that only pack tasks are asked for, then validate's own; in each the
    # pack once, and lm-eval's built-in folder in neither (taarof_expected is the pack's)
    import lm_eval.tasks

    builtin = Path(lm_eval.tasks.__file__).resolve().parent
    assert len(calls) == 2
    for call in calls:
        paths = [Path(p).resolve() for p in call]
        assert paths.count(pack.TASKS_DIR) == 1 and builtin not in paths


# ------------------------------------------------------------------ the real console script
def test_plain_lm_eval_ls_lists_pack_tasks_among_builtins(tmp_path):
    out = run([str(BIN / "lm_eval"), "ls", "tasks"], tmp_path)
    assert out.returncode == 0, out.stderr[-3000:]
    for name in ("taarof_expected", "divan_binary", "hellaswag"):
        assert name in out.stdout, name


@pytest.mark.lmeval05  # also run under lm-eval 0.5 (.ci/run)
def test_plain_lm_eval_validate_finds_pack_tasks(shared_data, tmp_path):
    data = tmp_path / "data"  # validate runs the pre-flight: it needs both benchmarks' data
    data.mkdir()
    (data / "taarof").symlink_to(shared_data / "taarof")
    (data / "divan").symlink_to(DIVAN_FIXTURES / "divan")
    out = run(
        [str(BIN / "lm_eval"), "validate", "--tasks", "taarof_expected,divan_binary"],
        tmp_path,
        PERSIAN_CULTURE_DATA_DIR=str(data),
        PERSIAN_CULTURE_JUDGE_MODEL="none",
    )
    assert out.returncode == 0, out.stdout + out.stderr[-3000:]
    assert "All tasks found and valid" in out.stdout


def taarof_judge(prompt: str, body: dict) -> str:
    """taarof-expected rows 0-3: necklace Yes, "ran into" No, "hung out" Yes, "offered cash" unparseable."""
    if "necklace" in prompt or "hung out" in prompt:
        return "Yes"
    if "offered cash" in prompt:
        return "It depends."
    return "No."


@pytest.mark.e2e
@pytest.mark.lmeval05  # also run under lm-eval 0.5 (.ci/run)
def test_plain_lm_eval_runs_the_users_command_on_the_tiny_model(shared_data, tiny_model, tmp_path):
    data = tmp_path / "data"  # <data_dir>/<benchmark>/: the real TaarofBench release, DivanBench fixtures
    data.mkdir()
    (data / "taarof").symlink_to(shared_data / "taarof")
    (data / "divan").symlink_to(DIVAN_FIXTURES / "divan")
    out = tmp_path / "OUT"
    with FakeOpenAIServer(answer=taarof_judge, models=("judge-model",)) as judge:
        meta = {
            "data_dir": str(data), "judge_model": "judge-model", "judge_base_url": judge.base_url,
            "judge_api_key_env": "MY_JUDGE_KEY", "judge_max_error_rate": 0.5,
            "divan_llm_extractor": False,  # DivanBench by its rules only: the judge sees TaarofBench alone
        }  # fmt: skip
        proc = run(
            [str(BIN / "lm_eval"), "run", "--tasks", "taarof_expected,divan_binary", "--model", "hf",
             "--model_args", f"pretrained={tiny_model},dtype=float32", "--device", "cpu", "--limit", "4",
             "--apply_chat_template", "--log_samples", "--output_path", str(out), "--metadata", json.dumps(meta)],
            tmp_path, MY_JUDGE_KEY="sk-local",
        )  # fmt: skip
        judged = judge.request_count
    assert proc.returncode == 0, proc.stderr[-4000:]
    results = json.loads(next(out.rglob("results_*.json")).read_text())
    r = results["results"]
    # 4 replies judged: Yes, No, Yes, unparseable (not asked again: a judge at temperature 0 would
    # repeat itself) -> 2 of 3 scored, 1 judge error
    assert judged == 4
    assert r["taarof_expected"]["accuracy,judge"] == pytest.approx(2 / 3)
    assert r["taarof_expected"]["judge_errors,judge"] == 1
    assert "invalid_rate,extract" in r["divan_binary"]
    assert results["n-samples"]["divan_binary"]["effective"] == 4
    samples = [json.loads(line) for p in out.rglob("samples_divan_binary_*.jsonl")
               for line in p.read_text().splitlines()]  # fmt: skip
    assert len(samples) == 4 and all(s["doc"]["provenance"].startswith("local:") for s in samples)


@pytest.mark.e2e
def test_plain_lm_eval_with_the_local_judge_needs_no_key_and_no_server(shared_data, tiny_model, tmp_path):
    """Issue #8's "done when": the user's command, a clean install, an open judge run in-process."""
    from tests.tiny_model import build_tiny_model

    judge_dir = build_tiny_model(tmp_path / "tiny-judge", seed=3)  # not the evaluated model (self-judging guard)
    data = tmp_path / "data"
    data.mkdir()
    (data / "taarof").symlink_to(shared_data / "taarof")
    (data / "divan").symlink_to(DIVAN_FIXTURES / "divan")
    out = tmp_path / "OUT"
    meta = {"data_dir": str(data), "judge_model": f"hf:{judge_dir}", "judge_max_error_rate": 1.0,
            "divan_llm_extractor": False}  # fmt: skip
    env = {k: v for k, v in os.environ.items() if not k.endswith("API_KEY")}  # no key anywhere
    proc = subprocess.run(
        [str(BIN / "lm_eval"), "run", "--tasks", "taarof_expected,divan_binary", "--model", "hf",
         "--model_args", f"pretrained={tiny_model},dtype=float32", "--device", "cpu", "--limit", "4",
         "--gen_kwargs", "max_gen_toks=16", "--apply_chat_template", "--log_samples", "--output_path", str(out),
         "--metadata", json.dumps(meta)],
        cwd=tmp_path, capture_output=True, text=True, timeout=900, env={**env, "OMP_NUM_THREADS": "1"},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-4000:]
    results = json.loads(next(out.rglob("results_*.json")).read_text())
    records = [
        json.loads(json.loads(line)["filtered_resps"][0])
        for p in out.rglob("samples_taarof_expected_*.jsonl")
        for line in p.read_text().splitlines()
    ]
    # a random tiny judge answers garbage: every unreadable answer is a judge error, never a "No"
    unjudged = [r for r in records if r["verdict"] is None]
    assert len(records) == 4
    assert results["results"]["taarof_expected"]["judge_errors,judge"] == len(unjudged)
    assert all(r["judge_error"].startswith("unparseable") for r in unjudged)
    assert all(r["judge_model"] == f"hf:{judge_dir}" for r in records)
    assert results["configs"]["taarof_expected"]["metadata"]["judge"]["backend"] == "transformers (in-process)"
    assert results["n-samples"]["divan_binary"]["effective"] == 4


@pytest.mark.e2e
@pytest.mark.lmeval05  # also run under lm-eval 0.5 (.ci/run)
def test_simple_evaluate_with_lm_evals_default_task_manager(tmp_path):
    # No task_manager argument: lm-eval builds its own TaskManager, which the hook widened.
    code = (
        "import json, lm_eval\n"
        "from lm_eval_persian_culture.testing.scripted_lm import ScriptedLM\n"
        "from tests.divan.divan_testlib import scripted_reply\n"
        "res = lm_eval.simple_evaluate(model=ScriptedLM(scripted_reply), tasks=['divan_binary_sp1'],\n"
        "                              apply_chat_template=True, bootstrap_iters=0)\n"
        "print(json.dumps(res['results']['divan_binary_sp1']))\n"
    )
    out = python(code, REPO, PERSIAN_CULTURE_DATA_DIR=str(DIVAN_FIXTURES))
    assert out.returncode == 0, out.stderr[-4000:]
    row = json.loads(out.stdout.strip().splitlines()[-1])
    # Answer sheet under system prompt 1 (tests/divan/divan_testlib.py SHEET): positives b1p b2p b3p
    # all "yes" (3/3 accepted); negatives b1n "no", b2n "yes", b3n "yes" (1/3 rejected).
    assert row["accept_true,extract"] == pytest.approx(1.0)
    assert row["reject_false,extract"] == pytest.approx(1 / 3)
    assert row["accuracy,extract"] == pytest.approx(4 / 6)
