"""lm-eval's own conventions for task configs, checked for every pack task and group.

lm-eval's CI runs its ``tests/test_tasks.py`` on every new task (prompt whitespace against
``target_delimiter``, targets, splits, the requests built for ``--limit``); these are the same checks
written for the pack, plus what its CLI does with ``--write_out``, ``--num_fewshot`` and a group
named beside one of its members. They run against whichever lm-eval is installed (0.4.13 and, in
CI's second venv, 0.5), with no model: only task loading and request building.
"""

from __future__ import annotations

import logging

import pytest

import lm_eval_persian_culture as pack
from tests.benchmark_data import link_benchmark_data

pytestmark = pytest.mark.lmeval05

LIMIT = 3  # lm-eval's test uses 10; the test fixtures of some benchmarks hold fewer docs
REPO_TESTS = pack.TASKS_DIR.parents[1] / "tests"
# Data the suite cannot supply: TARAZ's ISN-SAQ file is unpublished; cac_iran needs Iranian annotations.
NO_DATA = {"taraz_isn_saq", "taraz_isn_saq_judged", "cac_iran"}


def _index():
    return pack.task_manager(include_defaults=False)


TASKS = sorted(set(_index().all_subtasks) - NO_DATA)
GROUPS = sorted(set(_index().all_groups) - {"taraz", "taraz_judged"})  # their members include taraz_isn_saq


@pytest.fixture(scope="module")
def data_dir(shared_data, tmp_path_factory):
    """Every benchmark's test data, found by folder (tests/benchmark_data.py)."""
    return link_benchmark_data(tmp_path_factory.mktemp("data") / "data", shared_data)


@pytest.fixture(scope="module")
def task_manager(data_dir, tiny_embedder):
    return pack.task_manager(
        include_defaults=False,
        metadata={"data_dir": str(data_dir), "judge_model": "none", "embedding_model": str(tiny_embedder)},
    )


@pytest.fixture(scope="module")
def tasks(task_manager) -> dict:
    return task_manager.load(TASKS)["tasks"]


def first_docs(task, n: int = LIMIT) -> list:
    docs = task.test_docs() if task.has_test_docs() else task.validation_docs()
    return [docs[i] for i in range(min(n, len(docs)))]


def multiple_inputs(task) -> bool:
    return bool(getattr(task, "_multiple_inputs", None) or getattr(task, "multiple_input", None))


@pytest.mark.parametrize("name", TASKS)
def test_prompt_end_and_target_delimiter(tasks, name):
    """lm-eval's test_doc_to_text: no whitespace at the prompt's end when the delimiter is whitespace."""
    task = tasks[name]
    delimiter = task.config.target_delimiter
    assert isinstance(delimiter, str)
    for doc in first_docs(task):
        text = task.doc_to_text(doc)
        if multiple_inputs(task):
            continue
        assert isinstance(text, str) and text
        assert not (delimiter.isspace() and text[-1].isspace()), (
            f"{name}: prompt ends in {text[-1]!r} and target_delimiter is {delimiter!r}"
        )


@pytest.mark.parametrize("name", TASKS)
def test_targets_and_choices(tasks, name):
    task = tasks[name]
    for doc in first_docs(task):
        target = task.doc_to_target(doc)
        assert target is not None and target != "", name
        if task.config.output_type == "multiple_choice":
            choices = task.doc_to_choice(doc)
            assert isinstance(choices, list) and all(isinstance(c, str) and c for c in choices)
            assert isinstance(target, (int, str))
            if isinstance(target, int):
                assert 0 <= target < len(choices)


@pytest.mark.parametrize("name", TASKS)
def test_splits(tasks, name):
    """Every pack task evaluates its test split and declares no other: nothing to draw exemplars from."""
    task = tasks[name]
    assert task.has_test_docs() and task.config.test_split == "test"
    assert len(task.test_docs()) > 0
    for kind in ("training", "validation"):
        has = getattr(task, f"has_{kind}_docs")()
        assert has == (getattr(task.config, f"{kind}_split") is not None), kind
        assert not has, f"{name} has {kind} docs"


@pytest.mark.parametrize("name", TASKS)
def test_requests_for_limit(tasks, name):
    """lm-eval's test_build_all_requests / test_construct_requests: --limit N builds the first N docs' requests."""
    task = tasks[name]
    n_docs = len(task.test_docs())
    task.build_all_requests(rank=0, limit=LIMIT, world_size=1)
    doc_ids = sorted({inst.doc_id for inst in task.instances})
    assert doc_ids == list(range(min(LIMIT, n_docs)))
    per_doc = len(task.instances) / len(doc_ids)
    if task.config.output_type == "generate_until":
        assert per_doc == 1
        for inst in task.instances:
            context, gen_kwargs = inst.args
            assert isinstance(context, str) and task.doc_to_text(inst.doc) in context
            assert isinstance(gen_kwargs, dict)
    elif task.config.output_type == "multiple_choice":
        assert per_doc == len(task.doc_to_choice(task.test_docs()[0]))


def _writeout():
    import lm_eval.evaluator_utils as utils

    return getattr(utils, "print_writeout", None) or utils._print_writeout


@pytest.mark.parametrize("name", TASKS)
def test_write_out_shows_the_first_prompt(tasks, name, caplog):
    """``--write_out`` logs doc 0's prompt and target through lm-eval's own writer, without error."""
    task = tasks[name]
    task.build_all_requests(rank=0, limit=1, world_size=1)
    with caplog.at_level(logging.INFO):
        _writeout()(task)
    logged = caplog.text
    assert "document 0" in logged, logged[-500:]
    assert task.doc_to_text(task.test_docs()[0]).strip().splitlines()[-1].strip() in logged


def _ask_for_fewshot(task, n: int) -> None:
    """What lm-eval's simple_evaluate does with --num_fewshot n (a config's explicit 0 wins)."""
    if hasattr(task, "set_num_fewshot"):  # lm-eval 0.5
        task.set_num_fewshot(n)
    elif task.get_config("num_fewshot") != 0:  # 0.4.13, inline in simple_evaluate
        task.set_config(key="num_fewshot", value=n)


@pytest.mark.parametrize("name", TASKS)
def test_num_fewshot_is_refused_ignored_or_never_shows_the_doc_itself(task_manager, name):
    """--num_fewshot 1: zero-shot tasks refuse it with one message (TaarofBench) or keep zero-shot
    (a config's num_fewshot: 0); the others take one exemplar that is never the evaluated doc."""
    task = task_manager.load([name])["tasks"][name]
    zero_shot = task.doc_to_text(task.test_docs()[0])
    _ask_for_fewshot(task, 1)
    try:
        task.build_all_requests(rank=0, limit=1, world_size=1)
    except Exception as err:  # noqa: BLE001
        assert "--num_fewshot 1" in str(err), repr(err)  # a refusal that says what to do, not a crash
        assert name.startswith("taarof"), f"{name} refuses --num_fewshot: {err}"
        return
    context = task.instances[0].args[0]
    if task.get_config("num_fewshot") == 0:
        assert context.count(zero_shot) == 1
    else:
        assert context.endswith(zero_shot) and context.count(zero_shot) == 1 and len(context) > len(zero_shot)


@pytest.mark.parametrize("group", GROUPS)
def test_group_and_its_member_in_one_tasks_list(task_manager, group):
    """lm-eval 0.5 accepts a group and one of its members in one --tasks list (each task built once);
    0.4.13 refuses it as a duplicate, which the pack's CLI reports as one message (test_preflight)."""
    members = task_manager.load([group])["tasks"]
    member = sorted(members)[0].split("::")[-1]
    try:
        both = task_manager.load([group, member])["tasks"]
    except ValueError as err:
        assert "Duplicate task" in str(err) and member in str(err)
        return
    assert len({name.split("::")[-1] for name in both}) == len({name.split("::")[-1] for name in members})
