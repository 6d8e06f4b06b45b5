"""Aggregations shared by the pack's tasks.

lm-eval hands a custom aggregation the list of per-doc values of one metric of one task; a task
whose metrics share one per-doc record (a dict) lets one record serve every figure. Functions here
are pure (lm-eval 0.5 calls aggregations many times for bootstrap stderr). Aggregations only one
benchmark uses live in its folder (TaarofBench's judged, per-topic and gender-pair figures:
``tasks/taarof/aggregations.py``).
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


# --------------------------------------------------------------------------- per-prompt spread
# Benchmarks that run every item under several prompt variants (DivanBench's five system
# prompts) report the mean over variants of a per-variant score and its spread across
# variants. Per-doc values are records (dicts); ``group`` names the record field that holds
# the variant (e.g. "prompt_id"). Helpers below never mutate their input.


def std_or_nan(values: Sequence[float], ddof: int = 0) -> float:
    """Standard deviation; ``ddof=0`` population (numpy's default), ``ddof=1`` sample.

    NaN when there are not more than ``ddof`` values.
    """
    values = [v for v in values if not is_nan(v)]
    n = len(values)
    if n <= ddof:
        return NAN
    m = math.fsum(values) / n
    return math.sqrt(math.fsum((v - m) ** 2 for v in values) / (n - ddof))


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


def intact_pairs_by_group(
    items: Iterable[Mapping],
    pair: str = "pair_id",
    side: str = "polarity",
    sides: tuple[str, str] = ("positive", "negative"),
    group: str = "prompt_id",
) -> dict[object, dict[object, dict[str, Mapping]]]:
    """group -> {pair id -> {side: item}} for the pairs that have exactly one item per side.

    A pair missing a side under a group (split by ``--limit``) or holding a side twice is
    left out of that group, so paired rates compare exactly the same pairs.
    """
    seen: dict[object, dict[object, dict[str, list[Mapping]]]] = {}
    for it in items:
        if it.get(side) in sides:
            seen.setdefault(it[group], {}).setdefault(it[pair], {}).setdefault(it[side], []).append(it)
    out: dict[object, dict[object, dict[str, Mapping]]] = {}
    for g, pairs in seen.items():
        complete = {p: {s: members[s][0] for s in sides} for p, members in pairs.items()
                    if all(len(members.get(s, ())) == 1 for s in sides)}  # fmt: skip
        if complete:
            out[g] = complete
    return out


def paired_side_rates(
    items: Iterable[Mapping],
    field: str,
    pair: str = "pair_id",
    side: str = "polarity",
    sides: tuple[str, str] = ("positive", "negative"),
    group: str = "prompt_id",
) -> dict[object, dict[str, float]]:
    """group -> {side: mean of ``field`` over that side's members of the intact pairs}.

    DivanBench: ``field="correct"`` gives accept-true (positive side) and reject-false
    (negative side) per prompt, over pairs complete under that prompt.
    """
    out = {}
    for g, pairs in intact_pairs_by_group(items, pair, side, sides, group).items():
        out[g] = {s: math.fsum(float(m[s][field]) for m in pairs.values()) / len(pairs) for s in sides}
    return out


def group_differences(first: Mapping[object, float], second: Mapping[object, float]) -> dict[object, float]:
    """group -> first[g] - second[g], for the groups present in both."""
    return {g: first[g] - second[g] for g in first if g in second}


def make_spread_aggregations(
    name: str,
    per_group: Callable[[list[Mapping]], Mapping[object, float]],
    ddof: int = 0,
) -> dict[str, Callable]:
    """``{name: mean over groups, name + "_std": spread over groups}`` of a per-group score.

    ``per_group`` maps the task's per-doc records to {group: score}; groups with no score
    (e.g. no intact pair under a prompt) simply do not count.
    """

    def mean_agg(items: Iterable[Mapping]) -> float:
        return mean_or_nan(list(per_group(list(items)).values()))

    def std_agg(items: Iterable[Mapping]) -> float:
        return std_or_nan(list(per_group(list(items)).values()), ddof=ddof)

    mean_agg.__name__ = name
    std_agg.__name__ = f"{name}_std"
    return {name: mean_agg, f"{name}_std": std_agg}


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
