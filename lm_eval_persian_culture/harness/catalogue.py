"""What the pack offers, read from its own YAML index (no built-ins)."""

from __future__ import annotations


def pack_task_names() -> list[str]:
    """Every task and group the pack defines (tags excluded), sorted."""
    import lm_eval_persian_culture as pack

    tm = pack.task_manager(include_defaults=False)
    return sorted(set(tm.all_subtasks) | set(tm.all_groups))
