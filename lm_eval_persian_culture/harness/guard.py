"""The CLI guard: an error a user can fix is one message and exit status 2, never a traceback.

:func:`guarded` runs a command (``lm_eval run`` / ``validate`` on pack tasks, the ``lm-eval-persian``
subcommands): a :class:`~lm_eval_persian_culture.errors.PackUserError` (and lm-eval's own "Tasks not found" /
"Duplicate task") prints :func:`user_error_message` alone and exits with status 2 (a traceback only with
``--verbosity DEBUG`` or ``LMEVAL_LOG_LEVEL=DEBUG``). Judge failures past ``judge_max_error_rate`` do not
abort a CLI run inside lm-eval: results and samples are written, then :func:`failure_message` says how to
re-score them (``lm-eval-persian rejudge``) and the run exits with status 2. The messages for a misspelt
pack task name and malformed ``--metadata`` JSON are here too; ``harness.patches`` wires them into lm-eval.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from lm_eval_persian_culture.errors import EXIT_USER_ERROR, PackUserError, UserInputError
from lm_eval_persian_culture.harness.catalogue import suggest
from lm_eval_persian_culture.harness.resolve import pack_engaged, task_names


class RunState:
    cli = False  # inside the CLI's run: judge failures are reported after results are written
    failures: list[dict] = []
    unrequested_samples: tuple[Any, dict] | None = None  # (tracker, samples) to write on failure


run_state = RunState()


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
    from lm_eval_persian_culture.harness.discovery import pack_task_names

    names = pack_task_names()
    return "Tasks not found: " + ", ".join(f"{m}{suggest(m, names)}" for m in missing)


def guarded(fn: Callable, args: Any, output_path: str | None = None) -> Any:
    """Run a CLI command: user errors and judge failures become one message and exit status 2."""
    run_state.cli = True
    run_state.failures = []
    run_state.unrequested_samples = None
    try:
        result = fn()
    except Exception as err:  # noqa: BLE001
        message = user_error_message(err)
        if message is None or debug_wanted(args):
            raise
        fail(message)
    finally:
        run_state.cli = False
    if run_state.failures:
        if run_state.unrequested_samples is not None:
            tracker, samples = run_state.unrequested_samples
            for task_name, task_samples in samples.items():
                tracker.save_results_samples(task_name=task_name, samples=task_samples)
        fail(failure_message(run_state.failures, output_path))
    return result


def refuse_misspelt_names(args: Any) -> None:
    """A misspelt pack task name gets its suggestion at once, before lm-eval indexes its built-ins."""
    from lm_eval_persian_culture.harness.discovery import misspelt_pack_names

    misspelt = misspelt_pack_names(task_names(getattr(args, "tasks", None)), getattr(args, "include_path", None))
    if misspelt:
        raise UserInputError(tasks_not_found_message(misspelt))


def misspelt_names(args: Any) -> list[str]:
    """Misspelt pack names among --tasks (see ``discovery.misspelt_pack_names``); [] if it cannot tell."""
    from lm_eval_persian_culture.harness.discovery import misspelt_pack_names

    try:
        return misspelt_pack_names(task_names(getattr(args, "tasks", None)), getattr(args, "include_path", None))
    except Exception:  # noqa: BLE001 - lm-eval's own index decides then
        return []


def argv_problem(argv: Sequence[str]) -> str | None:
    """Malformed ``--metadata`` JSON, when pack tasks are named: lm-eval 0.4.13's parser turns it into
    a traceback (0.5's into an argparse error); found here before the parser, with one message."""
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--tasks", "-t", nargs="*", default=[])
    parser.add_argument("--metadata", nargs="*", default=None)
    known, _ = parser.parse_known_args(list(argv))
    if not known.metadata or not pack_engaged(task_names(",".join(known.tasks))):
        return None
    for text in known.metadata:
        if "{" not in text:
            continue  # key=value pairs: lm-eval's own syntax
        try:
            json.loads(text)
        except json.JSONDecodeError as err:
            return f"--metadata is not valid JSON ({err.msg} at char {err.pos}): {text}"
    return None


__all__ = [
    "RunState", "argv_problem", "debug_wanted", "fail", "failure_message", "guarded", "misspelt_names",
    "refuse_misspelt_names", "run_state", "tasks_not_found_message", "user_error_message",
]  # fmt: skip
