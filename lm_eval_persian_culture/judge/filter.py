"""The judge inside lm-eval: configured at dataset load, run as a ``custom`` filter.

lm-eval calls a task's ``custom_dataset`` before the model generates anything, with
``--model_args`` and ``--metadata`` merged into its kwargs: :func:`prepare_judge` checks
the judge configuration there (so a missing judge fails fast) and remembers it. After
generation, lm-eval hands the ``custom`` filter every reply of the task at once:
:func:`run_judge` judges them in one concurrent, cached batch and returns, per sample,
a record that lm-eval logs as ``filtered_resps`` (reply, verdict, judge's raw answer).
State lives here, in the installed package, because task ``utils.py`` files are
re-executed for every YAML.

The filter reads the judge settings of the task it runs for from that task's own metadata
(:func:`task_jury`), so two tasks of one run may have different judges. A task's judge may be a
jury (``judge.jury``): :func:`ask_jury` asks every member and puts the verdicts to the vote;
TaarofBench (:func:`run_judge`) and TARAZ's ``_judged`` tasks share it.
"""

from __future__ import annotations

import atexit
import hashlib
import json
import logging
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from lm_eval_persian_culture.judge import (
    VERDICT_MAX_TOKENS,
    Judge,
    JudgeConfigError,
    JudgeFailureError,
    JudgeResult,
    JudgeSettings,
    check_not_self_judge,
    parse_yes_no,
)
from lm_eval_persian_culture.judge.jury import (
    Jury,
    jury_from_settings,
    jury_metric_specs,
    jury_metric_values,
    jury_summary,
    majority,
    register_metrics_on_running_task,
)
from lm_eval_persian_culture.judge.settings import _MODEL_ARG_KEYS, JURY_KEYS
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

_active: Jury | None = None
# Juries read from a running task's own metadata (per task: judge/filter.py's doc), by settings.
_task_juries: dict[str, Jury] = {}
_judges: dict[str, Judge] = {}
# Every judge a task's loader asked for (read by the pre-flight, which checks each one is reachable).
_requested: list[JudgeSettings] = []
# While set (by the pre-flight's simple_evaluate wrapper), judge failures past judge_max_error_rate are
# recorded here instead of raised inside lm-eval, so the run still writes its results and samples.
_failure_sink: list[dict] | None = None
_usage_printed = False
_warned_extractor_jury = False


def _check_member(js: JudgeSettings, settings: Mapping) -> None:
    """What would otherwise fail only after generation: the evaluated model named as its own
    judge, an OpenAI judge without its key in the environment, a local model that cannot be found."""
    check_not_self_judge(js, settings)
    _requested.append(js)
    if js.is_local:
        from lm_eval_persian_culture.judge.local import resolve_local_model

        resolve_local_model(js)  # the model can be found and its revision known; nothing is loaded
        return
    if js.base_url is None and not os.environ.get(js.api_key_env):
        raise JudgeConfigError(
            f"judge_model={js.model!r} talks to the OpenAI API, but ${js.api_key_env} is not set. "
            "Export the key in that variable (never put it in --metadata: metadata is written "
            "into the results), set judge_base_url for a local OpenAI-compatible server, or run an open "
            "judge in this process with judge_model=hf:<hub id or directory>."
        )


def configured_jury(settings: Mapping | None) -> Jury | None:
    """The task's judge, or jury, checked (every member); None when no judge is configured at all."""
    settings = dict(settings or {})
    jury = jury_from_settings(settings)
    if jury is None or jury.disabled:
        return jury
    for js in jury.members:
        _check_member(js, settings)
    return jury


def configured_judge(settings: Mapping | None) -> JudgeSettings | None:
    """One judge (the LLM extractors ask one): the configured judge, or a jury's first-listed member."""
    global _warned_extractor_jury
    settings = dict(settings or {})
    if "judge_model" in settings and any(settings.get(key) not in (None, "") for key in JURY_KEYS):
        # one model named for extraction (a benchmark's default extractor model, or the user's) beside a
        # jury for verdicts: the extractor asks that model
        settings = {k: v for k, v in settings.items() if k not in JURY_KEYS}
    jury = configured_jury(settings)
    if jury is None:
        return None
    if jury.is_jury and not _warned_extractor_jury:
        _warned_extractor_jury = True
        logger.info("a jury is configured; LLM answer extraction asks only its first judge (%s)", jury.first.model)
    return jury.first


def judge_requirement(settings: Mapping | None) -> tuple[bool, str]:
    """(met, detail) for ``lm-eval-persian data``: is a judge (or every member of a jury) configured that can be
    found, without asking it anything (a served judge is probed by the pre-flight of a run)?
    ``judge_model=none`` counts as met: judged tasks then run and log their replies unscored."""
    settings = dict(settings or {})
    details = []
    try:
        jury = jury_from_settings(settings)
        if jury is None:
            return (
                False,
                "no judge configured: set judge_model (--metadata '{\"judge_model\": ...}' or "
                "$PERSIAN_CULTURE_JUDGE_MODEL; see docs/judges.md), or judge_model=none to generate unscored",
            )
        if jury.disabled:
            return True, "judge_model=none: judged tasks run unscored"
        for js in jury.members:
            check_not_self_judge(js, settings)
            if js.is_local:
                from lm_eval_persian_culture.judge.local import resolve_local_model

                ref = resolve_local_model(js)
                details.append(f"in-process judge {js.model}: {ref.source} at {ref.revision[:19]}")
            elif js.base_url is None and not os.environ.get(js.api_key_env):
                return False, f"judge_model={js.model!r} talks to the OpenAI API, but ${js.api_key_env} is not set"
            else:
                from lm_eval_persian_culture.judge.settings import redact_url

                where = redact_url(js.base_url) if js.base_url else "the OpenAI API"
                details.append(f"judge {js.model} at {where}: configured (a run's pre-flight asks the server for it)")
    except JudgeConfigError as err:
        return False, str(err).splitlines()[0]
    return True, ("jury: " if len(details) > 1 else "") + "; ".join(details)


def prepare_judge(settings: Mapping | None) -> Jury:
    """For judge-scored tasks, at dataset load: a judge (or jury) must be configured, or explicitly disabled."""
    global _active
    jury = configured_jury(settings)
    if jury is None:
        raise JudgeConfigError(NO_JUDGE_MESSAGE)
    _active = jury
    return jury


def _settings_key(metadata: Mapping) -> str:
    keys = {k: v for k, v in metadata.items() if str(k).startswith("judge_") or k in _MODEL_ARG_KEYS}
    return json.dumps(keys, sort_keys=True, default=str, ensure_ascii=False)


def task_jury() -> Jury:
    """The judge (or jury) of the task whose filters are running, from that task's own metadata.

    lm-eval hands a task's loader (``custom_dataset``) its ``config.metadata``: the task's YAML
    metadata, then ``--model_args``, then ``--metadata`` (lm-eval's merge, the later winning). The
    same dict is read here, so two tasks given different judge settings in one run (a group YAML
    with per-task ``metadata``, a task YAML of one's own) each use their own. Where the running task
    is not on the call stack (another lm-eval, a filter called by hand), the settings the last loader
    saw are used (the behaviour before per-task settings).
    """
    metadata = running_task_metadata(start_depth=1)
    if metadata is None:
        logger.debug("running task not found on the call stack: using the judge settings the last loader saw")
        return _active or prepare_judge({})
    key = _settings_key(metadata)
    if key not in _task_juries:
        jury = configured_jury(metadata)
        if jury is None:
            raise JudgeConfigError(NO_JUDGE_MESSAGE)
        _task_juries[key] = jury
    return _task_juries[key]


def judge_for(js: JudgeSettings, parser: Callable[[str | None], object] = parse_yes_no) -> Judge:
    """One Judge per settings and answer parser for the whole run (its usage is printed at exit)."""
    key = f"{parser.__module__}.{parser.__qualname__}:{sorted(js.public_dict().items())!r}"
    if key not in _judges:
        _judges[key] = Judge(js, parser=parser)
    return _judges[key]


def template_id(name: str, template: str) -> str:
    """Stable id of a judge prompt template: its name plus a hash of its text."""
    return f"{name}:{hashlib.sha256(template.encode('utf-8')).hexdigest()[:16]}"


@dataclass
class JuryItem:
    """One item's outcome: the verdict (the judge's, or the jury's majority), whether the jury tied,
    and every member's own result (in jury order)."""

    verdict: Any
    tie: bool
    results: list[JudgeResult]
    judges: Sequence[Judge] = ()  # who gave each result (for the record's identities)
    metric_values: dict[str, Any] | None = None  # the jury's per-doc metric values, when registered


def ask_jury(
    jury: Jury,
    prompts: Sequence[str],
    *,
    parser: Callable[[str | None], object],
    template_id: str,
    metric_prefix: str,
    max_tokens: int | None = VERDICT_MAX_TOKENS,
) -> list[JuryItem]:
    """Every prompt asked of every member (one after the other, each in one concurrent, cached batch),
    the verdicts put to the vote, the judges recorded in the results, the error rate checked.

    ``metric_prefix``: the task's judged metric; a jury's per-judge metrics are ``<prefix>_judge_<name>``.
    Members are asked in jury order, never at once: under a launch whose every process runs the whole
    loop, batches are matched by their order (``launch.py``), which must be the same in every process.
    """
    judges = [judge_for(js, parser) for js in jury.members]
    per_member = [
        judge.judge_many(prompts, template_id=template_id, desc=f"judge ({judge.settings.model})",
                         max_tokens=max_tokens)
        for judge in judges
    ]  # fmt: skip
    for judge in judges:
        logger.info("judge usage so far: %s", judge.usage.summary())
    task = current_task_name()
    if not jury.is_jury:
        judge, results = judges[0], per_member[0]
        record_judge_in_results(judge)
        try:
            judge.check_error_rate(results)
        except JudgeFailureError as err:
            _report_failure(task, jury, len(results), sum(r.error is not None for r in results), err)
        return [JuryItem(r.verdict, False, [r], judges) for r in results]

    items = []
    for results in zip(*per_member):
        verdict, tie = majority([r.verdict for r in results], jury.tie_rule)
        items.append(JuryItem(verdict, tie, list(results), judges))
    specs = jury_metric_specs(jury, metric_prefix)
    if register_metrics_on_running_task(specs, start_depth=2):
        for item in items:
            item.metric_values = jury_metric_values(jury, metric_prefix, [r.verdict for r in item.results], item.tie)
    else:
        logger.debug("jury metrics not registered (no Task.apply_filters with aggregations on the call stack)")
    record_jury_in_results(jury, judges, items)
    for name, judge, results in zip(jury.names, judges, per_member):
        failed = sum(r.verdict is None for r in results)
        if failed and failed / len(results) > judge.settings.max_error_rate:
            logger.warning("jury member %s (%s) gave no verdict on %d of %d items: left out of those items' "
                           "votes (judge_failures_%s)", name, judge.settings.model, failed, len(results),
                           name)  # fmt: skip
    try:
        _check_jury_errors(jury, items)
    except JudgeFailureError as err:
        _report_failure(task, jury, len(items), sum(i.verdict is None for i in items), err)
    return items


def _check_jury_errors(jury: Jury, items: Sequence[JuryItem]) -> None:
    """An item no member answered has no verdict: past judge_max_error_rate the run stops, as with one judge."""
    failed = [i for i in items if i.verdict is None]
    if not items or not failed:
        return
    rate = len(failed) / len(items)
    first = list(dict.fromkeys(r.error for i in failed for r in i.results if r.error))[:5]
    message = f"{len(failed)}/{len(items)} items have no verdict from any judge of the jury ({rate:.1%}); " \
              f"first distinct errors: {first}"  # fmt: skip
    if rate > jury.max_error_rate:
        raise JudgeFailureError(
            f"{message}. Above judge_max_error_rate={jury.max_error_rate:g}: fix the judges (a re-run asks "
            "again only for what is not cached) or raise judge_max_error_rate."
        )
    logger.warning("%s (within judge_max_error_rate=%g)", message, jury.max_error_rate)


def _report_failure(task: str | None, jury: Jury, items: int, failed: int, err: JudgeFailureError) -> None:
    """Raise ``err``, or (under the pre-flight's wrapper) record it so the run still writes its results."""
    if _failure_sink is None:
        raise err
    _failure_sink.append({
        "task": task, "judge_model": jury.model, "items": items, "no_verdict": failed,
        "max_error_rate": jury.max_error_rate, "message": str(err),
    })  # fmt: skip
    logger.error("%s: %s The run goes on: results and samples are written, then it exits with an error.",
                 task or "judged task", err)  # fmt: skip


def verdict_fields(jury: Jury, item: JuryItem, show: Callable[[Any], Any]) -> dict:
    """The judge's part of a sample record (``show``: how the task writes a verdict, e.g. "yes"/"no").

    One judge: its raw answer, error, cache flag and identity, as always. A jury: ``judge_raw`` is
    None (there is no one answer), and ``jury`` lists every member's verdict, raw answer, error and
    identity; ``jury_votes``, ``jury_tie`` and ``jury_tie_rule`` say how the verdict came about.
    """
    if not jury.is_jury:
        res, judge = item.results[0], item.judges[0]
        return {"judge_raw": res.raw, "judge_error": res.error, "judge_cached": res.cached,
                **judge_identity(judge, res)}  # fmt: skip
    members = []
    for name, judge, res in zip(jury.names, item.judges, item.results):
        members.append({
            "judge": name, "verdict": None if res.verdict is None else show(res.verdict), "judge_raw": res.raw,
            "judge_error": res.error, "judge_cached": res.cached, **judge_identity(judge, res),
        })  # fmt: skip
    votes = [r.verdict for r in item.results]
    out = {
        "judge_raw": None,
        "judge_error": None if item.verdict is not None else "no judge of the jury gave a verdict",
        "judge_cached": all(r.cached for r in item.results),
        "judge_model": jury.model,
        "jury": members,
        "jury_votes": {
            "yes": sum(1 for v in votes if v is not None and v),
            "no": sum(1 for v in votes if v is not None and not v),
            "failed": sum(v is None for v in votes),
        },  # fmt: skip
        "jury_tie": item.tie,
        "jury_tie_rule": jury.tie_rule,
    }
    if item.metric_values is not None:
        out["jury_metrics"] = item.metric_values
    return out


def run_judge(
    resps: Sequence[Sequence[str]],
    docs: Sequence[dict],
    build_prompt: Callable[[dict, str], str],
    template_id: str,
) -> list[dict]:
    """Judge every reply of a task (Yes/No verdicts); one record per doc, in order.

    Records are JSON strings (see ``records``), logged as ``filtered_resps``.
    """
    jury = task_jury()
    replies = [r[0] if isinstance(r, (list, tuple)) else r for r in resps]
    if jury.disabled:
        return [
            encode_record({"response": reply, "verdict": None, "judge_raw": None, "judge_error": "judge disabled"})
            for reply in replies
        ]
    prompts = [build_prompt(doc, reply) for doc, reply in zip(docs, replies)]
    items = ask_jury(jury, prompts, parser=parse_yes_no, template_id=template_id, metric_prefix="accuracy")
    return [
        encode_record({"response": reply, "verdict": _yes_no(item.verdict), **verdict_fields(jury, item, _yes_no)})
        for reply, item in zip(replies, items)
    ]


def check_extractor_failures(js: JudgeSettings, errors: Sequence[str | None], name: str) -> None:
    """The judge's rule for an LLM extractor's failed calls: more than ``judge_max_error_rate`` of the
    replies asked stop the run (collected instead while the pre-flight's wrapper runs it, so results and
    samples are still written before it exits with an error); fewer are a warning. ``errors``: one entry per
    reply asked (None: answered). The failed replies stay invalid and are counted in the results
    (``llm_extractor_errors``)."""
    failed = [e for e in errors if e]
    if not failed:
        return
    rate = len(failed) / len(errors)
    first = list(dict.fromkeys(failed))[:5]
    message = (
        f"{name}: the LLM extractor failed on {len(failed)} of {len(errors)} replies ({rate:.1%}; left invalid, "
        f"counted in llm_extractor_errors); first distinct: {first}"
    )
    if rate <= js.max_error_rate:
        logger.warning("%s (within judge_max_error_rate=%g)", message, js.max_error_rate)
        return
    err = JudgeFailureError(
        f"{message}. Above judge_max_error_rate={js.max_error_rate:g}: fix the extractor's judge (a re-run asks "
        "again only for these: answers are cached, failed calls are not) or raise judge_max_error_rate."
    )
    if _failure_sink is None:
        raise err
    task = current_task_name()
    _failure_sink.append({
        "task": task, "judge_model": js.model, "items": len(errors), "no_verdict": len(failed),
        "max_error_rate": js.max_error_rate, "message": str(err),
    })  # fmt: skip
    logger.error("%s: %s The run goes on: results and samples are written, then it exits with an error.",
                 task or name, err)  # fmt: skip


def _yes_no(verdict: Any) -> str | None:
    return None if verdict is None else ("yes" if verdict else "no")


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


def record_jury_in_results(jury: Jury, judges: Sequence[Judge], items: Sequence[JuryItem]) -> None:
    """``metadata.judge`` of a jury: every member's identity and settings, the rule, and the jury's
    figures over the task's items (each member's failures and Yes rate, pairwise agreement and
    Cohen's kappa, Fleiss' kappa): see ``jury.jury_summary``."""
    metadata = running_task_metadata(start_depth=2)
    if metadata is None:
        logger.debug("jury not written to results: no Task.apply_filters on the call stack")
        return
    votes = [[r.verdict for r in item.results] for item in items]
    metadata["judge"] = {
        "jury": [
            {"name": name, **judge.describe(), "settings": _recordable_settings(judge.settings)}
            for name, judge in zip(jury.names, judges)
        ],  # fmt: skip
        "tie_rule": jury.tie_rule,
        "figures": jury_summary(jury, votes, [i.verdict for i in items], sum(i.tie for i in items)),
    }


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
