"""``lm-eval-persian``: lm-eval's own CLI with the pack's tasks added to its index.

Every lm-eval subcommand and flag (run / ls / validate, the legacy form without a
subcommand, a user's own ``--include_path``) works unchanged, because this wrapper
only widens the include path of every ``TaskManager`` lm-eval builds, then hands
control to lm-eval's own ``cli_evaluate``. Two extra subcommands: ``tasks-dir`` prints
the folder for users who keep the plain ``lm_eval`` command, ``report`` draws charts
from results JSON, ``rejudge`` re-scores a finished run's judged tasks from its samples.
Errors a user can fix print one message and exit with status 2 (see ``preflight``).
"""

from __future__ import annotations

import functools
import os
import sys

from lm_eval_persian_culture import tasks_dir
from lm_eval_persian_culture.harness import with_pack_path


def install_pack_into_task_manager() -> None:
    """Make every ``lm_eval.tasks.TaskManager(...)`` also index the pack (idempotent)."""
    from lm_eval.tasks import manager

    cls = manager.TaskManager
    if getattr(cls.__init__, "_persian_culture_patched", False):
        return
    original = cls.__init__

    @functools.wraps(original)
    def __init__(self, *args, include_path=None, **kwargs):
        original(self, *args, include_path=with_pack_path(include_path), **kwargs)

    __init__._persian_culture_patched = True
    cls.__init__ = __init__


def _split_verbosity(argv: list[str]):
    """(namespace with --verbosity/-v, the other args): DEBUG asks for tracebacks, as in lm-eval."""
    import argparse

    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--verbosity", "-v", type=str.upper, default=None)
    return parser.parse_known_args(argv)


def main(argv: list[str] | None = None) -> None:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["tasks-dir"]:
        print(tasks_dir())
        return
    if argv[:1] in (["report"], ["rejudge"]):
        from lm_eval_persian_culture import preflight

        if argv[0] == "report":
            from lm_eval_persian_culture.report import main as command
        else:
            from lm_eval_persian_culture.rejudge import main as command
        verbosity, rest = _split_verbosity(argv[1:])
        preflight.guarded(lambda: command(rest), verbosity)
        return
    if "--predict_only" in argv or "-x" in argv:
        # Generation only: judged tasks log their samples unscored instead of demanding a
        # judge. An explicit judge_model in --metadata still wins.
        os.environ.setdefault("PERSIAN_CULTURE_JUDGE_MODEL", "none")
    install_pack_into_task_manager()
    from lm_eval_persian_culture import preflight

    preflight.install()  # checks before the model loads; user errors -> one message, exit 2
    from lm_eval.__main__ import cli_evaluate

    sys.argv = ["lm-eval-persian", *argv]
    cli_evaluate()


if __name__ == "__main__":
    main()
