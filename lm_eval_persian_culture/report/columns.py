"""The leaderboard columns every benchmark folder declares, and how much of a task a run scored (for the
exports: a score resting on a --limit subset is never passed off as the whole)."""

from __future__ import annotations

from lm_eval_persian_culture.report.benchmarks import benchmarks
from lm_eval_persian_culture.report.runs import Run


def leaderboard_columns() -> list[tuple[str, str, str]]:
    return [col for bench in benchmarks().values() for col in bench.leaderboard]


def scored_docs(run: Run, task: str) -> tuple[int, int] | None:
    """(docs scored, docs the task has) for a task or group (summed over its leaves), or None if not logged."""

    def leaves(name: str) -> list[str]:  # a group's members may be groups themselves (persian_culture)
        members = run.groups.get(name)
        return [leaf for m in members for leaf in leaves(m)] if members else [name]

    counts = [(run.data.get("n-samples") or {}).get(t) for t in leaves(task)]
    if not counts or not all(isinstance(c, dict) for c in counts):
        return None
    try:
        effective = sum(int(c.get("effective", c["original"])) for c in counts)
        original = sum(int(c["original"]) for c in counts)
    except (KeyError, TypeError, ValueError):
        return None
    return effective, original


def subset_note(run: Run, task: str) -> str | None:
    """'12 of 450 docs (--limit 12)' when the run scored fewer docs of the task than it has, else None."""
    counts = scored_docs(run, task)
    if counts is None or counts[0] >= counts[1]:
        return None
    limit = (run.data.get("config") or {}).get("limit")
    shown = f" (--limit {limit:g})" if isinstance(limit, (int, float)) and not isinstance(limit, bool) else ""
    return f"{counts[0]} of {counts[1]} docs{shown}"


__all__ = ["leaderboard_columns", "scored_docs", "subset_note"]
