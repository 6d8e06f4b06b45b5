"""report.md and a self-contained report.html (charts embedded as base64 PNG, opens offline).

Persian text (model names, categories, notes) is shown right to left: every table cell and heading
carries ``dir="auto"``, and the page asks for fonts with Persian glyphs before the generic family.
"""

from __future__ import annotations

import base64
import html
import math
from pathlib import Path

import lm_eval_persian_culture as pack
from lm_eval_persian_culture.report.benchmarks import BENCHMARKS, benchmark_of
from lm_eval_persian_culture.report.build import Report, Row
from lm_eval_persian_culture.report.scores import Score, task_metrics
from lm_eval_persian_culture.tasks._taskgen import is_signed

SIGNED = {"acquiescence_bias", "factual_conceptual_gap", "gender_gap", "persian_minus_english"}


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


def benchmark_tables(report: Report) -> list[tuple[str, list[str], list[list[str]], list[str]]]:
    """(title, header, rows, notes) per benchmark; paper rows after the runs' rows of the same task."""
    out = []
    for name, bench in BENCHMARKS.items():
        rows = [r for r in report.rows if benchmark_of(r.task) is bench]
        if not rows:
            continue
        metrics = [m for m in bench.headline if any(m in r.scores for r in rows)]
        header = ["model", "task", *metrics]
        body = []
        tasks = list(dict.fromkeys(r.task for r in sorted(rows, key=lambda r: (not r.is_group, r.task))))
        for task in tasks:
            for r in [r for r in rows if r.task == task]:
                label = r.model + (" *" if _differs(report, r) else "")
                body.append([label, task + (" (group)" if r.is_group else ""), *[fmt_score(r.scores.get(m)) for m in metrics]])
            refs = [ref for ref in report.references if ref["task"] == task and ref["metric"] in metrics]
            for model in dict.fromkeys(ref["model"] for ref in refs):
                cells = {ref["metric"]: ref for ref in refs if ref["model"] == model}
                body.append([f"paper: {model}", task, *[
                    (fmt(cells[m]["value"], m in SIGNED) + f" ({cells[m]['source']})") if m in cells else ""
                    for m in metrics]])
        notes = [f"Intervals: 95%, Wilson for accuracies, cluster bootstrap over items for derived figures "
                 f"(±sd: spread over the prompt variants); rows marked * differ in settings (see Differences)."]
        out.append((bench.title, header, body, notes))
    return out


def _differs(report: Report, row: Row) -> bool:
    return any(f"`{row.task}`" in line and "differs" in line for line in report.differences)


def side_by_side(report: Report) -> tuple[list[str], list[list[str]]]:
    """One row per model: the pack's headline per task next to standard lm-eval tasks' main metric."""
    columns: list[str] = []
    values: dict[str, dict[str, str]] = {}
    for run in report.runs:
        for task in run.results:
            if task in run.groups and not run.is_pack_task(task):
                continue
            metrics = task_metrics(run, task)
            if run.is_pack_task(task):
                bench = benchmark_of(task)
                metric = next((m for m in (bench.headline if bench else ()) if m in metrics), None)
            else:
                metric = next((m for m in ("acc_norm", "acc", "exact_match", "f1") if m in metrics), next(iter(metrics), None))
            if metric is None:
                continue
            col = f"{task} ({metric})"
            if col not in columns:
                columns.append(col)
            values.setdefault(run.model, {})[col] = fmt(metrics[metric][1], metric in SIGNED)
    pack_cols = [c for c in columns if c.split(" ")[0].startswith(("taarof", "divan", "percul", "taraz", "cac", "persian"))]
    other = [c for c in columns if c not in pack_cols]
    header = ["model", *pack_cols, *other]
    return header, [[m, *[values[m].get(c, "") for c in header[1:]]] for m in values]


def _md_table(header: list[str], rows: list[list[str]]) -> str:
    esc = lambda c: str(c).replace("|", "\\|")
    lines = ["| " + " | ".join(map(esc, header)) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(map(esc, row)) + " |" for row in rows]
    return "\n".join(lines)


def _run_lines(report: Report) -> list[str]:
    return [f"{r.model} - `{r.path}` ({len(r.results)} tasks and groups)" for r in report.runs]


def write_markdown(report: Report, out_dir: Path) -> Path:
    parts = [f"# lm-eval-persian-culture report (pack {pack.__version__})", "", "## Runs", ""]
    parts += [f"- {line}" for line in _run_lines(report)]
    for title, header, rows, notes in benchmark_tables(report):
        parts += ["", f"## {title}", "", _md_table(header, rows), ""] + [f"_{n}_" for n in notes]
        for chart in report.charts:
            if chart.title.startswith(title) and chart.files:
                parts += ["", f"![{chart.title}](charts/{chart.files[0].name})"]
    header, rows = side_by_side(report)
    parts += ["", "## Side by side with other tasks", "", _md_table(header, rows)]
    parts += ["", "## Differences", ""] + ([f"- {d}" for d in report.differences] or ["None: every row shares data, judge, prompt and versions with the other rows of its task."])
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
"""


def _html_table(header: list[str], rows: list[list[str]]) -> str:
    e = html.escape
    head = "".join(f'<th dir="auto">{e(h)}</th>' for h in header)
    body = []
    for row in rows:
        cls = ' class="paper"' if str(row[0]).startswith("paper: ") else ""
        body.append(f"<tr{cls}>" + "".join(f'<td dir="auto">{e(str(c))}</td>' for c in row) + "</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def write_html(report: Report, out_dir: Path) -> Path:
    e = html.escape
    parts = [f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>lm-eval-persian-culture report</title>"
             f"<style>{_CSS}</style></head><body>", f"<h1>lm-eval-persian-culture report (pack {e(pack.__version__)})</h1>",
             "<h2>Runs</h2><ul>" + "".join(f'<li dir="auto">{e(line)}</li>' for line in _run_lines(report)) + "</ul>"]
    for title, header, rows, notes in benchmark_tables(report):
        parts.append(f"<h2>{e(title)}</h2>" + _html_table(header, rows))
        parts += [f"<p class='note'>{e(n)}</p>" for n in notes]
        for chart in report.charts:
            if chart.title.startswith(title) and chart.files:
                png = chart.files[0]
                data = base64.b64encode(png.read_bytes()).decode("ascii")
                parts.append(f'<figure><img alt="{e(chart.title)}" src="data:image/png;base64,{data}">'
                             f'<figcaption class="note">{e(chart.title)} (<a href="charts/{e(png.name)}">PNG</a>, '
                             f'<a href="charts/{e(png.with_suffix(".svg").name)}">SVG</a>)</figcaption></figure>')
    header, rows = side_by_side(report)
    parts.append("<h2>Side by side with other tasks</h2>" + _html_table(header, rows))
    parts.append("<h2>Differences</h2><ul>" + "".join(f'<li dir="auto">{e(d)}</li>' for d in report.differences)
                 + "</ul>" if report.differences else "<h2>Differences</h2><p>None.</p>")
    parts.append("<h2>Missing</h2><ul>" + "".join(f'<li dir="auto">{e(m)}</li>' for m in report.missing) + "</ul>"
                 if report.missing else "<h2>Missing</h2><p>Nothing.</p>")
    if report.warnings:
        parts.append("<h2>Warnings</h2><ul>" + "".join(f"<li>{e(w)}</li>" for w in report.warnings) + "</ul>")
    parts.append("</body></html>")
    path = out_dir / "report.html"
    path.write_text("\n".join(parts), encoding="utf-8")
    return path
