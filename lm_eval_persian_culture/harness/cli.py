"""``lm-eval-persian``: lm-eval's own CLI with the pack's tasks added to its index.

Every lm-eval subcommand and flag (run / ls / validate, the legacy form without a
subcommand, a user's own ``--include_path``) works unchanged, because this wrapper
only widens the include path of every ``TaskManager`` lm-eval builds, then hands
control to lm-eval's own ``cli_evaluate``. Extra subcommands: ``tasks-dir`` prints
the folder for users who keep the plain ``lm_eval`` command, ``report`` writes a report
(tables, charts, paper reference rows), ``export`` leaderboard rows from results JSON,
``agreement`` compares the judge verdicts of two runs, ``rejudge`` re-scores a finished
run's judged tasks from its samples, ``data`` says which benchmarks' data is ready and what
each needs; a benchmark adds its own in its ``benchmark.py`` (``Benchmark.commands``: TaarofBench's
``judge-check``). Errors a user can fix print one message and exit
with status 2 (see ``guard``).
"""

from __future__ import annotations

import os
import sys

from lm_eval_persian_culture.harness import install_into_lm_eval
from lm_eval_persian_culture.tasks._benchmark import predict_only_env, tasks_dir


def _split_verbosity(argv: list[str]):
    """(namespace with --verbosity/-v, the other args): DEBUG asks for tracebacks, as in lm-eval."""
    import argparse

    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--verbosity", "-v", type=str.upper, default=None)
    return parser.parse_known_args(argv)


def _benchmark_commands() -> dict[str, tuple[str, str]]:
    from lm_eval_persian_culture.tasks._benchmark import benchmark_commands

    return benchmark_commands()


def main(argv: list[str] | None = None) -> None:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["tasks-dir"]:
        print(tasks_dir())
        return
    if argv[:1] == ["agreement"]:
        from lm_eval_persian_culture.scoring.agreement import main as agreement_main

        sys.exit(agreement_main(argv[1:]))
    if argv[:1] in (["report"], ["export"], ["rejudge"], ["data"]):
        from lm_eval_persian_culture.harness.guard import guarded

        if argv[0] == "data":
            from lm_eval_persian_culture.harness.data_check import main as command
        elif argv[0] == "rejudge":
            from lm_eval_persian_culture.harness.rejudge import main as command
        else:
            from lm_eval_persian_culture.report import export_main, report_main

            command = report_main if argv[0] == "report" else export_main
        verbosity, rest = _split_verbosity(argv[1:])
        sys.exit(guarded(lambda: command(rest), verbosity) or 0)
    if argv[:1] and not argv[0].startswith("-") and argv[0] in _benchmark_commands():
        # a benchmark's own subcommand (e.g. TaarofBench's judge-check), declared in its benchmark.py
        import importlib

        from lm_eval_persian_culture.harness.guard import guarded

        module, _, function = _benchmark_commands()[argv[0]][1].partition(":")
        command = getattr(importlib.import_module(module), function)
        verbosity, rest = _split_verbosity(argv[1:])
        sys.exit(guarded(lambda: command(rest), verbosity) or 0)
    if "--predict_only" in argv or "-x" in argv:
        # Generation only: judged tasks log their samples unscored instead of demanding a
        # judge, and no benchmark loads a scoring model (Benchmark.predict_only_env). An explicit
        # judge_model / embedding_model in --metadata still wins.
        from lm_eval_persian_culture.judge.settings import JUDGE_MODEL_ENV

        for var in (JUDGE_MODEL_ENV, *predict_only_env()):
            os.environ.setdefault(var, "none")
    from lm_eval_persian_culture.harness.decoding import DecodingError, apply_decoding_option

    try:
        argv = apply_decoding_option(argv)  # --decoding greedy|model_default (the pack's flag)
    except DecodingError as err:
        sys.exit(f"lm-eval-persian: {err}")
    install_into_lm_eval()
    from lm_eval.__main__ import cli_evaluate

    from lm_eval_persian_culture.errors import PackUserError

    sys.argv = ["lm-eval-persian", *argv]
    try:
        cli_evaluate()
    except PackUserError as err:
        # Data a user can fix (missing, malformed, gated): one line naming what to do, no traceback.
        print(f"lm-eval-persian: error: {err}", file=sys.stderr)
        raise SystemExit(2) from None


if __name__ == "__main__":
    main()
