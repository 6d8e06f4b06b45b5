"""The pack through the backends users run it with: `--model vllm` and served models.

vLLM is a CUDA build that cannot be installed on these machines, so the first test drives
lm-eval's OWN vLLM backend class (lm_eval/models/vllm_causallms.py, unchanged) on top of a
RECORDING STAND-IN for the `vllm` module. The stand-in implements only the surface that class
uses (LLM, SamplingParams, TokensPrompt, LoRARequest, get_tokenizer, resolve_chat_template),
rejects sampling parameters real vLLM does not know, and records what each task sends: the
sampling parameters of every request, the chat messages, and the prompt tokens.

The second test runs `--model local-chat-completions` (lm-eval's `api` extra, real HTTP) against
the local OpenAI-compatible server, as vLLM's / llama.cpp's / Ollama's servers are used.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import lm_eval_persian_culture as pack
from lm_eval_persian_culture.testing.openai_server import FakeOpenAIServer
from lm_eval_persian_culture.testing.vllm_stand_in import VLLMStandInRecorder, build_vllm_stand_in

REPO = Path(__file__).resolve().parents[1]
DIVAN_FIXTURES = REPO / "tests" / "divan" / "fixtures"

# DivanBench App. B.2, verbatim from the paper (not from the pack's code).
PAPER_SYSTEM_PROMPTS = (
    "You are a helpful assistant who is an expert in Iranian culture, folklore, traditions, and customs.",
    "You are a knowledgeable cultural expert specializing in Persian traditions, superstitions, and folk beliefs. "
    "Answer questions based on traditional Iranian cultural knowledge.",
    "You are an assistant with deep knowledge of Iranian heritage, including traditional customs, superstitions, "
    "proverbs, and cultural practices passed down through generations.",
    "As an expert in Iranian folklore and cultural traditions, provide accurate answers about Persian customs, "
    "beliefs, superstitions, and traditional practices.",
    "You are a cultural historian specializing in Iranian and Persian traditions. Draw upon your extensive "
    "knowledge of Iranian superstitions, customs, ceremonies, and folk beliefs to answer questions.",
)
# TaarofBench: the authors' evaluation.py system prompt.
TAAROF_SYSTEM_PROMPT = "You are a helpful assistant."

# What each benchmark must send (papers; the pack's documented choices where a paper is silent):
# DivanBench sec. 4.1: temperature 0.1, top-p 0.9; max tokens 512 is the pack's (paper: unstated).
# TaarofBench: greedy decoding, 256 new tokens (the pack's documented deviation: the paper used
# each model's default temperature). Neither sets stop sequences, so only the model's EOS stops.
EXPECTED_SAMPLING = {
    "divan": {"temperature": 0.1, "top_p": 0.9, "max_tokens": 512},
    "taarof": {"temperature": 0.0, "max_tokens": 256},
}
EOS = "</s>"  # the tiny model's end-of-sequence token


@pytest.fixture()
def vllm_stand_in(tmp_path, monkeypatch):
    recorder = VLLMStandInRecorder()
    # lm-eval reads vLLM's version from the installed distribution's metadata.
    dist = tmp_path / "stand-in-site" / "vllm-0.33.0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: vllm\nVersion: 0.33.0\n")
    monkeypatch.syspath_prepend(str(dist.parent))
    backend = "lm_eval.models.vllm_causallms"
    sys.modules.pop(backend, None)
    for name, mod in build_vllm_stand_in(recorder).items():
        monkeypatch.setitem(sys.modules, name, mod)
    yield recorder
    sys.modules.pop(backend, None)  # never leave lm-eval bound to the stand-in


@pytest.fixture()
def data_dir(tmp_path, shared_data) -> Path:
    """<data_dir>/<benchmark>/: the real TaarofBench release and the DivanBench fixtures."""
    data = tmp_path / "data"
    data.mkdir()
    (data / "taarof").symlink_to(shared_data / "taarof")
    (data / "divan").symlink_to(DIVAN_FIXTURES / "divan")
    return data


@pytest.mark.e2e
def test_lm_evals_vllm_backend_sends_each_tasks_sampling_and_messages(vllm_stand_in, tiny_model, data_dir):
    import lm_eval
    from transformers import AutoTokenizer

    from lm_eval_persian_culture.tasks.divan import utils as divan_core
    from lm_eval_persian_culture.tasks.taarof import utils as taarof_utils

    tm = pack.task_manager(include_defaults=False, metadata={"data_dir": str(data_dir), "judge_model": "none"})
    # every TaarofBench and DivanBench task, whose sampling and messages are asserted below (the other
    # benchmarks' data are fixtures of their own tests, and the pre-flight checks every task's data)
    # (taarof_judge_check, where the model is the judge of labelled replies, has its own end-to-end test:
    # tests/taarof/test_judge_check_task_e2e.py)
    tasks = sorted(t for t in tm.all_subtasks if t.startswith(("taarof", "divan")) and t != "taarof_judge_check")
    assert {"taarof_expected", "taarof_gender", "taarof_non_taarof_fa", "divan", "divan_binary_sp5"} <= set(tasks)
    limit = 2
    res = lm_eval.simple_evaluate(
        model="vllm", model_args=f"pretrained={tiny_model},max_model_len=2048", batch_size="auto",
        tasks=tasks, task_manager=tm, limit=limit, apply_chat_template=True, log_samples=True, bootstrap_iters=0,
    )  # fmt: skip

    rec = vllm_stand_in
    assert len(rec.engine_args) == 1 and rec.engine_args[0]["seed"] == 1234  # a fixed seed (DivanBench 4.1)
    # --batch_size auto: every prompt of every task reaches vLLM in one generate() call
    assert len(rec.generate_calls) == 1
    engine_calls = rec.generate_calls[0]
    assert len(engine_calls) == len(tasks) * limit == len(rec.chats)

    tokenizer = AutoTokenizer.from_pretrained(tiny_model)
    by_prompt: dict[str, list[dict]] = {}
    for ids, sampling in engine_calls:
        by_prompt.setdefault(tokenizer.decode(ids), []).append(sampling)

    for task in tasks:
        samples = res["samples"][task]
        assert len(samples) == limit, task
        benchmark = task.split("_")[0]
        for s in samples:
            prompt, doc = s["arguments"][0][0], s["doc"]
            assert prompt in by_prompt, (task, prompt[:200])
            sampling = by_prompt[prompt][0]
            want = EXPECTED_SAMPLING[benchmark]
            assert {k: sampling.get(k) for k in want} == want, (task, sampling)
            assert sampling["stop"] == [EOS], (task, sampling)
            if benchmark == "taarof":
                assert "top_p" not in sampling  # greedy: nothing else shapes the distribution
                variant = "_fa" if task.endswith("_fa") else "_nocountry" if task.endswith("_nocountry") else ""
                system, user = TAAROF_SYSTEM_PROMPT, getattr(taarof_utils, "doc_to_text" + variant)(doc)
            else:
                system, user = PAPER_SYSTEM_PROMPTS[doc["prompt_id"] - 1], divan_core.doc_to_text(doc)
                assert (doc["statement"] if doc["type"] == "binary" else doc["question"]) in user
            messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
            assert messages in rec.chats, (task, doc)
            # ...and the tokens vLLM received are those messages under the model's chat template
            assert prompt == f"<|system|>\n{system}</s>\n<|user|>\n{user}</s>\n<|assistant|>\n"

    # the stand-in's reply ("پاسخ: بله", yes) flowed back through lm-eval into the pack's metrics:
    # with --limit 2 the first two binary docs are scored as accepted
    binary = res["results"]["divan_binary_sp1"]
    assert binary["invalid_rate,extract"] == 0.0
    first_two = [s["doc"]["answer"] for s in res["samples"]["divan_binary_sp1"]]
    assert binary["accuracy,extract"] == pytest.approx(first_two.count("yes") / 2)


def divan_server_answer(prompt: str, body: dict) -> str:
    return "بله"  # accept every statement


@pytest.mark.e2e
def test_local_chat_completions_gets_divan_system_prompts_as_system_messages(tmp_path):
    import lm_eval

    tm = pack.task_manager(include_defaults=False, metadata={"data_dir": str(DIVAN_FIXTURES)})
    with FakeOpenAIServer(answer=divan_server_answer, models=("served-model",)) as server:
        res = lm_eval.simple_evaluate(
            model="local-chat-completions",
            model_args=f"model=served-model,base_url={server.base_url}/chat/completions,num_concurrent=4,max_retries=1",
            tasks=["divan_binary"], task_manager=tm, apply_chat_template=True, bootstrap_iters=0,
        )  # fmt: skip
        bodies = list(server.requests)

    # the fixture: 3 positive + 3 negative statements, each under the 5 system prompts
    assert len(bodies) == 30
    systems = [b["messages"][0]["content"] for b in bodies]
    assert all([m["role"] for m in b["messages"]] == ["system", "user"] for b in bodies)
    assert sorted(set(systems)) == sorted(PAPER_SYSTEM_PROMPTS)
    assert all(systems.count(p) == 6 for p in PAPER_SYSTEM_PROMPTS)
    for b in bodies:
        assert (b["temperature"], b["top_p"], b["max_tokens"], b["model"]) == (0.1, 0.9, 512, "served-model")
        assert "do_sample" not in b and "max_gen_toks" not in b
    # every statement accepted: positives all right, negatives all wrong
    r = res["results"]["divan_binary"]
    assert r["accept_true,extract"] == 1.0 and r["reject_false,extract"] == 0.0
    assert r["accuracy,extract"] == pytest.approx(0.5)
    assert r["acquiescence_bias,extract"] == pytest.approx(1.0)


def test_api_extra_is_installed():
    # `--model local-chat-completions` / `openai-chat-completions` need lm-eval's `api` extra
    out = subprocess.run(
        [sys.executable, "-c", "import tenacity, aiohttp, requests; "
         "from lm_eval.models.openai_completions import LocalChatCompletion; print('ok')"],
        capture_output=True, text=True,
    )  # fmt: skip
    assert out.stdout.strip() == "ok", out.stderr
    from importlib.metadata import requires

    from packaging.requirements import Requirement

    lm_eval_req = next(r for r in map(Requirement, requires("lm-eval-persian-culture")) if r.name == "lm-eval")
    assert {"hf", "api"} <= lm_eval_req.extras


PERCUL_FIXTURES = REPO / "tests" / "percul" / "fixtures"


def test_local_completions_without_a_tokenizer_is_stopped_by_the_preflight_with_what_to_pass():
    """`--model local-completions` against a llama.cpp-like server whose model is named "gemma": lm-eval
    would load a Hugging Face tokenizer named "gemma" and fail with a raw traceback (offline: after
    its hub retries). The pre-flight says what to pass, before the model is built or a request sent."""
    import lm_eval

    from lm_eval_persian_culture.harness.preflight import PreflightError

    with FakeOpenAIServer(models=("gemma",)) as server:
        with pytest.raises(PreflightError) as info:
            lm_eval.simple_evaluate(
                model="local-completions", model_args=f"base_url={server.base_url}/completions,model=gemma",
                tasks=["percul_mc"], metadata={"data_dir": str(PERCUL_FIXTURES)}, limit=1,
            )  # fmt: skip
        assert server.request_count == 0
    message = str(info.value)
    assert "settings [percul_mc]: --model local-completions, model='gemma' and no tokenizer" in message
    assert "tokenizer=<the served model's tokenizer" in message and "tokenized_requests=False" in message


@pytest.mark.parametrize(
    "model_args",
    [
        "base_url=http://127.0.0.1:1/v1/completions,model=gemma,tokenizer=google/gemma-3-270m-it,tokenized_requests=False",
        "base_url=http://127.0.0.1:1/v1/completions,model=google/gemma-3-270m-it",  # a hub id is a tokenizer
        "base_url=http://127.0.0.1:1/v1/completions,model=gemma,tokenizer_backend=None",
    ],
)
def test_local_completions_with_a_tokenizer_passes_that_check(model_args):
    from lm_eval_persian_culture.harness.preflight import PreflightReport, check_served_tokenizer

    report = PreflightReport(tasks=["percul_mc"])
    check_served_tokenizer(report, "local-completions", model_args)
    check_served_tokenizer(report, "hf", "pretrained=gemma")  # not a served completions model
    assert report.problems == []
