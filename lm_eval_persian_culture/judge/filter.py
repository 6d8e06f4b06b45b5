"""The judge inside lm-eval: configured at dataset load, run as a ``custom`` filter.

lm-eval calls a task's ``custom_dataset`` before the model generates anything, with
``--model_args`` and ``--metadata`` merged into its kwargs: :func:`prepare_judge` checks
the judge configuration there (so a missing judge fails fast) and remembers it. After
generation, lm-eval hands the ``custom`` filter every reply of the task at once:
:func:`run_judge` judges them in one concurrent, cached batch and returns, per sample,
a record that lm-eval logs as ``filtered_resps`` (reply, verdict, judge's raw answer).
State lives here, in the installed package, because task ``utils.py`` files are
re-executed for every YAML.
"""

from __future__ import annotations

import atexit
import hashlib
import logging
import os
import sys
from collections.abc import Callable, Mapping, Sequence

from lm_eval_persian_culture.judge import (
    VERDICT_MAX_TOKENS,
    Judge,
    JudgeConfigError,
    JudgeFailureError,
    JudgeSettings,
    check_not_self_judge,
    parse_yes_no,
)
from lm_eval_persian_culture.lm_eval_stack import current_task_name, running_task_metadata
from lm_eval_persian_culture.scoring.records import encode_record

logger = logging.getLogger("lm_eval_persian_culture")

NO_JUDGE_MESSAGE = (
    "This task is scored by an LLM judge, and none is configured. Set one with\n"
    '  --metadata \'{"judge_model": "gpt-4"}\'   (the paper\'s judge; key read from $OPENAI_API_KEY)\n'
    "or an open model run in this process, no key needed:\n"
    '  --metadata \'{"judge_model": "hf:Qwen/Qwen2.5-1.5B-Instruct"}\'   (a hub id or hf:/path/to/model)\n'
    "or any OpenAI-compatible server:\n"
    '  --metadata \'{"judge_model": "<name>", "judge_base_url": "http://127.0.0.1:8000/v1"}\'\n'
    "or the env vars PERSIAN_CULTURE_JUDGE_MODEL / PERSIAN_CULTURE_JUDGE_BASE_URL.\n"
    'To only generate (no scores), pass --metadata \'{"judge_model": "none"}\' or --predict_only.'
)

_active: JudgeSettings | None = None
_judges: dict[str, Judge] = {}
# Every judge a task's loader asked for (read by the pre-flight, which checks each one is reachable).
_requested: list[JudgeSettings] = []
# While set (by the pre-flight's simple_evaluate wrapper), judge failures past judge_max_error_rate are
# recorded here instead of raised inside lm-eval, so the run still writes its results and samples.
_failure_sink: list[dict] | None = None
_usage_printed = False


def configured_judge(settings: Mapping | None) -> JudgeSettings | None:
    """The run's judge settings, checked; None when no judge is configured at all.

    Checks what would otherwise fail only after generation: the evaluated model named as
    its own judge, and an OpenAI judge without its key in the environment.
    """
    settings = dict(settings or {})
    js = JudgeSettings.from_settings(settings)
    if js is None or js.disabled:
        return js
    check_not_self_judge(js, settings)
    _requested.append(js)
    if js.is_local:
        from lm_eval_persian_culture.judge.local import resolve_local_model

        resolve_local_model(js)  # the model can be found and its revision known; nothing is loaded
        return js
    if js.base_url is None and not os.environ.get(js.api_key_env):
        raise JudgeConfigError(
            f"judge_model={js.model!r} talks to the OpenAI API, but ${js.api_key_env} is not set. "
            "Export the key in that variable (never put it in --metadata: metadata is written "
            "into the results), set judge_base_url for a local OpenAI-compatible server, or run an open "
            "judge in this process with judge_model=hf:<hub id or directory>."
        )
    return js


def judge_requirement(settings: Mapping | None) -> tuple[bool, str]:
    """(met, detail) for ``lm-eval-persian data``: is a judge configured that can be found, without asking
    it anything (a served judge is probed by the pre-flight of a run)? ``judge_model=none`` counts as met:
    judged tasks then run and log their replies unscored."""
    try:
        js = JudgeSettings.from_settings(dict(settings or {}))
        if js is None:
            return (
                False,
                "no judge configured: set judge_model (--metadata '{\"judge_model\": ...}' or "
                "$PERSIAN_CULTURE_JUDGE_MODEL; see the README's judges), or judge_model=none to generate unscored",
            )
        if js.disabled:
            return True, "judge_model=none: judged tasks run unscored"
        check_not_self_judge(js, dict(settings or {}))
        if js.is_local:
            from lm_eval_persian_culture.judge.local import resolve_local_model

            ref = resolve_local_model(js)
            return True, f"in-process judge {js.model}: {ref.source} at {ref.revision[:19]}"
    except JudgeConfigError as err:
        return False, str(err).splitlines()[0]
    if js.base_url is None and not os.environ.get(js.api_key_env):
        return False, f"judge_model={js.model!r} talks to the OpenAI API, but ${js.api_key_env} is not set"
    from lm_eval_persian_culture.judge.settings import redact_url

    where = redact_url(js.base_url) if js.base_url else "the OpenAI API"
    return True, f"judge {js.model} at {where}: configured (a run's pre-flight asks the server for it)"


def prepare_judge(settings: Mapping | None) -> JudgeSettings:
    """For judge-scored tasks: a judge must be configured (or explicitly disabled)."""
    global _active
    js = configured_judge(settings)
    if js is None:
        raise JudgeConfigError(NO_JUDGE_MESSAGE)
    _active = js
    return js


def judge_for(js: JudgeSettings, parser: Callable[[str | None], object] = parse_yes_no) -> Judge:
    """One Judge per settings and answer parser for the whole run (its usage is printed at exit)."""
    key = f"{parser.__module__}.{parser.__qualname__}:{sorted(js.public_dict().items())!r}"
    if key not in _judges:
        _judges[key] = Judge(js, parser=parser)
    return _judges[key]


def template_id(name: str, template: str) -> str:
    """Stable id of a judge prompt template: its name plus a hash of its text."""
    return f"{name}:{hashlib.sha256(template.encode('utf-8')).hexdigest()[:16]}"


def run_judge(
    resps: Sequence[Sequence[str]],
    docs: Sequence[dict],
    build_prompt: Callable[[dict, str], str],
    template_id: str,
) -> list[dict]:
    """Judge every reply of a task; one record per doc, in order.

    Records are JSON strings (see ``records``), logged as ``filtered_resps``.
    """
    js = _active or prepare_judge({})
    replies = [r[0] if isinstance(r, (list, tuple)) else r for r in resps]
    if js.disabled:
        return [
            encode_record({"response": reply, "verdict": None, "judge_raw": None, "judge_error": "judge disabled"})
            for reply in replies
        ]
    judge = judge_for(js)
    prompts = [build_prompt(doc, reply) for doc, reply in zip(docs, replies)]
    results = judge.judge_many(prompts, template_id=template_id, desc=f"judge ({js.model})")
    logger.info("judge usage so far: %s", judge.usage.summary())
    record_judge_in_results(judge)
    try:
        judge.check_error_rate(results)
    except JudgeFailureError as err:
        if _failure_sink is None:
            raise
        task = current_task_name()
        failed = sum(r.error is not None for r in results)
        _failure_sink.append({
            "task": task, "judge_model": js.model, "items": len(results), "no_verdict": failed,
            "max_error_rate": js.max_error_rate, "message": str(err),
        })  # fmt: skip
        logger.error("%s: %s The run goes on: results and samples are written, then it exits with an error.",
                     task or "judged task", err)  # fmt: skip
    return [
        encode_record(
            {
                "response": reply,
                "verdict": None if res.verdict is None else ("yes" if res.verdict else "no"),
                "judge_raw": res.raw,
                "judge_error": res.error,
                "judge_cached": res.cached,
                **judge_identity(judge, res),
            }
        )
        for reply, res in zip(replies, results)
    ]


def judge_identity(judge: Judge, result) -> dict:
    """Which judge gave this verdict, for the sample record: the configured model, and the local
    model's revision or the model name the server reported (``completion.model``)."""
    out = {"judge_model": judge.settings.model}
    if judge.settings.is_local:
        out["judge_revision"] = judge.describe().get("revision")
    else:
        out["judge_served_model"] = result.served_model
    return out


def record_judge_in_results(judge: Judge) -> None:
    """Write the judge's identity into the running task's config metadata (lm-eval dumps it into the
    results JSON after filtering) as ``metadata.judge``.

    lm-eval passes filters no task, so it is found on the call stack (``lm_eval_stack``); if a
    later lm-eval calls filters differently, the results lack the entry (debug log) while every
    sample record still names the judge.
    """
    metadata = running_task_metadata(start_depth=2)
    if metadata is None:
        logger.debug("judge identity not written to results: no Task.apply_filters on the call stack")
        return
    metadata["judge"] = {**judge.describe(), "settings": _recordable_settings(judge.settings)}


def _recordable_settings(js: JudgeSettings) -> dict:
    """What shaped the verdicts (decoding, prompt), not where the cache lives or how hard to push."""
    public = js.public_dict()
    # unparseable_retries: how hard a served judge was pressed for a verdict (local judges are never re-asked)
    keep = ("temperature", "system_prompt", "max_error_rate") + (() if js.is_local else ("unparseable_retries",))
    return {**{key: public[key] for key in keep}, "max_tokens": js.effective_max_tokens(VERDICT_MAX_TOKENS)}


def requested_judges(clear: bool = False) -> list[JudgeSettings]:
    """The judges configured by task loaders since the last clear (for the pre-flight)."""
    found = list(_requested)
    if clear:
        _requested.clear()
    return found


class collect_judge_failures:
    """Context: judge failures past judge_max_error_rate are collected in a list, not raised mid-run."""

    def __enter__(self) -> list[dict]:
        global _failure_sink
        self._outer = _failure_sink
        _failure_sink = []
        return _failure_sink

    def __exit__(self, *exc: object) -> None:
        global _failure_sink
        _failure_sink = self._outer


@atexit.register
def _print_usage_at_exit() -> None:
    """Token usage and estimated cost at the end of the run, once, for every judge used."""
    global _usage_printed
    if _usage_printed:
        return
    _usage_printed = True
    for judge in _judges.values():
        if judge.usage.requests_sent or judge.usage.cache_hits:
            print(f"[lm-eval-persian] {judge.usage.summary()}", file=sys.stderr)
