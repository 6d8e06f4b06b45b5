"""One real ``--model hf`` run (tiny random Llama, CPU) and the prompt check on its logged samples."""

from __future__ import annotations

import copy
import json

import lm_eval
import pytest
from divan_testlib import task_manager
from lm_eval.loggers import EvaluationTracker

from lm_eval_persian_culture.records import decode_record as rec
from lm_eval_persian_culture.tasks.divan import check_prompts
from lm_eval_persian_culture.tasks.divan.core import SYSTEM_PROMPTS


@pytest.mark.e2e
def test_hf_backend_run_and_prompt_check(tiny_model, tmp_path, capsys):
    tracker = EvaluationTracker(output_path=str(tmp_path / "out"))
    results = lm_eval.simple_evaluate(
        model="hf",
        model_args=f"pretrained={tiny_model},dtype=float32",
        device="cpu",
        tasks=["divan_binary_sp1"],
        task_manager=task_manager(),
        limit=4,
        gen_kwargs="max_gen_toks=16",
        apply_chat_template=True,
        log_samples=True,
        evaluation_tracker=tracker,
        bootstrap_iters=0,
    )
    samples = results.pop("samples")
    # what the CLI does after simple_evaluate (it rewrites the samples it saves: save a copy)
    tracker.save_results_aggregated(results=results, samples=copy.deepcopy(samples))
    tracker.save_results_samples(task_name="divan_binary_sp1", samples=copy.deepcopy(samples["divan_binary_sp1"]))

    row = results["results"]["divan_binary_sp1"]
    logged = samples["divan_binary_sp1"]
    assert len(logged) == 4  # two intact pairs under prompt 1
    # the random model's replies are mostly unreadable; the rate must match what was logged
    unreadable = sum(rec(s["filtered_resps"][0])["extracted"] is None for s in logged)
    assert row["invalid_rate,extract"] == pytest.approx(unreadable / 4)
    correct = sum(rec(s["filtered_resps"][0])["extracted"] == s["doc"]["answer"] for s in logged)
    assert row["accuracy,extract"] == pytest.approx(correct / 4)
    assert all(s["resps"][0][0] == rec(s["filtered_resps"][0])["reply"] for s in logged)
    # the tiny model's chat template keeps the system role: prompt 1 is in every rendered prompt
    assert all(f"<|system|>\n{SYSTEM_PROMPTS[0]}</s>" in s["arguments"][0][0] for s in logged)

    files = list((tmp_path / "out").rglob("samples_divan_binary_sp1_*.jsonl"))
    assert len(files) == 1
    report = check_prompts.check_system_prompts(files[0])
    assert report["ok"], report["problems"]
    assert report["present"] == 4 and report["results_file"] and report["system_instruction"] is None
    assert check_prompts.main([str(tmp_path / "out")]) == 0
    assert "OK" in capsys.readouterr().out
    first = json.loads(files[0].read_text(encoding="utf-8").splitlines()[0])
    assert first["doc"]["system_prompt"] == SYSTEM_PROMPTS[0]
