"""Startup hook of lm-eval-persian-culture: lets plain ``lm_eval`` find the pack's tasks.

``lm_eval_persian_culture_autoload.pth`` (installed beside this file in site-packages) imports
this module at every interpreter start, so it imports nothing and only puts a finder at the front
of ``sys.meta_path`` (its cost is measured by ``bench/startup_cost.py``). It acts twice, each time
after lm-eval's own import has run:

* when ``lm_eval`` itself is imported, it installs the pack's pre-flight
  (``lm_eval_persian_culture.harness.patches.install_preflight()``, which imports nothing heavy): the checks that
  run before any model loads must be in place before lm-eval's CLI builds its parser, and lm-eval
  imports its task index only after parsing;
* when ``lm_eval.tasks`` (lm-eval's task index: the CLI, ``simple_evaluate``, ``TaskManager``) is
  imported, it calls ``lm_eval_persian_culture.harness.install_into_lm_eval()``, then removes itself.

Switched off by ``PERSIAN_CULTURE_DISABLE_AUTOLOAD=1`` (read when ``lm_eval.tasks`` is imported,
so it may also be set from Python before that import). The ``lm-eval-persian`` wrapper and
``lm_eval_persian_culture.task_manager()`` install the pack explicitly and work either way.

This file is shipped as a top-level module by the wheel (hatchling ``force-include``, see
pyproject.toml), for editable installs too, where it is a copy: edit it, then reinstall.
"""

import sys

TARGET = "lm_eval.tasks"
EARLY_TARGET = "lm_eval"
DISABLE_ENV = "PERSIAN_CULTURE_DISABLE_AUTOLOAD"


def disabled() -> bool:
    import os  # already loaded by the interpreter; nothing is imported at startup

    return os.environ.get(DISABLE_ENV, "").strip().lower() not in ("", "0", "false", "no")


def _install_pack() -> None:
    if disabled():
        return
    try:
        from lm_eval_persian_culture.harness import install_into_lm_eval

        install_into_lm_eval()
    except Exception as err:  # a broken pack must never break lm-eval itself
        import warnings

        warnings.warn(
            f"lm-eval-persian-culture could not add its tasks to lm-eval ({err!r}); "
            f"set {DISABLE_ENV}=1 to silence this",
            RuntimeWarning,
            stacklevel=2,
        )


def _install_preflight() -> None:
    if disabled():
        return
    try:
        from lm_eval_persian_culture.harness.patches import install_preflight

        install_preflight()
    except Exception as err:  # a broken pack must never break lm-eval itself
        import warnings

        warnings.warn(
            f"lm-eval-persian-culture could not install its pre-flight ({err!r})", RuntimeWarning, stacklevel=2
        )


class LmEvalTasksHook:
    """Meta-path finder that runs ``_install_pack`` right after ``lm_eval.tasks`` is executed."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname == EARLY_TARGET:
            return self._wrap(fullname, path, target, _install_preflight, last=False)
        if fullname != TARGET:
            return None  # every other import: two string comparisons
        return self._wrap(fullname, path, target, _install_pack, last=True)

    def _wrap(self, fullname, path, target, then, last):
        """The real spec, its loader made to call ``then`` after executing the module."""
        if last:
            unregister()
        for finder in sys.meta_path:
            if isinstance(finder, LmEvalTasksHook):
                continue
            find_spec = getattr(finder, "find_spec", None)
            spec = find_spec(fullname, path, target) if find_spec else None
            if spec is not None:
                break
        else:
            return None
        loader = spec.loader
        exec_module = getattr(loader, "exec_module", None)
        if exec_module is None:
            return spec

        def exec_module_then_install(module):
            exec_module(module)
            then()

        # Wrap this loader instance only (its type stays what lm-eval and importlib expect).
        loader.exec_module = exec_module_then_install
        return spec

    def __repr__(self) -> str:
        return f"<{__name__}.{type(self).__name__}>"


def register() -> None:
    """Put the hook first on ``sys.meta_path`` (idempotent; nothing if lm_eval.tasks is loaded)."""
    if TARGET in sys.modules:
        _install_pack()
        return
    if EARLY_TARGET in sys.modules:
        _install_preflight()
    if not any(isinstance(f, LmEvalTasksHook) for f in sys.meta_path):
        sys.meta_path.insert(0, LmEvalTasksHook())


def unregister() -> None:
    sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, LmEvalTasksHook)]
