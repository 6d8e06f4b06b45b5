"""Reading lm-eval output folders: results_*.json and, beside them, samples_<task>_<ts>.jsonl.

Every input problem a user can fix is one :class:`ReportInputError` naming the path: a path that does
not exist, a folder without results, a truncated JSON, a samples file given where a results file is
expected, a JSON that is not an lm-eval results file.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from lm_eval_persian_culture.errors import UserInputError
from lm_eval_persian_culture.scoring.records import json_error_text
from lm_eval_persian_culture.tasks._benchmark import TASKS_DIR, yaml_task_names


class ReportInputError(UserInputError):
    """An input of ``report``/``export`` is not what it should be; the message names it (exit 2, no traceback)."""


def _model_args(config: dict) -> dict[str, str]:
    raw = config.get("model_args") or ""
    if isinstance(raw, dict):
        return {str(k): str(v) for k, v in raw.items()}
    out = {}
    for part in str(raw).split(","):
        key, sep, value = part.partition("=")
        if sep:
            out[key.strip()] = value.strip()
    return out


@dataclass
class Run:
    """One results file of one lm-eval run."""

    path: Path
    data: dict
    samples_dir: Path
    timestamp: str
    _samples: dict[str, list[dict] | None] = field(default_factory=dict, repr=False)
    # lm-eval 0.5 names a group's members "<group>::<task>" in results and sample files; the report
    # reads them by task name (as 0.4 writes them) and finds the files under their written names
    sample_names: dict[str, str] = field(default_factory=dict, repr=False)

    @property
    def results(self) -> dict[str, dict]:
        return self.data.get("results", {})

    @property
    def groups(self) -> dict[str, list[str]]:
        return self.data.get("group_subtasks", {})

    @property
    def configs(self) -> dict[str, dict]:
        return self.data.get("configs", {})

    @cached_property
    def model_args(self) -> dict[str, str]:
        return _model_args(self.data.get("config") or {})

    @cached_property
    def model(self) -> str:
        """The evaluated model as users name it: pretrained=/model=, else lm-eval's model_name."""
        args = self.model_args
        for key in ("pretrained", "model", "model_name", "path"):
            if args.get(key):
                return args[key].rstrip("/")
        return str(self.data.get("model_name") or (self.data.get("config") or {}).get("model") or "unknown model")

    @property
    def model_label(self) -> str:
        """Short label for charts: the last path component of a local path."""
        return self.model.split("/")[-1] if self.model.startswith(("/", ".", "~")) else self.model

    def is_pack_task(self, task: str) -> bool:
        """Whether one of the pack's YAMLs defines this task or group (where it lives, not its name)."""
        return task in yaml_task_names()

    def task_metadata(self, task: str) -> dict:
        return (self.configs.get(task) or {}).get("metadata") or {}

    def n_samples(self, task: str) -> int | None:
        entry = (self.data.get("n-samples") or {}).get(task)
        if isinstance(entry, dict):
            n = entry.get("effective", entry.get("original"))
            return int(n) if isinstance(n, (int, float)) else None
        return None

    def samples(self, task: str) -> list[dict] | None:
        """The task's logged samples (None when the run was made without --log_samples)."""
        if task not in self._samples:
            path = self.samples_dir / f"samples_{self.sample_names.get(task, task)}_{self.timestamp}.jsonl"
            if not path.is_file():
                self._samples[task] = None
            else:
                rows = []
                for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
                    if not line.strip():
                        continue
                    try:
                        rows.append(json.loads(line))
                    except json.JSONDecodeError as err:
                        raise ReportInputError(
                            f"{path}: line {lineno} is not valid JSON "
                            f"({json_error_text(err, with_line=False)}): "
                            "the samples file is truncated or corrupt"
                        ) from None
                self._samples[task] = rows
        return self._samples[task]


_RESULTS_NAME = re.compile(r"^results_(?P<ts>.+)\.json$")
_SAMPLES_NAME = re.compile(r"^samples_.+\.jsonl?$")


def read_results_file(path: Path) -> dict:
    """An lm-eval results JSON, or one ReportInputError naming the file (before anything is drawn)."""
    return _load_results_file(Path(path)).data


def _load_results_file(path: Path) -> Run:
    if not path.exists():
        raise ReportInputError(f"{path}: no such file or folder")
    if _SAMPLES_NAME.match(path.name):
        raise ReportInputError(f"{path}: is a samples file; pass the results_*.json beside it, or the output folder")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ReportInputError(f"{path}: is not UTF-8 text, so not an lm-eval results file") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise ReportInputError(
            f"{path}: not valid JSON ({json_error_text(err)}); "
            "the file is truncated or corrupt: re-run, or pass another results file"
        ) from None
    if not isinstance(data, dict) or not isinstance(data.get("results"), dict):
        raise ReportInputError(
            f"{path}: not an lm-eval results file (no 'results' object); pass the results_<timestamp>.json "
            "that `lm_eval --output_path` writes"
        )
    match = _RESULTS_NAME.match(path.name)
    data, sample_names = unqualified_task_names(data)
    return Run(
        path=path,
        data=data,
        samples_dir=path.parent,
        timestamp=match.group("ts") if match else "",
        sample_names=sample_names,
    )


_PER_TASK_SECTIONS = ("results", "configs", "n-samples", "higher_is_better", "versions", "n-shot")


def unqualified_task_names(data: dict) -> tuple[dict, dict[str, str]]:
    """lm-eval 0.5's "<group>::<task>" keys as plain task names (0.4's), and {task: written name} for the
    samples files. A name that two qualified keys would share (one task under two groups) stays qualified."""
    written = {key for section in _PER_TASK_SECTIONS for key in (data.get(section) or {}) if "::" in key}
    leaves: dict[str, set[str]] = {}
    for key in written:
        leaves.setdefault(key.rsplit("::", 1)[1], set()).add(key)
    rename = {
        next(iter(keys)): leaf
        for leaf, keys in leaves.items()
        if len(keys) == 1 and not any(leaf in (data.get(s) or {}) for s in _PER_TASK_SECTIONS)
    }
    if not rename:
        return data, {}
    data = dict(data)
    for section in _PER_TASK_SECTIONS:
        if isinstance(data.get(section), dict):
            data[section] = {rename.get(k, k): v for k, v in data[section].items()}
    if isinstance(data.get("group_subtasks"), dict):
        data["group_subtasks"] = {
            rename.get(g, g): [rename.get(m, m) for m in members] for g, members in data["group_subtasks"].items()
        }
    return data, {leaf: key for key, leaf in rename.items()}


def load_runs(inputs: list[Path]) -> list[Run]:
    """Every results file under the inputs (files or folders), oldest first; errors name the input."""
    files: list[Path] = []
    for item in inputs:
        item = Path(item)
        if not item.exists():
            raise ReportInputError(f"{item}: no such file or folder")
        if item.is_dir():
            found = sorted(item.rglob("results_*.json"))
            if not found:
                raise ReportInputError(
                    f"{item}: no results_*.json in this folder or below; pass the --output_path of an lm-eval run"
                )
            files += found
        else:
            files.append(item)
    runs = [_load_results_file(f) for f in dict.fromkeys(files)]
    return sorted(runs, key=lambda r: (r.model, r.timestamp))


def known_task_versions() -> dict[str, Any]:
    """task -> metadata.version of the pack's YAMLs as installed (for stale-result warnings)."""
    import yaml

    class _Loader(yaml.SafeLoader):
        pass

    _Loader.add_constructor("!function", lambda loader, node: None)
    versions: dict[str, Any] = {}
    templates: dict[Path, dict] = {}
    for path in TASKS_DIR.rglob("*.yaml"):
        cfg = yaml.load(path.read_text(encoding="utf-8"), Loader=_Loader) or {}
        name = cfg.get("task") if isinstance(cfg.get("task"), str) else cfg.get("group")
        version = (cfg.get("metadata") or {}).get("version")
        if version is None and cfg.get("include"):
            inc = path.parent / cfg["include"]
            if inc not in templates:
                templates[inc] = yaml.load(inc.read_text(encoding="utf-8"), Loader=_Loader) or {}
            version = (templates[inc].get("metadata") or {}).get("version")
        if name:
            versions[name] = version
    return versions
