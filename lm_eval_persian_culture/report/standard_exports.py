"""Two standard result formats that leaderboards and model cards read, written from the export's rows.

* ``eee``: Every Eval Ever (https://github.com/evaleval/every_eval_ever, schema 0.3.0, ``eval.schema.json``):
  one evaluation record per model and benchmark, at ``<out>/<benchmark>/<developer>/<model>/<uuid>.json`` (the
  layout of EEE's ``data/`` folder). Each leaderboard column is one ``evaluation_results`` entry: the score, its
  95% interval (``uncertainty.confidence_interval``, Wilson or cluster bootstrap as in the report), ``n``
  (``uncertainty.num_samples``), the judge or jury (``metric_config.llm_scoring.judges``, one entry per juror),
  and the subset flag with the docs scored (``score_details.details``).
* ``eval-results``: Hugging Face's model-card results (https://huggingface.co/docs/hub/eval-results), one
  ``<out>/.eval_results/<column>.yaml`` per column: ``dataset.id`` (the benchmark's dataset on the Hub),
  ``dataset.task_id``, ``value``, ``date``, and ``notes`` carrying the metric, interval, n, judge and subset
  (the format has no fields for them). The format needs a Hub dataset id: a benchmark whose data is not on the
  Hub is written only when ``hub_datasets`` names one (``--hub-dataset taarof=org/name``), else left out with
  a warning.
"""

from __future__ import annotations

import json
import re
import uuid
from datetime import datetime, timezone
from pathlib import Path

from lm_eval_persian_culture._version import __version__
from lm_eval_persian_culture.report.benchmarks import SIGNED_METRICS, benchmark_of
from lm_eval_persian_culture.report.columns import leaderboard_columns, scored_docs
from lm_eval_persian_culture.report.judges import JudgeInfo
from lm_eval_persian_culture.report.runs import Run
from lm_eval_persian_culture.report.scores import Score, score
from lm_eval_persian_culture.tasks._benchmark import all_datasets

EEE_SCHEMA_VERSION = "0.3.0"
LOCAL_ENGINES = {"hf": "transformers", "vllm": "vllm", "sglang": "sglang", "hf-multimodal": "transformers"}
SERVED = {"openai-completions", "openai-chat-completions", "anthropic-completions", "anthropic-chat-completions"}


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_") or "x"


def _run_date(run: Run) -> str | None:
    """When the run was made (lm-eval's ``date``, a Unix time), ISO-8601 UTC; None when not recorded."""
    date = run.data.get("date")
    if isinstance(date, (int, float)) and not isinstance(date, bool):
        return datetime.fromtimestamp(date, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    return None


def column_scores(row: dict, resamples: int) -> list[tuple[str, str, str, Score]]:
    """(column, task, metric, Score with n and interval) for each filled column of an export row."""
    out = []
    for column, task, metric in leaderboard_columns():
        run = row["sources"].get(column)
        if run is None:
            continue
        found = score(run, task, metric, resamples)
        if found is not None:
            out.append((column, task, metric, found))
    return out


def _details(row: dict, column: str, task: str, s: Score) -> dict[str, str]:
    """Strings for a result's details: n, interval method, subset and docs scored, judge."""
    out = {"task": task, "metric": s.metric, "n": str(s.n) if s.n else "unknown"}
    counts = scored_docs(s.run, task)
    if counts:
        out.update(docs_scored=str(counts[0]), docs_total=str(counts[1]))
    out["subset"] = "true" if column in row["subsets"] else ("false" if counts else "unknown")
    if column in row["subsets"]:
        out["subset_note"] = row["subsets"][column]
    if s.has_interval:
        out["interval"] = f"95% [{s.low:.6g}, {s.high:.6g}] ({s.method})"
    judge = row["judges"].get(column)
    if judge is not None:
        out["judge"] = judge.label
    return out


# --------------------------------------------------------------------------- Every Eval Ever
def _model_kind(run: Run) -> tuple[str, str]:
    """(deployment_type, model_availability) as the run says it: weights loaded by the run are self-deployed
    open weights; an API model is externally managed; anything else is unknown."""
    backend = str((run.data.get("config") or {}).get("model") or "")
    if backend in LOCAL_ENGINES:
        return "self_deployed", "open_weights"
    if backend in SERVED:
        return "externally_managed", "unknown"
    return "unknown", "unknown"


def _eee_model_info(row: dict, run: Run) -> dict:
    deployment, availability = _model_kind(run)
    details = {"deployment_type": deployment, "model_availability": availability}
    for key, value in (
        ("num_parameters", row["params"]),
        ("dtype", row["precision"]),
        ("revision", row["revision"]),
        ("sha", row["sha"]),
        ("license", row["license"]),
    ):
        if value:
            details[key] = str(value)
    info = {"name": row["model"], "id": row["model"], "additional_details": details}
    if "/" in row["model"] and not row["model"].startswith(("/", ".", "~")):
        info["developer"] = row["model"].split("/")[0]
    backend = str((run.data.get("config") or {}).get("model") or "")
    if backend in LOCAL_ENGINES:
        info["inference_engine"] = {"name": LOCAL_ENGINES[backend]}
    return info


def _judge_model_info(member: dict) -> dict:
    name = str(member["model"])
    local = name.startswith("hf:") or member.get("backend", "").startswith("transformers")
    details = {
        "deployment_type": "self_deployed" if local else "unknown",
        "model_availability": "open_weights" if local else "unknown",
    }
    for key in ("backend", "revision", "base_url"):
        if isinstance(member.get(key), str) and member[key]:
            details[key] = member[key]
    return {"name": name, "id": name.removeprefix("hf:"), "additional_details": details}


def _leaf_metadata(run: Run, task: str) -> dict:
    """The task's metadata, or for a group its first member's (where the judge and prompt are recorded)."""
    members = run.groups.get(task)
    return _leaf_metadata(run, members[0]) if members else run.task_metadata(task)


def _llm_scoring(judge: JudgeInfo, run: Run, task: str) -> dict:
    judges = []
    for member in judge.members or tuple({"model": m} for m in judge.models):
        entry: dict = {"model_info": _judge_model_info(member)}
        t = member.get("temperature")
        if isinstance(t, (int, float)) and not isinstance(t, bool):
            entry["temperature"] = float(t)
        judges.append(entry)
    source = _leaf_metadata(run, task).get("prompt_source")
    out = {
        "judges": judges,
        "input_prompt": f"the judge prompt of the pack's task {task}"
        + (f" (from {source})" if isinstance(source, str) and source else ""),
        "additional_details": {"jury": "true" if judge.is_jury else "false"},
    }
    if judge.is_jury:
        if "majority" in judge.rule.lower():
            out["aggregation_method"] = "majority_vote"
        if judge.rule:
            out["additional_details"]["rule"] = judge.rule
    return out


def _source_data(task: str) -> dict:
    dataset = next((d for d in all_datasets() if d.serves(task)), None)
    if dataset is not None and dataset.hub_repo:
        return {"dataset_name": dataset.name, "source_type": "hf_dataset", "hf_repo": dataset.hub_repo}
    out: dict = {"dataset_name": dataset.name if dataset else task, "source_type": "other"}
    if dataset is not None and dataset.online:
        out["additional_details"] = {"source": dataset.online}
    return out


def _eee_result(row: dict, column: str, task: str, s: Score, resamples: int) -> dict:
    bench = benchmark_of(task)
    signed = s.metric in SIGNED_METRICS
    bounded = bench is not None and (s.metric in bench.proportions or signed)
    metric_config: dict = {
        "evaluation_description": f"{column}: {task} {s.metric}",
        "metric_id": f"{bench.name if bench else task}.{s.metric}",
        "metric_name": s.metric,
        "metric_unit": "proportion" if bounded else "points",
        "lower_is_better": False,
        "score_type": "continuous",
        "min_score": (-1.0 if signed else 0.0) if bounded else None,
        "max_score": 1.0 if bounded else None,
    }
    judge = row["judges"].get(column)
    if judge is not None:
        metric_config["llm_scoring"] = _llm_scoring(judge, s.run, task)
    uncertainty: dict = {}
    if s.has_interval:
        uncertainty["confidence_interval"] = {
            "lower": s.low,
            "upper": s.high,
            "confidence_level": 0.95,
            "method": {"wilson": "wilson", "bootstrap": "cluster bootstrap over items", "stderr": "normal"}.get(
                s.method, s.method
            ),
        }
    if s.n:
        uncertainty["num_samples"] = int(s.n)
    if s.method == "bootstrap":
        uncertainty["num_bootstrap_samples"] = resamples
    details = {"score": s.value, "details": _details(row, column, task, s)}
    if uncertainty:
        details["uncertainty"] = uncertainty
    result = {
        "evaluation_result_id": f"{task}/{s.metric}",
        "evaluation_name": column,
        "source_data": _source_data(task),
        "metric_config": metric_config,
        "score_details": details,
    }
    date = _run_date(s.run)
    if date:
        result["evaluation_timestamp"] = date
    return result


def eee_records(rows: list[dict], resamples: int = 1000) -> list[tuple[str, dict]]:
    """(benchmark, EEE record) per model and benchmark with at least one filled column."""
    retrieved = str(int(datetime.now(timezone.utc).timestamp()))
    records = []
    for row in rows:
        by_bench: dict[str, list] = {}
        for column, task, metric, s in column_scores(row, resamples):
            by_bench.setdefault(benchmark_of(task).name, []).append((column, task, metric, s))
        for bench_name, entries in by_bench.items():
            run = entries[-1][3].run
            record = {
                "schema_version": EEE_SCHEMA_VERSION,
                "evaluation_id": f"{bench_name}/{row['model']}/{retrieved}",
                "retrieved_timestamp": retrieved,
                "source_metadata": {
                    "source_name": "lm-eval-persian-culture",
                    "source_type": "evaluation_run",
                    "source_organization_name": "unknown",  # who ran it: the results files do not say
                    "evaluator_relationship": "other",
                    "additional_details": {"results_files": ", ".join(sorted({str(e[3].run.path) for e in entries}))},
                },
                "model_info": _eee_model_info(row, run),
                "eval_library": {
                    "name": "lm_eval",
                    "version": str(run.data.get("lm_eval_version") or "unknown"),
                    "additional_details": {"task_pack": "lm-eval-persian-culture", "task_pack_version": __version__},
                },
                "evaluation_results": [_eee_result(row, c, t, s, resamples) for c, t, _m, s in entries],
            }
            date = _run_date(run)
            if date:
                record["evaluation_timestamp"] = date
            records.append((bench_name, record))
    return records


def write_eee(rows: list[dict], out: Path, resamples: int = 1000) -> list[Path]:
    written = []
    for bench_name, record in eee_records(rows, resamples):
        model = record["model_info"]["id"]
        developer = record["model_info"].get("developer", "local")
        name = model.split("/")[-1] or "model"
        files = record["source_metadata"]["additional_details"]["results_files"]
        stable = uuid.uuid5(uuid.NAMESPACE_URL, f"{bench_name}/{model}/{files}")  # the same runs: the same name
        path = out / _slug(bench_name) / _slug(developer) / _slug(name) / f"{stable}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(record, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        written.append(path)
    return written


# --------------------------------------------------------------------------- .eval_results (model card)
def hub_dataset_of(task: str, hub_datasets: dict[str, str]) -> str | None:
    """The Hub dataset id of the benchmark a task belongs to: the user's (by benchmark name) or its declared one."""
    bench = benchmark_of(task)
    if bench is not None and bench.name in hub_datasets:
        return hub_datasets[bench.name]
    dataset = next((d for d in all_datasets() if d.serves(task)), None)
    return dataset.hub_repo if dataset is not None and dataset.hub_repo else None


def eval_results_notes(row: dict, column: str, task: str, s: Score) -> str:
    """The ``notes`` string: metric, interval, n, judge, subset ('; '-separated 'key: value' parts)."""
    d = _details(row, column, task, s)
    parts = [f"lm-eval-persian-culture {__version__}", f"task: {task}", f"metric: {s.metric}", f"n: {d['n']}"]
    if "interval" in d:
        parts.append(f"interval: {d['interval']}")
    parts.append(f"judge: {d.get('judge', 'none')}")
    parts.append("subset: " + (d["subset_note"] if d["subset"] == "true" else d["subset"]))
    return "; ".join(parts)


def eval_result_entries(
    row: dict, resamples: int = 1000, hub_datasets: dict[str, str] | None = None, warnings: list[str] | None = None
) -> list[tuple[str, dict]]:
    """(file stem, one .eval_results entry as YAML data) per filled column that has a Hub dataset id."""
    hub_datasets = hub_datasets or {}
    tasks_per_dataset: dict[tuple[str, str], int] = {}
    for _c, task, _m in leaderboard_columns():
        key = (str(hub_dataset_of(task, hub_datasets)), task)
        tasks_per_dataset[key] = tasks_per_dataset.get(key, 0) + 1
    out = []
    for column, task, metric, s in column_scores(row, resamples):
        dataset_id = hub_dataset_of(task, hub_datasets)
        if dataset_id is None:
            if warnings is not None:
                bench = benchmark_of(task)
                warnings.append(
                    f"{row['model']}: '{column}' not written to .eval_results: the format needs the benchmark's "
                    f"dataset on the Hugging Face Hub and {bench.title} declares none; name one with "
                    f"--hub-dataset {bench.name}=<org/name>"
                )
            continue
        # one task with several columns (DivanBench's three accuracies): the metric tells them apart
        task_id = task if tasks_per_dataset[(dataset_id, task)] == 1 else f"{task}_{metric}"
        entry: dict = {"dataset": {"id": dataset_id, "task_id": task_id}, "value": s.value}
        date = _run_date(s.run)
        if date:
            entry["date"] = date
        entry["notes"] = eval_results_notes(row, column, task, s)
        out.append((_slug(column).lower(), entry))
    return out


def write_eval_results(
    rows: list[dict],
    out: Path,
    resamples: int = 1000,
    hub_datasets: dict[str, str] | None = None,
    warnings: list[str] | None = None,
) -> list[Path]:
    """``<out>/.eval_results/<column>.yaml`` (one model) or ``<out>/<model>/.eval_results/<column>.yaml``."""
    import yaml

    written = []
    for row in rows:
        folder = (out if len(rows) == 1 else out / _slug(row["model"])) / ".eval_results"
        for stem, entry in eval_result_entries(row, resamples, hub_datasets, warnings):
            folder.mkdir(parents=True, exist_ok=True)
            path = folder / f"{stem}.yaml"
            path.write_text(yaml.safe_dump([entry], allow_unicode=True, sort_keys=False), encoding="utf-8")
            written.append(path)
    return written


__all__ = ["eee_records", "eval_result_entries", "write_eee", "write_eval_results"]
