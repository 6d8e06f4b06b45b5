"""``lm-eval-persian report`` and ``lm-eval-persian export``: from lm-eval output folders to a report
(report.md, a self-contained report.html, PNG and SVG charts with 95% intervals, the papers' reference
rows, a side-by-side table with standard tasks, a differences section) or to leaderboard rows."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from lm_eval_persian_culture.report.runs import ReportInputError

# --help prints this as plain text: no reStructuredText markup (the module docstring has it)
REPORT_DESCRIPTION = (
    "A report from lm-eval output folders: report.md, a self-contained report.html and PNG/SVG charts with 95% "
    "intervals, each run's judge, the papers' reference rows, a side-by-side table with standard tasks, and "
    "the differences between runs."
)


def report_main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="lm-eval-persian report", description=REPORT_DESCRIPTION)
    parser.add_argument("inputs", nargs="+", type=Path, help="lm-eval --output_path folders or results_*.json files")
    parser.add_argument(
        "--out",
        type=Path,
        default=Path("report"),
        help="folder for report.md, report.html and charts/ (default: %(default)s, under the current folder)",
    )
    parser.add_argument(
        "--bootstrap", type=int, default=1000, help="bootstrap resamples for derived figures (default: %(default)s)"
    )
    args = parser.parse_args(argv)
    from lm_eval_persian_culture.report.build import build
    from lm_eval_persian_culture.report.render import write_html, write_markdown

    report = build(args.inputs, args.out, resamples=args.bootstrap)  # ReportInputError: exit 2 (cli)
    args.out.mkdir(parents=True, exist_ok=True)  # charts create it only when there is a chart to draw
    md, page = write_markdown(report, args.out), write_html(report, args.out)
    for chart in report.charts:
        for path in chart.files:
            print(path)
    print(md)
    print(page)
    for line in report.missing + report.warnings:
        print(f"note: {line}", file=sys.stderr)
    return 0


def export_main(argv: list[str] | None = None) -> int:
    from lm_eval_persian_culture.report.export import FORMATS, export

    parser = argparse.ArgumentParser(prog="lm-eval-persian export", description="Leaderboard rows from lm-eval results")
    parser.add_argument("inputs", nargs="+", type=Path, help="lm-eval --output_path folders or results_*.json files")
    parser.add_argument("--format", choices=FORMATS, required=True)
    parser.add_argument(
        "--out",
        type=Path,
        required=True,
        help="a .csv file (csv, partai) or a folder (hf-leaderboard: results/ and requests/; eee: "
        "<benchmark>/<developer>/<model>/<uuid>.json; eval-results: .eval_results/<column>.yaml)",
    )
    parser.add_argument(
        "--allow-subset",
        "--allow_subset",
        dest="allow_subset",
        action="store_true",
        help="export scores of runs cut by --limit (refused otherwise); the row's Subset column names each such score",
    )
    parser.add_argument(
        "--bootstrap",
        type=int,
        default=1000,
        help="bootstrap resamples for the intervals of eee and eval-results (default: %(default)s)",
    )
    parser.add_argument(
        "--hub-dataset",
        "--hub_dataset",
        dest="hub_datasets",
        action="append",
        default=[],
        metavar="BENCHMARK=ORG/NAME",
        help="eval-results: the Hub dataset id of a benchmark that declares none (e.g. taarof=org/taarofbench)",
    )
    args = parser.parse_args(argv)
    hub_datasets = {}
    for item in args.hub_datasets:
        bench, sep, repo = item.partition("=")
        if not sep or not bench.strip() or "/" not in repo:
            parser.error(f"--hub-dataset {item!r}: expected BENCHMARK=ORG/NAME, e.g. taarof=org/taarofbench")
        hub_datasets[bench.strip()] = repo.strip()
    warnings: list[str] = []
    paths = export(
        args.inputs,
        args.format,
        args.out,
        allow_subset=args.allow_subset,
        warnings=warnings,
        resamples=args.bootstrap,
        hub_datasets=hub_datasets,
    )  # ReportInputError: exit 2 (cli)
    for path in paths:
        print(path)
    for line in warnings:
        print(f"warning: {line}", file=sys.stderr)
    return 0


__all__ = ["ReportInputError", "export_main", "report_main"]
