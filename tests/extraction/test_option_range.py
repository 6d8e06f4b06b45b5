"""The answer grammar only ever returns an option the item has (issue #33): «ج», «د», C or D on a two-option
item, "5" on a four-option one, are no answer, never option 3/4/5.

First on the shared option-task helper with items of 2 to 5 options, lettered and numbered; then over EVERY
option-reading task of the pack, found through lm-eval (each task whose reading is an ``OptionTask``, on the
docs lm-eval builds from the test data): replies naming labels past the item's option count never read as
an index >= that count, neither by the reader nor through the task's filter.
"""

from __future__ import annotations

import inspect
import json

import pytest

import lm_eval_persian_culture as pack
from lm_eval_persian_culture.errors import PackUserError
from lm_eval_persian_culture.scoring.records import decode_record
from lm_eval_persian_culture.tasks._benchmark import _yaml_names, benchmark_folders
from lm_eval_persian_culture.tasks._option_task import OPTION_LETTERS, OptionTask
from tests.benchmark_data import link_benchmark_data

pytestmark = pytest.mark.lmeval05  # the tasks are found through whichever lm-eval is installed

PERSIAN_LETTERS = ("الف", "ب", "ج", "د", "ه", "و")
PERSIAN_DIGITS = "۰۱۲۳۴۵۶۷۸۹"
ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth")
FORMS = ("{x}", "Answer: {x}", "The correct option is {x}.", "Option {x}", "({x})", "{x})", "پاسخ: {x}",
         "گزینهٔ {x}", "{x}\n\nQuestion 2: Which one?", '{{"answer": "{x}"}}', '{{"response": "{x}"}}',
         "I choose {x}.")  # fmt: skip


def out_of_range_replies(count: int) -> list[str]:
    """Replies naming only labels past ``count`` options: letters, Persian letters, digits in both scripts,
    ordinals, in the usual answer forms."""
    labels = [*OPTION_LETTERS[count : count + 3], *OPTION_LETTERS[count : count + 3].lower()]
    labels += list(PERSIAN_LETTERS[count:])
    labels += [str(n) for n in range(count + 1, 10)] + [PERSIAN_DIGITS[n] for n in range(count + 1, 10)]
    replies = [form.format(x=label) for label in labels for form in FORMS]
    replies += [f"The {word} option." for word in ORDINALS[count:]] + [
        f"گزینهٔ {w}" for w in ("پنجم", "ششم")[count - 4 :]
    ]
    return replies


def _task(count: int, labels: str) -> OptionTask:
    return OptionTask(
        name="test", switch="test_range_llm_extractor", options=lambda doc: doc["options"],
        question=lambda doc: "Which one?", labels=labels, gold=lambda doc: 0,
    )  # fmt: skip


@pytest.mark.parametrize("labels", ["letters", "numbers"])
@pytest.mark.parametrize("count", [2, 3, 4, 5])
def test_the_helper_never_reads_an_option_the_item_lacks(count, labels):
    task = _task(count, labels)
    doc = {"options": [f"option text number {'abcde'[i]}" for i in range(count)]}
    for reply in out_of_range_replies(count):
        index = task.read(reply, doc)
        assert index is None, (reply, index)
    # the labels it has are read (the test above cannot pass by reading nothing)
    assert task.read(f"Answer: {count}", doc) == count - 1
    if labels == "letters" and count <= 4:  # the rules read the letters A-D; a fifth goes to the LLM extractor
        assert task.read(f"Answer: {OPTION_LETTERS[count - 1]}", doc) == count - 1
    if labels == "letters":
        assert task.read(PERSIAN_LETTERS[count - 1], doc) == (count - 1 if count <= 4 else None)


def test_two_option_item_reads_only_its_two_letters():
    task = _task(2, "letters")
    doc = {"options": ["A stitch in time saves nine", "Too many cooks spoil the broth"]}
    assert [task.read(r, doc) for r in ("ب", "B", "پاسخ: الف", "ج", "د", "C", "D", "Answer: D")] == [
        1, 1, 0, None, None, None, None, None,
    ]  # fmt: skip


# --------------------------------------------------------------------------- every option-reading task of the pack
def _option_tasks_of(filter_fn) -> list[OptionTask]:
    owner = getattr(filter_fn, "__self__", None)
    if isinstance(owner, OptionTask):
        return [owner]
    namespace = getattr(inspect.unwrap(filter_fn), "__globals__", {})
    return [v for v in namespace.values() if isinstance(v, OptionTask)]


def _filter_fns(task) -> list:
    """The custom filter functions of an lm-eval task (its filter ensembles hold ``partial(CustomFilter, ...)``)."""
    ensembles = getattr(task, "_filters", None)  # lm-eval 0.4; 0.5 keeps them on its scorers
    if ensembles is None:
        ensembles = [scorer.filter for scorer in getattr(task, "_scorers", [])]
    fns = []
    for ensemble in ensembles:
        for f in ensemble.filters:
            fn = getattr(f, "filter_fn", None) or (getattr(f, "keywords", None) or {}).get("filter_fn")
            if fn is not None:
                fns.append(fn)
    return fns


def _pack_option_tasks(data_dir):
    """(task name, lm-eval task, its first doc, its OptionTasks) for every task of a folder whose utils declares one."""
    import importlib

    from lm_eval.tasks import get_task_dict

    manager = pack.task_manager(include_defaults=False, metadata={"data_dir": str(data_dir)})
    found, unloadable = [], []
    for folder in benchmark_folders():
        utils = importlib.import_module(f"lm_eval_persian_culture.tasks.{folder.name}.utils")
        if not any(isinstance(v, OptionTask) for v in vars(utils).values()):
            continue
        names = sorted({n for p in folder.glob("*.yaml") for n in _yaml_names(p) if f"task: {n}" in p.read_text()})
        for name in names:
            try:
                task = get_task_dict([name], manager)[name]
                docs = list(task.test_docs())[:1]  # lm-eval 0.5 loads the data here
            except PackUserError:  # e.g. cac_iran without the user's Iranian annotations
                unloadable.append(name)
                continue
            tasks = [t for fn in _filter_fns(task) for t in _option_tasks_of(fn)]
            if tasks:
                found.append((name, task, docs, tasks))
    return found, unloadable


@pytest.fixture(scope="module")
def pack_option_tasks(tmp_path_factory, shared_data):
    return _pack_option_tasks(link_benchmark_data(tmp_path_factory.mktemp("data"), shared_data))


def test_every_option_reading_task_of_the_pack_reads_only_its_options(pack_option_tasks):
    found, unloadable = pack_option_tasks
    names = {name for name, _, _, _ in found}
    assert {"percul", "percul_en", "percul_fa_en", "cac_america", "cac_cross_country", "divan"} <= names, names
    assert set(unloadable) <= {"cac_iran"}, unloadable
    for name, task, docs, option_tasks in found:
        checked = 0
        for option_task in option_tasks:
            for doc in docs:
                try:
                    count = len(option_task.options(doc))
                except KeyError:  # not this reader's item (DivanBench's yes/no statements)
                    continue
                replies = out_of_range_replies(count)
                for reply in replies:
                    index = option_task.read(reply, doc)
                    assert index is None or index < count, (name, reply, index)
                # through the task's own filter, as lm-eval calls it (no extractor configured)
                for fn in _filter_fns(task):
                    sample = replies[::3]
                    for out in fn([[r] for r in sample], [doc] * len(sample)):
                        record = decode_record(out)
                        answer = record.get(option_task.answer_key)
                        if answer in ("yes", "no"):
                            continue
                        assert answer is None or option_task.index_of(record) < count, (name, record)
                checked += 1
        assert checked, name


def test_the_out_of_range_replies_are_many_and_well_formed():
    replies = out_of_range_replies(2)
    assert len(replies) > 200 and "ج" in replies and "Answer: D" in replies and '{"answer": "C"}' in replies
    assert all(json.loads(r) for r in replies if r.startswith("{"))
