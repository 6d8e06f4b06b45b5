"""DivanBench's YAMLs: generated, indexed by lm-eval, named and versioned as documented."""

from __future__ import annotations

import importlib

import yaml
from divan_testlib import task_manager

import lm_eval_persian_culture as pack

gen = importlib.import_module("lm_eval_persian_culture.tasks.divan._generate_configs")
DIVAN_DIR = pack.TASKS_DIR / "divan"

EXPECTED_TASKS = {
    "divan", "divan_factual", "divan_binary", "divan_scenario",
    *(f"divan_{t}_sp{k}" for t in ("factual", "binary", "scenario") for k in range(1, 6)),
}  # fmt: skip


def test_committed_yamls_equal_generator_output():
    files = gen.expected_files()
    assert {p.name for p in files} == {p.name for p in DIVAN_DIR.glob("*.yaml")}
    for path, text in files.items():
        assert path.read_text(encoding="utf-8") == text, f"{path.name} is stale: run {gen.__name__}"


def test_lm_eval_indexes_every_task_and_tag():
    tm = task_manager()
    names = set(tm.all_tasks)
    assert EXPECTED_TASKS <= names
    assert {"divan_per_type", "divan_single_prompt", *(f"divan_sp{k}" for k in range(1, 6))} <= set(tm.all_tags)
    assert not [n for n in tm.all_groups if n.startswith("divan")]  # tags only, no group hides a task


def _load(path):
    loader = type("L", (yaml.SafeLoader,), {})
    loader.add_constructor("!function", lambda ld, node: ld.construct_scalar(node))
    return yaml.load(path.read_text(encoding="utf-8"), Loader=loader)


def test_template_and_task_metadata_and_no_acc_metric():
    template = _load(DIVAN_DIR / "_divan_template_yaml")
    assert "metadata" not in template  # written into each task YAML (lm-eval merges includes shallowly)
    assert template["description"] == "{{system_message}}"
    assert template["generation_kwargs"]["temperature"] == 0.1 and template["generation_kwargs"]["top_p"] == 0.9
    for path in DIVAN_DIR.glob("*.yaml"):
        cfg = _load(path)
        assert "group" not in cfg
        assert cfg["metadata"]["version"] and "deviations" in cfg["metadata"]
        names = [m["metric"] for m in cfg["metric_list"]]
        assert "acc" not in names and len(names) == len(set(names))


def test_signed_metrics_have_no_direction_and_a_magnitude_beside_them():
    whole = _load(DIVAN_DIR / "divan.yaml")
    direction = {m["metric"]: m["higher_is_better"] for m in whole["metric_list"]}
    assert whole["metadata"]["signed_metrics"] == ["acquiescence_bias", "factual_conceptual_gap"]
    for name in ("acquiescence_bias", "factual_conceptual_gap"):
        assert direction[name] is None  # lm-eval's "no direction": neither -0.6 nor +0.6 is better
        assert direction[name + "_abs"] is False and direction[name + "_std"] is False
    assert direction["factual_accuracy"] is True and direction["invalid_rate"] is False
    binary = _load(DIVAN_DIR / "divan_binary_sp3.yaml")
    assert binary["metadata"]["signed_metrics"] == ["acquiescence_bias"]
    assert _load(DIVAN_DIR / "divan_factual.yaml")["metadata"]["signed_metrics"] == []
