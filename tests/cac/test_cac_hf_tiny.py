"""One real ``--model hf`` run (tiny random Llama, CPU) of a CAC country task with --limit."""

from __future__ import annotations

import pytest
from cac_testlib import ACCEPTED, evaluate, metrics

from lm_eval_persian_culture.scoring.records import decode_record as rec
from lm_eval_persian_culture.tasks.cac.utils import doc_to_text, read_pick


@pytest.mark.e2e
@pytest.mark.lmeval05  # also run under lm-eval 0.5 (.ci/run)
def test_hf_backend_run(tiny_model):
    results = evaluate(
        ["cac_japan"],
        lm="hf",
        model_args=f"pretrained={tiny_model},dtype=float32",
        device="cpu",
        limit=3,
        gen_kwargs="max_gen_toks=8",
        apply_chat_template=True,
    )
    m = metrics(results, "cac_japan")
    logged = results["samples"]["cac_japan"]
    assert len(logged) == 3
    picks = [rec(s["filtered_resps"][0])["pick"] for s in logged]
    # the record holds what the shared answer grammar reads from the model's own reply
    assert picks == [read_pick(s["resps"][0][0], s["doc"])[0] for s in logged]
    assert m["invalid_rate"] == pytest.approx(sum(p is None for p in picks) / 3)
    lo_hi = [ACCEPTED[s["doc"]["conversation_id"]]["japan"] for s in logged]
    right = sum(p is not None and lo <= p <= hi for p, (lo, hi) in zip(picks, lo_hi))
    assert m["range_accuracy"] == pytest.approx(right / 3)
    # the App. B prompt went to the model as the user turn of its chat template
    for s in logged:
        assert doc_to_text(s["doc"]) in s["arguments"][0][0]
        assert "<|user|>" in s["arguments"][0][0]
