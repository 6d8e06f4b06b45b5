"""TaarofBench's per-doc record and the aggregations over it.

Every metric of a judged TaarofBench task gets the same per-doc record (:func:`judged_record`),
``{"verdict": 1 | 0 | None, "topics": [...], "group": str | None, "pair": int | None,
"judged": bool, "paper_yes": 1 | 0, ...}``, so one record serves the overall, per-topic, per-type
and paired (gender) figures. The aggregations are pure (lm-eval 0.5 calls aggregations many times
for bootstrap stderr).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence

from lm_eval_persian_culture.judge.jury import TIE_NOT_MET, majority
from lm_eval_persian_culture.scoring.aggregations import NAN, make_field_aggregations, mean_or_nan, slug
from lm_eval_persian_culture.scoring.records import decode_record


def judged_record(
    doc: dict,
    record: dict,
    topics: Sequence[str] = (),
    group: str | None = None,
    extra: Mapping | None = None,
) -> dict:
    """The per-doc value every metric of a judged task shares (``scoring.records.make_process_results``).

    ``paper_yes`` applies the rule of TaarofBench's script ('Yes' anywhere in the judge's
    answer; no answer counts as 0) for the ``accuracy_paper`` figure; ``judged`` says whether
    the judge answered at all. ``extra`` adds fields of the task's own (e.g. the scenario type).
    """
    decoded = decode_record(record) or {}
    verdict = decoded.get("verdict")
    raw = decoded.get("judge_raw")
    judged, paper_yes = raw is not None, int(isinstance(raw, str) and "Yes" in raw)
    if isinstance(decoded.get("jury"), list):
        judged, paper_yes = jury_paper_rule(decoded)
    out = {
        "verdict": None if verdict is None else int(verdict == "yes"),
        "topics": [t.strip() for t in topics],
        "group": group,
        "pair": doc.get("pair_id"),
        "judged": judged,
        "paper_yes": paper_yes,
        **(extra or {}),
    }
    if decoded.get("jury_metrics"):
        out["jury_metrics"] = decoded["jury_metrics"]
    return out


def jury_paper_rule(decoded: Mapping) -> tuple[bool, int]:
    """(judged, paper_yes) of a jury's record: the paper's rule ('Yes' anywhere in the answer) applied
    to each member that answered, then the jury's vote and tie rule over those readings."""
    readings = [
        None if not isinstance(m.get("judge_raw"), str) else ("Yes" in m["judge_raw"])
        for m in decoded["jury"]
        if isinstance(m, Mapping)
    ]
    verdict, _ = majority(readings, decoded.get("jury_tie_rule") or TIE_NOT_MET)
    return verdict is not None, int(bool(verdict))


def judge_accuracy(items: Iterable[Mapping]) -> float:
    """Share of judged replies that meet the expectation; unjudged ones are excluded, not wrong."""
    return mean_or_nan([it["verdict"] for it in items if it["verdict"] is not None])


def judge_error_count(items: Iterable[Mapping]) -> int:
    """Replies the judge could not score (failed calls, unparseable answers, judge disabled)."""
    return sum(1 for it in items if it["verdict"] is None)


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


def make_field_accuracies(field: str, values: Mapping[str, object]) -> dict[str, Callable]:
    """``{name: judged accuracy over the items whose record[field] == value}`` for each name."""
    return make_field_aggregations(field, values, judge_accuracy)


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
