"""Charts in the spirit of the papers' figures, as PNG and SVG, with 95% intervals as error bars.

matplotlib (>= 3.11 lays out right-to-left scripts itself) draws Persian labels with DejaVu Sans, which
it ships and which has the Persian letters, so no label turns into tofu boxes. Every title names the
model(s), the condition and n; a chart over fewer than ``SMALL_N`` items says that it cannot tell
models apart.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from lm_eval_persian_culture.report.scores import Score

SMALL_N = 30
CAP_SIZE_PT = 2.5  # half the error bar cap's height
LABEL_GAP_PT = 4.0  # between the end of a bar's error bar (its cap) and the value label
FONT_FAMILY = ["DejaVu Sans"]
PALETTE = ["#3b7dd8", "#e07b39", "#4aa564", "#c9473d", "#8a63c7", "#7f7f7f", "#c2a02c", "#2aa3b0"]


@dataclass
class Chart:
    """Grouped horizontal bars: one group per category, one bar per series."""

    title: str
    categories: list[str]
    series: dict[str, list[Score | None]]
    xlabel: str = "score (95% interval)"
    signed: bool = False  # a difference: the axis spans negative values, a zero line is drawn
    note: str = ""
    error_kind: str = "interval"  # "interval" (low/high) or "spread" (± std over prompts)
    benchmark: str = ""  # the benchmark whose report section shows it (set by report.build)
    files: list[Path] = field(default_factory=list)

    @property
    def n_values(self) -> list[int]:
        return [s.n for scores in self.series.values() for s in scores if s is not None and s.n]

    @property
    def is_empty(self) -> bool:
        return not any(s is not None for scores in self.series.values() for s in scores)


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "_", text).strip("_").lower()[:80] or "chart"


def small_n_warning(chart: Chart) -> str:
    ns = chart.n_values
    if ns and min(ns) < SMALL_N:
        return f"n={min(ns)} for some bars: too few items to tell scores apart"
    return ""


def draw(chart: Chart, out_dir: Path) -> list[Path]:
    """Write the chart as PNG and SVG; returns both paths."""
    import matplotlib.pyplot as plt

    fig = figure_for(chart)
    out_dir.mkdir(parents=True, exist_ok=True)
    stem = out_dir / _slug(chart.title.splitlines()[0])
    paths = []
    for suffix in (".png", ".svg"):
        path = stem.with_suffix(suffix)
        fig.savefig(path, dpi=130)
        paths.append(path)
    plt.close(fig)
    chart.files = paths
    return paths


def figure_for(chart: Chart):
    """The matplotlib figure of a chart (the caller saves and closes it)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams["font.family"] = FONT_FAMILY
    plt.rcParams["svg.fonttype"] = "path"  # the SVG shows the same glyphs without the font installed
    names = list(chart.series)
    n_cat, n_ser = len(chart.categories), max(1, len(names))
    bar_h = 0.8 / n_ser
    height = max(2.6, 0.32 * n_cat * n_ser + 0.25 * n_cat + 1.6)
    fig, ax = plt.subplots(figsize=(9, height))
    values_seen = [0.0]
    for j, name in enumerate(names):
        ys, xs, lo_err, hi_err = [], [], [], []
        for i, s in enumerate(chart.series[name]):
            if s is None:
                continue
            ys.append(i - 0.4 + bar_h * (j + 0.5))
            xs.append(s.value)
            values_seen.append(s.value)
            if chart.error_kind == "spread" and s.spread is not None:
                lo_err.append(s.spread)
                hi_err.append(s.spread)
                values_seen += [s.value - s.spread, s.value + s.spread]
            elif s.has_interval:
                lo_err.append(max(0.0, s.value - s.low))
                hi_err.append(max(0.0, s.high - s.value))
                values_seen += [s.low, s.high]
            else:
                lo_err.append(0.0)
                hi_err.append(0.0)
        if not xs:
            continue
        ax.barh(
            ys,
            xs,
            height=bar_h * 0.92,
            color=PALETTE[j % len(PALETTE)],
            label=name,
            xerr=[lo_err, hi_err],
            capsize=CAP_SIZE_PT,
            error_kw={"elinewidth": 1, "ecolor": "#333333"},
        )
        for y, x, lo, hi, s in zip(ys, xs, lo_err, hi_err, [s for s in chart.series[name] if s is not None]):
            label = f"{x:+.3f}" if chart.signed else f"{x:.3f}"
            label += f" (n={s.n})" if s.n else ""
            # beyond the error bar's cap, a few points clear of it (at the cap, "1.000 (n=1)" touched it)
            right = x >= 0
            ax.annotate(
                label,
                xy=(x + hi if right else x - lo, y),
                xytext=(LABEL_GAP_PT if right else -LABEL_GAP_PT, 0),
                textcoords="offset points",
                ha="left" if right else "right",
                va="center",
                fontsize=7,
                color="#222222",
            )
    ax.set_yticks(range(n_cat), chart.categories)
    ax.invert_yaxis()
    lo = min(values_seen)
    hi = max(values_seen)
    if chart.signed:
        bound = max(abs(lo), abs(hi), 0.05) * 1.4  # room for the value labels beyond the caps
        ax.set_xlim(-bound, bound)
        ax.axvline(0, color="#444444", linewidth=0.8)
    else:
        ax.set_xlim(min(0.0, lo), max(1.0, hi) * 1.12)
    ax.set_xlabel(chart.xlabel)
    warning = small_n_warning(chart)
    subtitle = "; ".join(t for t in (chart.note, warning) if t)
    ax.set_title(chart.title + (f"\n{subtitle}" if subtitle else ""), fontsize=10)
    ax.grid(axis="x", alpha=0.3)
    if len(names) > 1:
        # Outside the axes, right of the plot: inside, it covered the value labels of long bars
        ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0, frameon=False)
    fig.tight_layout()
    return fig
