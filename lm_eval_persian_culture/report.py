"""Charts from lm-eval results JSON: ``lm-eval-persian report OUT/ --out charts/``.

People would rather look at a chart than at forty numbers. For every results file found, this
draws (1) the main metric of each pack task and group, (2) each metric family that breaks a task
down (``accuracy_topic_*``, per-gender, per-prompt, ...) as its own bar chart. Error bars are
drawn where lm-eval reports a numeric stderr.
"""

from __future__ import annotations

import argparse
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

MAIN_METRICS = ("accuracy",)
# metric-name prefix -> chart title; a task gets one chart per family it reports
FAMILIES = {
    "accuracy_topic_": "accuracy by topic",
    "accuracy_": "accuracy by group",
}
SKIP_SUFFIXES = ("_stderr", "_std")


@dataclass
class Chart:
    title: str
    labels: list[str] = field(default_factory=list)
    values: list[float] = field(default_factory=list)
    errors: list[float | None] = field(default_factory=list)

    def add(self, label: str, value: float, error: float | None = None) -> None:
        self.labels.append(label)
        self.values.append(value)
        self.errors.append(error)


def _is_number(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and not math.isnan(x)


def _split(key: str) -> tuple[str, str]:
    metric, _, filt = key.partition(",")
    return metric, filt


def _is_pack_task(name: str, results: dict) -> bool:
    cfg = results.get("configs", {}).get(name, {})
    meta = cfg.get("metadata") or {}
    return bool(meta.get("paper")) or name in results.get("group_subtasks", {})


def charts_for(results: dict) -> list[Chart]:
    """The charts one results JSON calls for (pure: easy to test, no drawing)."""
    overview = Chart("main metric per task and group")
    families: dict[tuple[str, str], Chart] = {}
    for task, metrics in sorted(results.get("results", {}).items()):
        for key, value in metrics.items():
            metric, filt = _split(key)
            if not filt or not _is_number(value) or metric.endswith(SKIP_SUFFIXES):
                continue
            stderr = metrics.get(f"{metric}_stderr,{filt}")
            stderr = stderr if _is_number(stderr) else None
            if metric in MAIN_METRICS:
                overview.add(task, value, stderr)
                continue
            for prefix, title in FAMILIES.items():
                if metric.startswith(prefix):
                    chart = families.setdefault((task, prefix), Chart(f"{task}: {title}"))
                    chart.add(metric[len(prefix):].replace("_", " "), value, stderr)
                    break
    out = [overview] if overview.labels else []
    return out + [c for c in families.values() if len(c.labels) > 1]


def draw(chart: Chart, path: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    height = max(2.5, 0.38 * len(chart.labels) + 1.2)
    fig, ax = plt.subplots(figsize=(8, height))
    y = range(len(chart.labels))
    errs = [e if e is not None else 0.0 for e in chart.errors]
    ax.barh(list(y), chart.values, xerr=errs if any(errs) else None, color="#3b7dd8", capsize=3)
    ax.set_yticks(list(y), chart.labels)
    ax.invert_yaxis()
    lo = min(0.0, *chart.values)
    ax.set_xlim(lo, max(1.0, *chart.values))
    for i, v in enumerate(chart.values):
        ax.text(v, i, f" {v:.3f}", va="center", fontsize=8)
    ax.set_title(chart.title)
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def read_results_file(path: Path) -> dict:
    """An lm-eval results JSON, or one clear error naming the file (raised before anything is drawn)."""
    from lm_eval_persian_culture.preflight import UserInputError

    if not path.exists():
        raise UserInputError(f"{path}: no such file or folder")
    if path.name.startswith("samples_") or path.suffix == ".jsonl":
        raise UserInputError(
            f"{path}: this is a samples file (one JSON record per line); report reads the results_*.json "
            "beside it, or the whole output folder"
        )
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError:
        raise UserInputError(f"{path}: not a text file; report reads lm-eval results_*.json files") from None
    except json.JSONDecodeError as err:
        raise UserInputError(
            f"{path}: not valid JSON ({err.msg} at line {err.lineno}, column {err.colno}); the file looks "
            "truncated or corrupted (a run killed while writing it?)"
        ) from None
    if not isinstance(data, dict) or not isinstance(data.get("results"), dict):
        raise UserInputError(
            f"{path}: not an lm-eval results file (no \"results\" object); report reads the results_*.json "
            "files lm-eval writes under --output_path"
        )
    return data


def report(inputs: list[Path], out_dir: Path) -> list[Path]:
    from lm_eval_persian_culture.preflight import UserInputError

    files = []
    for item in inputs:
        if not item.exists():
            raise UserInputError(f"{item}: no such file or folder")
        files += sorted(item.rglob("results_*.json")) if item.is_dir() else [item]
    if not files:
        raise UserInputError(f"no results_*.json found in {', '.join(map(str, inputs))}")
    loaded = [(f, read_results_file(f)) for f in files]  # every input checked before drawing
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for f, results in loaded:
        stem = f.stem.replace("results_", "")
        for i, chart in enumerate(charts_for(results)):
            name = re.sub(r"[^A-Za-z0-9_.-]+", "_", chart.title)[:80]
            written.append(draw(chart, out_dir / f"{stem}_{i:02d}_{name}.png"))
    return written


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="lm-eval-persian report", description=__doc__.splitlines()[0])
    parser.add_argument("inputs", nargs="+", type=Path, help="results_*.json files or output folders")
    parser.add_argument("--out", type=Path, default=Path("charts"), help="folder for the PNG charts")
    args = parser.parse_args(argv)
    for path in report(args.inputs, args.out):
        print(path)


if __name__ == "__main__":
    main()
