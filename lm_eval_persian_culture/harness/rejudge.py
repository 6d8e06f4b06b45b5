"""``lm-eval-persian rejudge OUT_DIR``: re-score a finished run's judged tasks from its samples.

The evaluated model is never loaded: lm-eval's own ``evaluate`` runs on the pack's tasks with a
replay model that answers every request with the reply saved in ``samples_<task>_<ts>.jsonl``, so
the filters (the judge, through its disk cache), ``process_results``, the aggregations and the
group scores are exactly those of a normal run. The run's settings come from the results file (each
task's metadata); ``--metadata`` overrides them, e.g. to name another judge or a judge server that
is up again, or a jury (``judge_jury`` or a list in ``judge_model``: the run's judge's verdicts come
from the cache, only the other members are asked). A new ``results_<ts>.json`` (with a ``rejudge``
entry saying from what and with which judge) and its samples files are written beside the old ones;
the old files are left untouched.

The data is not needed: where the task's own loader cannot read it (no data dir here, offline), the
docs saved in the samples are re-scored, with the task's judge settings (``judge_reply_format``)
applied to them. A reply is paired with its item by the item's identity, so a changed judge setting
recorded in the doc is not taken for changed data.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import json
import logging
import re
from collections.abc import Iterator, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from lm_eval_persian_culture.errors import UserInputError
from lm_eval_persian_culture.harness.guard import failure_message
from lm_eval_persian_culture.harness.preflight import check_tasks

logger = logging.getLogger("lm_eval_persian_culture")

_RESULTS_RE = re.compile(r"^results_(?P<date>.+)\.json$")
# Keys lm-eval adds to a task's metadata by itself, never a run setting.
_NOT_SETTINGS = {"config_source"}


def find_run(path: Path) -> tuple[Path, dict]:
    """The results file of the run to re-score: ``path`` itself, or the newest one under it."""
    from lm_eval_persian_culture.report.runs import read_results_file

    if not path.exists():
        raise UserInputError(f"{path}: no such file or folder")
    if path.is_dir():
        candidates = sorted((p for p in path.rglob("results_*.json") if _RESULTS_RE.match(p.name)),
                            key=lambda p: p.name)  # fmt: skip
        if not candidates:
            raise UserInputError(f"{path}: no results_*.json in this folder (is it an lm-eval --output_path?)")
        path = candidates[-1]
        if len(candidates) > 1:
            logger.warning("rejudge: %d results files under the folder; re-scoring the newest, %s",
                           len(candidates), path)  # fmt: skip
    return path, read_results_file(path)


def read_samples(results_path: Path, tasks: Sequence[str]) -> dict[str, dict[int, dict]]:
    """Saved samples per task and doc id, from the samples files of the same run (same timestamp)."""
    date = _RESULTS_RE.match(results_path.name)
    if date is None:
        raise UserInputError(f"{results_path}: expected a file named results_<timestamp>.json")
    out: dict[str, dict[int, dict]] = {}
    for task in tasks:
        path = results_path.with_name(f"samples_{task}_{date['date']}.jsonl")
        if not path.is_file():
            raise UserInputError(
                f"{path}: not found. rejudge needs the samples of every judged task: the run must have been "
                "made with --log_samples (a run whose judge failed writes them anyway)"
            )
        rows: dict[int, dict] = {}
        with open(path, encoding="utf-8") as f:
            for lineno, line in enumerate(f, start=1):
                if not line.strip():
                    continue
                try:
                    sample = json.loads(line)
                    rows[int(sample["doc_id"])] = sample
                except (json.JSONDecodeError, KeyError, TypeError, ValueError) as err:
                    raise UserInputError(f"{path}: line {lineno}: not an lm-eval sample ({err})") from None
        out[task] = rows
    return out


def run_settings(results: Mapping, tasks: Sequence[str], overrides: Mapping[str, Any]) -> dict:
    """The run's settings (lm-eval merged them into every task's metadata), then ``--metadata``."""
    from lm_eval.tasks._yaml_loader import load_yaml

    settings: dict[str, Any] = {}
    for task in tasks:
        meta = dict((results.get("configs", {}).get(task) or {}).get("metadata") or {})
        source = meta.get("config_source")
        own = {}
        if source and Path(source).is_file():
            own = load_yaml(source, resolve_func=False).get("metadata") or {}
        settings |= {k: v for k, v in meta.items() if k not in own and k not in _NOT_SETTINGS}
    # A jury given now replaces the run's judge, and one judge given now replaces the run's jury
    # (judge_model and judge_jury together are refused: see judge/jury.py).
    if "judge_jury" in overrides:
        settings.pop("judge_model", None)
    if "judge_model" in overrides:
        settings.pop("judge_jury", None)
    return settings | dict(overrides)


def judged_pack_tasks(results: Mapping, task_manager) -> list[str]:
    """Pack tasks of the run whose score goes through a custom filter (the judge or an extractor)."""
    from lm_eval.tasks._yaml_loader import load_yaml

    from lm_eval_persian_culture.harness import compat
    from lm_eval_persian_culture.harness.catalogue import in_pack

    index = compat.task_index(task_manager) or {}
    judged = []
    for task in results.get("configs", {}):
        entry = index.get(task)
        if entry is None or not in_pack(entry.yaml_path):
            continue
        cfg = load_yaml(entry.yaml_path, resolve_func=False)
        filters = [f.get("function") for fl in cfg.get("filter_list") or [] for f in fl.get("filter") or []]
        if "custom" in filters:
            judged.append(task)
    return judged


def top_level_specs(results: Mapping, judged: Sequence[str]) -> list[str]:
    """What to load: the run's top-level groups made only of judged tasks, else the tasks themselves."""
    subtasks = results.get("group_subtasks", {})

    def leaves(name: str) -> set[str]:
        children = subtasks.get(name) or []
        return {name} if not children else set().union(*(leaves(c) for c in children))

    children_of_any = {c for cs in subtasks.values() for c in cs}
    specs, covered = [], set()
    for name in subtasks:
        if name in children_of_any:
            continue
        names = leaves(name)
        if names <= set(judged):
            specs.append(name)
            covered |= names
    return specs + [t for t in judged if t not in covered]


def replay_lm(saved: Mapping[str, Mapping[int, dict]]):
    """Stand-in for the evaluated model: answers each request with the reply saved for its doc."""
    from lm_eval.api.model import LM

    class ReplayLM(_ReplayMixin, LM):
        pass

    return ReplayLM(saved)


class _ReplayMixin:
    def __init__(self, saved: Mapping[str, Mapping[int, dict]]) -> None:
        from lm_eval.api.model import LM

        LM.__init__(self)
        self.saved = saved

    def generate_until(self, requests, disable_tqdm: bool = False) -> list[str]:
        from lm_eval.utils import handle_non_serializable, hash_string

        from lm_eval_persian_culture.scoring.agreement import doc_identity

        out = []
        for req in requests:
            sample = self.saved.get(req.task_name, {}).get(req.doc_id)
            if sample is None:
                raise UserInputError(f"{req.task_name}: doc {req.doc_id} has no saved sample to re-score")
            if isinstance(sample.get("doc"), dict):
                # the item, less how the run was made (data path, judge prompt form, decoding)
                same = doc_identity(sample["doc"]) == doc_identity(req.doc)
            else:
                doc_hash = hash_string(
                    json.dumps(req.doc, indent=2, default=handle_non_serializable, ensure_ascii=False)
                )
                same = not sample.get("doc_hash") or sample["doc_hash"] == doc_hash
            if not same:
                raise UserInputError(
                    f"{req.task_name}: doc {req.doc_id} differs from the one the run generated for (doc_hash); "
                    "the data changed since the run (another data_dir or release?): re-scoring would pair "
                    "replies with the wrong items"
                )
            resps = sample.get("resps") or [[None]]
            reply = resps[0][0] if isinstance(resps[0], list) else resps[0]
            out.append("" if reply is None else str(reply))
        return out

    def apply_chat_template(self, chat_history, add_generation_prompt: bool = True) -> str:
        # The replies already exist; the prompt is rebuilt only so lm-eval can build its requests.
        return "\n\n".join(f"{m.get('role')}: {m.get('content')}" for m in chat_history)

    @property
    def tokenizer_name(self) -> str:
        return "replay"

    def loglikelihood(self, requests, disable_tqdm: bool = False):
        raise UserInputError("rejudge re-scores generation tasks only")

    def loglikelihood_rolling(self, requests, disable_tqdm: bool = False):
        raise UserInputError("rejudge re-scores generation tasks only")


def saved_docs(task: str, samples: Mapping[int, dict], settings: Mapping[str, Any]) -> list[dict]:
    """The task's docs as the run saved them, in doc-id order, with the judge settings that a task
    records in its docs (``TASK_JUDGE_KEYS``) taken from ``settings``."""
    from lm_eval_persian_culture.judge.settings import TASK_JUDGE_KEYS

    ids = sorted(samples)
    if ids != list(range(len(ids))) or not all(isinstance(samples[i].get("doc"), dict) for i in ids):
        raise UserInputError(
            f"{task}: the samples do not hold every doc from the first one on, so rejudge needs the task's data: "
            'set data_dir (--metadata \'{"data_dir": "/path/to/data"}\') to the folder the run read'
        )
    docs = [dict(samples[i]["doc"]) for i in ids]
    for key in TASK_JUDGE_KEYS & set(settings):
        for doc in docs:
            if key in doc:
                doc[key] = str(settings[key]).strip().lower()
    return docs


@contextlib.contextmanager
def docs_from_samples_when_data_unreachable(saved: Mapping[str, Mapping[int, dict]]) -> Iterator[None]:
    """While rejudge loads its tasks (pre-flight and lm-eval): a task whose own loader cannot read
    its data (an OSError: no data dir, offline, a file moved) gets the docs saved in its samples."""
    from lm_eval.api.task import ConfigurableTask

    from lm_eval_persian_culture.harness import preflight

    if not callable(getattr(ConfigurableTask, "download", None)):  # another lm-eval: the data is needed
        logger.warning("rejudge: this lm-eval has no ConfigurableTask.download; the task's data must be readable")
        yield
        return

    def fallback(task: str, settings: Mapping[str, Any], err: OSError) -> list[dict]:
        docs = saved_docs(task, saved[task], settings)
        logger.warning("rejudge: %s: the data cannot be read here (%s: %s); re-scoring the %d docs saved in the "
                       "samples", task, type(err).__name__, str(err)[:200], len(docs))  # fmt: skip
        return docs

    original_download, original_data_problem = ConfigurableTask.download, preflight._data_problem

    def download(self, *args, **kwargs):
        task = self.config.task
        try:
            return original_download(self, *args, **kwargs)
        except OSError as err:
            if task not in saved:
                raise
            import datasets

            docs = fallback(task, self.config.metadata or {}, err)
            self.dataset = datasets.DatasetDict({self.config.test_split: datasets.Dataset.from_list(docs)})

    def data_problem(report, name: str, err: BaseException) -> None:
        if isinstance(err, OSError) and name in saved:
            saved_docs(name, saved[name], {})  # usable, or the UserInputError saying to set data_dir
            report.checked.append(f"{name}: data not readable here; the docs saved in the samples are re-scored")
            return
        original_data_problem(report, name, err)

    ConfigurableTask.download, preflight._data_problem = download, data_problem
    try:
        yield
    finally:
        ConfigurableTask.download, preflight._data_problem = original_download, original_data_problem


def rejudge(path: Path, overrides: Mapping[str, Any]) -> tuple[Path, dict, list[dict]]:
    """Re-score; returns (new results file, new results, judge failures)."""
    from lm_eval.evaluator import evaluate
    from lm_eval.loggers import EvaluationTracker

    from lm_eval_persian_culture.harness.discovery import pack_task_manager
    from lm_eval_persian_culture.judge import filter as judge_filter

    results_path, original = find_run(path)
    index_tm = pack_task_manager(include_defaults=False)
    judged = judged_pack_tasks(original, index_tm)
    if not judged:
        raise UserInputError(f"{results_path}: the run has no judged pack task to re-score")
    saved = read_samples(results_path, judged)
    settings = run_settings(original, judged, overrides)
    task_manager = pack_task_manager(include_defaults=False, metadata=settings)
    specs = top_level_specs(original, judged)
    with docs_from_samples_when_data_unreachable(saved):
        report = check_tasks(task_manager, specs)
        for warning in report.warnings:
            logger.warning("pre-flight: %s", warning)
        report.raise_if_problems()
        logger.info("%s", report.summary())
        loaded = task_manager.load(specs)
    doc_ids = {task: sorted(saved.get(task, {})) for task in loaded["tasks"]}
    with judge_filter.collect_judge_failures() as failures:
        replayed = evaluate(
            lm=replay_lm(saved),
            task_dict=loaded,
            samples=doc_ids,
            log_samples=True,
            system_instruction=original.get("system_instruction"),
            apply_chat_template=bool(original.get("chat_template")),
            fewshot_as_multiturn=bool(original.get("fewshot_as_multiturn")),
        )
    samples = replayed.pop("samples")
    for task, task_samples in samples.items():
        for sample in task_samples:  # the prompts the replies really came from, not the replay's
            old = saved[task][sample["doc_id"]]
            sample["arguments"] = (
                [tuple(a.values()) for a in old["arguments"].values()]
                if isinstance(old.get("arguments"), dict)
                else old.get("arguments")
            )
            sample["prompt_hash"] = old.get("prompt_hash", sample["prompt_hash"])

    new = copy.deepcopy(original)
    for key in ("results", "groups", "group_subtasks", "configs", "versions", "n-shot", "higher_is_better",
                "n-samples"):  # fmt: skip
        if key in replayed:
            new.setdefault(key, {}).update(replayed[key])
    kept = [f for f in original.get("judge_failures", []) if f.get("task") not in loaded["tasks"]]
    new.pop("judge_failures", None)
    if kept or failures:
        new["judge_failures"] = kept + list(failures)
    js = judge_filter._active
    new["rejudge"] = {
        "from": results_path.name,
        "tasks": sorted(loaded["tasks"]),
        "judge": js.public_dict() if js is not None else None,
        "date": datetime.now().isoformat(),
    }
    tracker = EvaluationTracker(output_path=str(results_path.with_name("results.json")))
    tracker.date_id = datetime.now().isoformat().replace(":", "-")
    out_path = results_path.with_name(f"results_{tracker.date_id}.json")
    from lm_eval.utils import handle_non_serializable

    out_path.write_text(json.dumps(new, indent=2, default=handle_non_serializable, ensure_ascii=False),
                        encoding="utf-8")  # fmt: skip
    for task, task_samples in samples.items():
        tracker.save_results_samples(task_name=task, samples=task_samples)
    return out_path, new, list(failures)


def main(argv: list[str] | None = None) -> None:
    from lm_eval_persian_culture.harness.resolve import parse_metadata
    from lm_eval_persian_culture.judge import JudgeFailureError

    parser = argparse.ArgumentParser(prog="lm-eval-persian rejudge", description=__doc__.splitlines()[0])
    parser.add_argument("out_dir", type=Path, help="the run's --output_path (or one results_*.json in it)")
    parser.add_argument("--metadata", default=None, help="JSON settings overriding the run's (judge_model, ...)")
    args = parser.parse_args(argv)
    out_path, new, failures = rejudge(args.out_dir, parse_metadata(args.metadata))
    from lm_eval.utils import make_table

    print(make_table(new))
    if new.get("groups"):
        print(make_table(new, "groups"))
    print(f"rejudged results written to {out_path}")
    if failures:
        raise JudgeFailureError(failure_message(failures, str(args.out_dir)))
