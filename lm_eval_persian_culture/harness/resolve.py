"""What a run asks of the pack, read through lm-eval's index: which pack tasks its ``--tasks`` reach.

* :func:`resolve_pack_tasks` -- the pack's leaf tasks reached from the requested names (groups and tags
  expanded through lm-eval's task index and YAML loader; built-in tasks ignored; a misspelt name becomes a
  problem with the closest pack task suggested);
* :func:`pack_engaged` -- does a call name a pack task at all? If not, every patch stays out of lm-eval's
  way (and where lm-eval lacks what resolution reads, ``compat`` switches the pre-flight off);
* the run's own settings as the pack reads them: :func:`task_names` (``--tasks``), :func:`parse_model_args`
  (``--model_args``) and :func:`parse_metadata` (``--metadata`` JSON, a user error when malformed).

Nothing heavy at import: lm-eval's modules are imported only when a name is resolved.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

from lm_eval_persian_culture.errors import UserInputError
from lm_eval_persian_culture.harness import compat
from lm_eval_persian_culture.harness.catalogue import in_pack, pack_names, suggest


class ProblemSink(Protocol):
    """Where resolution reports an unknown name (the pre-flight's report)."""

    def add_problem(self, kind: str, message: str, task: str | None = None) -> None: ...


def _looks_like_path(spec: str) -> bool:
    return spec.endswith((".yaml", ".yml")) or os.sep in spec or Path(spec).exists()


def resolve_pack_tasks(task_manager, specs: Sequence[Any], report: ProblemSink) -> dict[str, Any]:
    """Pack leaf tasks (name -> index entry) reached from ``specs``; unknown names become problems."""
    from lm_eval.tasks._index import Kind
    from lm_eval.tasks._yaml_loader import load_yaml

    index = compat.task_index(task_manager)
    leaves: dict[str, Any] = {}
    seen: set[str] = set()

    def visit(name: str) -> None:
        if name in seen or name not in index:
            return
        seen.add(name)
        entry = index[name]
        if entry.kind == Kind.TAG:
            for member in sorted(entry.tags):
                visit(member)
        elif entry.kind == Kind.GROUP:
            if entry.yaml_path is None:
                return
            members = load_yaml(entry.yaml_path, resolve_func=False).get("task") or []
            for member in members if isinstance(members, list) else [members]:
                if isinstance(member, dict):
                    member = member.get("task") or member.get("group")
                if isinstance(member, str):
                    visit(member)
        elif in_pack(entry.yaml_path):
            leaves[name] = entry

    candidates = None
    for spec in specs:
        if not isinstance(spec, str):
            continue  # Task objects and inline dicts: the user built them, lm-eval checks them
        if spec in index:
            visit(spec)
        elif not _looks_like_path(spec):
            candidates = candidates if candidates is not None else pack_names(task_manager)
            report.add_problem("task", f"task {spec!r} not found{suggest(spec, candidates)}")
    return leaves


def pack_engaged(names: Sequence[Any]) -> bool:
    """Does this call name a pack task? If not, the pack stays out of lm-eval's way entirely."""
    if compat.is_off("the pre-flight"):
        return False
    missing = compat.preflight_missing()
    if missing:
        compat.switch_off("the pre-flight", missing)
        return False
    try:
        from lm_eval_persian_culture.harness.discovery import names_pack_tasks

        return names_pack_tasks(names)
    except Exception as err:  # noqa: BLE001 - never raise inside lm-eval
        compat.switch_off("the pre-flight", f"what it reads ({type(err).__name__}: {err})")
        return False


def task_names(tasks: Any) -> list[str]:
    """The --tasks value (``a,b`` or a list) as names; paths and patterns stay as given."""
    if not tasks:
        return []
    items = tasks.split(",") if isinstance(tasks, str) else [str(t) for t in tasks]
    return [t.strip() for t in items if t.strip()]


def parse_model_args(model_args: Any) -> dict:
    if isinstance(model_args, dict):
        return dict(model_args)
    if isinstance(model_args, str) and model_args.strip():
        from lm_eval.utils import simple_parse_args_string

        return simple_parse_args_string(model_args)
    return {}


def parse_metadata(text: str | None) -> dict:
    if not text:
        return {}
    try:
        value = json.loads(text)
    except json.JSONDecodeError as err:
        from lm_eval_persian_culture.scoring.records import json_error_text

        raise UserInputError(f"--metadata is not valid JSON ({json_error_text(err)}): {text}") from None
    if not isinstance(value, dict):
        raise UserInputError(f"--metadata must be a JSON object, got {type(value).__name__}")
    return value


__all__ = ["ProblemSink", "pack_engaged", "parse_metadata", "parse_model_args", "resolve_pack_tasks", "task_names"]
