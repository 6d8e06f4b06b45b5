"""Juries: several judges for one run, the verdict by majority.

One judge's quirks decide every verdict of a judged task; a jury of judges from different model
families (Verga et al. 2024, "Replacing Judges with Juries") averages them out. Settings
(``--metadata``, see docs/judges-juries.md):

* ``"judge_model": ["gpt-4", "hf:Qwen/Qwen2.5-7B-Instruct", "llama3"]``: every member shares the
  other ``judge_*`` settings (one ``judge_base_url``, one ``judge_api_key_env``, ...);
* ``"judge_jury": [{"model": "gpt-4"}, {"model": "llama3", "base_url": "http://127.0.0.1:8000/v1"},
  "hf:Qwen/Qwen2.5-7B-Instruct"]``: each member object carries its own settings (the ``judge_*``
  keys, with or without the ``judge_`` prefix, and an optional ``name``), over the shared ones;
* ``"judge_jury_tie": "not_met"`` (default) or ``"first"``: the tie rule.

Every item is asked of every member (each its own ``Judge``: its own cache keys, resumable, its own
usage line). The verdict is the strict majority of the members that gave one; a member that failed
the item (no answer, or one its parser cannot read) is left out of that item's vote and counted. An
item no member could answer has no verdict: a judge error, as with one judge.

Tie rule. ``not_met`` (default): a tie counts as "the reply does not meet the expectation" (No /
0). The jury gives credit only when more of its answering members say Yes than No: a split jury is
no evidence that the reply met the expectation, and a rule that gave the tie to Yes would raise
scores by disagreement alone. (It is the rule of the paper's own script too, which scores an item
Yes only when the judge's answer says so.) ``first``: the first-listed member that answered decides
the tie (put the judge you trust most first). Odd juries without failures never tie.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from lm_eval_persian_culture.judge.settings import (
    _ENV_PREFIX,
    _METADATA_KEYS,
    JUDGE_MODEL_ENV,
    JURY_KEYS,
    LOCAL_PREFIX,
    JudgeConfigError,
    JudgeSettings,
    redact_url,
)
from lm_eval_persian_culture.lm_eval_stack import running_task
from lm_eval_persian_culture.scoring.agreement import cohen_kappa

JURY_KEY = "judge_jury"
TIE_KEY = "judge_jury_tie"
JURY_ENV = _ENV_PREFIX + "JURY"
TIE_ENV = _ENV_PREFIX + "JURY_TIE"
TIE_NOT_MET = "not_met"
TIE_FIRST = "first"
TIE_RULES = (TIE_NOT_MET, TIE_FIRST)
JURY_SETTING_KEYS = JURY_KEYS


@dataclass(frozen=True)
class Jury:
    """The judges of a task: one (the usual case) or several, voting by majority."""

    members: tuple[JudgeSettings, ...]
    names: tuple[str, ...]
    tie_rule: str = TIE_NOT_MET

    def __post_init__(self) -> None:
        if not self.members:
            raise JudgeConfigError("a jury needs at least one judge")
        if len(self.names) != len(self.members):
            raise ValueError("one name per member")
        if self.tie_rule not in TIE_RULES:
            raise JudgeConfigError(f"{TIE_KEY}={self.tie_rule!r}: expected one of {list(TIE_RULES)}")

    @classmethod
    def single(cls, settings: JudgeSettings) -> Jury:
        return cls((settings,), (member_name(settings.model),))

    @property
    def is_jury(self) -> bool:
        return len(self.members) > 1

    @property
    def disabled(self) -> bool:
        return not self.is_jury and self.members[0].disabled

    @property
    def first(self) -> JudgeSettings:
        return self.members[0]

    @property
    def model(self) -> str:
        """The judge's model, or ``jury(a, b, c)``, for logs and failure reports."""
        if not self.is_jury:
            return self.first.model
        return "jury(" + ", ".join(m.model for m in self.members) + ")"

    @property
    def max_error_rate(self) -> float:
        """The share of items without any verdict tolerated: ``judge_max_error_rate`` (a member's own,
        when members set different ones, the lowest: the strictest applies)."""
        return min(m.max_error_rate for m in self.members)

    def public_dict(self) -> dict[str, Any]:
        """Safe to log or record: one judge's settings as before; a jury's members, names and rule."""
        if not self.is_jury:
            return self.first.public_dict()
        return {
            "jury": [{"name": n, **m.public_dict()} for n, m in zip(self.names, self.members)],
            "tie_rule": self.tie_rule,
        }


def member_name(model: str) -> str:
    """A short metric-safe name for a judge: ``gpt-4`` -> ``gpt_4``, ``hf:Qwen/Qwen2.5-7B`` -> ``qwen2_5_7b``."""
    text = model.strip()
    if text.lower().startswith(LOCAL_PREFIX):
        text = text[len(LOCAL_PREFIX) :].partition("@")[0]
    text = text.rstrip("/\\").replace("\\", "/").rsplit("/", 1)[-1]
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_") or "judge"


def _env_json(name: str) -> Any:
    value = os.environ.get(name)
    if value is None or not value.strip():
        return None
    text = value.strip()
    if text.startswith("["):
        try:
            return json.loads(text)
        except json.JSONDecodeError as err:
            raise JudgeConfigError(f"${name}: not a JSON list ({err.msg})") from None
    return text


def _as_list(value: Any, source: str) -> list | None:
    """A list of members from --metadata (a real list, or a JSON list in a string), else None."""
    if isinstance(value, (list, tuple)):
        return list(value)
    if isinstance(value, str) and value.strip().startswith("["):
        try:
            parsed = json.loads(value)
        except json.JSONDecodeError as err:
            raise JudgeConfigError(f"{source}: cannot read {value!r} as a JSON list ({err.msg})") from None
        if not isinstance(parsed, list):
            raise JudgeConfigError(f"{source}: expected a list")
        return parsed
    return None


def _member_settings(entry: Any, index: int, source: str) -> tuple[dict[str, Any], str | None]:
    """One member's own settings (``judge_*`` keys) and its optional name."""
    where = f"{source}[{index}]"
    if isinstance(entry, str):
        return {"judge_model": entry}, None
    if not isinstance(entry, Mapping):
        raise JudgeConfigError(f'{where}: expected a model name or an object like {{"model": "gpt-4"}}')
    own: dict[str, Any] = {}
    name = None
    for key, value in entry.items():
        key = str(key)
        if "api_key" in key.lower() and key.lower().removeprefix("judge_") != "api_key_env":
            raise JudgeConfigError(
                f"{where}: {key!r} looks like an API key: lm-eval writes --metadata into the results, so a key "
                "there would leak. Put it in an environment variable and name that with api_key_env."
            )
        if key == "name":
            name = str(value).strip()
            continue
        full = key if key.startswith("judge_") else f"judge_{key}"
        if full not in _METADATA_KEYS:
            known = sorted(k.removeprefix("judge_") for k in _METADATA_KEYS)
            raise JudgeConfigError(f"{where}: unknown judge setting {key!r}; known: {known} and 'name'")
        own[full] = value
    if "judge_model" not in own:
        raise JudgeConfigError(f'{where}: no model (e.g. {{"model": "gpt-4"}})')
    if isinstance(own["judge_model"], (list, tuple)):
        raise JudgeConfigError(f"{where}: one model per member")
    return own, name


def jury_from_settings(settings: Mapping[str, Any] | None) -> Jury | None:
    """The task's judge or jury from lm-eval metadata (then env vars); None when none is configured."""
    metadata = dict(settings or {})
    off = metadata.get("judge_model")
    if isinstance(off, str) and off.strip().lower() == "none":  # judging off, whatever jury is set
        disabled = JudgeSettings.from_settings({k: v for k, v in metadata.items() if k not in JURY_KEYS})
        return Jury.single(disabled)
    raw_jury, source = metadata.get(JURY_KEY), f"--metadata {JURY_KEY}"
    if raw_jury is None or (isinstance(raw_jury, str) and not raw_jury.strip()):
        raw_jury, source = _env_json(JURY_ENV), f"${JURY_ENV}"
    entries = None if raw_jury is None else _as_list(raw_jury, source)
    if raw_jury is not None and entries is None:
        raise JudgeConfigError(f'{source}: expected a list of judges, e.g. ["gpt-4", {{"model": "llama3"}}]')
    model = metadata.get("judge_model")
    model_given = model is not None and not (isinstance(model, str) and not model.strip())
    model_list = _as_list(model, "--metadata judge_model") if model_given else None
    if not model_given and entries is None:
        model_list = _as_list(_env_json(JUDGE_MODEL_ENV), f"${JUDGE_MODEL_ENV}")
    if entries is not None and model_given:
        raise JudgeConfigError(
            f"judge_model={model!r} and {JURY_KEY} are both set: name the jury's models in one of them only"
        )
    if entries is None and model_list is not None:
        entries, source = model_list, "judge_model"
    tie = metadata.get(TIE_KEY)
    if tie is None or not str(tie).strip():
        tie = os.environ.get(TIE_ENV) or TIE_NOT_MET
    tie = str(tie).strip().lower()
    shared = {k: v for k, v in metadata.items() if k not in ("judge_model", *JURY_SETTING_KEYS)}
    if entries is None:
        single = JudgeSettings.from_settings(metadata if model_list is None else shared)
        return None if single is None else Jury((single,), (member_name(single.model),), tie)
    if not entries:
        raise JudgeConfigError(f"{source}: an empty list names no judge")
    members, names = [], []
    for i, entry in enumerate(entries):
        own, name = _member_settings(entry, i, source)
        js = JudgeSettings.from_settings({**shared, **own})
        if js is None or js.disabled:
            raise JudgeConfigError(f"{source}[{i}]: a jury member cannot be 'none' (set judge_model=none instead)")
        members.append(js)
        names.append(name or member_name(js.model))
    if len(members) == 1:
        return Jury(tuple(members), tuple(names), tie)
    names = _unique(names)
    seen: dict[tuple, int] = {}
    for i, js in enumerate(members):
        key = (js.model, redact_url(js.base_url), js.temperature, js.system_prompt)
        if key in seen:
            raise JudgeConfigError(
                f"{source}: members {seen[key]} and {i} are the same judge ({js.model}"
                f"{' at ' + str(redact_url(js.base_url)) if js.base_url else ''}): it would vote twice"
            )
        seen[key] = i
    return Jury(tuple(members), tuple(names), tie)


def _unique(names: list[str]) -> list[str]:
    out: list[str] = []
    for name in names:
        candidate, n = name, 2
        while candidate in out:
            candidate, n = f"{name}_{n}", n + 1
        out.append(candidate)
    return out


# --------------------------------------------------------------------------- the vote
def majority(votes: Sequence[Any], tie_rule: str = TIE_NOT_MET) -> tuple[bool | None, bool]:
    """(verdict, tie) from the members' verdicts in jury order (None: that member failed the item).

    The strict majority of the members that answered; a tie follows ``tie_rule`` (module doc);
    None when no member answered.
    """
    answered = [bool(v) for v in votes if v is not None]
    if not answered:
        return None, False
    yes = sum(answered)
    no = len(answered) - yes
    if yes != no:
        return yes > no, False
    return (answered[0] if tie_rule == TIE_FIRST else False), True


# --------------------------------------------------------------------------- agreement between members
def fleiss_kappa(ratings: Sequence[Sequence[Any]]) -> float:
    """Fleiss' kappa of binary verdicts; one row per item, one verdict per member.

    Only items every member rated count (Fleiss' kappa needs the same number of raters per item).
    NaN with fewer than two raters, no complete item, or chance agreement 1 (one label only).
    """
    rows = [[bool(v) for v in row] for row in ratings if row and all(v is not None for v in row)]
    if not rows or len(rows[0]) < 2:
        return math.nan
    n = len(rows[0])
    big_n = len(rows)
    yes = [sum(r) for r in rows]
    counts = [(y, n - y) for y in yes]
    p_items = [(a * a + b * b - n) / (n * (n - 1)) for a, b in counts]
    p_bar = sum(p_items) / big_n
    p_yes = sum(yes) / (big_n * n)
    p_e = p_yes**2 + (1 - p_yes) ** 2
    return math.nan if p_e == 1 else (p_bar - p_e) / (1 - p_e)


def pair_table(a: Sequence[Any], b: Sequence[Any]) -> tuple[int, int, int, int]:
    """(both yes, a yes b no, a no b yes, both no) over the items both rated."""
    yy = yn = ny = nn = 0
    for x, y in zip(a, b):
        if x is None or y is None:
            continue
        if x and y:
            yy += 1
        elif x:
            yn += 1
        elif y:
            ny += 1
        else:
            nn += 1
    return yy, yn, ny, nn


def pair_agreement(a: Sequence[Any], b: Sequence[Any]) -> float:
    """Share of the items both members rated on which they agree (NaN when none)."""
    yy, yn, ny, nn = pair_table(a, b)
    n = yy + yn + ny + nn
    return (yy + nn) / n if n else math.nan


def _nan_to_none(x: float) -> float | None:
    return None if isinstance(x, float) and math.isnan(x) else x


def jury_summary(jury: Jury, votes: Sequence[Sequence[Any]], verdicts: Sequence[Any], ties: int) -> dict[str, Any]:
    """The jury's figures over a task's items (``votes``: one row per item, one verdict per member),
    as written into the results' ``metadata.judge.jury``."""
    columns = list(zip(*votes)) if votes else [() for _ in jury.members]
    members = []
    for name, js, col in zip(jury.names, jury.members, columns):
        answered = [v for v in col if v is not None]
        members.append({
            "name": name, "model": js.model, "base_url": redact_url(js.base_url),
            "items": len(col), "failures": len(col) - len(answered),
            "yes_rate": _nan_to_none(sum(bool(v) for v in answered) / len(answered)) if answered else None,
        })  # fmt: skip
    pairwise = []
    for (i, a), (j, b) in combinations(enumerate(columns), 2):
        table = pair_table(a, b)
        pairwise.append({
            "judges": [jury.names[i], jury.names[j]], "n": sum(table),
            "agreement": _nan_to_none(pair_agreement(a, b)), "cohen_kappa": _nan_to_none(cohen_kappa(*table)),
        })  # fmt: skip
    complete = sum(1 for row in votes if all(v is not None for v in row))
    return {
        "members": members,
        "rule": "strict majority of the members that answered; a member that failed an item is left out of its vote",
        "tie_rule": jury.tie_rule,
        "ties": ties,
        "no_verdict": sum(v is None for v in verdicts),
        "pairwise": pairwise,
        "fleiss_kappa": _nan_to_none(fleiss_kappa(votes)),
        "fleiss_items": complete,
    }


# --------------------------------------------------------------------------- per-judge metrics in lm-eval's results
# Each judge's own metrics, pairwise agreement and Fleiss' kappa as lm-eval metrics of the task. Their
# names depend on the jury, so no YAML can list them: the filter registers them on the running task
# (lm-eval 0.4's ``_aggregation_list`` / ``_higher_is_better``, as lm-eval itself does for metrics a
# function returns as a dict), and each record then carries their per-doc values under "jury_metrics",
# which process_results hands on. Where the running task cannot take them (another lm-eval), records
# carry none and the figures are in ``metadata.judge.jury`` only.


def mean_of_answered(values: Sequence[Any]) -> float:
    """Mean of the items a member answered (None: failed)."""
    kept = [float(v) for v in values if v is not None]
    return sum(kept) / len(kept) if kept else math.nan


def count_true(values: Sequence[Any]) -> int:
    return sum(1 for v in values if v)


def agreement_of_pairs(values: Sequence[Any]) -> float:
    """Per-doc values [a, b] -> share of the docs both rated on which they agree."""
    pairs = [v for v in values if isinstance(v, (list, tuple)) and len(v) == 2]
    return pair_agreement([p[0] for p in pairs], [p[1] for p in pairs])


def fleiss_of_rows(values: Sequence[Any]) -> float:
    return fleiss_kappa([list(v) for v in values if isinstance(v, (list, tuple))])


def jury_metric_specs(jury: Jury, prefix: str) -> dict[str, tuple[Any, bool]]:
    """name -> (aggregation, higher_is_better) of a jury's extra metrics (``prefix``: the task's
    judged metric, e.g. ``accuracy`` for ``accuracy_judge_<name>``)."""
    specs: dict[str, tuple[Any, bool]] = {}
    for name in jury.names:
        specs[f"{prefix}_judge_{name}"] = (mean_of_answered, True)
        specs[f"judge_failures_{name}"] = (count_true, False)
    for a, b in combinations(jury.names, 2):
        specs[f"jury_agreement_{a}_{b}"] = (agreement_of_pairs, True)
    specs["jury_fleiss_kappa"] = (fleiss_of_rows, True)
    specs["jury_ties"] = (count_true, False)
    return specs


def jury_metric_values(jury: Jury, prefix: str, votes: Sequence[Any], tie: bool) -> dict[str, Any]:
    """One doc's values of the metrics :func:`jury_metric_specs` names."""
    out: dict[str, Any] = {}
    for name, v in zip(jury.names, votes):
        out[f"{prefix}_judge_{name}"] = None if v is None else int(bool(v))
        out[f"judge_failures_{name}"] = int(v is None)
    ints = [None if v is None else int(bool(v)) for v in votes]
    for (i, a), (j, b) in combinations(enumerate(jury.names), 2):
        out[f"jury_agreement_{a}_{b}"] = [ints[i], ints[j]]
    out["jury_fleiss_kappa"] = ints
    out["jury_ties"] = int(tie)
    return out


def register_metrics_on_running_task(specs: Mapping[str, tuple[Any, bool]], start_depth: int = 2) -> bool:
    """Add ``specs`` to the aggregations of the task whose filters are running; False where that
    task (lm-eval's ``ConfigurableTask.apply_filters`` on the call stack) or its tables are not found."""
    task = running_task(start_depth + 1)
    aggregations = getattr(task, "_aggregation_list", None)
    higher = getattr(task, "_higher_is_better", None)
    if not (isinstance(aggregations, dict) and isinstance(higher, dict)):
        return False
    for name, (agg, better) in specs.items():
        aggregations[name] = agg
        higher[name] = better
    return True
