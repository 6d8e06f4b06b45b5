"""Who judged a run: the judge (or jury) recorded in its results, and whether it is a paper's judge.

Where it is read from, first found wins:

1. ``configs.<task>.metadata.judge`` in the results JSON, written by the judge filter when it ran (one
   judge: ``{"model", "backend", ...}``; a jury: a list of such members, or an object whose ``jury`` (or
   ``members`` / ``judges``) is that list, with an optional ``tie_rule`` (a strict majority, ties broken by
   it) or ``aggregation`` / ``rule``);
2. the sample records, which name the judge of every verdict (``judge_model``; a jury's record lists its
   members under ``jury``);
3. ``metadata.judge_model`` (a name, or a list for a jury) or ``metadata.judge_jury``, only for a task that
   reports ``judge_errors``: ``--metadata`` lands in every task of a run, judged or not, so the setting
   alone names no judge.

A task no judge scored has none (``None``); ``judge_model=none`` (judging switched off) is none too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from lm_eval_persian_culture.report.runs import Run
from lm_eval_persian_culture.scoring.records import decode_record

JURY_KEYS = ("members", "jury", "judges")
RULE_KEYS = ("aggregation", "rule", "vote", "aggregation_method")


@dataclass(frozen=True)
class JudgeInfo:
    """One judge (a single member) or a jury (several)."""

    models: tuple[str, ...]
    members: tuple[dict, ...] = field(default=(), compare=False)  # each member's recorded identity
    rule: str = ""  # a jury's aggregation rule, as recorded

    @property
    def is_jury(self) -> bool:
        return len(self.models) > 1

    @property
    def label(self) -> str:
        if not self.is_jury:
            return self.models[0]
        rule = f", {self.rule}" if self.rule else ""
        return f"jury of {len(self.models)}{rule}: {', '.join(self.models)}"

    def as_dict(self) -> dict:
        """For exports: {"models": [...], "jury": bool, "rule"?: str, "members": [...]}."""
        out: dict = {"models": list(self.models), "jury": self.is_jury}
        if self.rule:
            out["rule"] = self.rule
        if self.members:
            out["members"] = [dict(m) for m in self.members]
        return out


def _member(value) -> dict | None:
    if isinstance(value, str) and value.strip() and value.strip().lower() != "none":
        return {"model": value.strip()}
    if isinstance(value, dict):
        model = value.get("model") or value.get("judge_model") or value.get("name")
        if isinstance(model, str) and model.strip() and model.strip().lower() != "none":
            out = {**{k: v for k, v in value.items() if k != "settings"}, "model": model.strip()}
            temperature = (value.get("settings") or {}).get("temperature")
            if isinstance(temperature, (int, float)) and not isinstance(temperature, bool):
                out.setdefault("temperature", temperature)  # what shaped the verdicts, kept for exports
            return out
    return None


def judge_from_value(value) -> JudgeInfo | None:
    """A recorded judge, in any of the shapes above; None when it names no judge."""
    rule = ""
    if isinstance(value, dict):
        jury = next((value[k] for k in JURY_KEYS if isinstance(value.get(k), list)), None)
        if jury is not None:
            rule = next((str(value[k]) for k in RULE_KEYS if isinstance(value.get(k), str)), "")
            if not rule and isinstance(value.get("tie_rule"), str):  # a strict majority, ties broken by this rule
                rule = f"majority, tie: {value['tie_rule']}"
            value = jury
    members = [m for m in (map(_member, value) if isinstance(value, list) else [_member(value)]) if m]
    if not members:
        return None
    return JudgeInfo(tuple(m["model"] for m in members), tuple(members), rule)


def _from_samples(run: Run, task: str) -> JudgeInfo | None:
    samples = run.samples(task)
    found: list[str] = []
    for sample in samples or ():
        for resp in sample.get("filtered_resps") or ():
            record = decode_record(resp)
            if record and isinstance(record.get("jury"), list):  # a jury: each member's identity
                members = [{"model": m.get("judge_model")} for m in record["jury"] if isinstance(m, dict)]
                tie = record.get("jury_tie_rule")
                found_jury = judge_from_value({"jury": members, **({"tie_rule": tie} if isinstance(tie, str) else {})})
                if found_jury is not None:
                    return found_jury
            names = record.get("judge_model") if record else None
            for name in names if isinstance(names, list) else [names]:
                if isinstance(name, str) and name and name.lower() != "none" and name not in found:
                    found.append(name)
        if found:
            break  # every verdict of a run comes from the same judge (or jury): the first record names it
    return JudgeInfo(tuple(found), tuple({"model": m} for m in found)) if found else None


def task_judge(run: Run, task: str) -> JudgeInfo | None:
    """The judge (or jury) that scored this task of this run; for a group, its members' judge when they
    share one (else every member's judges joined, as a jury would read)."""
    members = run.groups.get(task)
    if members:
        judges = [j for j in (task_judge(run, m) for m in members) if j is not None]
        if not judges:
            return None
        if all(j == judges[0] for j in judges):
            return judges[0]
        models = tuple(dict.fromkeys(m for j in judges for m in j.models))
        return JudgeInfo(models, tuple({"model": m} for m in models), "differs between members")
    meta = run.task_metadata(task)
    recorded = judge_from_value(meta.get("judge"))
    if recorded is not None:
        return recorded
    from_samples = _from_samples(run, task)
    if from_samples is not None:
        return from_samples
    judged = any(key.partition(",")[0] == "judge_errors" for key in run.results.get(task, {}))
    if not judged:
        return None
    return judge_from_value({"jury": meta["judge_jury"]} if meta.get("judge_jury") else meta.get("judge_model"))


def run_judges(run: Run) -> dict[str, list[str]]:
    """{judge label: the run's tasks it judged}, groups left out."""
    out: dict[str, list[str]] = {}
    for task in run.results:
        if task in run.groups:
            continue
        judge = task_judge(run, task)
        if judge is not None:
            out.setdefault(judge.label, []).append(task)
    return out


def _norm(name: str) -> str:
    return re.sub(r"\s+", "-", name.strip().lower().rsplit("/", 1)[-1])


def same_judge(judge: JudgeInfo | None, paper_judge: str) -> bool:
    """Whether a run's judge is the paper's: one judge, the same model name, or a dated snapshot of it
    ('gpt-4-0613' is the paper's 'gpt-4'; 'gpt-4o' and 'gpt-4-turbo' are not). A jury never is."""
    if judge is None or judge.is_jury:
        return False
    mine, theirs = _norm(judge.models[0]), _norm(paper_judge)
    return mine == theirs or re.fullmatch(re.escape(theirs) + r"-\d[\d-]*", mine) is not None


__all__ = ["JudgeInfo", "judge_from_value", "run_judges", "same_judge", "task_judge"]
