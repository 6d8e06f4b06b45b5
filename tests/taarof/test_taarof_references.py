"""TaarofBench reference numbers: what the paper prints, and how its overall relates to the per-type values."""

from __future__ import annotations

import pytest

from lm_eval_persian_culture.report.references import load_references


@pytest.fixture(scope="module")
def refs():
    return {(r["model"], r["task"], r["metric"]): r for r in load_references("taarof")}


MODELS = ("GPT-4o", "Claude 3.5 Haiku", "DeepSeek V3", "Dorna (Llama-3-8B, Persian)", "Llama-3-8B-Instruct")


def test_per_model_rows_are_complete(refs):
    for m in MODELS:
        for task in ("taarof_expected", "taarof_non_taarof", "taarof"):
            assert (m, task, "accuracy") in refs, (m, task)
    assert refs[("GPT-4o", "taarof_expected", "accuracy")]["value"] == 0.338
    assert refs[("DeepSeek V3", "taarof", "accuracy")]["value"] == 0.562


def test_printed_overall_is_above_the_311_139_weighted_mean(refs):
    # by hand, GPT-4o: (311 * 33.8 + 139 * 91.4) / 450 = 23216.4 / 450 = 51.59, printed 52.4
    e, n = (
        refs[("GPT-4o", "taarof_expected", "accuracy")]["value"],
        refs[("GPT-4o", "taarof_non_taarof", "accuracy")]["value"],
    )
    assert (311 * e + 139 * n) / 450 == pytest.approx(0.51592, abs=1e-5)
    gaps = {}
    for m in MODELS:
        e = refs[(m, "taarof_expected", "accuracy")]["value"]
        n = refs[(m, "taarof_non_taarof", "accuracy")]["value"]
        gaps[m] = refs[(m, "taarof", "accuracy")]["value"] - (311 * e + 139 * n) / 450
    assert all(0.005 <= g <= 0.0225 for g in gaps.values()), gaps
    assert max(gaps, key=gaps.get) == "DeepSeek V3" and gaps["DeepSeek V3"] == pytest.approx(0.0224, abs=1e-4)
    assert min(gaps, key=gaps.get).startswith("Dorna") and gaps[min(gaps, key=gaps.get)] == pytest.approx(
        0.0053, abs=1e-4
    )


def test_condition_deltas_and_gender(refs):
    # sec. 4.2: "DeepSeek V3 improved the most (36.6% to 68.6%, +32.0 points)"
    assert refs[("DeepSeek V3", "taarof_expected_fa", "accuracy")]["value"] == pytest.approx(0.686)
    assert refs[("GPT-4o", "taarof_expected_fa", "accuracy")]["value"] == pytest.approx(0.338 + 0.331)
    assert refs[("Llama-3-8B-Instruct", "taarof_expected_nocountry", "accuracy")]["value"] == pytest.approx(
        0.417 - 0.117
    )
    # sec. 4.6: GPT-4o 43.6% vs 30.9%, Claude 3.5 46.4% vs 32.7%
    assert refs[("GPT-4o", "taarof_gender", "gender_gap")]["value"] == pytest.approx(0.127)
    assert refs[("Claude 3.5 Haiku", "taarof_gender", "gender_gap")]["value"] == pytest.approx(0.137)


def test_human_baselines(refs):
    kinds = {r["model"] for r in refs.values() if r.get("kind") == "human"}
    assert len(kinds) == 3
    assert refs[("Humans (heritage speakers)", "taarof_expected", "accuracy")]["value"] == 0.6
    assert refs[("Humans (non-Iranians)", "taarof_non_taarof", "accuracy")]["value"] == 0.818
