"""The local judge (judge_model=hf:<dir>): the tiny model judging in-process, batched, cached.

The tiny model's answers are garbage (random weights), which is the point: whatever it says
must come back as an unparseable judgment, never a crash and never a score.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from lm_eval_persian_culture.judge import (
    PAPER_SYSTEM_PROMPT,
    Judge,
    JudgeConfigError,
    JudgeSettings,
    check_not_self_judge,
    local,
    parse_yes_no,
)
from lm_eval_persian_culture.judge.filter import configured_judge

PROMPTS = [
    "Is this polite?",
    "Would an Iranian find this reply polite? Answer only with Yes or No.",
    "آیا این پاسخ مؤدبانه است؟",
    "Scenario: a guest refuses tea twice. Reply: I accept at once. " * 3,
    "yes no",
]


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.startswith("PERSIAN_CULTURE_JUDGE_") or name in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
            monkeypatch.delenv(name)


@pytest.fixture
def judge_dir(tiny_model: Path, tmp_path: Path) -> Path:
    """A copy of the tiny model under another name (the evaluated model may not judge itself)."""
    return Path(shutil.copytree(tiny_model, tmp_path / "tiny-judge"))


@pytest.fixture
def fresh_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """Forget loaded models and resolved revisions, as a new process would."""
    monkeypatch.setattr(local, "_models", {})
    monkeypatch.setattr(local, "_refs", {})


def local_settings(judge_dir: Path, tmp_path: Path, **overrides) -> JudgeSettings:
    return JudgeSettings(model=f"hf:{judge_dir}", cache_dir=str(tmp_path / "cache"), **overrides)


def test_local_judge_batches_with_the_chat_template_and_matches_unbatched_greedy(
    judge_dir, tmp_path, fresh_process, monkeypatch
) -> None:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer, LlamaForCausalLM

    batch_sizes: list[int] = []
    generate = LlamaForCausalLM.generate

    def counting_generate(self, *args, **kwargs):
        batch_sizes.append((kwargs.get("input_ids") if "input_ids" in kwargs else args[0]).shape[0])
        return generate(self, *args, **kwargs)

    monkeypatch.setattr(LlamaForCausalLM, "generate", counting_generate)
    loads_before = local.LOAD_COUNT
    with Judge(local_settings(judge_dir, tmp_path, batch_size=2)) as judge:
        results = judge.judge_many(PROMPTS, template_id="t")
        described = judge.describe()
    assert local.LOAD_COUNT == loads_before + 1
    assert sorted(batch_sizes) == [1, 2, 2]  # 5 prompts, 2 per forward pass
    assert described["device"] == "cpu" and described["revision"].startswith("sha256:")

    # Independently: each prompt alone (no padding), the judge's system + user messages through
    # the model's chat template, greedy, 16 new tokens.
    tokenizer = AutoTokenizer.from_pretrained(judge_dir)
    model = AutoModelForCausalLM.from_pretrained(judge_dir, dtype=torch.float32).eval()
    for prompt, result in zip(PROMPTS, results):
        messages = [{"role": "system", "content": PAPER_SYSTEM_PROMPT}, {"role": "user", "content": prompt}]
        text = tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
        assert text.startswith(f"<|system|>\n{PAPER_SYSTEM_PROMPT}</s>\n<|user|>\n{prompt}</s>")
        ids = tokenizer(text, return_tensors="pt", add_special_tokens=False).input_ids
        out = model.generate(ids, max_new_tokens=16, do_sample=False, pad_token_id=tokenizer.pad_token_id)[
            0, ids.shape[1] :
        ]
        new = out.tolist()
        if tokenizer.eos_token_id in new:
            new = new[: new.index(tokenizer.eos_token_id)]
        assert result.raw == tokenizer.decode(new, skip_special_tokens=True)
        assert (result.prompt_tokens, result.completion_tokens) == (ids.shape[1], len(new))
        # garbage from random weights: whatever it is, the verdict is what the parser reads, and
        # no verdict is an "unparseable" error, never a "No"
        assert result.verdict == parse_yes_no(result.raw)
        if result.verdict is None:
            assert result.error.startswith("unparseable: ")
    assert judge.usage.unparseable == sum(r.verdict is None for r in results)
    # greedy: asking again would repeat the answer, so nothing is re-asked (and all of it is cached:
    # see test_cached_rerun_loads_no_judge_model)
    assert (judge.usage.reasks, judge.usage.requests_sent) == (0, len(PROMPTS))


def test_cached_rerun_loads_no_judge_model(judge_dir, tmp_path, fresh_process, monkeypatch) -> None:
    settings = local_settings(judge_dir, tmp_path)
    with Judge(settings) as judge:
        first = judge.judge_many(PROMPTS, template_id="t")
    loads = local.LOAD_COUNT

    # A new process, where loading the judge model is impossible.
    monkeypatch.setattr(local, "_models", {})
    monkeypatch.setattr(local, "_refs", {})

    def no_loading(ref, settings):
        raise RuntimeError("the judge model must not be loaded")

    monkeypatch.setattr(local, "_load", no_loading)
    with Judge(settings) as judge:
        again = judge.judge_many(PROMPTS, template_id="t")
        assert all(r.cached for r in again)
        assert [r.raw for r in again] == [r.raw for r in first]
        assert judge.usage.prompt_tokens == 0
        # a miss does try to load, and the failure is an error per item, not a crash
        [miss] = judge.judge_many(["a prompt never judged before"], template_id="t")
    assert local.LOAD_COUNT == loads
    assert miss.verdict is None and miss.raw is None
    assert miss.error.startswith("judge model ") and "must not be loaded" in miss.error


def test_the_cache_key_carries_the_model_revision(judge_dir, tmp_path, fresh_process, monkeypatch) -> None:
    settings = local_settings(judge_dir, tmp_path)
    with Judge(settings) as judge:
        judge.judge_many(PROMPTS[:2], template_id="t")
        revision = judge.fingerprint()["revision"]
    # change the model (here its config: one more generation setting), same path, new process
    config = json.loads((judge_dir / "config.json").read_text())
    (judge_dir / "config.json").write_text(json.dumps({**config, "use_cache": True}))
    monkeypatch.setattr(local, "_models", {})
    monkeypatch.setattr(local, "_refs", {})
    with Judge(settings) as judge:
        changed = judge.judge_many(PROMPTS[:2], template_id="t")
        assert judge.fingerprint()["revision"] != revision
    assert not any(r.cached for r in changed)


def test_local_judge_settings_are_checked(judge_dir, tmp_path, fresh_process) -> None:
    with pytest.raises(JudgeConfigError, match="model id or a directory"):
        JudgeSettings(model="hf:", cache_dir=str(tmp_path))
    with pytest.raises(JudgeConfigError, match="judge_base_url"):
        JudgeSettings(model=f"hf:{judge_dir}", base_url="http://127.0.0.1:8000/v1", cache_dir=str(tmp_path))
    with pytest.raises(JudgeConfigError, match="greedily"):
        JudgeSettings(model=f"hf:{judge_dir}", temperature=0.7, cache_dir=str(tmp_path))
    with pytest.raises(JudgeConfigError, match="no such directory"):
        configured_judge({"judge_model": f"hf:{tmp_path}/missing", "judge_cache_dir": str(tmp_path)})
    # no key needed, nothing loaded: the revision is known at task loading (before generation)
    loads = local.LOAD_COUNT
    js = configured_judge({"judge_model": f"hf:{judge_dir}", "judge_cache_dir": str(tmp_path), "pretrained": "other"})
    assert js.is_local and js.local_model == str(judge_dir) and local.LOAD_COUNT == loads
    # the evaluated model may not judge itself, with or without the hf: prefix
    with pytest.raises(JudgeConfigError, match="judge_allow_self"):
        check_not_self_judge(js, {"pretrained": str(judge_dir)})
    with pytest.raises(JudgeConfigError, match="judge_allow_self"):
        check_not_self_judge(JudgeSettings(model="hf:Qwen/Qwen2.5-1.5B-Instruct", cache_dir="/tmp/x"),
                             {"pretrained": "Qwen/Qwen2.5-1.5B-Instruct"})  # fmt: skip
    with pytest.raises(JudgeConfigError, match="judge_allow_self"):
        check_not_self_judge(JudgeSettings(model="hf:Qwen/Qwen2.5-1.5B-Instruct@" + "a" * 40, cache_dir="/tmp/x"),
                             {"pretrained": "/models/Qwen2.5-1.5B-Instruct"})  # fmt: skip


def test_local_judge_settings_from_metadata(tmp_path) -> None:
    js = JudgeSettings.from_settings(
        {"judge_model": "hf:org/judge", "judge_batch_size": "4", "judge_device": "cuda:1", "judge_dtype": "bfloat16"}
    )
    assert (js.local_model, js.batch_size, js.device, js.dtype) == ("org/judge", 4, "cuda:1", "bfloat16")
    with pytest.raises(JudgeConfigError):
        JudgeSettings.from_settings({"judge_model": "hf:org/judge", "judge_batch_size": "0"})
