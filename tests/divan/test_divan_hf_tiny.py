"""One real ``--model hf`` run (tiny random Llama, CPU) and the prompt check on its logged samples."""

from __future__ import annotations

import copy
import json

import lm_eval
import pytest
from divan_testlib import task_manager
from lm_eval.loggers import EvaluationTracker

from lm_eval_persian_culture.scoring.records import decode_record as rec
from lm_eval_persian_culture.tasks.divan import check_prompts
from lm_eval_persian_culture.tasks.divan.utils import SYSTEM_PROMPTS


@pytest.mark.e2e
@pytest.mark.lmeval05  # also run under lm-eval 0.5 (.ci/run)
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


# A chat template without a system role, as Gemma 2's (it raises on one).
NO_SYSTEM_TEMPLATE = (
    "{{ bos_token }}{% if messages[0]['role'] == 'system' %}"
    "{{ raise_exception('System role not supported') }}{% endif %}"
    "{% for message in messages %}<start_of_turn>{{ 'model' if message['role'] == 'assistant' else message['role'] }}\n"
    "{{ message['content'] }}<end_of_turn>\n{% endfor %}{% if add_generation_prompt %}<start_of_turn>model\n{% endif %}"
)


@pytest.fixture(scope="module")
def no_system_model(tiny_model, tmp_path_factory):
    import shutil

    out = tmp_path_factory.mktemp("tiny-no-system") / "model"
    shutil.copytree(tiny_model, out)
    config_path = out / "tokenizer_config.json"
    config = json.loads(config_path.read_text(encoding="utf-8"))
    config["chat_template"] = NO_SYSTEM_TEMPLATE
    config_path.write_text(json.dumps(config), encoding="utf-8")
    (out / "chat_template.jinja").unlink(missing_ok=True)
    return out


def test_system_role_probe(tiny_model, no_system_model):
    from transformers import AutoTokenizer

    from lm_eval_persian_culture.tasks.divan.chat_template import chat_template_keeps_system, template_keeps_system

    assert template_keeps_system(AutoTokenizer.from_pretrained(tiny_model)) is True
    assert template_keeps_system(AutoTokenizer.from_pretrained(no_system_model)) is False
    assert chat_template_keeps_system({"pretrained": str(no_system_model)}) is False
    assert chat_template_keeps_system({"pretrained": str(tiny_model), "tokenizer": str(no_system_model)}) is False
    assert chat_template_keeps_system({"model": "gpt-4o"}) is None  # an API model: cannot tell


@pytest.mark.e2e
def test_auto_folds_the_system_prompt_for_a_template_without_system_role(no_system_model):
    results = lm_eval.simple_evaluate(
        model="hf",
        model_args=f"pretrained={no_system_model},dtype=float32",
        device="cpu",
        tasks=["divan_binary_sp2"],
        # the CLI merges --model_args into the task metadata; with our own TaskManager, do the same
        task_manager=task_manager(divan_system_prompt="auto", pretrained=str(no_system_model)),
        limit=2,
        gen_kwargs="max_gen_toks=8",
        apply_chat_template=True,
        log_samples=True,
        bootstrap_iters=0,
    )
    logged = results["samples"]["divan_binary_sp2"]
    assert len(logged) == 2
    for s in logged:
        prompt = s["arguments"][0][0]
        assert prompt.startswith(f"<s><start_of_turn>user\n{SYSTEM_PROMPTS[1]}\n\n{s['doc']['statement']}")
        assert s["doc"]["system_prompt_placement"] == "user"
        assert rec(s["filtered_resps"][0])["system_prompt_rendered"] is True
    assert results["configs"]["divan_binary_sp2"]["metadata"]["divan_system_prompt"] == "auto"
