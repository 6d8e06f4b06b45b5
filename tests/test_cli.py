"""The three ways into the pack: the lm-eval-persian wrapper, --include_path, the Python API."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import lm_eval_persian_culture as pack
from lm_eval_persian_culture.harness import with_pack_path
from tests.benchmark_data import link_benchmark_data

REPO = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def run_cli(*args: str, timeout: int = 600, env: dict | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "LMEVAL_LOG_LEVEL": "WARNING", **(env or {})}
    return subprocess.run(
        [str(BIN / "lm-eval-persian"), *args], capture_output=True, text=True, timeout=timeout, env=env
    )


@pytest.fixture()
def valid_env(shared_data, tmp_path) -> dict:
    """validate runs the pre-flight: every benchmark's test data (fixtures, else ../shared/data) and judging off."""
    data = link_benchmark_data(tmp_path / "data", shared_data)
    return {"PERSIAN_CULTURE_DATA_DIR": str(data), "PERSIAN_CULTURE_JUDGE_MODEL": "none"}


# Tasks the suite cannot supply: TARAZ needs a sentence-embedding model (the paper's cannot load under
# transformers 5, and no weights can be downloaded here) and its unpublished ISN-SAQ file; cac_iran needs
# Iranian annotations; persian_culture includes taraz_blend.
NEEDS_MORE = ("taraz", "cac_iran", "persian_culture")


def test_tasks_dir_is_the_installed_task_folder():
    out = run_cli("tasks-dir")
    assert out.returncode == 0, out.stderr
    path = Path(out.stdout.strip())
    assert path == pack.TASKS_DIR
    assert (path / "taarof" / "taarof_expected.yaml").is_file()


@pytest.fixture(scope="module")
def listing() -> str:
    out = run_cli("ls", "tasks")
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_ls_shows_pack_tasks_among_builtins(listing):
    for name in ("taarof_expected", "taarof_non_taarof", "hellaswag", "arc_easy"):
        assert f" {name} " in listing or f"|{name}" in listing or name in listing.split(), name


def test_validate_every_pack_task(valid_env):
    from lm_eval_persian_culture.harness.discovery import pack_task_names

    names = pack_task_names()
    assert {"taarof", "taarof_expected", "taarof_non_taarof", "persian_culture", "percul", "cac"} <= set(names)
    out = run_cli("validate", "--tasks", ",".join(n for n in names if not n.startswith(NEEDS_MORE)), env=valid_env)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "All tasks found and valid" in out.stdout
    # and the rest are found, then refused for what they lack, in one message before any model time
    out = run_cli("validate", "--tasks", "taraz_isn_saq,cac_iran", env=valid_env)
    assert out.returncode == 2, out.stdout + out.stderr
    assert "taraz/ISN/isn_farsi_saq.csv: not found" in out.stderr and "cac_iran: no Iranian annotations" in out.stderr


def test_user_include_path_is_still_honoured(tmp_path, valid_env):
    (tmp_path / "my_task.yaml").write_text(
        "task: my_own_task\ndataset_path: json\noutput_type: generate_until\n"
        "test_split: test\ndoc_to_text: x\ndoc_to_target: y\n"
    )
    out = run_cli("validate", "--tasks", "my_own_task,taarof_expected", "--include_path", str(tmp_path), env=valid_env)
    assert out.returncode == 0, out.stdout + out.stderr


def test_include_path_list_puts_pack_first_once(tmp_path):
    # The pack is indexed once however the user spells its folder, and a user's folder comes
    # after it (lm-eval lets later paths override earlier ones).
    paths = with_pack_path([str(tmp_path), pack.tasks_dir() + "/", os.pathsep.join(["/a", "/b"])])
    assert paths == [pack.tasks_dir(), str(tmp_path), "/a", "/b"]
    assert with_pack_path(None) == [pack.tasks_dir()]


def test_no_double_index_when_lm_eval_discovers_entry_points(monkeypatch):
    from lm_eval_persian_culture import harness

    monkeypatch.setattr(harness.discovery, "lm_eval_discovers_entry_points", lambda: True)
    assert harness.with_pack_path(None) is None
    assert harness.with_pack_path(["/x", pack.tasks_dir()]) == ["/x"]


def test_entry_point_is_declared():
    from importlib.metadata import entry_points

    eps = entry_points(group="lm_eval.tasks")
    ep = next(e for e in eps if e.name == "persian_culture")
    module = ep.load()
    assert Path(module.__file__).parent == pack.TASKS_DIR


def test_python_api_task_manager_finds_pack_tasks_without_builtins():
    tm = pack.task_manager(include_defaults=False)
    assert "taarof_expected" in tm.all_subtasks
    assert "taarof" in tm.all_groups
    assert "hellaswag" not in tm.all_tasks


def test_plain_lm_eval_with_include_path(tmp_path, valid_env):
    env = {**os.environ, "LMEVAL_LOG_LEVEL": "WARNING", **valid_env}
    out = subprocess.run(
        [str(BIN / "lm_eval"), "validate", "--tasks", "taarof_expected,taarof", "--include_path", pack.tasks_dir()],
        capture_output=True, text=True, timeout=600, env=env,
    )  # fmt: skip
    assert out.returncode == 0, out.stdout + out.stderr


def test_pack_and_builtin_tasks_resolve_in_one_command(valid_env):
    out = run_cli("validate", "--tasks", "taarof_expected,hellaswag,taarof", env=valid_env)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "All tasks found and valid" in out.stdout


@pytest.mark.e2e
def test_legacy_form_without_subcommand(tiny_model, shared_data, tmp_path):
    env_out = tmp_path / "OUT"
    out = subprocess.run(
        [str(BIN / "lm-eval-persian"), "--model", "hf", "--model_args", f"pretrained={tiny_model},dtype=float32",
         "--device", "cpu", "--tasks", "taarof_non_taarof", "--limit", "1", "--predict_only", "--log_samples",
         "--output_path", str(env_out), "--metadata", f'{{"data_dir": "{shared_data}"}}'],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr[-3000:]
    assert len(list(env_out.rglob("samples_taarof_non_taarof_*.jsonl"))) == 1
