"""The pack is a guest in lm-eval: built-in-only runs behave exactly as without it, every patch
switches itself off (one warning, never an exception) where lm-eval lacks what it needs, and the
user errors lm-eval turns into tracebacks are one message and exit status 2 when pack tasks are named.

CLI cases run the real console scripts twice, with the startup hook on and with
PERSIAN_CULTURE_DISABLE_AUTOLOAD=1 (lm-eval alone), and compare what a user sees.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import lm_eval_persian_culture as pack
from lm_eval_persian_culture.harness import compat, discovery, patches, preflight

pytestmark = pytest.mark.lmeval05

BIN = Path(sys.executable).parent
NO_MODEL = "/nonexistent/model-that-would-be-a-15GB-download"
# A folder (so the pre-flight's model check passes) no model loads from: the checks below stop the run first.
NOT_A_MODEL = Path(__file__).resolve().parent


def env(**extra: str) -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("PERSIAN_CULTURE_")}
    return {**base, "LMEVAL_LOG_LEVEL": "WARNING", **extra}


def start(args: list[str], cwd: Path, **extra: str) -> subprocess.Popen:
    return subprocess.Popen([str(BIN / "lm_eval"), *args], cwd=cwd, env=env(**extra), text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # fmt: skip


def last_line(text: str) -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else ""


# Each case builds lm-eval's index of its ~14,700 built-in tasks once per process: the four processes
# run side by side. No case reaches a model or a dataset.
BUILTIN_CASES = {
    "validate": ["validate", "--tasks", "arc_easy,nonexistent"],
    "run": ["run", "--model", "hf", "--model_args", f"pretrained={NO_MODEL}", "--tasks", "arc_easy,nonexistent"],
}


def test_builtin_only_commands_behave_as_without_the_pack(tmp_path):
    procs = {
        (case, hook): start(args, tmp_path, **({} if hook else {"PERSIAN_CULTURE_DISABLE_AUTOLOAD": "1"}))
        for case, args in BUILTIN_CASES.items()
        for hook in (True, False)
    }
    out = {key: (p.wait(timeout=600), *p.communicate()) for key, p in procs.items()}
    for case in BUILTIN_CASES:
        (rc_pack, stdout_pack, stderr_pack), (rc_alone, stdout_alone, stderr_alone) = out[case, True], out[case, False]
        assert rc_pack == rc_alone, (case, stderr_pack[-2000:])
        assert stdout_pack == stdout_alone, case
        assert last_line(stderr_pack) == last_line(stderr_alone), case  # the error lm-eval reports
        assert "pre-flight" not in stderr_pack + stdout_pack and "did you mean" not in stderr_pack + stdout_pack
    # what lm-eval itself does (the comparison above is only worth something if these hold)
    import lm_eval

    if lm_eval.__version__.startswith("0.4"):
        assert out["validate", False][0] == 1 and "Tasks not found: nonexistent" in out["validate", False][1]
        assert (
            out["run", False][0] == 1 and last_line(out["run", False][2]) == "ValueError: Tasks not found: nonexistent"
        )


def test_validate_refuses_the_packs_flags_for_builtin_tasks_as_lm_eval_would(tmp_path):
    proc = start(["validate", "--tasks", "nonexistent", "--metadata", "{}"], tmp_path).communicate(timeout=600)
    assert "error: unrecognized arguments: --metadata {}" in proc[1]


def test_include_defaults_false_indexes_only_the_folders_named(tmp_path):
    """lm-eval's own test of the flag: TaskManager(include_path=X, include_defaults=False) knows X alone."""
    from lm_eval.tasks import TaskManager

    patches._patch_task_manager()  # as the startup hook does
    (tmp_path / "mine.yaml").write_text("task: my_own_task\ndataset_path: json\noutput_type: generate_until\n"
                                        "doc_to_text: q\ndoc_to_target: a\n")  # fmt: skip
    tm = TaskManager(include_path=str(tmp_path), include_defaults=False)
    assert tm.all_tasks == ["my_own_task"]
    # the pack when asked for: its folder named, or lm-eval's defaults kept (where the hook adds it)
    assert "taarof_expected" in TaskManager(include_path=[pack.tasks_dir()], include_defaults=False).all_tasks
    with discovery.skip_builtin_index(["taarof_expected"]):  # defaults kept, built-ins skipped: the pack alone
        assert "taarof_expected" in TaskManager().all_tasks


def test_simple_evaluate_passes_builtin_only_calls_through_untouched(monkeypatch):
    calls = []

    def simple_evaluate(model=None, model_args=None, tasks=None, task_manager=None, limit=None, metadata=None):
        calls.append(dict(model=model, model_args=model_args, tasks=tasks, task_manager=task_manager, limit=limit))
        return {"results": {}}

    wrapped = patches._wrap_simple_evaluate(simple_evaluate)
    monkeypatch.setattr(preflight, "check_tasks", lambda *a, **k: pytest.fail("pre-flight ran for built-in tasks"))
    assert wrapped(model="hf", tasks=["arc_easy", "nonexistent"], limit=0) == {"results": {}}
    assert calls == [dict(model="hf", model_args=None, tasks=["arc_easy", "nonexistent"], task_manager=None, limit=0)]


# --------------------------------------------------------------------------- lm-eval's plugins (0.4.14)
def test_plugins_flag_and_variable_pass_through_the_packs_cli_untouched(monkeypatch):
    """lm-eval's main branch has `--plugins` and LM_EVAL_PLUGINS (PR #4013): the wrapper hands both to lm-eval as
    given (the flag in argv, in place; the variable in the environment), and simple_evaluate(plugins=...) reaches
    lm-eval's own function unchanged."""
    import lm_eval.__main__

    from lm_eval_persian_culture.harness import cli

    seen = []
    monkeypatch.setattr(lm_eval.__main__, "cli_evaluate", lambda: seen.append((list(sys.argv), dict(os.environ))))
    monkeypatch.setenv("LM_EVAL_PLUGINS", "my_models,my_filters")
    args = ["run", "--plugins", "my_models", "--model", "hf", "--tasks", "taarof_expected", "--plugins=other"]
    cli.main(list(args))
    [(argv, environ)] = seen
    assert argv == ["lm-eval-persian", *args]
    assert environ["LM_EVAL_PLUGINS"] == "my_models,my_filters"

    calls = []

    def simple_evaluate(model=None, model_args=None, tasks=None, task_manager=None, plugins=None):
        calls.append(plugins)
        return {"results": {}}

    wrapped = patches._wrap_simple_evaluate(simple_evaluate)
    monkeypatch.setattr(preflight, "run_preflight", lambda *a, **k: [])
    wrapped(model="hf", tasks=["taarof_expected"], plugins=["my_models"])
    wrapped(model="hf", tasks=["arc_easy"], plugins="my_filters")
    assert calls == [["my_models"], "my_filters"]


def test_an_lm_eval_without_plugins_refuses_the_flag_itself_as_without_the_pack(tmp_path):
    """lm-eval 0.4.13 and 0.5.0.dev1 have no --plugins: the pack neither eats nor rewrites it, so lm-eval's own
    parser refuses it, exactly as plain lm_eval with the pack switched off does."""
    args = ["run", "--plugins", "my_models", "--model", "hf", "--tasks", "taarof_expected"]
    pack_run = subprocess.run([str(BIN / "lm-eval-persian"), *args], cwd=tmp_path, env=env(), text=True,
                              capture_output=True, timeout=600)  # fmt: skip
    alone = subprocess.run([str(BIN / "lm_eval"), *args], cwd=tmp_path, text=True, capture_output=True, timeout=600,
                           env=env(PERSIAN_CULTURE_DISABLE_AUTOLOAD="1"))  # fmt: skip
    assert alone.returncode == pack_run.returncode == 2
    assert last_line(pack_run.stderr) == last_line(alone.stderr).replace("lm_eval", "lm-eval-persian", 1)
    assert "--plugins my_models" in last_line(alone.stderr)


# --------------------------------------------------------------------------- switching off
@pytest.fixture()
def fresh_switches(monkeypatch):
    monkeypatch.setattr(compat, "_switched_off", {})


def test_a_patch_whose_lm_eval_internals_are_missing_switches_off_with_one_warning(monkeypatch, fresh_switches):
    from lm_eval.tasks import manager

    class TaskManager:  # an lm-eval whose TaskManager has no include_defaults
        def __init__(self, include_path=None):
            self.include_path = include_path

    monkeypatch.setattr(manager, "TaskManager", TaskManager)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        patches._patch_task_manager()
        patches._patch_task_manager()
    [warning] = [w for w in caught if issubclass(w.category, compat.PackSwitchedOffWarning)]
    text = str(warning.message)
    assert "task discovery" in text and "include_defaults" in text
    assert '--include_path "$(lm-eval-persian tasks-dir)"' in text
    assert TaskManager(include_path="x").include_path == "x"  # left as lm-eval made it


def test_a_preflight_that_cannot_read_lm_evals_index_steps_aside(monkeypatch, fresh_switches):
    monkeypatch.setattr(compat, "index_kinds", lambda: None)
    calls = []
    wrapped = patches._wrap_simple_evaluate(lambda tasks=None, task_manager=None, model_args=None: calls.append(tasks))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        wrapped(tasks=["taarof_expected"])
        wrapped(tasks=["taarof_expected"])
    assert calls == [["taarof_expected"], ["taarof_expected"]]  # lm-eval ran both times, as without the pack
    assert len([w for w in caught if issubclass(w.category, compat.PackSwitchedOffWarning)]) == 1


def test_task_index_is_read_by_feature():
    class V0413:
        task_index = {"a": 1}

    class V05:
        _task_index = {"b": 2}

    assert compat.task_index(V0413()) == {"a": 1}
    assert compat.task_index(V05()) == {"b": 2}
    assert compat.task_index(object()) is None


# --------------------------------------------------------------------------- user errors, pack tasks named
def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(BIN / "lm_eval"), *args], capture_output=True, text=True, env=env(), timeout=600)


def test_limit_zero_is_one_message_before_the_model_loads(shared_data):
    proc = cli("run", "--model", "hf", "--model_args", f"pretrained={NOT_A_MODEL}", "--tasks", "taarof_non_taarof",
               "--limit", "0",
               "--metadata", json.dumps({"data_dir": str(shared_data), "judge_model": "none"}))  # fmt: skip
    assert proc.returncode == 2, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert lines[-2:] == [
        "pre-flight: 1 problem found before loading the model (nothing was generated):",
        "  1. settings: --limit 0 selects no documents: give a number of documents (e.g. --limit 10) or a "
        "fraction in (0, 1), or leave --limit out",
    ]


def test_malformed_metadata_json_is_one_message():
    bad = '{"judge_model": gpt-4}'
    proc = cli("run", "--model", "hf", "--model_args", f"pretrained={NO_MODEL}", "--tasks", "taarof_expected",
               "--metadata", bad)  # fmt: skip
    assert proc.returncode == 2, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr
    assert last_line(proc.stderr) == f"--metadata is not valid JSON (Expecting value at char 16): {bad}"


def test_a_group_beside_its_member_is_found_before_the_model_loads(shared_data):
    """lm-eval 0.4.13 refuses it only after loading the model; 0.5 accepts it and runs each task once."""
    from lm_eval.tasks import TaskManager

    proc = cli("run", "--model", "hf", "--model_args", f"pretrained={NOT_A_MODEL}", "--tasks", "taarof,taarof_expected",
               "--metadata", json.dumps({"data_dir": str(shared_data), "judge_model": "none"}))  # fmt: skip
    if not hasattr(TaskManager, "_check_duplicates"):
        assert "is named twice" not in proc.stderr  # lm-eval 0.5: nothing to refuse (the model load fails here)
        return
    assert proc.returncode == 2, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr
    assert last_line(proc.stderr) == ("  1. task: taarof_expected is named twice, by taarof and by taarof_expected: "
                                      "this lm-eval refuses that once the model has loaded. "
                                      "Name the group or its members, not both.")  # fmt: skip


def test_pack_aggregations_get_no_bootstrap_and_lm_evals_own_keep_theirs():
    """lm-eval 0.5 bootstraps every aggregation but a plain mean, in a process pool that pickles it: the
    pack's (closures, unpicklable) keep 0.4.13's "N/A"; lm-eval's own metrics keep their stderr."""
    import lm_eval.api.metrics as metrics

    from lm_eval_persian_culture.tasks.divan.aggregations import make_spread_aggregations
    from lm_eval_persian_culture.tasks.taarof.aggregations import judge_accuracy

    patches._patch_pack_stderr()
    spread = make_spread_aggregations("accuracy", lambda items: {})["accuracy"]
    assert metrics.stderr_for_metric(metric=judge_accuracy, bootstrap_iters=1000) is None
    assert metrics.stderr_for_metric(metric=spread, bootstrap_iters=1000) is None
    assert metrics.stderr_for_metric(metric=metrics.mean, bootstrap_iters=1000) is not None
    assert metrics.stderr_for_metric(metric=metrics.median, bootstrap_iters=1000) is not None


def test_a_pack_validate_that_breaks_steps_aside_to_lm_evals_own(monkeypatch, capsys, fresh_switches):
    import argparse

    import lm_eval.tasks
    from lm_eval._cli import validate as lm_eval_validate  # patched on import by the startup hook
    from lm_eval.tasks import manager

    assert getattr(lm_eval_validate.Validate._execute, "_persian_culture_preflight", False)
    real_build, builtin = manager.TaskIndex.build, Path(lm_eval.tasks.__file__).parent
    monkeypatch.setattr(manager.TaskIndex, "build", staticmethod(  # lm-eval's ~14,700 YAMLs: not under test
        lambda paths, *a, **k: real_build([p for p in paths if Path(p) != builtin], *a, **k)))  # fmt: skip

    def broken(args):
        raise AttributeError("an lm-eval internal the pack reads is gone")

    monkeypatch.setattr(preflight, "validate", broken)
    args = argparse.Namespace(
        tasks="taarof_expected", include_path=None, metadata=None, model_args=None, verbosity=None
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        lm_eval_validate.Validate._execute(object.__new__(lm_eval_validate.Validate), args)
    assert capsys.readouterr().out.splitlines() == [
        "Validating tasks: ['taarof_expected']",
        "All tasks found and valid",
    ]
    [warning] = [w for w in caught if issubclass(w.category, compat.PackSwitchedOffWarning)]
    assert "lm_eval validate" in str(warning.message) and "an lm-eval internal the pack reads is gone" in str(
        warning.message
    )
