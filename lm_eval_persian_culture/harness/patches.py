"""Everything the pack changes in lm-eval, in one module: each patch replaces or wraps one thing of
lm-eval's, checks first (``harness.compat``) that lm-eval still has it, and where it does not switches
itself off with one warning (lm-eval then runs as if the pack were not installed). Every patch is
idempotent (the startup hook and the ``lm-eval-persian`` wrapper may both install them in one process) and
never raises inside lm-eval. What a patch runs lives with the job it belongs to (``preflight``: the checks;
``guard``: the messages and exit status; ``discovery``: the pack's folder and names); this module only
wires it into lm-eval.

The patches, and why:

* ``lm_eval.tasks.manager.TaskManager.__init__`` (:func:`_patch_task_manager`): every TaskManager also
  indexes the pack's folder (once), so plain ``lm_eval`` finds the pack's tasks; inside
  ``discovery.skip_builtin_index`` it skips lm-eval's ~14,700 built-in tasks (~10 s) for pack-only runs.
* ``lm_eval.api.metrics.stderr_for_metric`` (:func:`_patch_pack_stderr`): only where lm-eval (0.5)
  bootstraps every aggregation, the pack's own keep 0.4.13's "N/A" (they are unpicklable closures, and
  resampling ~300 metrics would cost minutes); built-in tasks keep lm-eval's stderr.
* ``lm_eval.evaluator.simple_evaluate`` (and ``lm_eval.simple_evaluate``; :func:`_wrap_simple_evaluate`):
  the pre-flight runs before the model loads; with ``predict_only`` no judge or embedding model is
  demanded; judge failures are collected so results and samples are still written (CLI) or ride on the
  error (Python API).
* ``lm_eval._cli.run.Run._execute`` (:func:`_patch_run`): a run naming pack tasks goes through the CLI
  guard (one message, exit status 2), misspelt pack names are refused before lm-eval's index is built,
  and lm-eval's built-in index is skipped when only pack tasks are named.
* ``lm_eval._cli.validate.Validate._add_args`` / ``_execute`` (:func:`_patch_validate`): ``validate``
  takes ``--metadata`` / ``--model_args`` and runs the pack's pre-flight for pack tasks
  (``preflight.validate``); built-in tasks get lm-eval's own validate, flags refused as its parser would.
* ``lm_eval._cli.harness.HarnessCLI.parse_args`` (:func:`_patch_cli`): malformed ``--metadata`` JSON on
  pack tasks is one message (lm-eval 0.4.13's parser turns it into a traceback).
* an import hook (``sys.meta_path``: :class:`_PatchOnImport`, :class:`_PatchingLoader`): the last four
  patch lm-eval modules when they are first imported, so :func:`install_preflight` imports nothing heavy.

:func:`install_preflight` installs the last four (the startup hook calls it as soon as ``lm_eval`` is
imported, before lm-eval's CLI builds its parser); :func:`install_into_lm_eval` installs all of them.
"""

from __future__ import annotations

import functools
import importlib.abc
import inspect
import os
import sys
from collections.abc import Callable
from typing import Any

from lm_eval_persian_culture.errors import PackUserError
from lm_eval_persian_culture.harness import compat, discovery, preflight
from lm_eval_persian_culture.harness.guard import (
    argv_problem,
    debug_wanted,
    fail,
    failure_message,
    guarded,
    misspelt_names,
    refuse_misspelt_names,
    run_state,
)
from lm_eval_persian_culture.harness.resolve import pack_engaged, task_names


# --------------------------------------------------------------------------- TaskManager, stderr
def _patch_task_manager() -> None:
    """Make every ``lm_eval.tasks.TaskManager(...)`` also index the pack, exactly once.

    The pack counts among lm-eval's default tasks: ``include_defaults=False`` passed by the caller
    means "only the folders I name", exactly as without the pack (lm-eval's own test of that flag).
    Switched off, with one warning, where TaskManager lacks ``include_path`` / ``include_defaults``.
    """
    try:
        from lm_eval.tasks import manager

        cls = manager.TaskManager
    except (ImportError, AttributeError):
        compat.switch_off("task discovery (plain lm_eval finding the pack)", "lm_eval.tasks.manager.TaskManager")
        return
    if getattr(cls.__init__, "_persian_culture_patched", False):
        return
    missing = compat.has_parameters(cls.__init__, "include_path", "include_defaults")
    if missing:
        compat.switch_off("task discovery (plain lm_eval finding the pack)", missing)
        return
    original = cls.__init__
    signature = inspect.signature(original)

    @functools.wraps(original)
    def __init__(self, *args, **kwargs):
        try:  # bind so include_path is found however it was passed (keyword or positional)
            bound = signature.bind(self, *args, **kwargs)
        except TypeError:
            return original(self, *args, **kwargs)  # a wrong call gets lm-eval's own error
        explicit_defaults = "include_defaults" in bound.arguments
        if explicit_defaults and not bound.arguments["include_defaults"]:
            return original(*bound.args, **bound.kwargs)  # the caller's folders alone, as lm-eval
        bound.arguments["include_path"] = discovery.with_pack_path(bound.arguments.get("include_path"))
        if discovery.builtin_index_skipped() and not explicit_defaults:
            bound.arguments["include_defaults"] = False
        original(*bound.args, **bound.kwargs)

    __init__._persian_culture_patched = True
    cls.__init__ = __init__


def _patch_pack_stderr() -> None:
    """The pack's aggregations keep lm-eval 0.4.13's stderr, "N/A", wherever lm-eval would bootstrap them.

    lm-eval 0.5 bootstraps EVERY aggregation other than ``mean`` (100,000 resamples, in a process
    pool that must pickle the function): the pack's aggregations are closures and partials over
    lambdas (they cannot be pickled: every pack task crashed after generating), and each of its
    ~300 metrics would cost seconds to minutes of resampling. 0.4.13 bootstraps only its own listed
    metrics, so this patch only switches itself on where lm-eval bootstraps a function it does not
    know, and only for the pack's own functions: built-in tasks keep lm-eval's stderr.
    """
    try:
        import lm_eval.api.metrics as metrics
    except ImportError:
        return
    original = getattr(metrics, "stderr_for_metric", None)
    if getattr(original, "_persian_culture_patched", False):
        return
    if compat.has_parameters(original, "metric", "bootstrap_iters"):
        return  # no stderr_for_metric of this shape: nothing of lm-eval's to keep away from
    try:
        bootstraps_unknown = original(metric=lambda xs: 0.0, bootstrap_iters=10) is not None
    except Exception:  # noqa: BLE001
        bootstraps_unknown = False
    if not bootstraps_unknown:
        return  # 0.4.13: unknown aggregations already get "N/A"

    @functools.wraps(original)
    def stderr_for_metric(metric, bootstrap_iters):
        if discovery.is_pack_function(metric):
            return None  # "N/A", as under 0.4.13
        return original(metric=metric, bootstrap_iters=bootstrap_iters)

    stderr_for_metric._persian_culture_patched = True
    metrics.stderr_for_metric = stderr_for_metric


# --------------------------------------------------------------------------- simple_evaluate
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
        if not pack_engaged(tasks if isinstance(tasks, (list, tuple)) else [tasks]):
            return original(*args, **kwargs)  # no pack task named: lm-eval exactly as without the pack
        from lm_eval_persian_culture.judge import filter as judge_filter
        from lm_eval_persian_culture.judge.settings import JudgeFailureError

        model_args = params.get("model_args")
        restore_env = []
        if params.get("predict_only"):
            # Generation only: judged tasks log their samples unscored, and no benchmark loads a
            # scoring model (Benchmark.predict_only_env); an explicit judge_model / embedding_model wins.
            from lm_eval_persian_culture.judge.settings import JUDGE_MODEL_ENV
            from lm_eval_persian_culture.tasks._benchmark import predict_only_env

            for var in (JUDGE_MODEL_ENV, *predict_only_env()):
                if var not in os.environ:
                    os.environ[var] = "none"
                    restore_env.append(var)
        restore_hub = lambda: None  # noqa: E731
        skipped: dict = {}  # suite members left out under suite_skip_unavailable, for the results
        try:
            restore_hub = preflight.offline_if_unreachable()
            try:
                leaves = preflight.run_preflight(params, tasks, model_args, skipped)
            except PackUserError:
                raise
            except Exception as err:  # noqa: BLE001 - a pre-flight that cannot read this lm-eval steps aside
                compat.switch_off("the pre-flight", f"what it reads ({type(err).__name__}: {err})")
                leaves = []
            tracker = params.get("evaluation_tracker")
            forced_samples = bool(
                run_state.cli and leaves and not params.get("log_samples", True)
                and tracker is not None and getattr(tracker, "output_path", None)
            )  # fmt: skip
            if forced_samples:  # keep every reply in memory, to write it if the judge fails
                params["log_samples"] = True
            with judge_filter.collect_judge_failures() as failures:
                results = original(**params)
        finally:
            restore_hub()
            for var in restore_env:
                os.environ.pop(var, None)
        if results is None:
            return results
        if skipped:
            results[preflight.SKIP_RESULTS_KEY] = skipped
        if forced_samples:
            samples = results.pop("samples", None)
            if failures and samples is not None:
                run_state.unrequested_samples = (tracker, samples)
        if failures:
            results["judge_failures"] = list(failures)
            if run_state.cli:
                run_state.failures.extend(failures)
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


def _patch_evaluator(module) -> None:
    missing = compat.has_parameters(getattr(module, "simple_evaluate", None), "tasks", "task_manager", "model_args")
    if missing:
        compat.switch_off("the pre-flight", missing)
        return
    module.simple_evaluate = _wrap_simple_evaluate(module.simple_evaluate)
    parent = sys.modules.get("lm_eval")
    if parent is not None and "simple_evaluate" in vars(parent):
        parent.simple_evaluate = module.simple_evaluate


# --------------------------------------------------------------------------- the CLI's subcommands
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
        names = task_names(getattr(args, "tasks", None))
        if not pack_engaged(names) and not misspelt_names(args):
            return original(args)  # no pack task named: lm-eval's own command, untouched

        def run() -> Any:
            refuse_misspelt_names(args)
            return original(args)

        with discovery.skip_builtin_index(names, getattr(args, "include_path", None)):
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
        names = task_names(getattr(args, "tasks", None))
        if not pack_engaged(names) and not misspelt_names(args):
            given = [f"--{flag} {value}" for flag in ("metadata", "model_args") if (value := getattr(args, flag, None))]
            if given:  # lm-eval's validate has neither flag: refuse them as its parser would
                self._parser.error(f"unrecognized arguments: {' '.join(given)}")
            return original_execute(self, args)
        with discovery.skip_builtin_index(names, getattr(args, "include_path", None)):
            guarded(lambda: (refuse_misspelt_names(args), _validate_or_step_aside(self, args)), args)

    def _validate_or_step_aside(self, args) -> None:
        try:
            preflight.validate(args)
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


def install_preflight() -> None:
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


def install_into_lm_eval() -> None:
    """Everything the pack changes in a running lm-eval, in one idempotent call.

    Called by the startup hook (``autoload/_lm_eval_persian_culture_autoload.py``: plain ``lm_eval``,
    ``simple_evaluate``) right after ``lm_eval.tasks`` is imported, and by the ``lm-eval-persian``
    wrapper CLI; both may run in one process. Add further patches here, each idempotent and each
    checking (``compat``) that lm-eval has what it patches.
    """
    for what, patch in (
        ("the pre-flight", install_preflight),
        ("task discovery", _patch_task_manager),
        ("the pack's stderr", _patch_pack_stderr),
    ):
        try:  # each patch checks what it needs; this catches what no check foresaw
            patch()
        except Exception as err:  # noqa: BLE001 - the pack must never break lm-eval
            compat.switch_off(what, f"what it expected ({type(err).__name__}: {err})")


__all__ = ["install_into_lm_eval", "install_preflight"]
