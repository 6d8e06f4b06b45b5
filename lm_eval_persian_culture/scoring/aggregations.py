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
    # fsum: exactly rounded, so the mean does not depend on the order of the values (data-parallel
    # runs hand aggregations their per-doc values rank by rank, not in doc order)
    return math.fsum(values) / len(values) if values else NAN


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


# --------------------------------------------------------------------------- paper-rule accuracy
# Some papers' scripts divide by every item and count an item as correct by a looser rule than
# the pack's parser (TaarofBench's evaluation.py: 'Yes' anywhere in the judge's answer). Judged
# records then also carry ``paper_yes`` (1/0; 0 when the judge gave no answer).


def judge_accuracy_paper(items: Iterable[Mapping]) -> float:
    """#items the paper's rule counts as Yes / #items, unjudged items counted as 0.

    NaN when no item has a judge answer at all (judging disabled), where 0.0 would read as a score.
    """
    items = list(items)
    if not any(it.get("judged") for it in items):
        return NAN
    return sum(int(it.get("paper_yes", 0)) for it in items) / len(items)


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


def make_field_accuracies(field: str, values: Mapping[str, object]) -> dict[str, Callable]:
    """``{name: judged accuracy over the items whose record[field] == value}`` for each name."""
    return make_field_aggregations(field, values, judge_accuracy)


def make_field_rates(field: str, values: Mapping[str, object], rated: str = "correct") -> dict[str, Callable]:
    """``{name: mean of record[rated] over the records whose record[field] == value}`` for each name
    (NaN when the run has none, e.g. under --limit)."""
    return make_field_aggregations(field, values, lambda items: rate(items, rated))


# --------------------------------------------------------------------------- paired significance
# Paired binary outcomes (the same scenario judged for a female and a male user role). The paper's
# Wilcoxon signed-rank test over the 0/1 pair differences, zero differences dropped, has every
# non-zero |d| tied at 1, so its exact null distribution is that of the sign test on the discordant
# pairs: exact McNemar, a two-sided binomial test of b successes in b + c trials at p = 1/2.


def exact_mcnemar_p(b: int, c: int) -> float:
    """Two-sided exact McNemar p-value for b and c discordant pairs (1.0 when there are none)."""
    n = b + c
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(min(b, c) + 1))
    return min(1.0, 2 * tail / 2**n)


def discordant_counts(items: Iterable[Mapping], groups: tuple[str, str]) -> tuple[int, int]:
    """(pairs only the first group got right, pairs only the second got right), over intact pairs."""
    first, second = groups
    pairs = intact_pairs(list(items), groups).values()
    return (sum(1 for g in pairs if g[first] == 1 and g[second] == 0),
            sum(1 for g in pairs if g[first] == 0 and g[second] == 1))  # fmt: skip


def make_paired_test_aggregations(groups: tuple[str, str], prefix: str) -> dict[str, Callable]:
    """``<prefix>_discordant_<first>``, ``<prefix>_discordant_<second>`` and ``<prefix>_mcnemar_p``."""
    first, second = groups

    def count(index: int, name: str) -> Callable:
        def agg(items: Iterable[Mapping]) -> int:
            return discordant_counts(items, groups)[index]

        agg.__name__ = name
        return agg

    def p_value(items: Iterable[Mapping]) -> float:
        return exact_mcnemar_p(*discordant_counts(items, groups))

    p_value.__name__ = f"{prefix}_mcnemar_p"
    names = (f"{prefix}_discordant_{first}", f"{prefix}_discordant_{second}")
    return {names[0]: count(0, names[0]), names[1]: count(1, names[1]), p_value.__name__: p_value}
