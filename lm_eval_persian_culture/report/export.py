"""``lm-eval-persian export RESULTS... --format partai|hf-leaderboard|csv``.

* ``csv``: one row per model, every pack leaderboard column (fractions as reported) plus model info.
* ``partai``: the flat row the Open Persian LLM Leaderboard publishes: model, precision, parameters
  (billions), one column per benchmark score in percent with two decimals, model sha.
* ``hf-leaderboard``: the Hugging Face leaderboard template's results file
  (``{"config": {"model_dtype", "model_name", "model_sha"}, "results": {task: {metric: value}}}``) and the
  eval-request file the template's backend expects beside it (``status: FINISHED``).

The columns come from ``benchmarks.BENCHMARKS[...].leaderboard``: (column, task, metric); a model whose runs
lack a task leaves its column empty, never 0.
"""

from __future__ import annotations

import csv
import json
import re
from datetime import datetime, timezone
from pathlib import Path

from lm_eval_persian_culture.report.benchmarks import BENCHMARKS
from lm_eval_persian_culture.report.runs import Run, load_runs
from lm_eval_persian_culture.report.scores import task_metrics

FORMATS = ("partai", "hf-leaderboard", "csv")


def leaderboard_columns() -> list[tuple[str, str, str]]:
    return [col for bench in BENCHMARKS.values() for col in bench.leaderboard]


def _model_info(runs: list[Run]) -> dict:
    info = {"model": runs[-1].model, "precision": "", "params_b": None, "sha": "", "revision": ""}
    for run in runs:
        config = run.data.get("config") or {}
        dtype = str(config.get("model_dtype") or run.model_args.get("dtype") or "")
        info["precision"] = info["precision"] or dtype.replace("torch.", "")
        n = config.get("model_num_parameters")
        if isinstance(n, (int, float)) and n > 0:
            info["params_b"] = n / 1e9
        info["sha"] = info["sha"] or str(config.get("model_sha") or "")
        info["revision"] = info["revision"] or str(config.get("model_revision") or run.model_args.get("revision") or "")
    return info


def model_rows(runs: list[Run]) -> list[dict]:
    """One dict per model: info plus {column: value} from the latest run that has the task."""
    by_model: dict[str, list[Run]] = {}
    for run in runs:
        by_model.setdefault(run.model, []).append(run)
    rows = []
    for model, model_runs in by_model.items():
        row = _model_info(model_runs)
        scores = {}
        for column, task, metric in leaderboard_columns():
            for run in reversed(model_runs):  # latest first
                metrics = task_metrics(run, task)
                if metric in metrics:
                    scores[column] = metrics[metric][1]
                    break
        row["scores"] = scores
        rows.append(row)
    return rows


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("_") or "model"


def export(inputs: list[Path], fmt: str, out: Path) -> list[Path]:
    runs = load_runs(inputs)
    rows = model_rows(runs)
    columns = [c for c, _, _ in leaderboard_columns()]
    written = []
    if fmt in ("csv", "partai"):
        out.parent.mkdir(parents=True, exist_ok=True)
        with open(out, "w", encoding="utf-8", newline="") as f:
            writer = csv.writer(f)
            if fmt == "csv":
                writer.writerow(["model", "precision", "parameters", "model_sha", *columns])
                for r in rows:
                    writer.writerow([r["model"], r["precision"], "" if r["params_b"] is None else r["params_b"] * 1e9,
                                     r["sha"], *[r["scores"].get(c, "") for c in columns]])
            else:
                writer.writerow(["Model", "Precision", "#Params (B)", *columns, "Model sha"])
                for r in rows:
                    writer.writerow([r["model"], r["precision"], "" if r["params_b"] is None else f"{r['params_b']:.2f}",
                                     *[f"{100 * r['scores'][c]:.2f}" if c in r["scores"] else "" for c in columns],
                                     r["sha"]])
        written.append(out)
    elif fmt == "hf-leaderboard":
        out.mkdir(parents=True, exist_ok=True)
        now = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        for r in rows:
            results = {}
            for column, task, metric in leaderboard_columns():
                if column in r["scores"]:
                    results.setdefault(task, {})[metric] = r["scores"][column]
            payload = {"config": {"model_dtype": r["precision"], "model_name": r["model"], "model_sha": r["sha"]},
                       "results": results}
            request = {"model": r["model"], "base_model": "", "revision": r["revision"] or "main",
                       "precision": r["precision"], "weight_type": "Original", "status": "FINISHED",
                       "submitted_time": now, "model_type": "", "likes": 0,
                       "params": round(r["params_b"], 3) if r["params_b"] is not None else 0, "license": "?"}
            res_path = out / "results" / _safe(r["model"]) / f"results_{now.replace(':', '-')}.json"
            req_path = out / "requests" / f"{_safe(r['model'])}_eval_request_False_{r['precision'] or 'unknown'}_Original.json"
            for path, data in ((res_path, payload), (req_path, request)):
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(json.dumps(data, indent=2, ensure_ascii=False), encoding="utf-8")
                written.append(path)
    else:
        raise ValueError(f"unknown format {fmt!r}; expected one of {FORMATS}")
    return written
