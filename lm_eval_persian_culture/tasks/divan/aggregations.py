"""DivanBench's own aggregations: a score per system prompt, its mean and spread over the five prompts, and
the paired figures of the binary task (accept-true / reject-false over intact pairs, their difference).

lm-eval hands each aggregation the task's per-doc records; these never mutate them (lm-eval 0.5 may call an
aggregation more than once).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence

from lm_eval_persian_culture.scoring.aggregations import NAN, is_nan, mean_or_nan

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
