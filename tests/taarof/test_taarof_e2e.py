"""TaarofBench end to end: the real lm-eval CLI and Python API, the tiny model through
``--model hf``, and the real openai client judging over HTTP against a local server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from lm_eval_persian_culture.testing.openai_server import FakeOpenAIServer

BIN = Path(sys.executable).parent
SECRET = "sk-test-DO-NOT-LEAK-4242"


def scripted_judge(prompt: str, body: dict) -> str:
    """Verdicts keyed on the scenario, so expected accuracies can be worked out by hand.

    taarof-expected rows 0-4: necklace (Yes), "ran into each other" (No), "hung out" (Yes),
    "offered cash" (unparseable), beach (No)                -> 2 of 4 judged, 1 error
    non-taarof rows 0-4: all "No."                          -> 0 of 5, 0 errors
    """
    if "necklace" in prompt or "hung out" in prompt:
        return "Yes"
    if "offered cash" in prompt:
        return "It depends on the context."
    return "No."


@pytest.fixture()
def judge_server():
    with FakeOpenAIServer(answer=scripted_judge, models=("judge-model",)) as server:
        yield server


def run_cli(args: list[str], env_extra: dict | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "LMEVAL_LOG_LEVEL": "INFO", **(env_extra or {})}
    return subprocess.run([str(BIN / "lm-eval-persian"), *args], capture_output=True, text=True, env=env, timeout=900)


def metadata(shared_data, server, **extra) -> str:
    return json.dumps(
        {
            "data_dir": str(shared_data),
            "judge_model": "judge-model",
            "judge_base_url": server.base_url,
            "judge_api_key_env": "MY_JUDGE_KEY",
            "judge_max_error_rate": 0.5,
            "judge_unparseable_retries": 2,  # re-asks, as for a judge sampling above temperature 0
            **extra,
        }
    )


def read_outputs_latest(out: Path):
    latest = max(out.rglob("results_*.json"), key=lambda p: p.name)
    return json.loads(latest.read_text()), None


def read_outputs(out: Path):
    results = json.loads(next(out.rglob("results_*.json")).read_text())
    samples = {
        p.name.split("samples_")[1].rsplit("_", 1)[0]: [json.loads(line) for line in p.read_text().splitlines()]
        for p in out.rglob("samples_*.jsonl")
    }
    return results, samples


@pytest.mark.e2e
def test_cli_run_taarof_group_with_judge(shared_data, tiny_model, judge_server, tmp_path):
    out = tmp_path / "OUT"
    # transient faults the openai client must ride out: a rate limit, a 5xx, a hung request
    judge_server.fail_next(1, kind="429", match="necklace", retry_after=0)
    judge_server.fail_next(1, kind="500", match="hung out")
    judge_server.fail_next(1, kind="hang", match="beach", hang_s=5)
    args = [
        "run", "--model", "hf", "--model_args", f"pretrained={tiny_model},dtype=float32", "--device", "cpu",
        "--tasks", "taarof", "--limit", "5", "--apply_chat_template", "--log_samples", "--output_path", str(out),
        "--metadata", metadata(shared_data, judge_server, judge_timeout=1.5),
        "--gen_kwargs", "max_gen_toks=16",  # the scripted judge reads the scenario, not the reply; keeps CI fast
    ]  # fmt: skip
    proc = run_cli(args, {"MY_JUDGE_KEY": SECRET})
    assert proc.returncode == 0, proc.stderr[-4000:]
    results, samples = read_outputs(out)

    r = results["results"]
    assert r["taarof_expected"]["accuracy,judge"] == pytest.approx(2 / 4)
    assert r["taarof_expected"]["judge_errors,judge"] == 1
    assert r["taarof_non_taarof"]["accuracy,judge"] == 0.0
    assert r["taarof_non_taarof"]["judge_errors,judge"] == 0
    # group: size-weighted mean of the two subtasks (5 docs each)
    assert r["taarof"]["accuracy,judge"] == pytest.approx((0.5 * 5 + 0.0 * 5) / 10)
    # per-topic: row 0 "Borrowing and lending" (Yes), row 2 "Leaving" (Yes)
    assert r["taarof_expected"]["accuracy_topic_borrowing_and_lending,judge"] == 1.0
    assert r["taarof_expected"]["accuracy_topic_leaving,judge"] == 1.0
    assert r["taarof_expected"]["accuracy_topic_invitation,judge"] == 0.0

    # every sample: the exact paper prompt as a chat, the judge's verdict and raw answer
    exp = samples["taarof_expected"]
    assert [s["doc_id"] for s in exp] == [0, 1, 2, 3, 4]
    first = exp[0]
    prompt = first["arguments"]["gen_args_0"]["arg_0"]
    assert "<|system|>\nYou are a helpful assistant." in prompt
    assert "Imagine we are in a wedding in Iran. You are a friend of mine and I am a woman." in prompt
    record = json.loads(first["filtered_resps"][0])
    assert record["verdict"] == "yes" and record["judge_raw"] == "Yes"
    assert record["response"] == first["resps"][0][0]
    unparseable = json.loads(exp[3]["filtered_resps"][0])
    assert unparseable["verdict"] is None and unparseable["judge_error"].startswith("unparseable")
    assert first["doc"]["provenance"].startswith(f"local:{shared_data}/taarof/taarof-expected.jsonl sha256:")

    # one call per reply, one retry per injected fault, and two re-asks of the unparseable answer
    # (judge_unparseable_retries=2); the key was sent, and appears nowhere else
    assert judge_server.request_count == 10 + 3 + 2
    assert judge_server.requests_matching("offered cash") == 3
    assert judge_server.requests_matching("necklace") == 2
    assert all(h == f"Bearer {SECRET}" for h in judge_server.auth_headers)
    for path in out.rglob("*"):
        if path.is_file():
            assert SECRET not in path.read_text(errors="ignore"), path
    assert SECRET not in proc.stdout and SECRET not in proc.stderr
    assert "judge judge-model:" in proc.stderr  # usage summary at the end of the run
    # results config says what deviates from the paper
    assert "deviations" in results["configs"]["taarof_expected"]["metadata"]

    # a re-run pays the judge only for the answer it could not read (not cached, so asked again,
    # with its re-asks): every verdict comes from the disk cache
    proc2 = run_cli(args, {"MY_JUDGE_KEY": SECRET})
    assert proc2.returncode == 0, proc2.stderr[-4000:]
    assert judge_server.request_count == 15 + 3
    assert judge_server.requests_matching("offered cash") == 6
    results2, _ = read_outputs_latest(out)
    assert results2["results"]["taarof"]["accuracy,judge"] == r["taarof"]["accuracy,judge"]


@pytest.mark.e2e
def test_missing_judge_fails_before_generation(shared_data, tiny_model, tmp_path):
    out = tmp_path / "OUT"
    proc = run_cli([
        "run", "--model", "hf", "--model_args", f"pretrained={tiny_model},dtype=float32", "--device", "cpu",
        "--tasks", "taarof_expected", "--limit", "2", "--output_path", str(out),
        "--metadata", json.dumps({"data_dir": str(shared_data)}),
    ])  # fmt: skip
    assert proc.returncode != 0
    assert "scored by an LLM judge, and none is configured" in proc.stderr
    assert not out.exists()


@pytest.mark.e2e
def test_model_may_not_judge_itself(shared_data, tiny_model, tmp_path):
    # lm-eval merges --model_args into the metadata the task sees, so the guard knows the model.
    proc = run_cli([
        "run", "--model", "hf", "--model_args", f"pretrained={tiny_model},dtype=float32", "--device", "cpu",
        "--tasks", "taarof_expected", "--limit", "1", "--output_path", str(tmp_path / "OUT"),
        "--metadata", json.dumps({"data_dir": str(shared_data), "judge_model": str(tiny_model),
                                  "judge_base_url": "http://127.0.0.1:9/v1"}),
    ])  # fmt: skip
    assert proc.returncode == 2  # a user error: one message, no traceback (see tests/test_preflight.py)
    assert f"the evaluated model (pretrained={tiny_model}) is also the judge" in proc.stderr
    assert "Running generate_until requests" not in proc.stderr


@pytest.mark.e2e
def test_python_api_judge_failures_past_threshold_fail_loudly(shared_data, tiny_model, judge_server):
    import lm_eval

    import lm_eval_persian_culture as pack
    from lm_eval_persian_culture.judge import JudgeFailureError

    judge_server.fail_next(100, kind="500", retry_after=0)
    meta = json.loads(metadata(shared_data, judge_server, judge_max_retries=1, judge_max_error_rate=0.2))
    with pytest.raises(JudgeFailureError):
        lm_eval.simple_evaluate(
            model="hf", model_args=f"pretrained={tiny_model},dtype=float32", device="cpu",
            tasks=["taarof_non_taarof"], task_manager=pack.task_manager(include_defaults=False, metadata=meta),
            limit=3, apply_chat_template=True, gen_kwargs="max_gen_toks=8",
        )  # fmt: skip
    assert judge_server.request_count == 3 * 2  # each item: first try + 1 retry


@pytest.mark.e2e
def test_predict_only_generates_and_logs_the_paper_prompt_without_a_judge(shared_data, tiny_model, tmp_path):
    """The foundation's acceptance command (plus --predict_only, since scoring needs a judge)."""
    out = tmp_path / "OUT"
    proc = run_cli(
        ["run", "--model", "hf", "--model_args", f"pretrained={tiny_model},dtype=float32", "--device", "cpu",
         "--tasks", "taarof", "--limit", "5", "--log_samples", "--output_path", str(out), "--predict_only",
         "--gen_kwargs", "max_gen_toks=16"],
        {"PERSIAN_CULTURE_DATA_DIR": str(shared_data)},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-4000:]
    _, samples = read_outputs(out)
    assert sorted(samples) == ["taarof_expected", "taarof_non_taarof"]
    from lm_eval_persian_culture.tasks.taarof import utils

    for name, loader in (("taarof_expected", utils.load_expected), ("taarof_non_taarof", utils.load_non_taarof)):
        docs = loader(data_dir=str(shared_data), judge_model="none")["test"]
        assert len(samples[name]) == 5
        for s in samples[name]:
            # no chat template: lm-eval glues the system prompt (description) to the paper prompt
            expected = "You are a helpful assistant." + utils.doc_to_text(docs[s["doc_id"]])
            assert s["arguments"]["gen_args_0"]["arg_0"] == expected
            assert json.loads(s["filtered_resps"][0])["judge_error"] == "judge disabled"


def gender_and_persian_judge(prompt: str, body: dict) -> str:
    """Yes exactly when the user is a woman (gender pairs); Persian: بله for the necklace row."""
    if "در فارسی" in prompt:
        return "بله" if "necklace" in prompt else "خیر."
    return "Yes" if "I am a woman" in prompt or "I am a female" in prompt else "No"


@pytest.mark.e2e
def test_gender_pairs_and_persian_condition_through_the_python_api(shared_data, tiny_model):
    import lm_eval

    import lm_eval_persian_culture as pack

    with FakeOpenAIServer(answer=gender_and_persian_judge, models=("judge-model",)) as server:
        meta = json.loads(metadata(shared_data, server))
        tm = pack.task_manager(include_defaults=False, metadata=meta)
        res = lm_eval.simple_evaluate(
            model="hf", model_args=f"pretrained={tiny_model},dtype=float32", device="cpu",
            tasks=["taarof_gender", "taarof_expected_fa"], task_manager=tm, limit=3,
            apply_chat_template=True, log_samples=True, gen_kwargs="max_gen_toks=8",
        )  # fmt: skip
    # --limit 3 keeps pair 0 (row 0 "woman": F=Yes, M=No) and only the female half of pair 1
    # (row 1 "man" flipped to "woman": Yes). The paired metrics use pair 0 alone; accuracy uses all 3.
    g = res["results"]["taarof_gender"]
    assert g["accuracy_female,judge"] == 1.0 and g["accuracy_male,judge"] == 0.0
    assert g["gender_gap,judge"] == 1.0
    assert g["accuracy,judge"] == pytest.approx(2 / 3)
    # Persian rows 0-2: بله (necklace), خیر, خیر
    assert res["results"]["taarof_expected_fa"]["accuracy,judge"] == pytest.approx(1 / 3)
    fa = res["samples"]["taarof_expected_fa"][0]
    assert "تصور کنید ما در یک جشن عروسی در ایران هستیم." in fa["arguments"][0][0]
    assert json.loads(fa["filtered_resps"][0])["judge_raw"] == "بله"


def fidelity_judge(prompt: str, body: dict) -> str:
    """Yes for a woman user; row 1's man (not the necklace row) gets an answer only the paper's rule
    scores ('Yes' anywhere); everyone else No."""
    if "I am a woman" in prompt:
        return "Yes"
    if "I am a man" in prompt and "necklace" not in prompt:
        return "I would say Yes"
    return "No"


@pytest.mark.e2e
def test_fidelity_switches_paper_metrics_and_combined_topics(shared_data, tiny_model, tmp_path):
    """--decoding model_default, the paper's judge form, accuracy_paper, McNemar, taarof_combined."""
    import shutil

    from transformers import GenerationConfig

    model = tmp_path / "sampling-model"
    shutil.copytree(tiny_model, model)
    GenerationConfig(do_sample=True, temperature=0.7, top_p=0.9).save_pretrained(model)
    out = tmp_path / "OUT"
    with FakeOpenAIServer(answer=fidelity_judge, models=("judge-model",)) as server:
        proc = run_cli([
            "run", "--model", "hf", "--model_args", f"pretrained={model},dtype=float32", "--device", "cpu",
            "--tasks", "taarof_gender,taarof_combined", "--limit", "4", "--apply_chat_template", "--log_samples",
            "--output_path", str(out), "--decoding", "model_default", "--metadata", metadata(shared_data, server),
            "--gen_kwargs", "max_gen_toks=16",  # the user's own gen kwargs merge with the model's defaults
        ], {"MY_JUDGE_KEY": SECRET})  # fmt: skip
        assert proc.returncode == 0, proc.stderr[-4000:]
        prompts = [m["content"] for body in server.requests for m in body["messages"] if m["role"] == "user"]
    results, samples = read_outputs(out)
    r = results["results"]

    # gender, --limit 4 = pairs 0 and 1. Pair 0 (row 0): F Yes, M No. Pair 1 (row 1): F Yes, M
    # "I would say Yes" (unparseable: pair dropped from the paired figures, counted 1 by the paper's rule)
    g = r["taarof_gender"]
    assert g["accuracy,judge"] == pytest.approx(2 / 3) and g["judge_errors,judge"] == 1
    assert g["accuracy_paper,judge"] == pytest.approx(3 / 4)
    assert (g["gender_discordant_female,judge"], g["gender_discordant_male,judge"]) == (1, 0)
    assert g["gender_mcnemar_p,judge"] == 1.0  # n = 1: 2 * 1/2
    assert g["gender_gap,judge"] == 1.0

    # combined, --limit 4 = taarof-expected rows 0-3: row 0 woman Yes (Borrowing and lending),
    # row 1 man -> unparseable (Invitation), rows 2 (host, Leaving) and 3 No
    c = r["taarof_combined"]
    assert c["accuracy,judge"] == pytest.approx(1 / 3) and c["accuracy_paper,judge"] == pytest.approx(2 / 4)
    assert c["accuracy_expected,judge"] == pytest.approx(1 / 3)
    assert c["accuracy_topic_borrowing_and_lending,judge"] == 1.0 and c["accuracy_topic_leaving,judge"] == 0.0

    # fidelity switches, labelled in the results: judge form, decoding and the values used
    for task in ("taarof_gender", "taarof_combined"):
        cfg = results["configs"][task]
        assert cfg["metadata"]["judge_reply_format"] == "paper"
        assert cfg["metadata"]["decoding"] == "model_default"
        assert cfg["metadata"]["decoding_values"]["temperature"] == 0.7
        assert cfg["generation_kwargs"]["do_sample"] is True and cfg["generation_kwargs"]["temperature"] == 0.7
        assert cfg["generation_kwargs"]["top_p"] == 0.9 and cfg["generation_kwargs"]["max_gen_toks"] == 16

    # the judge got the script's prompt: the reply after "I say:" pasted raw
    from lm_eval_persian_culture.tasks.taarof import utils

    first = samples["taarof_gender"][0]
    assert utils.judge_prompt(first["doc"], first["resps"][0][0]) in prompts
    assert first["doc"]["judge_reply_format"] == "paper"


@pytest.mark.e2e
def test_num_fewshot_is_refused_before_generation(shared_data, tiny_model, tmp_path):
    proc = run_cli([
        "run", "--model", "hf", "--model_args", f"pretrained={tiny_model},dtype=float32", "--device", "cpu",
        "--tasks", "taarof_expected", "--limit", "1", "--num_fewshot", "2", "--output_path", str(tmp_path / "OUT"),
        "--metadata", json.dumps({"data_dir": str(shared_data), "judge_model": "none"}),
    ])  # fmt: skip
    assert proc.returncode != 0
    assert "TaarofBench is zero-shot" in proc.stderr and "--num_fewshot 2 would put other test scenarios" in proc.stderr
    assert "Running generate_until requests" not in proc.stderr
