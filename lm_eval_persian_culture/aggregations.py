"""Aggregations shared by the pack's tasks.

lm-eval hands a custom aggregation the list of per-doc values of one metric of one task.
The judged tasks give every metric the same per-doc record,
``{"verdict": 1 | 0 | None, "topics": [...], "group": str | None, "pair": int | None}``,
so one record serves overall, per-topic and paired (gender) figures. Functions here are
pure (lm-eval 0.5 calls aggregations many times for bootstrap stderr).
"""

from __future__ import annotations

import math
import re
from typing import Callable, Iterable, Mapping, Sequence

NAN = float("nan")


def mean_or_nan(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else NAN


def judge_accuracy(items: Iterable[Mapping]) -> float:
    """Share of judged replies that meet the expectation; unjudged ones are excluded, not wrong."""
    return mean_or_nan([it["verdict"] for it in items if it["verdict"] is not None])


def judge_error_count(items: Iterable[Mapping]) -> int:
    """Replies the judge could not score (failed calls, unparseable answers, judge disabled)."""
    return sum(1 for it in items if it["verdict"] is None)


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")


def make_topic_aggregations(topics: Iterable[str], prefix: str = "accuracy_topic_") -> dict[str, Callable]:
    """One accuracy aggregation per topic; a doc with several topics counts in each."""

    def for_topic(topic: str) -> Callable:
        def agg(items: Iterable[Mapping]) -> float:
            return judge_accuracy(it for it in items if topic in it.get("topics", ()))

        agg.__name__ = prefix + slug(topic)
        return agg

    return {prefix + slug(t): for_topic(t) for t in topics}


def intact_pairs(items: Iterable[Mapping], groups: Sequence[str]) -> dict[object, dict[str, int]]:
    """pair id -> {group: verdict} for pairs whose every member is present and judged.

    A pair split by ``--limit`` or with an unjudged member is dropped whole, so the
    paired difference compares exactly the same scenarios.
    """
    pairs: dict[object, dict[str, int]] = {}
    broken = set()
    for it in items:
        if it["verdict"] is None:
            broken.add(it["pair"])
        pairs.setdefault(it["pair"], {})[it["group"]] = it["verdict"]
    return {p: g for p, g in pairs.items() if p not in broken and all(k in g for k in groups)}


def make_group_aggregations(groups: tuple[str, str], gap_name: str) -> dict[str, Callable]:
    """accuracy_<group> for both groups over intact pairs, and their difference (first - second)."""
    first, second = groups

    def acc(group: str) -> Callable:
        def agg(items: Iterable[Mapping]) -> float:
            pairs = intact_pairs(items, groups)
            return mean_or_nan([g[group] for g in pairs.values()])

        agg.__name__ = f"accuracy_{group}"
        return agg

    def gap(items: Iterable[Mapping]) -> float:
        pairs = intact_pairs(list(items), groups)
        if not pairs:
            return NAN
        return mean_or_nan([g[first] for g in pairs.values()]) - mean_or_nan([g[second] for g in pairs.values()])

    gap.__name__ = gap_name
    return {f"accuracy_{first}": acc(first), f"accuracy_{second}": acc(second), gap_name: gap}


def is_nan(x: float) -> bool:
    return isinstance(x, float) and math.isnan(x)
