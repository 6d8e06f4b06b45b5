"""Intervals: Wilson worked out by hand, the cluster bootstrap keeps clusters whole."""

from __future__ import annotations

import math

import pytest

from lm_eval_persian_culture.report.stats import bootstrap_interval, wilson_interval


@pytest.mark.parametrize(
    "k, n, low, high",
    [
        # p=0.3, z=1.96: centre (0.3+0.19208)/1.38416 = 0.35556, half 1.96*sqrt(0.021+0.009604)/1.38416 = 0.24772
        (3, 10, 0.10779, 0.60322),
        # 0/5: centre 0.38415/1.76832 = 0.21724 = half: [0, 0.43448]
        (0, 5, 0.0, 0.43448),
        (5, 5, 0.56552, 1.0),
    ],
)
def test_wilson_interval_by_hand(k, n, low, high):
    lo, hi = wilson_interval(k, n)
    assert lo == pytest.approx(low, abs=1e-4) and hi == pytest.approx(high, abs=1e-4)


def test_wilson_interval_of_nothing_is_undefined():
    assert all(math.isnan(x) for x in wilson_interval(0, 0))


def test_bootstrap_keeps_clusters_whole():
    # Two clusters: a = (1, 1) and b = (0,). A resample draws 2 clusters, so its mean is 1 (aa), 2/3 (ab)
    # or 0 (bb); an item-level bootstrap would also produce 1/3 or 0.5.
    records = [("a", 1.0), ("a", 1.0), ("b", 0.0)]
    seen = []

    def mean(rs):
        seen.append(sum(v for _, v in rs) / len(rs))
        return seen[-1]

    lo, hi = bootstrap_interval(records, mean, cluster_of=lambda r: r[0], resamples=400, seed=1)
    assert {round(v, 6) for v in seen} == {1.0, round(2 / 3, 6), 0.0}
    assert (lo, hi) == (0.0, 1.0)


def test_bootstrap_of_a_constant_is_that_constant():
    lo, hi = bootstrap_interval([1.0, 1.0, 1.0, 1.0], lambda rs: sum(rs) / len(rs), resamples=200)
    assert lo == hi == 1.0


def test_bootstrap_with_one_cluster_has_no_interval():
    lo, hi = bootstrap_interval([("x", 1.0), ("x", 0.0)], lambda rs: 0.5, cluster_of=lambda r: r[0])
    assert math.isnan(lo) and math.isnan(hi)


def test_persian_labels_render_without_missing_glyphs(tmp_path, recwarn):
    """A chart with Persian categories draws every glyph (no tofu): matplotlib warns on a missing one."""
    from lm_eval_persian_culture.report.charts import Chart, draw
    from lm_eval_persian_culture.report.scores import Score

    score = Score(run=None, task="percul", metric="accuracy_foods", value=0.5, n=40, low=0.35, high=0.65)
    chart = Chart("PerCul: دقت به تفکیک دسته", ["غذاها", "آیین‌ها", "پوشاک"], {"مدل آزمایشی": [score, score, None]})
    paths = draw(chart, tmp_path)
    assert [p.suffix for p in paths] == [".png", ".svg"]
    assert not [w for w in recwarn if "missing from" in str(w.message).lower() or "glyph" in str(w.message).lower()]
    svg = paths[1].read_text(encoding="utf-8")
    assert "<path" in svg  # glyphs drawn as paths, so the SVG shows them without the font installed
