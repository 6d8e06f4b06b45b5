"""Pre-flight: every pack check before any model loads, one message for everything wrong.

lm-eval's ``simple_evaluate`` loads (and may first download) the evaluated model, and only then
builds the tasks, where the pack's loaders check the judge and the data. :func:`install` wraps
``simple_evaluate`` (which the CLI and the Python API both go through) so that, first:

* the pack tasks named in ``tasks`` are resolved through lm-eval's own task index (groups and
  tags expanded; built-in tasks ignored; a misspelt name gets the closest pack task suggested);
* each one's loader (its ``custom_dataset``, i.e. the benchmark's own source files, schema and
  judge settings) runs once with the run's settings: a missing judge, key, data file or a
  malformed row is reported with the file, row, field or setting involved;
* every judge the loaders configured is probed: one ``GET /models`` (cheap, no tokens), the
  model looked up where the server lists models; ``hf:`` judges (in-process) only have their
  local directory checked.

Problems are collected and raised as one :class:`PreflightError`. Under the CLI, errors a user can
fix print one message and exit with status 2 (a traceback only with ``--verbosity DEBUG`` or
``LMEVAL_LOG_LEVEL=DEBUG``). Judge failures past ``judge_max_error_rate`` no longer abort the run
inside lm-eval: results (scores of the judged items, ``judge_failures``) and samples are written,
then the run exits with status 2; ``lm-eval-persian rejudge`` re-scores the saved samples.

``install()`` is idempotent and imports nothing heavy: it patches the lm-eval modules already
imported and arranges (a ``sys.meta_path`` hook) to patch the others when they are imported.
"""

from __future__ import annotations

from lm_eval_persian_culture.errors import EXIT_USER_ERROR, PackUserError, UserInputError

import argparse
import importlib.abc
import inspect
import json
import logging
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping, Sequence
from urllib.parse import urlsplit

from lm_eval_persian_culture.harness import compat
from lm_eval_persian_culture.harness.catalogue import in_pack, pack_names, suggest

if TYPE_CHECKING:
    from lm_eval_persian_culture.judge.settings import JudgeSettings

# Nothing heavy at import: install() may run when lm-eval itself is imported (startup hook), so
# the judge (openai), lm-eval's evaluator and torch are imported only when a check runs.

logger = logging.getLogger("lm_eval_persian_culture")

OPENAI_BASE_URL = "https://api.openai.com/v1"
DEFAULT_KEY_ENV = "OPENAI_API_KEY"
PROBE_TIMEOUT_S = 10.0
LOCAL_JUDGE_PREFIX = "hf:"


class PreflightError(PackUserError, ValueError):
    """One or more problems found before the model loads; the message lists all of them."""

    def __init__(self, problems: Sequence["Problem"]) -> None:
        self.problems = list(problems)
        super().__init__(format_problems(self.problems))




@dataclass
class Problem:
    kind: str  # "task", "settings", "judge", "data"
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


# --------------------------------------------------------------------------- task resolution
def _looks_like_path(spec: str) -> bool:
    return spec.endswith((".yaml", ".yml")) or os.sep in spec or Path(spec).exists()


def resolve_pack_tasks(task_manager, specs: Sequence[Any], report: PreflightReport) -> dict[str, Any]:
    """Pack leaf tasks (name -> index entry) reached from ``specs``; unknown names become problems."""
    from lm_eval.tasks._index import Kind
    from lm_eval.tasks._yaml_loader import load_yaml

    index = compat.task_index(task_manager)
    leaves: dict[str, Any] = {}
    seen: set[str] = set()

    def visit(name: str) -> None:
        if name in seen or name not in index:
            return
        seen.add(name)
        entry = index[name]
        if entry.kind == Kind.TAG:
            for member in sorted(entry.tags):
                visit(member)
        elif entry.kind == Kind.GROUP:
            if entry.yaml_path is None:
                return
            members = load_yaml(entry.yaml_path, resolve_func=False).get("task") or []
            for member in members if isinstance(members, list) else [members]:
                if isinstance(member, dict):
                    member = member.get("task") or member.get("group")
                if isinstance(member, str):
                    visit(member)
        elif in_pack(entry.yaml_path):
            leaves[name] = entry

    candidates = None
    for spec in specs:
        if not isinstance(spec, str):
            continue  # Task objects and inline dicts: the user built them, lm-eval checks them
        if spec in index:
            visit(spec)
        elif not _looks_like_path(spec):
            candidates = candidates if candidates is not None else pack_names(task_manager)
            report.add_problem("task", f"task {spec!r} not found{suggest(spec, candidates)}")
    return leaves


# --------------------------------------------------------------------------- checks
def _parse_model_args(model_args: Any) -> dict:
    if isinstance(model_args, dict):
        return dict(model_args)
    if isinstance(model_args, str) and model_args.strip():
        from lm_eval.utils import simple_parse_args_string

        return simple_parse_args_string(model_args)
    return {}


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

    from lm_eval_persian_culture.judge.settings import JudgeConfigError

    from lm_eval_persian_culture.judge import filter as judge_filter

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
    else:  # a setting the loader rejected (e.g. divan_instruction), or an unreadable source
        report.add_problem("settings", f"{type(err).__name__}: {err}", name)


def _local_dir_named(target: str) -> bool:
    return target.startswith(("/", "./", "../", "~")) or (os.sep in target and Path(target).expanduser().exists())


def check_judge(js: JudgeSettings, report: PreflightReport, tasks: Sequence[str] = ()) -> None:
    """Is the judge there? ``hf:`` judges: local directory only; servers: one GET /models."""
    from lm_eval_persian_culture.judge.settings import redact_url

    task = ", ".join(tasks) or None
    if js.model.startswith(LOCAL_JUDGE_PREFIX):
        target = js.model[len(LOCAL_JUDGE_PREFIX):]
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
    if js.base_url and host != "api.openai.com" and js.api_key_env == DEFAULT_KEY_ENV and os.environ.get(DEFAULT_KEY_ENV):
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
    model_settings = _parse_model_args(model_args)
    for js, tasks in judges.values():
        try:  # lm-eval leaves model_args out of a user's own TaskManager: check them here too
            check_not_self_judge(js, model_settings)
        except JudgeConfigError as err:
            report.add_problem("judge", str(err), ", ".join(tasks))
            continue
        check_judge(js, report, tasks)
    summarize_groups(task_manager, specs, report)
    return report


def summarize_groups(task_manager, specs: Sequence[Any], report: PreflightReport) -> None:
    """For a pack group spanning several benchmarks (the persian_culture suite: its members' configs live in
    different benchmark folders), one line first: which members cannot run, by which problem, and which are
    ready, so a newcomer sees at once what blocks the suite."""
    from lm_eval.tasks._index import Kind
    from lm_eval.tasks._yaml_loader import load_yaml

    if not report.problems:
        return
    index = compat.task_index(task_manager)
    summaries = []
    for spec in specs:
        entry = index.get(spec) if isinstance(spec, str) else None
        if entry is None or entry.kind != Kind.GROUP or not in_pack(entry.yaml_path):
            continue
        members = load_yaml(entry.yaml_path, resolve_func=False).get("task") or []
        members = [m if isinstance(m, str) else (m.get("task") or m.get("group")) for m in members]
        folders = {Path(index[m].yaml_path).parent for m in members if m in index and index[m].yaml_path}
        if len(folders) < 2:  # one benchmark's group: its problems already say it all
            continue
        blocked, ready = [], []
        for member in [m for m in members if isinstance(m, str)]:
            leaves = set(resolve_pack_tasks(task_manager, [member], PreflightReport()))
            hits = [(i, p.kind) for i, p in enumerate(report.problems, start=2) if leaves & set(p.tasks)]
            if hits:
                kinds = "/".join(dict.fromkeys(kind for _, kind in hits))
                blocked.append(f"{member} ({kinds}: problem{'s' if len(hits) > 1 else ''} "
                               f"{', '.join(str(i) for i, _ in hits)})")
            else:
                ready.append(member)
        if blocked:
            line = (f"{len(blocked)} of {len(blocked) + len(ready)} members cannot run: {', '.join(blocked)}"
                    f"; ready: {', '.join(ready) or 'none'}. `lm-eval-persian data` shows where each benchmark's "
                    "data comes from and what it needs")
            if ready:
                line += f"; or run the ready members alone: --tasks {','.join(ready)}"
            summaries.append(Problem("suite", line + ".", [spec]))
    report.problems[:0] = summaries[:1]  # one summary (numbers above assume it is the only one inserted)


def check_served_tokenizer(report: PreflightReport, model: Any, model_args: Any) -> None:
    """``--model local-completions`` on pack tasks: lm-eval builds a Hugging Face tokenizer from
    ``tokenizer`` (else from the served model's name) unless the server tokenizes for it (vLLM's
    /tokenizer_info). A llama.cpp model name ("gemma") is no tokenizer: lm-eval would fail with a
    raw traceback after start-up; said here instead, with what to pass."""
    import re

    if model != "local-completions" or not report.tasks:
        return
    args = _parse_model_args(model_args)
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
        "tokenized_requests=False (it tokenizes the text itself); see the README, 'Served models (llama.cpp)'",
        ", ".join(report.tasks),
    )


# --------------------------------------------------------------------------- simple_evaluate
class _RunState:
    cli = False  # inside the CLI's run: judge failures are reported after results are written
    failures: list[dict] = []
    unrequested_samples: tuple[Any, dict] | None = None  # (tracker, samples) to write on failure


_state = _RunState()


def failure_message(failures: Sequence[Mapping], output_path: str | None = None) -> str:
    n = len(failures)
    lines = [
        f"judge failed on {n} task{'s' if n != 1 else ''}: results (scores of the judged items only, "
        "with the failure under 'judge_failures') and samples with every reply were written"
    ]
    for f in failures:
        lines.append(f"  - {f.get('task') or 'a judged task'}: {f['message']}")
    target = output_path or "<output_path>"
    lines.append(f"Re-score the saved replies once the judge works, without generating again: "
                 f"lm-eval-persian rejudge {target}")  # fmt: skip
    return "\n".join(lines)


def _pack_engaged(names: Sequence[Any]) -> bool:
    """Does this call name a pack task? If not, the pack stays out of lm-eval's way entirely."""
    if compat.is_off("the pre-flight"):
        return False
    missing = compat.preflight_missing()
    if missing:
        compat.switch_off("the pre-flight", missing)
        return False
    try:
        from lm_eval_persian_culture.harness.discovery import names_pack_tasks

        return names_pack_tasks(names)
    except Exception as err:  # noqa: BLE001 - never raise inside lm-eval
        compat.switch_off("the pre-flight", f"what it reads ({type(err).__name__}: {err})")
        return False


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


def _preflight(params: dict, tasks: Any, model_args: Any) -> list[str]:
    """The checks before the model loads; builds lm-eval's TaskManager into ``params`` if missing."""
    task_manager = params.get("task_manager")
    if task_manager is None and tasks:
        # What simple_evaluate would build after loading the model, built before it instead.
        from lm_eval.tasks import TaskManager

        from lm_eval_persian_culture.harness.discovery import only_pack_tasks, with_pack_path

        metadata = _parse_model_args(model_args) | dict(params.get("metadata") or {})
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
        leaves = list(resolve_pack_tasks(task_manager, tasks, PreflightReport()))
        logger.info("pre-flight: left to rank 0 of this launch")
    elif task_manager is not None:
        report = check_tasks(task_manager, tasks, model_args)
        check_served_tokenizer(report, params.get("model"), model_args)
        leaves = report.tasks
        problem = limit_problem(params.get("limit")) if leaves else None
        if problem:
            report.add_problem("settings", problem)
        problem = duplicate_problem(task_manager, tasks if isinstance(tasks, (list, tuple)) else [tasks])
        if problem:
            report.add_problem("task", problem)
        for warning in report.warnings:
            logger.warning("pre-flight: %s", warning)
        if leaves or report.problems:
            logger.info("%s", report.summary())
        report.raise_if_problems()
    return leaves


def _wrap_simple_evaluate(original: Callable) -> Callable:
    if getattr(original, "_persian_culture_preflight", False):
        return original
    signature = inspect.signature(original)

    def simple_evaluate(*args, **kwargs):
        try:
            bound = signature.bind_partial(*args, **kwargs)
        except TypeError:
            return original(*args, **kwargs)  # a wrong call gets lm-eval's own error
        params = dict(bound.arguments)
        tasks = params.get("tasks") or []
        if not _pack_engaged(tasks if isinstance(tasks, (list, tuple)) else [tasks]):
            return original(*args, **kwargs)  # no pack task named: lm-eval exactly as without the pack
        from lm_eval_persian_culture.judge import filter as judge_filter
        from lm_eval_persian_culture.judge.settings import JudgeFailureError

        model_args = params.get("model_args")
        task_manager = params.get("task_manager")
        restore_env = []
        if params.get("predict_only"):
            # Generation only: judged tasks log their samples unscored, TARAZ's embedding metrics
            # stay unscored without loading a model (an explicit judge_model / embedding_model wins).
            for var in ("PERSIAN_CULTURE_JUDGE_MODEL", "PERSIAN_CULTURE_EMBEDDING_MODEL"):
                if var not in os.environ:
                    os.environ[var] = "none"
                    restore_env.append(var)
        try:
            try:
                leaves = _preflight(params, tasks, model_args)
            except PackUserError:
                raise
            except Exception as err:  # noqa: BLE001 - a pre-flight that cannot read this lm-eval steps aside
                compat.switch_off("the pre-flight", f"what it reads ({type(err).__name__}: {err})")
                leaves = []
            tracker = params.get("evaluation_tracker")
            forced_samples = bool(
                _state.cli and leaves and not params.get("log_samples", True)
                and tracker is not None and getattr(tracker, "output_path", None)
            )  # fmt: skip
            if forced_samples:  # keep every reply in memory, to write it if the judge fails
                params["log_samples"] = True
            with judge_filter.collect_judge_failures() as failures:
                results = original(**params)
        finally:
            for var in restore_env:
                os.environ.pop(var, None)
        if results is None:
            return results
        if forced_samples:
            samples = results.pop("samples", None)
            if failures and samples is not None:
                _state.unrequested_samples = (tracker, samples)
        if failures:
            results["judge_failures"] = list(failures)
            if _state.cli:
                _state.failures.extend(failures)
            else:
                err = JudgeFailureError(failure_message(failures))
                err.results = results  # Python API: nothing lost, the results ride on the error
                raise err
        return results

    simple_evaluate.__wrapped__ = original
    simple_evaluate.__doc__ = original.__doc__
    simple_evaluate.__name__ = original.__name__
    simple_evaluate.__signature__ = signature
    simple_evaluate._persian_culture_preflight = True
    return simple_evaluate


def _first_process_of_launch() -> bool:
    from lm_eval_persian_culture.judge.launch import Launch

    return Launch.from_env().first


def _patch_evaluator(module) -> None:
    missing = compat.has_parameters(getattr(module, "simple_evaluate", None), "tasks", "task_manager", "model_args")
    if missing:
        compat.switch_off("the pre-flight", missing)
        return
    module.simple_evaluate = _wrap_simple_evaluate(module.simple_evaluate)
    parent = sys.modules.get("lm_eval")
    if parent is not None and "simple_evaluate" in vars(parent):
        parent.simple_evaluate = module.simple_evaluate


# --------------------------------------------------------------------------- CLI guard
def debug_wanted(args: Any = None) -> bool:
    level = (getattr(args, "verbosity", None) or "") if args is not None else ""
    return str(level).upper() == "DEBUG" or os.environ.get("LMEVAL_LOG_LEVEL", "").upper() == "DEBUG"


def fail(message: str) -> None:
    """Print one message as the last thing the process prints, and exit with status 2."""
    from lm_eval_persian_culture.judge import filter as judge_filter

    sys.stdout.flush()
    judge_filter._print_usage_at_exit()  # before the message, so the message stays last
    print(message, file=sys.stderr, flush=True)
    raise SystemExit(EXIT_USER_ERROR)


def user_error_message(err: BaseException) -> str | None:
    """The message to print for an error a user can fix, or None for a real bug."""
    if isinstance(err, PackUserError):
        return str(err)
    text = str(err)
    if isinstance(err, ValueError) and text.startswith("Tasks not found:"):
        return tasks_not_found_message([t.strip() for t in text.split(":", 1)[1].split(",") if t.strip()])
    if isinstance(err, ValueError) and text.startswith("Duplicate task"):
        # lm-eval 0.4.13 refuses a group and one of its members in one --tasks list (0.5 accepts it)
        return f"{text}. Name the group or its members, not both."
    return None


def tasks_not_found_message(missing: Sequence[str]) -> str:
    from lm_eval_persian_culture.harness.catalogue import pack_task_names

    names = pack_task_names()
    return "Tasks not found: " + ", ".join(f"{m}{suggest(m, names)}" for m in missing)


def guarded(fn: Callable, args: Any, output_path: str | None = None) -> Any:
    """Run a CLI command: user errors and judge failures become one message and exit status 2."""
    _state.cli = True
    _state.failures = []
    _state.unrequested_samples = None
    try:
        result = fn()
    except Exception as err:  # noqa: BLE001
        message = user_error_message(err)
        if message is None or debug_wanted(args):
            raise
        fail(message)
    finally:
        _state.cli = False
    if _state.failures:
        if _state.unrequested_samples is not None:
            tracker, samples = _state.unrequested_samples
            for task_name, task_samples in samples.items():
                tracker.save_results_samples(task_name=task_name, samples=task_samples)
        fail(failure_message(_state.failures, output_path))
    return result


def _task_names(tasks: Any) -> list[str]:
    """The --tasks value (``a,b`` or a list) as names; paths and patterns stay as given."""
    if not tasks:
        return []
    items = tasks.split(",") if isinstance(tasks, str) else [str(t) for t in tasks]
    return [t.strip() for t in items if t.strip()]


def refuse_misspelt_names(args: Any) -> None:
    """A misspelt pack task name gets its suggestion at once, before lm-eval indexes its built-ins."""
    from lm_eval_persian_culture.harness.discovery import misspelt_pack_names

    misspelt = misspelt_pack_names(_task_names(getattr(args, "tasks", None)), getattr(args, "include_path", None))
    if misspelt:
        raise UserInputError(tasks_not_found_message(misspelt))


def _misspelt(args: Any) -> list[str]:
    """Misspelt pack names among --tasks (see ``discovery.misspelt_pack_names``); [] if it cannot tell."""
    from lm_eval_persian_culture.harness.discovery import misspelt_pack_names

    try:
        return misspelt_pack_names(_task_names(getattr(args, "tasks", None)), getattr(args, "include_path", None))
    except Exception:  # noqa: BLE001 - lm-eval's own index decides then
        return []


def _patch_run(module) -> None:
    cls = getattr(module, "Run", None)
    current = cls.__dict__.get("_execute") if isinstance(cls, type) else None
    original = current.__func__ if isinstance(current, staticmethod) else current
    if not callable(original):
        compat.switch_off("the pre-flight of `lm_eval run`", "lm_eval._cli.run.Run._execute")
        return
    if getattr(original, "_persian_culture_preflight", False):
        return

    def _execute(args):
        from lm_eval_persian_culture.harness.discovery import skip_builtin_index

        names = _task_names(getattr(args, "tasks", None))
        if not _pack_engaged(names) and not _misspelt(args):
            return original(args)  # no pack task named: lm-eval's own command, untouched

        def run() -> Any:
            refuse_misspelt_names(args)
            return original(args)

        with skip_builtin_index(names, getattr(args, "include_path", None)):
            return guarded(run, args, getattr(args, "output_path", None))

    _execute._persian_culture_preflight = True
    cls._execute = staticmethod(_execute)


def _patch_validate(module) -> None:
    cls = getattr(module, "Validate", None)
    if not all(callable(getattr(cls, name, None)) for name in ("_add_args", "_execute")):
        compat.switch_off("the pre-flight of `lm_eval validate`", "lm_eval._cli.validate.Validate._add_args/_execute")
        return
    if getattr(cls._execute, "_persian_culture_preflight", False):
        return
    original_add_args = cls._add_args
    original_execute = cls._execute

    def _add_args(self) -> None:
        original_add_args(self)
        self._parser.add_argument(
            "--metadata", type=str, default=None, metavar="JSON",
            help="(lm-eval-persian-culture) run settings as in `run --metadata`: judge_model, data_dir, ...",
        )  # fmt: skip
        self._parser.add_argument(
            "--model_args", type=str, default=None, metavar="ARGS",
            help="(lm-eval-persian-culture) the evaluated model's args, for the self-judging check",
        )  # fmt: skip

    def _execute(self, args) -> None:
        from lm_eval_persian_culture.harness.discovery import skip_builtin_index

        names = _task_names(getattr(args, "tasks", None))
        if not _pack_engaged(names) and not _misspelt(args):
            given = [f"--{flag} {value}" for flag in ("metadata", "model_args") if (value := getattr(args, flag, None))]
            if given:  # lm-eval's validate has neither flag: refuse them as its parser would
                self._parser.error(f"unrecognized arguments: {' '.join(given)}")
            return original_execute(self, args)
        with skip_builtin_index(names, getattr(args, "include_path", None)):
            guarded(lambda: (refuse_misspelt_names(args), _validate_or_step_aside(self, args)), args)

    def _validate_or_step_aside(self, args) -> None:
        try:
            validate(args)
        except PackUserError:
            raise
        except Exception as err:  # noqa: BLE001 - a pack validate that cannot read this lm-eval steps aside
            if debug_wanted(args):
                raise
            compat.switch_off("the pre-flight of `lm_eval validate`", f"what it reads ({type(err).__name__}: {err})")
            original_execute(self, args)

    _execute._persian_culture_preflight = True
    cls._add_args = _add_args
    cls._execute = _execute


def validate(args) -> None:
    """``validate``: lm-eval's existence check, then the pack's pre-flight, saying what it checked."""
    from lm_eval.tasks import TaskManager

    metadata = _parse_metadata(getattr(args, "metadata", None))
    model_args = getattr(args, "model_args", None)
    metadata = _parse_model_args(model_args) | metadata
    task_manager = TaskManager(include_path=args.include_path, metadata=metadata)
    task_list = [t.strip() for t in args.tasks.split(",") if t.strip()]
    print(f"Validating tasks: {task_list}")
    found = task_manager.match_tasks(task_list)
    missing = [t for t in task_list if t not in found]
    if missing:
        raise UserInputError(tasks_not_found_message(missing))
    print("All tasks found")
    ordered = [t for t in task_list if t in found] + [t for t in found if t not in task_list]  # patterns expanded
    report = check_tasks(task_manager, ordered, model_args)
    for warning in report.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    report.raise_if_problems()
    print(report.summary())
    print("All tasks found and valid")


def _parse_metadata(text: str | None) -> dict:
    if not text:
        return {}
    try:
        value = json.loads(text)
    except json.JSONDecodeError as err:
        from lm_eval_persian_culture.scoring.records import json_error_text

        raise UserInputError(f"--metadata is not valid JSON ({json_error_text(err)}): {text}") from None
    if not isinstance(value, dict):
        raise UserInputError(f"--metadata must be a JSON object, got {type(value).__name__}")
    return value


def argv_problem(argv: Sequence[str]) -> str | None:
    """Malformed ``--metadata`` JSON, when pack tasks are named: lm-eval 0.4.13's parser turns it into
    a traceback (0.5's into an argparse error); found here before the parser, with one message."""
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--tasks", "-t", nargs="*", default=[])
    parser.add_argument("--metadata", nargs="*", default=None)
    known, _ = parser.parse_known_args(list(argv))
    if not known.metadata or not _pack_engaged(_task_names(",".join(known.tasks))):
        return None
    for text in known.metadata:
        if "{" not in text:
            continue  # key=value pairs: lm-eval's own syntax
        try:
            json.loads(text)
        except json.JSONDecodeError as err:
            return f"--metadata is not valid JSON ({err.msg} at char {err.pos}): {text}"
    return None


def _patch_cli(module) -> None:
    cls = getattr(module, "HarnessCLI", None)
    original = getattr(cls, "parse_args", None)
    if not callable(original):
        compat.switch_off("the --metadata check of `lm_eval run`", "lm_eval._cli.harness.HarnessCLI.parse_args")
        return
    if getattr(original, "_persian_culture_preflight", False):
        return

    def parse_args(self, *args, **kwargs):
        try:
            message = argv_problem(sys.argv[1:])
        except Exception:  # noqa: BLE001 - a check that cannot parse leaves it to lm-eval's parser
            message = None
        if message:
            fail(message)
        return original(self, *args, **kwargs)

    parse_args._persian_culture_preflight = True
    cls.parse_args = parse_args


# --------------------------------------------------------------------------- install
_PATCHES: dict[str, Callable] = {
    "lm_eval.evaluator": _patch_evaluator,
    "lm_eval._cli.run": _patch_run,
    "lm_eval._cli.validate": _patch_validate,
    "lm_eval._cli.harness": _patch_cli,
}


def _apply(patch: Callable, module) -> None:
    """One patch; whatever it meets, lm-eval's module stays importable and unpatched."""
    try:
        patch(module)
    except Exception as err:  # noqa: BLE001 - the pack must never break lm-eval
        compat.switch_off(f"the pre-flight ({module.__name__})", f"what it patches ({type(err).__name__}: {err})")


class _PatchingLoader(importlib.abc.Loader):
    """Runs the real loader, then patches the fresh module."""

    def __init__(self, loader, patch: Callable) -> None:
        self._loader = loader
        self._patch = patch

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module) -> None:
        self._loader.exec_module(module)
        _apply(self._patch, module)

    def __getattr__(self, name: str):  # get_source, get_data, ... for inspect and importlib.resources
        return getattr(self._loader, name)


class _PatchOnImport(importlib.abc.MetaPathFinder):
    """Patches lm-eval modules when they are first imported (install() must not import them)."""

    _persian_culture_preflight = True

    def find_spec(self, fullname, path, target=None):
        patch = _PATCHES.get(fullname)
        if patch is None:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                    spec.loader = _PatchingLoader(spec.loader, patch)
                return spec
        return None


def install() -> None:
    """Make lm-eval run the pack's pre-flight before loading any model (idempotent, cheap).

    Patches ``lm_eval.evaluator.simple_evaluate`` and the ``run`` / ``validate`` subcommands,
    now if already imported, else when first imported. For ``validate --metadata`` to exist,
    call it before lm-eval's CLI parser is built (i.e. before ``lm_eval._cli.validate`` is imported).
    """
    if not any(getattr(f, "_persian_culture_preflight", False) for f in sys.meta_path):
        sys.meta_path.insert(0, _PatchOnImport())
    for name, patch in _PATCHES.items():
        module = sys.modules.get(name)
        # A module still executing (lm_eval.evaluator imports lm_eval.tasks, where the startup hook
        # acts) is patched by the finder above when its import finishes, not now, half-built.
        if module is not None and not getattr(getattr(module, "__spec__", None), "_initializing", False):
            _apply(patch, module)
