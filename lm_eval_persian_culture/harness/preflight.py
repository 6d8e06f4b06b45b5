"""Pre-flight: every pack check before any model loads, one message for everything wrong.

lm-eval's ``simple_evaluate`` loads (and may first download) the evaluated model, and only then
builds the tasks, where the pack's loaders check the judge and the data. :func:`run_preflight`
(called by the ``simple_evaluate`` wrapper in ``harness.patches``, which the CLI and the Python API
both go through) runs first:

* the pack tasks named in ``tasks`` are resolved through lm-eval's own task index
  (``harness.resolve``: groups and tags expanded; built-in tasks ignored; a misspelt name gets the
  closest pack task suggested);
* each one's loader (its ``custom_dataset``, i.e. the benchmark's own source files, schema and
  judge settings) runs once with the run's settings: a missing judge, key, data file or a
  malformed row is reported with the file, row, field or setting involved;
* every judge the loaders configured is probed: one ``GET /models`` (cheap, no tokens), the
  model looked up where the server lists models; ``hf:`` judges (in-process) only have their
  local directory checked.

Problems are collected in a :class:`PreflightReport` and raised as one :class:`PreflightError` (a
:class:`~lm_eval_persian_culture.errors.PackUserError`: under the CLI, ``harness.guard`` prints it
and exits with status 2). :func:`validate` is the pack's ``lm_eval validate`` on pack tasks.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from lm_eval_persian_culture.errors import PackUserError, UserInputError
from lm_eval_persian_culture.harness import compat
from lm_eval_persian_culture.harness.catalogue import in_pack, suggest
from lm_eval_persian_culture.harness.guard import tasks_not_found_message
from lm_eval_persian_culture.harness.resolve import parse_metadata, parse_model_args, resolve_pack_tasks

if TYPE_CHECKING:
    from lm_eval_persian_culture.judge.settings import JudgeSettings

# Nothing heavy at import: the patches that call this run when lm-eval itself is imported (startup
# hook), so the judge (openai), lm-eval's evaluator and torch are imported only when a check runs.

logger = logging.getLogger("lm_eval_persian_culture")

OPENAI_BASE_URL = "https://api.openai.com/v1"
DEFAULT_KEY_ENV = "OPENAI_API_KEY"
PROBE_TIMEOUT_S = 10.0
LOCAL_JUDGE_PREFIX = "hf:"


class PreflightError(PackUserError, ValueError):
    """One or more problems found before the model loads; the message lists all of them."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        self.problems = list(problems)
        super().__init__(format_problems(self.problems))


@dataclass
class Problem:
    kind: str  # "task", "settings", "judge", "data", "model", "suite"
    message: str
    tasks: list[str] = field(default_factory=list)


def format_problems(problems: Sequence[Problem]) -> str:
    n = len(problems)
    lines = [f"pre-flight: {n} problem{'s' if n != 1 else ''} found before loading the model (nothing was generated):"]
    for i, p in enumerate(problems, start=1):
        where = f" [{', '.join(p.tasks)}]" if p.tasks else ""
        first, *rest = p.message.strip().splitlines() or [""]
        lines.append(f"  {i}. {p.kind}{where}: {first}")
        lines.extend(f"     {line}" for line in rest)
    return "\n".join(lines)


@dataclass
class PreflightReport:
    """What the pre-flight looked at, what it found wrong, and what it warns about."""

    tasks: list[str] = field(default_factory=list)
    checked: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    def add_problem(self, kind: str, message: str, task: str | None = None) -> None:
        for p in self.problems:  # one line for the same problem in many tasks
            if p.kind == kind and p.message == message:
                if task and task not in p.tasks:
                    p.tasks.append(task)
                return
        self.problems.append(Problem(kind, message, [task] if task else []))

    def warn(self, message: str) -> None:
        if message not in self.warnings:
            self.warnings.append(message)

    def raise_if_problems(self) -> None:
        if self.problems:
            raise PreflightError(self.problems)

    def summary(self) -> str:
        lines = [f"pre-flight checked {len(self.tasks)} pack task(s): {', '.join(self.tasks) or '(none)'}"]
        lines += [f"  - {c}" for c in self.checked]
        lines += [f"  ! warning: {w}" for w in self.warnings]
        return "\n".join(lines)


def _task_settings(cfg: Mapping, task_manager, entry) -> dict:
    """What lm-eval passes a ``custom_dataset``: task metadata | run metadata (cf. TaskFactory)."""
    meta = cfg.get("metadata")
    settings = dict(meta) if isinstance(meta, dict) else {}
    settings |= dict(task_manager.metadata or {})
    settings["config_source"] = str(entry.yaml_path)
    return settings


def _describe_dataset(dataset: Any) -> str:
    try:
        parts = []
        for split, ds in dict(dataset).items():
            provenance = ds[0].get("provenance") if len(ds) and hasattr(ds[0], "get") else None
            parts.append(f"{split}: {len(ds)} docs" + (f" from {provenance.split(';')[0]}" if provenance else ""))
        return "; ".join(parts)
    except Exception:  # noqa: BLE001 - a description, never a failure
        return "loaded"


def check_task_data(name: str, entry, task_manager, report: PreflightReport) -> list[JudgeSettings]:
    """Run the task's own loader (source files, schema, judge settings); returns the judges it asked for."""
    from lm_eval.tasks._yaml_loader import load_yaml

    from lm_eval_persian_culture.judge import filter as judge_filter
    from lm_eval_persian_culture.judge.settings import JudgeConfigError

    try:
        cfg = load_yaml(entry.yaml_path, resolve_func=True)
    except Exception as err:  # noqa: BLE001 - a broken YAML is reported, not raised
        report.add_problem("settings", f"{entry.yaml_path}: cannot be read: {type(err).__name__}: {err}", name)
        return []
    loader = cfg.get("custom_dataset")
    if not callable(loader):
        return []
    settings = _task_settings(cfg, task_manager, entry)
    kwargs = dict(cfg.get("dataset_kwargs") or {})
    judge_filter.requested_judges(clear=True)
    try:
        dataset = loader(**settings, **kwargs)
    except JudgeConfigError as err:
        report.add_problem("judge", str(err), name)
        # The judge problem hid the data check: look at the data with judging switched off.
        try:
            dataset = loader(**{**settings, "judge_model": "none"}, **kwargs)
        except Exception as data_err:  # noqa: BLE001
            _data_problem(report, name, data_err)
        else:
            report.checked.append(f"{name}: data ok ({_describe_dataset(dataset)})")
        judge_filter.requested_judges(clear=True)
        return []
    except Exception as err:  # noqa: BLE001
        _data_problem(report, name, err)
        return judge_filter.requested_judges(clear=True)
    report.checked.append(f"{name}: settings and data ok ({_describe_dataset(dataset)})")
    return judge_filter.requested_judges(clear=True)


def _data_problem(report: PreflightReport, name: str, err: BaseException) -> None:
    from lm_eval_persian_culture.data.sources import DataNotFoundError, DataSchemaError
    from lm_eval_persian_culture.judge.settings import JudgeConfigError

    if isinstance(err, (DataNotFoundError, DataSchemaError)):
        report.add_problem("data", str(err), name)
    elif isinstance(err, OSError):  # a download refused offline, an unreachable host: data, not a setting
        report.add_problem("data", f"could not read the data: {type(err).__name__}: {err}. Offline or unreachable? "
                                   "Put a local copy in a data dir and set data_dir (`lm-eval-persian data` lists "
                                   "each benchmark's files).", name)  # fmt: skip
    elif isinstance(err, JudgeConfigError):
        report.add_problem("judge", str(err), name)
    elif isinstance(err, PackUserError):  # a setting the loader rejected, in its own words
        report.add_problem("settings", str(err), name)
    else:  # a setting the loader rejected (e.g. divan_instruction), or an unreadable source
        report.add_problem("settings", f"{type(err).__name__}: {err}", name)


def _local_dir_named(target: str) -> bool:
    return target.startswith(("/", "./", "../", "~")) or (os.sep in target and Path(target).expanduser().exists())


def check_judge(js: JudgeSettings, report: PreflightReport, tasks: Sequence[str] = ()) -> None:
    """Is the judge there? ``hf:`` judges: local directory only; servers: one GET /models."""
    from lm_eval_persian_culture.judge.settings import redact_url

    task = ", ".join(tasks) or None
    if js.model.startswith(LOCAL_JUDGE_PREFIX):
        target = js.model[len(LOCAL_JUDGE_PREFIX) :]
        if _local_dir_named(target):
            path = Path(target).expanduser()
            if not path.is_dir():
                report.add_problem("judge", f"judge_model={js.model}: the local directory {path} does not exist", task)
            else:
                report.checked.append(f"local judge {js.model}: directory present")
        else:
            report.checked.append(f"local judge {js.model}: loaded in-process at judging time (not probed)")
        return

    url = js.base_url or OPENAI_BASE_URL
    shown = redact_url(url)
    setting = "judge_base_url" if js.base_url else "the OpenAI API (no judge_base_url)"
    host = (urlsplit(url).hostname or "").lower()
    if (
        js.base_url
        and host != "api.openai.com"
        and js.api_key_env == DEFAULT_KEY_ENV
        and os.environ.get(DEFAULT_KEY_ENV)
    ):
        report.warn(
            f"judge_base_url {shown} is not OpenAI's API, yet the judge would send it your ${DEFAULT_KEY_ENV} "
            f"(the default judge_api_key_env). Name a variable of its own, e.g. --metadata "
            "'{\"judge_api_key_env\": \"LOCAL_JUDGE_KEY\"}' (when that variable is unset, the judge sends 'EMPTY')."
        )
    key = os.environ.get(js.api_key_env) or ("EMPTY" if js.base_url else None)
    if key is None:
        return  # the missing key is already reported by the loader's settings check
    import openai

    client = openai.OpenAI(base_url=url, api_key=key, timeout=min(js.timeout, PROBE_TIMEOUT_S), max_retries=1)
    try:
        models = [m.id for m in client.models.list().data]
    except openai.APITimeoutError:
        report.add_problem("judge", f"the judge at {shown} ({setting}) did not answer GET /models within "
                                    f"{min(js.timeout, PROBE_TIMEOUT_S):g}s", task)  # fmt: skip
        return
    except openai.APIConnectionError as err:
        cause = err.__cause__
        reason = f"{type(cause).__name__}: {cause}" if cause else str(err)
        if key != "EMPTY":
            reason = reason.replace(key, "***")
        report.add_problem("judge", f"cannot connect to the judge at {shown} ({setting}): {reason}. "
                                    "Start the server or fix the URL.", task)  # fmt: skip
        return
    except (openai.AuthenticationError, openai.PermissionDeniedError) as err:
        report.add_problem("judge", f"the judge at {shown} rejected the key in ${js.api_key_env} "
                                    f"(HTTP {err.status_code} on GET /models)", task)  # fmt: skip
        return
    except openai.NotFoundError:
        report.checked.append(f"judge {js.model} at {shown}: reachable (the server does not list models)")
        return
    except openai.APIStatusError as err:
        if err.status_code in (405, 501):  # reachable; GET /models simply not implemented (as 404 above)
            report.checked.append(f"judge {js.model} at {shown}: reachable (the server does not list models)")
            return
        report.add_problem("judge", f"the judge at {shown} ({setting}) answered GET /models with HTTP "
                                    f"{err.status_code}", task)  # fmt: skip
        return
    finally:
        client.close()
    if models and js.model not in models:
        shown_models = ", ".join(models[:12]) + (", ..." if len(models) > 12 else "")
        report.add_problem(
            "judge",
            f"judge_model {js.model!r} is not among the models served at {shown}: {shown_models}"
            f"{suggest(js.model, models)}",
            task,
        )
        return
    report.checked.append(f"judge {js.model} at {shown}: reachable" + (", model listed" if models else ""))


def check_tasks(task_manager, specs: Sequence[Any], model_args: Any = None) -> PreflightReport:
    """All pre-flight checks for ``specs`` under ``task_manager``'s index and metadata."""
    from lm_eval_persian_culture.judge.settings import JudgeConfigError, check_not_self_judge

    report = PreflightReport()
    leaves = resolve_pack_tasks(task_manager, specs, report)
    report.tasks = list(leaves)
    judges: dict[str, tuple[JudgeSettings, list[str]]] = {}
    for name, entry in leaves.items():
        for js in check_task_data(name, entry, task_manager, report):
            key = json.dumps({**js.fingerprint(), "api_key_env": js.api_key_env}, sort_keys=True)
            judges.setdefault(key, (js, []))[1].append(name)
    model_settings = parse_model_args(model_args)
    for js, tasks in judges.values():
        try:  # lm-eval leaves model_args out of a user's own TaskManager: check them here too
            check_not_self_judge(js, model_settings)
        except JudgeConfigError as err:
            report.add_problem("judge", str(err), ", ".join(tasks))
            continue
        check_judge(js, report, tasks)
    summarize_groups(task_manager, specs, report)
    return report


SKIP_SETTING = "suite_skip_unavailable"
SKIP_RESULTS_KEY = "suite_skipped"  # results[SKIP_RESULTS_KEY][group] = {"ran": [...], "skipped": {member: ...}}


def suite_groups(task_manager, specs: Sequence[Any]) -> list[tuple[str, list[str]]]:
    """(group, members) for each requested pack group spanning several benchmarks (the persian_culture suite:
    its members' configs live in different benchmark folders); a one-benchmark group is not a suite."""
    from lm_eval.tasks._index import Kind
    from lm_eval.tasks._yaml_loader import load_yaml

    index = compat.task_index(task_manager)
    found = []
    for spec in specs:
        entry = index.get(spec) if isinstance(spec, str) else None
        if entry is None or entry.kind != Kind.GROUP or not in_pack(entry.yaml_path):
            continue
        members = load_yaml(entry.yaml_path, resolve_func=False).get("task") or []
        members = [m if isinstance(m, str) else (m.get("task") or m.get("group")) for m in members]
        members = [m for m in members if isinstance(m, str)]
        folders = {Path(index[m].yaml_path).parent for m in members if m in index and index[m].yaml_path}
        if len(folders) >= 2:
            found.append((spec, members))
    return found


def member_problems(task_manager, member: str, problems: Sequence[Problem]) -> tuple[list[str], list[int]]:
    """The member's pack tasks, and the (0-based) indexes of the problems that name one of them."""
    leaves = list(resolve_pack_tasks(task_manager, [member], PreflightReport()))
    return leaves, [i for i, p in enumerate(problems) if set(leaves) & set(p.tasks)]


def summarize_groups(task_manager, specs: Sequence[Any], report: PreflightReport) -> None:
    """For a pack group spanning several benchmarks, one line first: which members cannot run, by which
    problem, and which are ready, so a newcomer sees at once what blocks the suite."""
    if not report.problems:
        return
    summaries = []
    for spec, members in suite_groups(task_manager, specs):
        blocked, ready = [], []
        for member in members:
            _, hits = member_problems(task_manager, member, report.problems)
            if hits:
                kinds = "/".join(dict.fromkeys(report.problems[i].kind for i in hits))
                numbers = ", ".join(str(i + 2) for i in hits)  # the summary goes first, as problem 1
                blocked.append(f"{member} ({kinds}: problem{'s' if len(hits) > 1 else ''} {numbers})")
            else:
                ready.append(member)
        if blocked:
            line = (
                f"{len(blocked)} of {len(blocked) + len(ready)} members cannot run: {', '.join(blocked)}"
                f"; ready: {', '.join(ready) or 'none'}. `lm-eval-persian data` shows where each benchmark's "
                "data comes from and what it needs"
            )
            if ready:
                line += (
                    f"; or run the ready members alone: --tasks {','.join(ready)}, or add "
                    f"--metadata '{{\"{SKIP_SETTING}\": true}}' to run them and record the skipped ones in the results"
                )
            summaries.append(Problem("suite", line + ".", [spec]))
    report.problems[:0] = summaries[:1]  # one summary (numbers above assume it is the only one inserted)


def skip_wanted(task_manager, params: Mapping) -> bool:
    """``--metadata '{"suite_skip_unavailable": true}'``: run the suite members that can run."""
    for source in (getattr(task_manager, "metadata", None), params.get("metadata")):
        value = source.get(SKIP_SETTING) if isinstance(source, Mapping) else None
        if value is not None:
            return value is True or str(value).strip().lower() in ("1", "true", "yes", "on")
    return False


def plan_suite_skips(task_manager, specs: Sequence[Any], report: PreflightReport) -> tuple[list, dict] | None:
    """With ``suite_skip_unavailable``: the requested specs, each suite group replaced by its members that can
    run, and what was skipped ({group: {"ran": [...], "skipped": {member: {"tasks", "reasons"}}}}). None
    (the run stops as without the setting) when a problem is no suite member's (a misspelt task, the
    evaluated model, --limit), or when no member of a suite can run."""
    problems = [p for p in report.problems if p.kind != "suite"]
    groups = dict(suite_groups(task_manager, specs))
    covered: set[str] = set()
    new_specs: list = []
    skipped: dict[str, dict] = {}
    for spec in specs:
        if not isinstance(spec, str) or spec not in groups:
            new_specs.append(spec)
            continue
        ran, left_out = [], {}
        for member in groups[spec]:
            leaves, hits = member_problems(task_manager, member, problems)
            if not hits:
                ran.append(member)
                continue
            covered |= set(leaves)
            reasons = [f"{problems[i].kind}: {(problems[i].message.strip().splitlines() or [''])[0]}" for i in hits]
            left_out[member] = {"tasks": leaves, "reasons": reasons}
        if left_out and not ran:
            return None
        new_specs.extend(ran if left_out else [spec])
        if left_out:
            skipped[spec] = {"ran": ran, "skipped": left_out}
    if not skipped or any(not p.tasks or not set(p.tasks) <= covered for p in problems):
        return None
    return new_specs, skipped


def check_served_tokenizer(report: PreflightReport, model: Any, model_args: Any) -> None:
    """``--model local-completions`` on pack tasks: lm-eval builds a Hugging Face tokenizer from
    ``tokenizer`` (else from the served model's name) unless the server tokenizes for it (vLLM's
    /tokenizer_info). A llama.cpp model name ("gemma") is no tokenizer: lm-eval would fail with a
    raw traceback after start-up; said here instead, with what to pass."""
    import re

    if model != "local-completions" or not report.tasks:
        return
    args = parse_model_args(model_args)
    backend = str(args.get("tokenizer_backend", "auto")).lower()
    if args.get("tokenizer") or backend not in ("auto", "huggingface"):
        return
    name = str(args.get("model") or args.get("pretrained") or "")
    if re.fullmatch(r"[\w.-]+/[\w.-]+", name) or (name and Path(name).expanduser().is_dir()):
        return  # a hub id or a directory: a tokenizer lm-eval can load
    if backend == "auto" and args.get("base_url"):
        from lm_eval.utils import check_remote_tokenizer_support

        if check_remote_tokenizer_support(str(args["base_url"]), timeout=PROBE_TIMEOUT_S, max_retries=1):
            return
    report.add_problem(
        "settings",
        f"--model local-completions, model={name!r} and no tokenizer: lm-eval would load a Hugging Face tokenizer "
        f"named {name!r} (the server does not tokenize for it) and fail. Add tokenizer=<the served model's "
        "tokenizer: a Hugging Face hub id or directory> to --model_args, and for llama.cpp's server "
        "tokenized_requests=False (it tokenizes the text itself); see docs/served-models-and-gpus.md, "
        "'Served models (llama.cpp)'",
        ", ".join(report.tasks),
    )


# Model arguments that name a model lm-eval loads from a folder or the hub (any --model that takes them).
MODEL_ARGS_LOADED = ("pretrained", "tokenizer")


def check_evaluated_model(report: PreflightReport, model: Any, model_args: Any) -> None:
    """The evaluated model, found as the judge model is (``data.hub.locate_model``): a local folder, a
    cached hub snapshot, or the online hub; else one problem, before lm-eval loads anything (it would
    retry the hub, then end in a long transformers traceback)."""
    from lm_eval_persian_culture.data.hub import ModelNotFound, hub_model_problem, locate_model

    args = parse_model_args(model_args)
    backend = str(args.get("tokenizer_backend") or "auto").lower()
    for key in MODEL_ARGS_LOADED:
        name = args.get(key)
        if not isinstance(name, str) or not name.strip():
            continue
        if key == "tokenizer" and backend not in ("auto", "huggingface"):
            continue
        if key == "tokenizer" and name == args.get("pretrained"):
            continue
        revision = args.get("revision") if key == "pretrained" else None
        setting = f"--model_args {key}={name}"
        try:
            where = locate_model(name.strip(), setting, str(revision) if revision else None,
                                 online_check=hub_model_problem)  # fmt: skip
        except ModelNotFound as err:
            report.add_problem("model", str(err))
            continue
        shown = {"directory": "local path", "cache": "in the hub cache", "hub": "on the hub"}[where.source]
        report.checked.append(f"evaluated model {key}={name}: {shown}")


def offline_if_unreachable() -> Callable[[], None]:
    """Once per process: can the Hugging Face hub be reached? If not, say so in one line and switch the
    hub clients offline for this run (``datasets`` and ``huggingface_hub`` would retry each request five
    times, ~25 s, before failing). Returns what undoes the switch."""
    from lm_eval_persian_culture.data.hub import go_offline, hub_state

    state = hub_state()
    if state.reachable:
        return lambda: None
    if state.by_user:
        logger.info("pre-flight: %s", state.line)
        return lambda: None
    logger.warning("pre-flight: %s", state.line)
    return go_offline()


def limit_problem(limit: Any) -> str | None:
    """``--limit 0`` (or below) selects no documents: lm-eval loads the model, then stops with a traceback."""
    try:
        value = float(limit)
    except (TypeError, ValueError):
        return None
    if value > 0:
        return None
    return (f"--limit {limit:g} selects no documents: give a number of documents (e.g. --limit 10) "
            "or a fraction in (0, 1), or leave --limit out")  # fmt: skip


def duplicate_problem(task_manager, specs: Sequence[Any]) -> str | None:
    """A pack task reached twice (a group and one of its members): lm-eval 0.4.13 refuses that, but
    only after loading the model; 0.5 accepts it (no ``_check_duplicates``), so nothing to say there."""
    if not callable(getattr(type(task_manager), "_check_duplicates", None)):
        return None
    reached: dict[str, str] = {}
    for spec in specs:
        if not isinstance(spec, str):
            continue
        for leaf in resolve_pack_tasks(task_manager, [spec], PreflightReport()):
            first = reached.setdefault(leaf, spec)
            if first != spec:
                return (f"{leaf} is named twice, by {first} and by {spec}: this lm-eval refuses that once the model "
                        "has loaded. Name the group or its members, not both.")  # fmt: skip
    return None


def run_preflight(params: dict, tasks: Any, model_args: Any, skipped: dict | None = None) -> list[str]:
    """The checks before the model loads; builds lm-eval's TaskManager into ``params`` if missing. With
    ``suite_skip_unavailable``, suite members that cannot run are taken out of ``params["tasks"]`` and
    recorded in ``skipped`` (for the results)."""
    task_manager = params.get("task_manager")
    if task_manager is None and tasks:
        # What simple_evaluate would build after loading the model, built before it instead.
        from lm_eval.tasks import TaskManager

        from lm_eval_persian_culture.harness.discovery import only_pack_tasks, with_pack_path

        metadata = parse_model_args(model_args) | dict(params.get("metadata") or {})
        requested = list(tasks) if isinstance(tasks, (list, tuple)) else [tasks]
        pack_only = all(isinstance(t, str) for t in requested) and only_pack_tasks(requested)
        # Only pack tasks asked for: lm-eval's own index (~10 s) would find nothing we need.
        scope = {"include_path": with_pack_path(None), "include_defaults": False} if pack_only else {}
        task_manager = params["task_manager"] = TaskManager(metadata=metadata, **scope)
    leaves: list[str] = []
    if task_manager is not None and not _first_process_of_launch():
        # Once per launch: rank 0 checks and probes; if it finds a problem it exits, and the
        # launcher (torchrun, accelerate) stops the others. Leaves are still resolved here (the
        # index only), so every rank decides the same about logging samples.
        specs = list(tasks) if isinstance(tasks, (list, tuple)) else [tasks]
        if skip_wanted(task_manager, params):  # every rank must leave out the same suite members as rank 0
            plan = plan_suite_skips(task_manager, specs, check_tasks(task_manager, specs, model_args))
            if plan is not None:
                params["tasks"], skips = plan
                specs = params["tasks"]
                if skipped is not None:
                    skipped.update(skips)
        leaves = list(resolve_pack_tasks(task_manager, specs, PreflightReport()))
        logger.info("pre-flight: left to rank 0 of this launch")
    elif task_manager is not None:
        report = check_tasks(task_manager, tasks, model_args)
        check_served_tokenizer(report, params.get("model"), model_args)
        if report.tasks:
            check_evaluated_model(report, params.get("model"), model_args)
        leaves = report.tasks
        problem = limit_problem(params.get("limit")) if leaves else None
        if problem:
            report.add_problem("settings", problem)
        problem = duplicate_problem(task_manager, tasks if isinstance(tasks, (list, tuple)) else [tasks])
        if problem:
            report.add_problem("task", problem)
        specs = list(tasks) if isinstance(tasks, (list, tuple)) else [tasks]
        plan = plan_suite_skips(task_manager, specs, report) if report.problems and skip_wanted(
            task_manager, params) else None  # fmt: skip
        if plan is not None:
            params["tasks"], skips = plan
            report.problems = []
            leaves = list(resolve_pack_tasks(task_manager, params["tasks"], PreflightReport()))
            for group, what in skips.items():
                for member, why in what["skipped"].items():
                    report.warn(f"{group}: {member} skipped ({SKIP_SETTING}): {'; '.join(why['reasons'])}")
            if skipped is not None:
                skipped.update(skips)
        for warning in report.warnings:
            logger.warning("pre-flight: %s", warning)
        if leaves or report.problems:
            logger.info("%s", report.summary())
        report.raise_if_problems()
    return leaves


def _first_process_of_launch() -> bool:
    from lm_eval_persian_culture.judge.launch import Launch

    return Launch.from_env().first


def validate(args) -> None:
    """``validate``: lm-eval's existence check, then the pack's pre-flight, saying what it checked."""
    from lm_eval.tasks import TaskManager

    metadata = parse_metadata(getattr(args, "metadata", None))
    model_args = getattr(args, "model_args", None)
    metadata = parse_model_args(model_args) | metadata
    task_manager = TaskManager(include_path=args.include_path, metadata=metadata)
    task_list = [t.strip() for t in args.tasks.split(",") if t.strip()]
    print(f"Validating tasks: {task_list}")
    found = task_manager.match_tasks(task_list)
    missing = [t for t in task_list if t not in found]
    if missing:
        raise UserInputError(tasks_not_found_message(missing))
    print("All tasks found")
    ordered = [t for t in task_list if t in found] + [t for t in found if t not in task_list]  # patterns expanded
    restore = offline_if_unreachable()
    try:
        report = check_tasks(task_manager, ordered, model_args)
        check_evaluated_model(report, None, model_args)
    finally:
        restore()
    for warning in report.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    report.raise_if_problems()
    print(report.summary())
    print("All tasks found and valid")


__all__ = [
    "PreflightError", "PreflightReport", "Problem", "check_evaluated_model", "check_judge", "check_served_tokenizer",
    "check_task_data", "check_tasks", "duplicate_problem", "format_problems", "limit_problem",
    "member_problems", "offline_if_unreachable", "plan_suite_skips", "run_preflight", "skip_wanted",
    "suite_groups", "summarize_groups", "validate",
]  # fmt: skip
