"""The generative two-language task through ``--model hf`` (tiny random Llama, CPU, chat template)."""

from __future__ import annotations

import lm_eval
import pytest
from percul_testlib import task_manager

from lm_eval_persian_culture.scoring.extract import extract_choice
from lm_eval_persian_culture.scoring.records import decode_record as rec
from lm_eval_persian_culture.tasks.percul.utils import doc_to_text


@pytest.mark.e2e
@pytest.mark.lmeval05  # also run under lm-eval 0.5 (.ci/run)
def test_hf_generation_two_languages(tiny_model):
    results = lm_eval.simple_evaluate(
        model="hf", model_args=f"pretrained={tiny_model},dtype=float32", device="cpu", tasks=["percul_fa_en"],
        task_manager=task_manager(), limit=4, gen_kwargs="max_gen_toks=8", apply_chat_template=True,
        log_samples=True, bootstrap_iters=0,
    )  # fmt: skip
    logged = results["samples"]["percul_fa_en"]
    assert [(s["doc"]["id"], s["doc"]["language"]) for s in logged] == [
        ("1_O_FOO", "fa"),
        ("1_O_FOO", "en"),
        ("2_O_FOO", "fa"),
        ("2_O_FOO", "en"),
    ]
    row = {k.split(",")[0]: v for k, v in results["results"]["percul_fa_en"].items() if "," in k}
    for lang in ("fa", "en"):
        mine = [s for s in logged if s["doc"]["language"] == lang]
        # the tiny model's chat template wraps the pack's prompt as the one user message
        assert all(s["arguments"][0][0] == f"<|user|>\n{doc_to_text(s['doc'])}</s>\n<|assistant|>\n" for s in mine)
        records = [rec(s["filtered_resps"][0]) for s in mine]
        assert [r["reply"] for r in records] == [s["resps"][0][0] for s in mine]
        assert [r["extracted"] for r in records] == [extract_choice(r["reply"], s["doc"]["options"])
                                                     for r, s in zip(records, mine)]  # fmt: skip
        invalid = sum(r["extracted"] is None for r in records) / 2
        correct = sum(r["extracted"] == s["doc"]["answer"] for r, s in zip(records, mine)) / 2
        assert row[f"invalid_rate_{lang}"] == pytest.approx(invalid)
        assert row[f"accuracy_{lang}"] == pytest.approx(correct)
    assert row["accuracy_fa_minus_en"] == pytest.approx(row["accuracy_fa"] - row["accuracy_en"])
