"""An option-reading task in a few lines: the shared reading, LLM-extractor fallback, record and aggregations.

A benchmark whose model picks one of a few options in free text (PerCul 1-4, CAC 1-5, MasalBench الف-د,
GhazalBench's recognition, ...) declares ONE :class:`OptionTask` in its ``utils.py`` and hands lm-eval the
names it needs. Everything else -- reading the reply with the pack's answer grammar, cutting a reply that
goes on into an invented next item, sending what the rules cannot read to the LLM extractor (when a judge
is configured), counting the extractor's failures under ``judge_max_error_rate``, the per-sample record that
lm-eval logs, the per-doc value ``process_results`` gives every metric, and the standard aggregations --
lives here, once.

The contract (this is what a new benchmark writes; the public API below stays stable)::

    from lm_eval_persian_culture.tasks._option_task import OptionTask

    TASK = OptionTask(
        name="MasalBench",                      # names the benchmark in logs and messages
        switch="masal_llm_extractor",           # its setting that turns the LLM extractor off (=false)
        options=lambda doc: doc["options"],     # the option texts, in the order the prompt shows them
        labels="letters",                       # "letters" (A B C D / الف ب ج د) or "numbers" (1 2 3 ...)
        question=lambda doc: doc["question"],   # what the LLM extractor sees above the options
        gold=lambda doc: doc["answer_index"],   # 0-based index of the right option
        fields=("kind", "category"),            # doc fields copied into the record (per-field figures)
        next_item=("Question", "پرسش"),         # headers that open an item in the prompt (see below)
    )

    def load(**settings):                       # the task's custom_dataset
        TASK.configure(settings)                # a bad extractor setting fails here, before any model time
        return {"test": datasets.Dataset.from_list(docs)}

    extract_filter = TASK.filter                # filter_list: [{function: custom, filter_fn: !function ...}]
    AGGREGATIONS = TASK.aggregations({"category": {"accuracy_food": "Food", "accuracy_art": "Art"}})
    METRICS = ("accuracy", "accuracy_food", "accuracy_art", *OptionTask.EXTRACTION_METRICS)
    process_results = TASK.process_results(METRICS)
    accuracy = AGGREGATIONS["accuracy"]         # one explicit name per metric, for the YAML's
    ...                                         # ``aggregation: !function utils.<name>``

and its ``_generate_configs.py`` writes the YAML's ``metric_list`` with ``higher_is_better`` from
:func:`higher_is_better`.

Reading (:meth:`OptionTask.read`, rules only). The pack's one answer grammar (``scoring.extract.read_option``)
over ``len(options(doc))`` options: digits 1..n always, the item's letters among A-D and الف-د when
``labels="letters"`` (or ``reads_letters=True``; a fifth letter and beyond is left to the LLM extractor), the
option texts (quoted, inflected, shortened), JSON replies with the usual keys (``{"answer": "B"}``,
``{"response": 3}``, ``{"choice": 2}``), ``<think>`` blocks dropped. It only ever returns an option the item
has: «ج» on a two-option item is no answer. When unsure it returns None (invalid), never a guess. A reply
that repeats the prompt's shape into an invented next item ("3\n\nConversation 2: ... Response 1: ...") is
cut before it is read, when something precedes it: at the first line opening with one of ``next_item``'s
headers (an optional number, a colon), with "Question N:", or with a question followed by an option list.

LLM-extractor fallback. When the run configures a judge (``judge_model``, see docs), replies the rules
cannot read go to it, unless ``<switch>=false``. It sees ``question(doc)`` and the options labelled as
the prompt labels them (numbered: 1. 2. ...; lettered: (A) (B) ...), and answers a label or NONE. NONE
or a label the item does not have leaves the reply invalid; a failed call leaves it invalid AND is counted
(``llm_extractor_errors``), and more failures than ``judge_max_error_rate`` of the replies asked stop the
run as a judge's would (under ``lm-eval-persian run``: results written, then exit with an error). Its
token usage is printed at the end of the run with the judges'.

The filter's record (logged as ``filtered_resps``, a JSON string): ``{"reply", <answer_key>: the answer or
null, <by_key>: "rule" | "llm" | null}`` plus ``llm_raw``/``llm_error`` where the extractor was asked. The
answer is spelled as ``spell`` says: "letter" (A, B, ...) or "number" (1, 2, ...); by default as the
prompt labels the options. ``answer_key``/``by_key`` default to "answer"/"read_by".

The per-doc value (``process_results`` gives it to every metric): the ``fields`` copied from the doc, then
``correct`` (1 when the answer is right: ``gold(doc)`` is the right index, or ``correct(doc, index)``
decides, e.g. CAC's accepted range), ``invalid`` (no answer), ``llm`` (read by the extractor),
``llm_error`` (the extractor was asked and failed), and ``more(doc, index)`` if given (e.g. CAC's pick).
When another filter ran instead of the task's own, the reply is read here by the rules only.

Aggregations (:meth:`OptionTask.aggregations`): ``accuracy``, ``invalid_rate`` (no answer read),
``llm_extracted_rate`` (answers read by the extractor), ``llm_extractor_errors`` (a count of failed
extractor calls), and for each ``{field: {metric: value}}`` the accuracy over the records whose field holds
that value (NaN when the run has none, e.g. under ``--limit``). Pure functions of the record list (lm-eval
0.5 calls them many times for bootstrap stderr). ``OptionTask.EXTRACTION_METRICS`` names the last three.

Fields: ``name``, ``switch``, ``options``, ``question`` (required); exactly one of ``gold(doc) -> index`` and
``correct(doc, index | None) -> bool``; ``labels`` ("numbers"), ``reads_letters`` (None: as ``labels``),
``fields`` (()), ``more(doc, index | None) -> dict`` (None), ``next_item`` (()), ``spell`` (None: as
``labels``), ``answer_key`` ("answer"), ``by_key`` ("read_by"), ``key`` (the extractor's cache and progress
name; default ``name.lower()``), ``cut_warning`` (a message with one ``%d``, logged when replies stop inside
an unclosed ``<think>`` block).

lm-eval executes a task's ``utils.py`` anew for every ``!function``: an OptionTask keeps no state of its
own (the extractor is the process's one ``judge.extractor.fallback`` object for ``switch``), so the copies
agree. Declare only the OptionTask instance in ``utils.py``, never a dataclass or other class of your own
(lm-eval executes the file outside ``sys.modules``; see CONTRIBUTING's pitfalls).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from lm_eval_persian_culture.judge import extractor
from lm_eval_persian_culture.judge.extractor import OPTION_LETTERS
from lm_eval_persian_culture.judge.settings import JudgeSettings
from lm_eval_persian_culture.scoring.aggregations import make_field_rates, rate
from lm_eval_persian_culture.scoring.extract import read_option
from lm_eval_persian_culture.scoring.records import encode_record, filter_outputs_are_lists, record_of

LABELS = ("letters", "numbers")
SPELLINGS = ("letter", "number")


def count_errors(items: Iterable[Mapping]) -> int:
    """How many replies the LLM extractor was asked about and failed on (a count, not a rate)."""
    return sum(int(it.get("llm_error", 0)) for it in items)


def higher_is_better(metric: str) -> bool:
    """Accuracies are better high; the invalid rate, the share read by the extractor and its failures low."""
    return not metric.startswith(("invalid_rate", "llm_extracted_rate", "llm_extractor_errors"))


@dataclass(frozen=True, repr=False)
class OptionTask:
    """One option-reading task (or family of tasks sharing a reading); see the module docstring."""

    name: str
    switch: str
    options: Callable[[Any], Sequence[str]]
    question: Callable[[Any], str]
    labels: str = "numbers"
    gold: Callable[[Any], int] | None = None
    correct: Callable[[Any, int | None], bool] | None = None
    fields: Sequence[str] = ()
    next_item: Sequence[str] = ()
    more: Callable[[Any, int | None], Mapping] | None = None
    reads_letters: bool | None = None
    spell: str | None = None
    answer_key: str = "answer"
    by_key: str = "read_by"
    key: str | None = None
    cut_warning: str | None = None

    EXTRACTION_METRICS = ("invalid_rate", "llm_extracted_rate", "llm_extractor_errors")

    def __repr__(self) -> str:  # lm-eval writes the filter (a bound method) into the results' configs
        return f"OptionTask({self.name!r})"

    def __post_init__(self) -> None:
        if self.labels not in LABELS:
            raise ValueError(f"{self.name}: labels={self.labels!r}, expected one of {LABELS}")
        if self.spell not in (None, *SPELLINGS):
            raise ValueError(f"{self.name}: spell={self.spell!r}, expected one of {SPELLINGS}")
        if (self.gold is None) == (self.correct is None):
            raise ValueError(f"{self.name}: give exactly one of gold (the right index) or correct (a rule)")

    # ------------------------------------------------------------------ the extractor
    @property
    def extractor(self) -> extractor.Fallback:
        """The process's one LLM-extractor fallback of this task's ``switch``."""
        return extractor.fallback(self.switch, self.name, self.key)

    def configure(self, settings: Mapping | None) -> JudgeSettings | None:
        """Set (or clear) the LLM extractor from the run's settings; call it in the task's ``custom_dataset``
        so a bad configuration fails before any model time. Returns its settings, or None when off."""
        return self.extractor.configure(settings)

    # ------------------------------------------------------------------ reading
    @property
    def _letters(self) -> bool:
        return self.labels == "letters" if self.reads_letters is None else self.reads_letters

    def read(self, reply: str, doc: Any) -> int | None:
        """The 0-based index of the option the reply chose, by the rules only; None when unsure."""
        options = list(self.options(doc))
        return read_option(reply, options, count=len(options), letters=self._letters, next_item=self.next_item)

    def spelled(self, index: int | None) -> str | int | None:
        """The answer as the record spells it ("B" or 2 for index 1)."""
        if index is None:
            return None
        spell = self.spell or ("letter" if self.labels == "letters" else "number")
        return OPTION_LETTERS[index] if spell == "letter" else index + 1

    def _rule_number(self, doc: Any, reply: str) -> int | None:
        index = self.read(reply, doc)
        return None if index is None else index + 1

    def _ask(self) -> extractor.Ask:
        question = lambda doc: (self.question(doc), list(self.options(doc)))  # noqa: E731
        if self.labels == "letters":
            return self.extractor.ask_lettered(question)
        return self.extractor.ask_numbered(question)

    def filter(self, resps: Sequence, docs: Sequence[Any]) -> list:
        """lm-eval custom filter (``filter_fn: !function utils.extract_filter`` with ``extract_filter =
        TASK.filter``): one JSON record per reply (see the module docstring), in the shape lm-eval expects."""
        read = self.extractor.read(resps, docs, self._rule_number, self._ask(), cut_warning=self.cut_warning)
        out = [
            encode_record({"reply": r.reply, self.answer_key: self.spelled(None if r.answer is None else r.answer - 1),
                           self.by_key: r.by, **r.extra})
            for r in read
        ]  # fmt: skip
        return [[record] for record in out] if filter_outputs_are_lists() else out

    # ------------------------------------------------------------------ records
    def index_of(self, record: Mapping) -> int | None:
        """The 0-based index a filter record holds (None: no answer)."""
        value = record.get(self.answer_key)
        if value is None:
            return None
        if isinstance(value, str) and not value.isdigit():
            return OPTION_LETTERS.index(value)
        return int(value) - 1

    def _rule_record(self, doc: Any, reply: str) -> dict:
        index = self.read(reply, doc)
        return {self.answer_key: self.spelled(index), self.by_key: "rule" if index is not None else None}

    def is_correct(self, doc: Any, index: int | None) -> bool:
        if self.correct is not None:
            return bool(self.correct(doc, index))
        return index is not None and index == int(self.gold(doc))

    def record(self, doc: Any, result: Any) -> dict:
        """The per-doc value every metric shares: from the filter's record, or (another filter ran) the rules."""
        filtered = record_of(result, partial(self._rule_record, doc))
        index = self.index_of(filtered)
        return {
            **{name: doc[name] for name in self.fields},
            **(self.more(doc, index) if self.more is not None else {}),
            "correct": int(self.is_correct(doc, index)),
            "invalid": int(index is None),
            "llm": int(filtered.get(self.by_key) == "llm"),
            "llm_error": int(bool(filtered.get("llm_error"))),
        }

    def process_results(self, metric_names: Sequence[str]) -> Callable[[Any, list], dict]:
        """A ``process_results`` hook giving each metric of ``metric_names`` the doc's :meth:`record`."""
        names = tuple(metric_names)

        def process_results(doc: Any, results: list) -> dict:
            value = self.record(doc, results[0])
            return {name: value for name in names}

        return process_results

    # ------------------------------------------------------------------ aggregations
    @staticmethod
    def aggregations(per_field: Mapping[str, Mapping[str, object]] | None = None) -> dict[str, Callable]:
        """The standard aggregations over the records, plus accuracy per value of each field of ``per_field``
        (``{"category": {"accuracy_food": "Food"}}``: accuracy over the records whose category is "Food")."""
        table: dict[str, Callable] = {
            "accuracy": partial(rate, field="correct"),
            "invalid_rate": partial(rate, field="invalid"),
            "llm_extracted_rate": partial(rate, field="llm"),
            "llm_extractor_errors": count_errors,
        }
        for field, metrics in (per_field or {}).items():
            table.update(make_field_rates(field, metrics))
        return table


__all__ = ["OPTION_LETTERS", "OptionTask", "count_errors", "higher_is_better"]
