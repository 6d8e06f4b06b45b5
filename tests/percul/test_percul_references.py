"""tasks/percul/references.json against the paper's own arithmetic and the task README's table."""

from __future__ import annotations

import re

import pytest

import lm_eval_persian_culture as pack
from lm_eval_persian_culture.report.references import load_references
from lm_eval_persian_culture.tasks.percul.utils import CATEGORY_SLUGS

ROWS = load_references("percul")
SIZES = {
    "foods": 191,
    "visible_behavior": 56,
    "iconic_figures": 55,
    "institution": 43,
    "architecture": 43,
    "objects": 42,
    "appropriacy": 36,
    "dress": 33,
    "music": 32,
    "art": 32,
    "rituals": 29,
}  # Table 1


def _by_model() -> dict[tuple[str, str], dict[str, float]]:
    out: dict[tuple[str, str], dict[str, float]] = {}
    for r in ROWS:
        if r["task"] in ("percul", "percul_en") and r.get("kind", "model") == "model":
            out.setdefault((r["model"], r["task"]), {})[r["metric"]] = r["value"]
    return out


def test_table5_transcription_is_complete_and_macro_is_the_mean_of_categories():
    rows = _by_model()
    assert len(rows) == 32  # Table 5: 27 Persian rows + 5 English (†) rows
    assert sum(task == "percul_en" for _, task in rows) == 5
    assert set(SIZES) == set(CATEGORY_SLUGS.values())
    for key, metrics in rows.items():
        cats = [metrics[f"accuracy_{s}"] for s in SIZES]
        assert len(cats) == 11, key
        # the paper's Macro Avg. is the unweighted mean of its category columns (3-decimal rounding)
        assert metrics["macro_accuracy"] == pytest.approx(sum(cats) / 11, abs=6e-4), key


def test_headline_figures():
    get = {(r["model"], r["task"], r["metric"]): r["value"] for r in ROWS}
    assert get[("Claude-3.5-Sonnet", "percul", "macro_accuracy")] == 0.817  # best model (sec. 3.6)
    assert get[("Human (layperson baseline)", "percul", "macro_accuracy")] == 0.93
    assert get[("LLaMA-3.1-405B-Inst", "percul", "macro_accuracy")] == 0.718  # Table 3 prints 0.717
    drops = {r["model"]: r["value"] for r in ROWS if r["metric"] == "macro_accuracy_fa_minus_en"}
    assert len(drops) == 5 and min(drops.values()) == 0.067 and max(drops.values()) == 0.145  # "6.6% to 14.5%"


def test_readme_table_matches_the_reference_file():
    text = (pack.TASKS_DIR / "percul" / "README.md").read_text(encoding="utf-8")
    order = [
        "objects",
        "music",
        "dress",
        "institution",
        "rituals",
        "iconic_figures",
        "visible_behavior",
        "architecture",
        "art",
        "appropriacy",
        "foods",
    ]  # Table 5's column order
    rows = _by_model()
    seen = 0
    for line in text.splitlines():
        m = re.match(r"\| (.+?)( †)? \| `(percul(?:_en)?)` \| (.*) \|$", line)
        if not m:
            continue
        values = [float(v) for v in m.group(4).split(" | ")]
        expected = rows[(m.group(1), m.group(3))]
        assert values == [expected[f"accuracy_{s}"] for s in order] + [expected["macro_accuracy"]], m.group(1)
        assert bool(m.group(2)) == (m.group(3) == "percul_en")
        seen += 1
    assert seen == 32
