"""Aggregations shared by the pack's tasks.

lm-eval hands a custom aggregation the list of per-doc values of one metric of one task; a task
whose metrics share one per-doc record (a dict) lets one record serve every figure. Functions here
are pure (lm-eval 0.5 calls aggregations many times for bootstrap stderr). Aggregations only one
benchmark uses live in its folder (TaarofBench's judged, per-topic and gender-pair figures:
``tasks/taarof/aggregations.py``; DivanBench's spread over prompts and paired figures:
``tasks/divan/aggregations.py``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence

NAN = float("nan")


def mean_or_nan(values: Sequence[float]) -> float:
    # fsum: exactly rounded, so the mean does not depend on the order of the values (data-parallel
    # runs hand aggregations their per-doc values rank by rank, not in doc order)
    return math.fsum(values) / len(values) if values else NAN


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")


def is_nan(x: float) -> bool:
    return isinstance(x, float) and math.isnan(x)


# --------------------------------------------------------------------------- rates over records
def per_group_rate(
    items: Iterable[Mapping],
    field: str,
    group: str = "prompt_id",
    where: Callable[[Mapping], bool] | None = None,
) -> dict[object, float]:
    """group value -> mean of ``item[field]`` (numbers or bools) over the items kept by ``where``."""
    buckets: dict[object, list[float]] = {}
    for it in items:
        if where is None or where(it):
            buckets.setdefault(it[group], []).append(float(it[field]))
    return {g: math.fsum(v) / len(v) for g, v in sorted(buckets.items(), key=lambda kv: str(kv[0]))}


def rate(items: Iterable[Mapping], field: str, where: Callable[[Mapping], bool] | None = None) -> float:
    """Mean of ``item[field]`` over all (kept) items, ignoring groups; NaN when none."""
    return mean_or_nan([float(it[field]) for it in items if where is None or where(it)])


def macro_rate(
    items: Iterable[Mapping],
    field: str,
    group: str = "category",
    where: Callable[[Mapping], bool] | None = None,
) -> float:
    """Macro average: the unweighted mean over groups of the per-group mean of ``field``.

    PerCul's headline "macro accuracy over the categories": each category counts once,
    whatever its size. Groups absent from ``items`` do not count; NaN when none is present.
    """
    return mean_or_nan(list(per_group_rate(items, field, group=group, where=where).values()))


# --------------------------------------------------------------------------- a score per value of a field
def field_is(field: str, value: object) -> Callable[[Mapping], bool]:
    """The ``where`` that keeps the records whose ``field`` holds ``value``."""
    return lambda it: it.get(field) == value


def make_field_aggregations(
    field: str, values: Mapping[str, object], score: Callable[[Iterable[Mapping]], float]
) -> dict[str, Callable]:
    """``{name: score over the records whose record[field] == value}`` for each name: the one
    implementation of "a score per value of a field" (a category, an axis, a country, an item type)."""

    def for_value(name: str, value: object) -> Callable:
        keep = field_is(field, value)

        def agg(items: Iterable[Mapping]) -> float:
            return score(it for it in items if keep(it))

        agg.__name__ = name
        return agg

    return {name: for_value(name, value) for name, value in values.items()}


def make_field_rates(field: str, values: Mapping[str, object], rated: str = "correct") -> dict[str, Callable]:
    """``{name: mean of record[rated] over the records whose record[field] == value}`` for each name
    (NaN when the run has none, e.g. under --limit)."""
    return make_field_aggregations(field, values, lambda items: rate(items, rated))
