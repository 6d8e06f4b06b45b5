"""``install_into_lm_eval()``: the single place where the pack patches lm-eval. It is called by the
startup hook (``autoload/_lm_eval_persian_culture_autoload.py``: plain ``lm_eval``,
``simple_evaluate``) right after ``lm_eval.tasks`` is imported, and by the ``lm-eval-persian``
wrapper; both may run in one process, so every patch in it must be idempotent. It sits above
discovery and the pre-flight, whose patches it applies, so that neither imports the other's.
"""

from __future__ import annotations

from lm_eval_persian_culture.harness import compat, discovery, preflight


def install_into_lm_eval() -> None:
    """Everything the pack changes in a running lm-eval, in one idempotent call.

    lm-eval's ``TaskManager`` indexes the pack's task folder (once, see ``with_pack_path``), and
    the pre-flight runs before any model loads (``preflight.install``: it patches
    ``simple_evaluate`` and the ``run``/``validate`` subcommands when lm-eval imports them).
    Called by the startup hook and by the wrapper CLI; add further patches here, each idempotent
    and each checking (``compat``) that lm-eval has what it patches.
    """
    for what, patch in (
        ("the pre-flight", preflight.install),
        ("task discovery", discovery._patch_task_manager),
        ("the pack's stderr", discovery._patch_pack_stderr),
    ):
        try:  # each patch checks what it needs; this catches what no check foresaw
            patch()
        except Exception as err:  # noqa: BLE001 - the pack must never break lm-eval
            compat.switch_off(what, f"what it expected ({type(err).__name__}: {err})")


__all__ = ["install_into_lm_eval"]
