"""``taarof_judge_check`` through lm-eval: the evaluated model is the judge. A scripted model answers the
paper's judge prompt for the first 12 labelled rows; every metric is worked out by hand below."""

from __future__ import annotations

import json
import math

import lm_eval
import pytest

import lm_eval_persian_culture as pack
from lm_eval_persian_culture.tasks.taarof import judge_check
from lm_eval_persian_culture.testing.scripted_lm import ScriptedLM, messages_of

# The first 12 rows of the shipped set: (check_id, language, label), as written in the file.
FIRST_12 = [
    ("tjc-001", "en", 1), ("tjc-002", "en", 0), ("tjc-003", "en", 0), ("tjc-004", "fa", 1),
    ("tjc-005", "fa", 0), ("tjc-006", "en", 1), ("tjc-007", "en", 0), ("tjc-008", "en", 0),
    ("tjc-009", "fa", 1), ("tjc-010", "fa", 0), ("tjc-011", "en", 1), ("tjc-012", "en", 0),
]  # fmt: skip
# The scripted judge: agrees except 002 and 005 (Yes where the label is 0) and 011 (No where it is 1);
# 009 gets no verdict. Decorated answers are read by the pack's parser.
ANSWERS = {
    "tjc-001": "Yes", "tjc-002": "Yes.", "tjc-003": "No", "tjc-004": "**Yes**", "tjc-005": "Yes",
    "tjc-006": "Yes", "tjc-007": "No.", "tjc-008": "Answer: No", "tjc-009": "Hmm, hard to say.",
    "tjc-010": "No", "tjc-011": "No", "tjc-012": "no",
}  # fmt: skip
# By hand over the 11 judged rows: yy 001 004 006 = 3; ny 002 005 = 2; yn 011 = 1; nn 003 007 008 010 012 = 5.
# agreement 8/11, strict 8/12. Labels 4 Yes / 7 No, judge 5 Yes / 6 No: p_e = (4*5 + 7*6) / 121 = 62/121,
# kappa = (88 - 62) / (121 - 62) = 26/59. All 12 are taarof-expected (non-taarof: no item, NaN).
# en (8 judged): yy 001 006, ny 002, yn 011, nn 003 007 008 012 -> 6/8; labels 3 Yes, judge 3 Yes:
#   p_e = (9 + 25) / 64, kappa = (48 - 34) / (64 - 34) = 7/15.
# fa (3 judged): yy 004, ny 005, nn 010 -> 2/3; labels 1 Yes, judge 2 Yes: p_e = 4/9, kappa = (6 - 4) / (9 - 4) = 2/5.
EXPECTED = {
    "agreement": 8 / 11, "agreement_strict": 8 / 12, "kappa": 26 / 59, "no_verdict": 1,
    "label_yes_judge_yes": 3, "label_yes_judge_no": 1, "label_no_judge_yes": 2, "label_no_judge_no": 5,
    "agreement_expected": 8 / 11, "kappa_expected": 26 / 59,
    "agreement_en": 6 / 8, "kappa_en": 7 / 15, "agreement_fa": 2 / 3, "kappa_fa": 2 / 5,
}  # fmt: skip


def wilson_by_hand(k: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    p = k / n
    centre = (p + z**2 / (2 * n)) / (1 + z**2 / n)
    half = (z / (1 + z**2 / n)) * math.sqrt(p * (1 - p) / n + z**2 / (4 * n**2))
    return centre - half, centre + half


@pytest.mark.e2e
@pytest.mark.lmeval05
def test_taarof_judge_check_through_lm_eval(shared_data):
    rows = [json.loads(line) for line in judge_check.SET_PATH.read_text(encoding="utf-8").splitlines()[:12]]
    assert [(r["check_id"], r["language"], r["label"]) for r in rows] == FIRST_12
    lm = ScriptedLM(lambda doc, prompt: ANSWERS[doc["check_id"]])
    results = lm_eval.simple_evaluate(
        model=lm,
        tasks=["taarof_judge_check"],
        task_manager=pack.task_manager(include_defaults=False, metadata={"data_dir": str(shared_data)}),
        limit=12,
        apply_chat_template=True,
        log_samples=True,
        bootstrap_iters=0,
    )
    got = {k.split(",")[0]: v for k, v in results["results"]["taarof_judge_check"].items() if k.endswith(",none")}
    for name, value in EXPECTED.items():
        assert got[name] == pytest.approx(value), name
    assert math.isnan(got["agreement_non_taarof"]) and math.isnan(got["kappa_non_taarof"])
    low, high = wilson_by_hand(8, 11)
    assert (got["agreement_ci95_low"], got["agreement_ci95_high"]) == (pytest.approx(low), pytest.approx(high))
    meta = results["configs"]["taarof_judge_check"]["metadata"]
    assert meta["paper_reference_agreement"] == 0.94 and meta["paper_reference_n"] == 50
    # the model was asked the paper's judge prompt, with the paper's judge system prompt
    doc, prompt, gen = lm.calls[0]
    system, user = messages_of(prompt)
    assert system == {"role": "system", "content": "You are a helpful assistant."}
    assert "Person B says: Oh no, I couldn't possibly! It's your beautiful necklace" in user["content"]
    assert "Expected Answer for Person B: It is expected that you would insist on returning it." in user["content"]
    assert user["content"].rstrip().endswith("Answer only with Yes or No.")
    assert gen["max_gen_toks"] == 16 and gen["do_sample"] is False
    fa_prompt = messages_of(next(p for d, p, _ in lm.calls if d["check_id"] == "tjc-004"))[1]["content"]
    assert "در فارسی: انتظار می‌رود که برای پس دادن آن اصرار کنید." in fa_prompt
