"""``lm-eval-persian export RESULTS... --format partai|hf-leaderboard|csv|eee|eval-results``.

* ``csv``: one row per model, every pack leaderboard column (fractions as reported) plus model info and judge.
* ``partai``: the flat row the Open Persian LLM Leaderboard publishes: model, precision, parameters
  (billions), one column per benchmark score in percent with two decimals, model sha, subset, judge.
* ``hf-leaderboard``: the Hugging Face leaderboard template's results file
  (``{"config": {"model_dtype", "model_name", "model_sha", "judge"?}, "results": {task: {metric: value}}}``)
  and the eval-request file the template's backend expects beside it (``status: FINISHED``); facts about the
  model that nothing records (revision, parameters, license) are left out, never defaulted.
* ``eee`` and ``eval-results``: Every Eval Ever records and Hugging Face model-card ``.eval_results`` YAML
  (standard_exports.py), with intervals, n, the judge and the subset flag.

Model facts come from the results JSON, else the model's own files (model_facts.py). The judge of a column is
the judge (or jury) its run recorded (judges.py).

The columns come from each benchmark folder's ``benchmark.py`` (``leaderboard``): (column, task, metric); a
model whose runs lack a task leaves its column empty, never 0, with a warning when its runs hold a task that
could be taken for it: a part of it (``taarof_expected`` is 311 of TaarofBench's 450 scenarios, not the
``taarof`` column's number) or a variant (``taraz_percul_saq_judged``); another task of the same benchmark
(``taraz_blend`` beside an empty ``taraz_percul_saq``) is no stand-in and gets no warning.

A leaderboard row must not rest on a subset silently: a score from a run cut by ``--limit`` (fewer docs
scored than the task has) is refused, unless ``allow_subset`` is given; then the row says so in its
``Subset`` column (``config.subset`` in the hf-leaderboard file).
"""

from __future__ import annotations

import csv
import json
import re
from datetime import datetime, timezone
from functools import cache
from pathlib import Path

from lm_eval_persian_culture.report.columns import leaderboard_columns, scored_docs, subset_note
from lm_eval_persian_culture.report.judges import task_judge
from lm_eval_persian_culture.report.model_facts import is_hub_id, model_facts
from lm_eval_persian_culture.report.runs import ReportInputError, Run, load_runs
from lm_eval_persian_culture.report.scores import task_metrics
from lm_eval_persian_culture.report.standard_exports import write_eee, write_eval_results
from lm_eval_persian_culture.tasks._benchmark import task_yamls

FORMATS = ("partai", "hf-leaderboard", "csv", "eee", "eval-results")


def _model_info(runs: list[Run]) -> dict:
    """Model facts for a leaderboard row: what the results JSON records, else what the model's own files say
    (model_facts: a local folder or the hub cache); a fact found nowhere stays empty, never invented."""
    model = runs[-1].model
    info = {"model": model, "precision": "", "params": None, "sha": "", "revision": "", "license": ""}
    asked_revision = ""
    for run in runs:
        config = run.data.get("config") or {}
        dtype = str(config.get("model_dtype") or run.model_args.get("dtype") or "")
        info["precision"] = info["precision"] or dtype.replace("torch.", "")
        n = config.get("model_num_parameters")
        if isinstance(n, (int, float)) and not isinstance(n, bool) and n > 0:
            info["params"] = int(n)  # a count: kept whole, never n / 1e9 * 1e9
        info["sha"] = info["sha"] or str(config.get("model_sha") or "")
        asked_revision = asked_revision or str(run.model_args.get("revision") or config.get("model_revision") or "")
    facts = model_facts(model, asked_revision if is_hub_id(model) else None)
    info["params"] = info["params"] or facts["params"]
    info["sha"] = info["sha"] or facts["revision"] or ""
    # a hub id was run at the revision it was asked for (lm-eval records "main" by default); a local folder has
    # a revision only as a hub-cache snapshot (its commit)
    info["revision"] = info["sha"] or (asked_revision if is_hub_id(model) else "")
    info["license"] = facts["license"] or ""
    return info


def model_rows(runs: list[Run]) -> list[dict]:
    """One dict per model: info, {column: value} from the latest run that has the task, {column: subset note}
    for scores resting on a subset, {column: the run it came from}, {column: its judge (JudgeInfo)} for judged
    columns, and warnings for columns left empty though a task that stands in for it ran."""
    by_model: dict[str, list[Run]] = {}
    for run in runs:
        by_model.setdefault(run.model, []).append(run)
    rows = []
    for model, model_runs in by_model.items():
        row = _model_info(model_runs)
        scores, subsets, warnings, sources, judges = {}, {}, [], {}, {}
        for column, task, metric in leaderboard_columns():
            for run in reversed(model_runs):  # latest first
                metrics = task_metrics(run, task)
                if metric in metrics:
                    scores[column], sources[column] = metrics[metric][1], run
                    judge = task_judge(run, task)
                    if judge is not None:
                        judges[column] = judge
                    note = subset_note(run, task)
                    if note:
                        subsets[column] = f"{column}: {note}"
                    break
            else:
                warning = _empty_column_warning(model, model_runs, column, task, metric)
                if warning and warning not in warnings:
                    warnings.append(warning)
        row.update(scores=scores, subsets=subsets, warnings=warnings, sources=sources, judges=judges)
        rows.append(row)
    return rows


@cache
def _pack_groups() -> dict[str, list[str]]:
    """{group: its members} as the pack's group YAMLs list them."""
    import yaml

    class _Loader(yaml.SafeLoader):
        pass

    _Loader.add_constructor("!function", lambda loader, node: None)
    groups = {}
    for name, path in task_yamls().items():
        cfg = yaml.load(path.read_text(encoding="utf-8"), Loader=_Loader) or {}
        if cfg.get("group") == name and isinstance(cfg.get("task"), list):
            groups[name] = [m for m in cfg["task"] if isinstance(m, str)]
    return groups


def stands_in_for(other: str, task: str) -> bool:
    """Whether a run of ``other`` could be taken for ``task``'s number: a part of it (a member, at any depth, of
    the group ``task``) or a variant of it (``task``_<condition>, e.g. taraz_percul_saq_judged). Another task
    of the same benchmark (taraz_blend beside taraz_percul_saq) is neither."""
    if other.startswith(f"{task}_"):
        return True
    groups = _pack_groups()
    pending, seen = list(groups.get(task, ())), set()
    while pending:
        member = pending.pop()
        if member == other:
            return True
        if member not in seen:
            seen.add(member)
            pending += groups.get(member, ())
    return False


def _empty_column_warning(model: str, runs: list[Run], column: str, task: str, metric: str) -> str | None:
    """Why a column stays empty when the model's runs hold a task that stands in for it (a part or a variant)."""
    related: dict[str, str] = {}
    for run in runs:
        for t in run.results:
            if t != task and stands_in_for(t, task):
                counts = scored_docs(run, t)
                related[t] = f"`{t}`" + (f" ({counts[1]} docs)" if counts else "")
    if not related:
        return None
    columns = [f"'{c}' (`{task}` {m})" for c, t, m in leaderboard_columns() if t == task]
    return (
        f"{model}: {', '.join(columns)} left empty: these runs have "
        f"{', '.join(related[t] for t in sorted(related))} instead, which is not the same number; "
        f"run `--tasks {task}` to fill it"
    )


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("_") or "model"


def _params_b(params: int | None) -> str:
    """Billions with two decimals; small models keep three significant digits instead of '0.00'."""
    if params is None:
        return ""
    b = params / 1e9
    return f"{b:.2f}" if b >= 0.01 else f"{b:.3g}"


def subset_refusal(rows: list[dict]) -> str:
    lines = [f"  - {r['model']}: {'; '.join(r['subsets'].values())}" for r in rows if r["subsets"]]
    return (
        "export: leaderboard scores must cover every doc of a task, and these rest on a subset "
        "(runs cut by --limit):\n" + "\n".join(lines) + "\nRe-run without --limit, or pass --allow-subset to "
        "export them anyway, marked in the row's Subset column."
    )


def export(
    inputs: list[Path],
    fmt: str,
    out: Path,
    allow_subset: bool = False,
    warnings: list[str] | None = None,
    resamples: int = 1000,
    hub_datasets: dict[str, str] | None = None,
) -> list[Path]:
    """Write the leaderboard file(s); ``warnings`` (if given) receives lines about columns left empty (and, for
    eval-results, columns without a Hub dataset). Scores from --limit subsets are refused (ReportInputError)
    unless ``allow_subset``. ``resamples``: bootstrap resamples for the intervals of eee and eval-results;
    ``hub_datasets``: {benchmark: Hub dataset id} for eval-results where a benchmark declares none."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; expected one of {FORMATS}")
    runs = load_runs(inputs)
    rows = model_rows(runs)
    if any(r["subsets"] for r in rows) and not allow_subset:
        raise ReportInputError(subset_refusal(rows))
    if warnings is not None:
        warnings += [w for r in rows for w in r["warnings"]]
    columns = [c for c, _, _ in leaderboard_columns()]
    written = []
    if fmt in ("csv", "partai"):
        out.parent.mkdir(parents=True, exist_ok=True)
        with open(out, "w", encoding="utf-8", newline="") as f:
            writer = csv.writer(f)
            if fmt == "csv":
                writer.writerow(["model", "precision", "parameters", "model_sha", *columns, "subset", "judge"])
                for r in rows:
                    writer.writerow(
                        [
                            r["model"],
                            r["precision"],
                            "" if r["params"] is None else r["params"],
                            r["sha"],
                            *[r["scores"].get(c, "") for c in columns],
                            "; ".join(r["subsets"].values()),
                            judge_cell(r),
                        ]
                    )
            else:
                writer.writerow(["Model", "Precision", "#Params (B)", *columns, "Model sha", "Subset", "Judge"])
                for r in rows:
                    writer.writerow(
                        [
                            r["model"],
                            r["precision"],
                            _params_b(r["params"]),
                            *[f"{100 * r['scores'][c]:.2f}" if c in r["scores"] else "" for c in columns],
                            r["sha"],
                            "; ".join(r["subsets"].values()),
                            judge_cell(r),
                        ]
                    )
        written.append(out)
    elif fmt == "hf-leaderboard":
        written += _write_hf_leaderboard(rows, out)
    elif fmt == "eee":
        written += write_eee(rows, out, resamples=resamples)
    else:
        written += write_eval_results(rows, out, resamples=resamples, hub_datasets=hub_datasets, warnings=warnings)
    return written


def judge_cell(row: dict) -> str:
    """The judge of each judged column: one label when every judged column shares it, else 'column: label; ...'."""
    labels = {column: judge.label for column, judge in row["judges"].items()}
    if len(set(labels.values())) == 1:
        return next(iter(labels.values()))
    return "; ".join(f"{column}: {label}" for column, label in labels.items())


def _params_billions(params: int | None) -> float | None:
    """Billions of parameters, four significant digits (129,024 parameters: 0.000129, not 0.0)."""
    return float(f"{params / 1e9:.4g}") if params else None


def _write_hf_leaderboard(rows: list[dict], out: Path) -> list[Path]:
    """The template's results file and its eval-request file per model. Facts the runs and the model's files do
    not give (revision, parameters, license) are left out of the request, never filled with a default."""
    written = []
    out.mkdir(parents=True, exist_ok=True)
    now = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    for r in rows:
        results = {}
        for column, task, metric in leaderboard_columns():
            if column in r["scores"]:
                results.setdefault(task, {})[metric] = r["scores"][column]
        config = {"model_dtype": r["precision"], "model_name": r["model"], "model_sha": r["sha"]}
        if r["subsets"]:
            config["subset"] = list(r["subsets"].values())
        judges = {task: r["judges"][c].as_dict() for c, task, _ in leaderboard_columns() if c in r["judges"]}
        if judges:
            config["judge"] = judges
        payload = {"config": config, "results": results}
        request = {
            "model": r["model"],
            "revision": r["revision"] or None,
            "precision": r["precision"],
            "weight_type": "Original",
            "status": "FINISHED",
            "submitted_time": now,
            "params": _params_billions(r["params"]),
            "license": r["license"] or None,
        }
        request = {key: value for key, value in request.items() if value is not None}
        res_path = out / "results" / _safe(r["model"]) / f"results_{now.replace(':', '-')}.json"
        req_path = (
            out / "requests" / f"{_safe(r['model'])}_eval_request_False_{r['precision'] or 'unknown'}_Original.json"
        )
        for path, data in ((res_path, payload), (req_path, request)):
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(data, indent=2, ensure_ascii=False), encoding="utf-8")
            written.append(path)
    return written
