"""``judge_batch_size`` unset: the local judge tries a large batch on a GPU, halves it on out-of-memory
until one fits, and keeps that size for the rest of the run. Out-of-memory is faked (the tiny model's
generate raises it above a batch size), the first size is set as on a GPU."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

from lm_eval_persian_culture.judge import Judge, JudgeSettings, local

FITS = 12  # the fake device holds at most 12 prompts per batch


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.startswith("PERSIAN_CULTURE_JUDGE_"):
            monkeypatch.delenv(name)
    monkeypatch.setattr(local, "_models", {})
    monkeypatch.setattr(local, "_refs", {})


@pytest.fixture
def judge_dir(tiny_model: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(tiny_model, tmp_path / "tiny-judge"))


def oom_error(kind: str) -> BaseException:
    import torch

    if kind == "torch":
        return torch.cuda.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB")
    return RuntimeError("CUDA error: out of memory")  # the plain RuntimeError some kernels raise


@pytest.fixture
def sizes(monkeypatch: pytest.MonkeyPatch, request) -> list[int]:
    """Batch sizes generate was called with; above FITS it raises out-of-memory (of the param's kind)."""
    from transformers import LlamaForCausalLM

    seen: list[int] = []
    generate = LlamaForCausalLM.generate
    kind = getattr(request, "param", "torch")

    def fake_generate(self, *args, **kwargs):
        n = (kwargs.get("input_ids") if "input_ids" in kwargs else args[0]).shape[0]
        seen.append(n)
        if n > FITS:
            raise oom_error(kind)
        return generate(self, *args, **kwargs)

    monkeypatch.setattr(LlamaForCausalLM, "generate", fake_generate)
    monkeypatch.setattr(local, "AUTO_BATCH_SIZE_OTHER", 64)  # a large first try, as on a GPU
    return seen


def prompts(n: int, tag: str) -> list[str]:
    return [f"{tag} prompt {i}: is this reply polite?" for i in range(n)]


def test_first_batch_size_by_device():
    assert local.first_batch_size("cuda") == local.first_batch_size("cuda:1") == local.AUTO_BATCH_SIZE_GPU
    assert local.first_batch_size("cpu") == local.AUTO_BATCH_SIZE_OTHER < local.AUTO_BATCH_SIZE_GPU
    assert JudgeSettings.from_settings({"judge_model": "hf:org/j", "judge_batch_size": "auto"}).batch_size is None
    assert JudgeSettings(model="hf:org/j").batch_size is None  # unset is auto


@pytest.mark.parametrize("sizes", ["torch", "runtime"], indirect=True)
def test_auto_batch_halves_on_out_of_memory_and_remembers(judge_dir, tmp_path, sizes):
    settings = JudgeSettings(model=f"hf:{judge_dir}", cache_dir=str(tmp_path / "cache"))
    with Judge(settings) as judge:
        first = judge.judge_many(prompts(40, "a"), template_id="t")
        # 40 prompts, first try 64 -> one batch of 40: OOM -> 20: OOM -> 10 fits: 10, 10, 10, 10
        assert sizes == [40, 20, 10, 10, 10, 10]
        assert all(r.raw is not None for r in first)  # every prompt answered, none lost to out-of-memory
        assert judge.describe()["batch_size"] == 10
        sizes.clear()
        judge.judge_many(prompts(25, "b"), template_id="t")  # the size found is reused: no OOM again
        assert sizes == [10, 10, 5]


def test_explicit_batch_size_is_kept_when_it_fits(judge_dir, tmp_path, sizes):
    settings = JudgeSettings(model=f"hf:{judge_dir}", cache_dir=str(tmp_path / "cache"), batch_size=5)
    with Judge(settings) as judge:
        judge.judge_many(prompts(12, "c"), template_id="t")
    assert sizes == [5, 5, 2]


def test_out_of_memory_on_one_prompt_is_a_judge_error(judge_dir, tmp_path, sizes, monkeypatch):
    monkeypatch.setattr(sys.modules[__name__], "FITS", 0)  # nothing fits
    settings = JudgeSettings(model=f"hf:{judge_dir}", cache_dir=str(tmp_path / "cache"))
    with Judge(settings) as judge:
        results = judge.judge_many(prompts(3, "d"), template_id="t")
    assert sizes == [3, 1, 1, 1]
    assert all(r.verdict is None and "out of memory on one prompt" in r.error for r in results)
