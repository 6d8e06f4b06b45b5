"""report.md and a self-contained report.html (charts embedded as base64 PNG, opens offline).

Persian text (model names, categories, notes) is shown right to left: every table cell and heading
carries ``dir="auto"``, and the page asks for fonts with Persian glyphs before the generic family.
"""

from __future__ import annotations

import base64
import html
import math
import re
from pathlib import Path

from lm_eval_persian_culture._version import __version__
from lm_eval_persian_culture.report.benchmarks import SIGNED_METRICS, benchmark_of, benchmarks
from lm_eval_persian_culture.report.build import Report, Row
from lm_eval_persian_culture.report.judges import run_judges, same_judge, task_judge
from lm_eval_persian_culture.report.references import reference_notes
from lm_eval_persian_culture.report.scores import Score, task_metrics
from lm_eval_persian_culture.tasks._taskgen import is_signed

SIGNED = SIGNED_METRICS


def fmt(value: float | None, signed: bool = False) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    return f"{value:+.3f}" if signed else f"{value:.3f}"


def fmt_score(s: Score | None) -> str:
    if s is None:
        return ""
    if s.metric == "judge_errors":
        return f"{int(s.value)}"
    signed = s.metric in SIGNED or (s.run is not None and is_signed(s.metric, s.run.task_metadata(s.task)))
    text = fmt(s.value, signed)
    if s.has_interval:
        text += f" [{fmt(s.low, signed)}, {fmt(s.high, signed)}]"
    if s.spread is not None:
        text += f" ±{s.spread:.3f} sd"
    if s.n:
        text += f" n={s.n}"
    return text


def benchmark_tables(report: Report) -> list[tuple[str, str, list[str], list[list[str]], list[str]]]:
    """(benchmark, title, header, rows, notes) per benchmark; paper rows after the runs' rows of the same task.

    Where a row was scored by a judge (a run's, or the paper's from references.json), a ``judge`` column names
    it; a paper row whose judge is not the judge of a run row beside it is marked † and a note says so."""
    out = []
    no_table = reference_notes()  # benchmarks whose paper's table is not available: the note instead
    for bench in benchmarks().values():
        rows = [r for r in report.rows if benchmark_of(r.task) is bench]
        if not rows:
            continue
        metrics = [m for m in bench.headline if any(m in r.scores for r in rows)]
        tasks = list(dict.fromkeys(r.task for r in sorted(rows, key=lambda r: (not r.is_group, r.task))))
        judge_of = {id(r): task_judge(r.run, r.task) for r in rows}
        refs_of = {
            task: [ref for ref in report.references if ref["task"] == task and ref["metric"] in metrics]
            for task in tasks
        }
        show_judge = any(judge_of.values()) or any(ref.get("judge") for refs in refs_of.values() for ref in refs)
        header = ["model", "task", *(["judge"] if show_judge else []), *metrics]
        body, judge_notes = [], []
        for task in tasks:
            task_rows = [r for r in rows if r.task == task]
            for r in task_rows:
                label = r.model + (" *" if _differs(report, r) else "")
                judge = judge_of[id(r)]
                body.append(
                    [
                        label,
                        task + (" (group)" if r.is_group else ""),
                        *([judge.label if judge else ""] if show_judge else []),
                        *[fmt_score(r.scores.get(m)) for m in metrics],
                    ]
                )
            refs = refs_of[task]
            for model in dict.fromkeys(ref["model"] for ref in refs):
                cells = {ref["metric"]: ref for ref in refs if ref["model"] == model}
                paper_judges = list(dict.fromkeys(ref["judge"] for ref in cells.values() if ref.get("judge")))
                mark = ""
                for paper_judge in paper_judges:
                    others = [r for r in task_rows if not same_judge(judge_of[id(r)], paper_judge)]
                    if others:
                        mark = " †"
                        note = _judge_note(task, paper_judge, others, judge_of)
                        if note not in judge_notes:
                            judge_notes.append(note)
                body.append(
                    [
                        f"paper: {model}",
                        task,
                        *([", ".join(paper_judges) + mark] if show_judge else []),
                        *[
                            (fmt(cells[m]["value"], m in SIGNED) + f" ({cells[m]['source']})") if m in cells else ""
                            for m in metrics
                        ],
                    ]
                )
        notes = [
            "Intervals: 95%, Wilson for accuracies, cluster bootstrap over items for derived figures "
            "(±sd: spread over the prompt variants); rows marked * differ in settings (see Differences)."
        ]
        if show_judge:
            notes.append(
                "judge: the model (or jury) that scored the row; only the paper's judge reproduces the paper's "
                "protocol, so a paper row marked † sits beside runs scored by another judge."
            )
        if bench.name in no_table:
            notes.append(f"Paper: no published table to compare with ({no_table[bench.name]}).")
        out.append((bench.name, bench.title, header, body, notes + judge_notes))
    return out


def _judge_note(task: str, paper_judge: str, rows: list[Row], judge_of: dict) -> str:
    runs = "; ".join(f"{judge_of[id(r)].label if judge_of[id(r)] else 'no judge recorded'} ({r.model})" for r in rows)
    return (
        f"† `{task}`: the paper's rows were scored by {paper_judge}, the runs' rows by {runs}: another judge, "
        "so the difference is not the model's alone."
    )


def _differs(report: Report, row: Row) -> bool:
    return any(f"`{row.task}`" in line and "differs" in line for line in report.differences)


STANDARD_MAIN_METRICS = ("acc_norm", "acc", "exact_match", "f1")


def _side_by_side_metric(report: Report, task: str) -> str | None:
    """One metric per task for every model: the first headline metric (pack) or main metric (lm-eval task)
    that any run reports, so a run whose accuracy is missing shows '-' instead of lending another metric."""
    reported = [m for run in report.runs if task in run.results for m in task_metrics(run, task)]
    bench = benchmark_of(task)
    preferred = bench.headline if bench and report.runs[0].is_pack_task(task) else STANDARD_MAIN_METRICS
    return next((m for m in preferred if m in reported), reported[0] if reported and not bench else None)


def side_by_side(report: Report) -> tuple[list[str], list[list[str]]]:
    """One row per model: the pack's headline per task next to standard lm-eval tasks' main metric.

    Each cell comes from one run: the model's latest run of that task. Where the model has other runs of
    the task with other settings (more than one row of it in the benchmark table), the cell is marked *."""
    latest: dict[tuple[str, str], object] = {}
    for run in report.runs:  # oldest first (load_runs): later runs overwrite
        for task in run.results:
            if task in run.groups and not run.is_pack_task(task):
                continue
            latest[(run.model, task)] = run
    tasks = list(dict.fromkeys(task for _, task in latest))
    metric_of = {task: _side_by_side_metric(report, task) for task in tasks}
    tasks = [t for t in tasks if metric_of[t] is not None]
    pack_tasks = [t for t in tasks if report.runs[0].is_pack_task(t)]
    tasks = pack_tasks + [t for t in tasks if t not in pack_tasks]
    settings = {}
    for row in report.rows:
        settings.setdefault((row.model, row.task), set()).add(row.fingerprint)
    header = ["model", *[f"{t} ({metric_of[t]})" for t in tasks]]
    body = []
    for model in dict.fromkeys(model for model, _ in latest):
        cells = [model]
        for task in tasks:
            run = latest.get((model, task))
            if run is None:
                cells.append("")
                continue
            metric = metric_of[task]
            value = task_metrics(run, task).get(metric)
            text = fmt(value[1] if value else None, metric in SIGNED)
            cells.append(text + (" *" if len(settings.get((model, task), ())) > 1 else ""))
        body.append(cells)
    return header, body


SIDE_BY_SIDE_NOTE = (
    "Each cell: the model's latest run of that task, one metric per column (- where that run has "
    "no value); * this model has other runs of the task with other settings, shown in the "
    "benchmark table and under Differences."
)


def _md_table(header: list[str], rows: list[list[str]]) -> str:
    esc = lambda c: str(c).replace("|", "\\|")
    lines = ["| " + " | ".join(map(esc, header)) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(map(esc, row)) + " |" for row in rows]
    return "\n".join(lines)


# Where a run records the suite members it left out (suite_skip_unavailable): harness/preflight.SKIP_RESULTS_KEY
# (tests/report/test_report_suite_skipped.py checks the two agree; report/ may not import harness/).
SUITE_SKIPPED_KEY = "suite_skipped"


def skipped_members(run) -> list[str]:
    """``<group>: <member> skipped (<why>)`` for each suite member a run left out, from its results."""
    out = []
    for group, entry in sorted((run.data.get(SUITE_SKIPPED_KEY) or {}).items()):
        for member, info in sorted(((entry or {}).get("skipped") or {}).items()):
            reasons = "; ".join((info or {}).get("reasons") or ["no reason recorded"])
            out.append(f"`{group}`: `{member}` skipped ({reasons})")
    return out


def _run_lines(report: Report) -> list[str]:
    lines = []
    for run in report.runs:
        judges = run_judges(run)
        judged = "; ".join(
            f"judge: {label}" + (f" ({', '.join(tasks)})" if len(judges) > 1 else "") for label, tasks in judges.items()
        )
        skipped = skipped_members(run)
        lines.append(
            f"{run.model} - `{run.path}` ({len(run.results)} tasks and groups)"
            + (f"; {judged}" if judged else "")
            + (f"; not run, by suite_skip_unavailable: {', '.join(skipped)}" if skipped else "")
        )
    return lines


def write_markdown(report: Report, out_dir: Path) -> Path:
    parts = [f"# lm-eval-persian-culture report (pack {__version__})", "", "## Runs", ""]
    parts += [f"- {line}" for line in _run_lines(report)]
    for name, title, header, rows, notes in benchmark_tables(report):
        parts += ["", f"## {title}", "", _md_table(header, rows), ""] + [f"_{n}_" for n in notes]
        for chart in report.charts:
            if chart.benchmark == name and chart.files:
                parts += ["", f"![{chart.title}](charts/{chart.files[0].name})"]
    header, rows = side_by_side(report)
    parts += ["", "## Side by side with other tasks", "", _md_table(header, rows), "", f"_{SIDE_BY_SIDE_NOTE}_"]
    parts += ["", "## Differences", ""] + (
        [f"- {d}" for d in report.differences]
        or ["None: every row shares data, judge, prompt and versions with the other rows of its task."]
    )
    parts += ["", "## Missing", ""] + ([f"- {m}" for m in report.missing] or ["Nothing: every metric had items."])
    if report.warnings:
        parts += ["", "## Warnings", ""] + [f"- {w}" for w in report.warnings]
    path = out_dir / "report.md"
    path.write_text("\n".join(parts) + "\n", encoding="utf-8")
    return path


_CSS = """
body { font-family: "Vazirmatn", "Noto Sans Arabic", "Noto Naskh Arabic", Tahoma, "DejaVu Sans", sans-serif;
       margin: 2em auto; max-width: 1200px; color: #222; }
table { border-collapse: collapse; margin: 1em 0; font-size: 0.85em; }
th, td { border: 1px solid #ccc; padding: 3px 7px; unicode-bidi: plaintext; }
th { background: #f2f2f2; }
tr.paper td { color: #555; font-style: italic; background: #fafafa; }
img { max-width: 100%; border: 1px solid #eee; margin: 0.5em 0; }
.note { color: #555; font-size: 0.85em; }
code { font-size: 0.95em; background: #f4f4f4; padding: 0 2px; }
"""


def _html_table(header: list[str], rows: list[list[str]]) -> str:
    e = html.escape
    head = "".join(f'<th dir="auto">{e(h)}</th>' for h in header)
    body = []
    for row in rows:
        cls = ' class="paper"' if str(row[0]).startswith("paper: ") else ""
        body.append(f"<tr{cls}>" + "".join(f'<td dir="auto">{e(str(c))}</td>' for c in row) + "</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def _inline_html(text: str) -> str:
    """Escaped text whose `code` spans (markdown backticks, shared with report.md) become <code>."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", html.escape(text))


def write_html(report: Report, out_dir: Path) -> Path:
    e = html.escape
    parts = [
        f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>lm-eval-persian-culture report</title>"
        f"<style>{_CSS}</style></head><body>",
        f"<h1>lm-eval-persian-culture report (pack {e(__version__)})</h1>",
        "<h2>Runs</h2><ul>"
        + "".join(f'<li dir="auto">{_inline_html(line)}</li>' for line in _run_lines(report))
        + "</ul>",
    ]
    for name, title, header, rows, notes in benchmark_tables(report):
        parts.append(f"<h2>{e(title)}</h2>" + _html_table(header, rows))
        parts += [f"<p class='note'>{_inline_html(n)}</p>" for n in notes]
        for chart in report.charts:
            if chart.benchmark == name and chart.files:
                png = chart.files[0]
                data = base64.b64encode(png.read_bytes()).decode("ascii")
                parts.append(
                    f'<figure><img alt="{e(chart.title)}" src="data:image/png;base64,{data}">'
                    f'<figcaption class="note">{e(chart.title)} (<a href="charts/{e(png.name)}">PNG</a>, '
                    f'<a href="charts/{e(png.with_suffix(".svg").name)}">SVG</a>)</figcaption></figure>'
                )
    header, rows = side_by_side(report)
    parts.append(
        "<h2>Side by side with other tasks</h2>"
        + _html_table(header, rows)
        + f"<p class='note'>{e(SIDE_BY_SIDE_NOTE)}</p>"
    )
    parts.append(
        "<h2>Differences</h2><ul>"
        + "".join(f'<li dir="auto">{_inline_html(d)}</li>' for d in report.differences)
        + "</ul>"
        if report.differences
        else "<h2>Differences</h2><p>None.</p>"
    )
    parts.append(
        "<h2>Missing</h2><ul>" + "".join(f'<li dir="auto">{_inline_html(m)}</li>' for m in report.missing) + "</ul>"
        if report.missing
        else "<h2>Missing</h2><p>Nothing.</p>"
    )
    if report.warnings:
        parts.append(
            "<h2>Warnings</h2><ul>" + "".join(f"<li>{_inline_html(w)}</li>" for w in report.warnings) + "</ul>"
        )
    parts.append("</body></html>")
    path = out_dir / "report.html"
    path.write_text("\n".join(parts), encoding="utf-8")
    return path
