"""Task YAMLs: generated files are current, names are prefixed, every task is versioned."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest
import yaml

import lm_eval_persian_culture as pack

BENCHMARKS = sorted(p.name for p in pack.TASKS_DIR.iterdir() if (p / "_generate_configs.py").is_file())


@pytest.mark.parametrize("benchmark", BENCHMARKS)
def test_generated_yamls_are_current(benchmark):
    gen = importlib.import_module(f"lm_eval_persian_culture.tasks.{benchmark}._generate_configs")
    for path, text in gen.expected_files().items():
        assert path.read_text(encoding="utf-8") == text, f"{path.name} is stale: run {gen.__name__}"


class _Loader(yaml.SafeLoader):
    pass


_Loader.add_constructor("!function", lambda loader, node: loader.construct_scalar(node))


def _yaml_files():
    return sorted(pack.TASKS_DIR.rglob("*.yaml"))


@pytest.mark.parametrize("path", _yaml_files(), ids=lambda p: p.name)
def test_every_task_is_prefixed_tagged_and_versioned(path: Path):
    cfg = yaml.load(path.read_text(encoding="utf-8"), Loader=_Loader)
    name = cfg.get("task") if "task" in cfg and isinstance(cfg["task"], str) else cfg.get("group")
    assert name, path
    bench = path.parent.name if path.parent != pack.TASKS_DIR else "persian_culture"
    assert name.startswith(bench.split("_")[0]), f"{name} is not prefixed by its benchmark"
    if "group" in cfg:
        assert isinstance(cfg["task"], list), "a group file lists its tasks"
    else:
        assert "group" not in cfg  # task YAMLs use tag:, a group key would hide the task
    version = (cfg.get("metadata") or {}).get("version")
    if version is None and "include" in cfg:
        inc = yaml.load((path.parent / cfg["include"]).read_text(encoding="utf-8"), Loader=_Loader)
        version = (inc.get("metadata") or {}).get("version")
    assert version is not None, f"{path.name} has no metadata.version"


def test_no_pack_task_shadows_a_builtin():
    import lm_eval.tasks
    from lm_eval.tasks._index import TaskIndex

    # lm-eval's own folder only: a TaskManager() would include the pack (the startup hook adds it)
    builtins = set(TaskIndex.build([Path(lm_eval.tasks.__file__).parent]))
    assert {"hellaswag", "mmlu"} <= builtins
    ours = set(pack.task_manager(include_defaults=False).all_tasks)
    assert not ours & builtins, ours & builtins
