"""The judge in this process: ``judge_model=hf:<hub id or directory>`` through transformers, no key.

Same prompts as the served judge (the system prompt and the judge prompt, rendered with the
model's own chat template), greedy decoding, several prompts per forward pass (left padding,
sorted by length so little is padding), on the GPU when there is one. ``judge_batch_size`` unset
(or ``auto``): on a CUDA GPU the first batch tried is large (``AUTO_BATCH_SIZE_GPU``) and is halved on
out-of-memory until one fits; that size is remembered for the rest of the run (per loaded model); on
the CPU a small batch (``AUTO_BATCH_SIZE_OTHER``). The model loads once per
process, and only when the cache misses: a fully cached re-run loads nothing.

The cache key carries the model's revision, so a changed judge never reuses old verdicts:
- a hub id: the commit of the snapshot (the local Hugging Face cache's ref, else the hub's answer);
  the model is then loaded at exactly that commit. Pin one with ``hf:org/name@<commit>``.
- a directory: a sha256 over its files (config, tokenizer, weights), remembered per file by size
  and modification time in the judge cache folder, so large weights are hashed once.
"""

from __future__ import annotations

import logging
import os
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lm_eval_persian_culture.data.fingerprint import directory_fingerprint
from lm_eval_persian_culture.judge.backend import OnAnswer
from lm_eval_persian_culture.judge.cache import CachedAnswer
from lm_eval_persian_culture.judge.settings import JudgeConfigError, JudgeSettings

log = logging.getLogger(__name__)

HASH_MEMO_FILENAME = "local_model_hashes.json"
_UNCAPPED_MAX_TOKENS = 512  # when a caller asks for no cap at all
_MAX_ERROR_TEXT = 160
_COMMIT = re.compile(r"[0-9a-f]{40}")

LOAD_COUNT = 0
"""How many judge models this process has loaded (tests check that a cached re-run loads none)."""


@dataclass(frozen=True)
class LocalModelRef:
    """Where the judge model comes from and which version it is."""

    spec: str  # what the user wrote after hf:
    path: str  # hub id or absolute directory, as from_pretrained takes it
    source: str  # "hub" or "directory"
    revision: str  # hub commit, or "sha256:<hash of the directory's files>"


_refs: dict[tuple[str, str], LocalModelRef] = {}
_refs_lock = threading.Lock()


def resolve_local_model(settings: JudgeSettings) -> LocalModelRef:
    """The model and revision named by ``judge_model=hf:...``, without loading it (memoized per process).

    Raises JudgeConfigError when it is neither a directory nor a hub model that can be found.
    """
    spec = settings.local_model
    memo_key = (spec, settings.cache_dir)
    with _refs_lock:
        if memo_key not in _refs:
            _refs[memo_key] = _resolve(spec, Path(settings.cache_dir).expanduser())
        return _refs[memo_key]


def _resolve(spec: str, cache_dir: Path) -> LocalModelRef:
    directory = Path(spec).expanduser()
    if directory.is_dir():
        directory = directory.resolve()
        if not (directory / "config.json").is_file():
            raise JudgeConfigError(f"judge_model=hf:{spec}: {directory} has no config.json (not a transformers model)")
        return LocalModelRef(spec, str(directory), "directory", "sha256:" + directory_hash(directory, cache_dir))
    if spec.startswith(("/", ".", "~")) or os.sep + os.sep in spec:
        raise JudgeConfigError(f"judge_model=hf:{spec}: no such directory")
    repo_id, _, revision = spec.partition("@")
    if repo_id.count("/") > 1 or not repo_id:
        raise JudgeConfigError(f"judge_model=hf:{spec}: neither a directory nor a hub id like org/name")
    commit = _hub_commit(repo_id, revision or None)
    return LocalModelRef(spec, repo_id, "hub", commit)


def _hub_commit(repo_id: str, revision: str | None) -> str:
    """The commit a hub id resolves to: pinned, from the local cache's ref, or asked of the hub (found the
    way the evaluated model is: ``data.hub.locate_model``)."""
    if revision and _COMMIT.fullmatch(revision):
        return revision
    from lm_eval_persian_culture.data.hub import ModelNotFound, locate_model

    try:
        where = locate_model(repo_id, f"judge_model=hf:{repo_id}", revision)
    except ModelNotFound as err:
        raise JudgeConfigError(str(err)) from None
    if where.revision and where.source == "cache":
        return where.revision
    try:
        from huggingface_hub import HfApi

        sha = HfApi().model_info(repo_id, revision=revision, timeout=10).sha
    except Exception as err:  # noqa: BLE001 - any hub failure means the same thing to the user
        raise JudgeConfigError(
            f"judge_model=hf:{repo_id}: not in the local Hugging Face cache and the hub could not tell its "
            f"revision ({type(err).__name__}: {str(err)[:120]})"
        ) from None
    if not sha:
        raise JudgeConfigError(f"judge_model=hf:{repo_id}: the hub returned no revision")
    return sha


def directory_hash(directory: Path, cache_dir: Path) -> str:
    """The model directory's fingerprint (data/fingerprint.py); per-file hashes memoized in the cache dir."""
    return directory_fingerprint(directory, cache_dir / HASH_MEMO_FILENAME)


@dataclass
class _Loaded:
    model: Any
    tokenizer: Any
    device: str
    dtype: str
    eos_ids: frozenset[int]
    merge_system: bool = False  # the chat template rejects the system role
    batch_size: int | None = None  # judge_batch_size unset: the size that fitted, remembered for the run


_models: dict[tuple[str, str, str, str], _Loaded | str] = {}  # loaded model, or why it failed
_models_lock = threading.Lock()


def _pick_device(requested: str) -> str:
    import torch

    if requested != "auto":
        return requested
    if torch.cuda.is_available():
        # One process per GPU (accelerate, torchrun): the judge goes on this process's GPU, not all on GPU 0.
        local_rank = os.environ.get("LOCAL_RANK")
        if local_rank and local_rank.isdigit():
            return f"cuda:{int(local_rank) % torch.cuda.device_count()}"
        return "cuda"
    if getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available():
        return "mps"
    return "cpu"


def _load(ref: LocalModelRef, settings: JudgeSettings) -> _Loaded:
    global LOAD_COUNT
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    device = _pick_device(settings.device)
    if settings.dtype != "auto":
        dtype: Any = getattr(torch, settings.dtype, None)
        if not isinstance(dtype, torch.dtype):
            raise JudgeConfigError(f"judge_dtype={settings.dtype!r} is not a torch dtype (float32, bfloat16, ...)")
    else:
        dtype = "auto" if device.startswith("cuda") else torch.float32  # the checkpoint's dtype on GPU
    revision = {"revision": ref.revision} if ref.source == "hub" else {}
    log.warning("Loading judge model %s (%s) on %s", ref.spec, ref.revision[:19], device)
    LOAD_COUNT += 1
    tokenizer = AutoTokenizer.from_pretrained(ref.path, **revision)
    tokenizer.padding_side = "left"  # generation continues on the right
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    if not tokenizer.chat_template:
        raise JudgeConfigError(
            f"judge model {ref.spec} has no chat template, so it cannot be given the judge's system and user "
            "messages: use an instruct (chat) model"
        )
    model = AutoModelForCausalLM.from_pretrained(ref.path, dtype=dtype, **revision).to(device).eval()
    eos = model.generation_config.eos_token_id
    eos_ids = frozenset(eos if isinstance(eos, (list, tuple)) else [] if eos is None else [eos])
    if tokenizer.eos_token_id is not None:
        eos_ids |= {tokenizer.eos_token_id}
    return _Loaded(model, tokenizer, device, str(model.dtype).removeprefix("torch."), eos_ids)


def loaded_model(ref: LocalModelRef, settings: JudgeSettings) -> _Loaded:
    """The judge model, loaded on first use and shared by every Judge of the process."""
    key = (ref.path, ref.revision, settings.device, settings.dtype)
    with _models_lock:
        if key not in _models:
            try:
                _models[key] = _load(ref, settings)
            except JudgeConfigError as err:
                _models[key] = str(err)
            except Exception as err:  # noqa: BLE001 - reported per item, like an unreachable server
                _models[key] = f"judge model {ref.spec} failed to load: {type(err).__name__}: {err}"
                log.error("%s", _models[key])
        entry = _models[key]
    if isinstance(entry, str):
        raise _LoadFailed(entry)
    return entry


class _LoadFailed(RuntimeError):
    pass


class LocalBackend:
    deterministic = True  # greedy: asking again gives the same answer, so the Judge never re-asks

    def __init__(self, settings: JudgeSettings) -> None:
        self.settings = settings
        self.ref = resolve_local_model(settings)
        self._loaded: _Loaded | None = None

    def fingerprint(self) -> dict[str, Any]:
        return {"revision": self.ref.revision}

    def describe(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "backend": "transformers (in-process)",
            "model": self.settings.model,
            "source": self.ref.source,
            "revision": self.ref.revision,
        }
        if self._loaded is not None:
            out.update(device=self._loaded.device, dtype=self._loaded.dtype)
            out["batch_size"] = self.settings.batch_size or self._loaded.batch_size
            out["batch_size_set_by"] = "judge_batch_size" if self.settings.batch_size else "auto (largest that fitted)"
        return out

    def _chat_text(self, loaded: _Loaded, prompt: str) -> str:
        system = self.settings.system_prompt
        messages = [{"role": "system", "content": system}, {"role": "user", "content": prompt}]
        if not loaded.merge_system:
            try:
                return loaded.tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
            except Exception as err:  # noqa: BLE001 - jinja's TemplateError: e.g. "System role not supported"
                loaded.merge_system = True
                log.warning(
                    "judge model %s: its chat template rejects the system message (%s); the system prompt is "
                    "put at the start of the user message instead",
                    self.ref.spec, str(err)[:80],
                )  # fmt: skip
        merged = [{"role": "user", "content": f"{system}\n\n{prompt}"}]
        return loaded.tokenizer.apply_chat_template(merged, tokenize=False, add_generation_prompt=True)

    def answer_many(self, prompts: Sequence[str], max_tokens: int | None, on_answer: OnAnswer) -> None:
        try:
            loaded = self._loaded = loaded_model(self.ref, self.settings)
        except _LoadFailed as err:
            for i in range(len(prompts)):
                on_answer(i, None, str(err)[:_MAX_ERROR_TEXT])
            return
        import torch

        tokenizer = loaded.tokenizer
        texts = [self._chat_text(loaded, prompt) for prompt in prompts]
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))  # similar lengths share a batch
        batch_size = self.settings.batch_size or loaded.batch_size or first_batch_size(loaded.device)
        new_tokens = max_tokens or _UNCAPPED_MAX_TOKENS
        start = 0
        while start < len(order):
            batch = order[start : start + batch_size]
            encoded = tokenizer(
                [texts[i] for i in batch], return_tensors="pt", padding=True, add_special_tokens=False
            ).to(loaded.device)
            out_of_memory = False
            try:
                with torch.inference_mode():
                    output = loaded.model.generate(
                        **encoded, max_new_tokens=new_tokens, do_sample=False, pad_token_id=tokenizer.pad_token_id
                    )
            except Exception as err:  # noqa: BLE001 - out of memory is retried smaller; the rest reported per item
                out_of_memory = is_out_of_memory(err)
                if not out_of_memory:
                    for i in batch:
                        on_answer(i, None, f"generation failed: {type(err).__name__}: {err}"[:_MAX_ERROR_TEXT])
                    start += len(batch)
                    continue
            if out_of_memory:  # out of the except block, so the failed attempt's tensors can be freed
                del encoded
                if len(batch) == 1:
                    on_answer(batch[0], None, "out of memory on one prompt: use a smaller judge or judge_device=cpu")
                    start += 1
                    continue
                batch_size = max(1, len(batch) // 2)
                if self.settings.batch_size is None:
                    loaded.batch_size = batch_size  # remembered: later batches and calls start here
                log.warning("judge out of memory at a batch of %d: judge_batch_size lowered to %d%s", len(batch),
                            batch_size, "" if self.settings.batch_size else " for the rest of the run")  # fmt: skip
                _free_accelerator_memory()
                continue
            if self.settings.batch_size is None and loaded.batch_size is None:
                loaded.batch_size = batch_size
            prompt_lengths = encoded["attention_mask"].sum(dim=1).tolist()
            generated = output[:, encoded["input_ids"].shape[1] :].tolist()
            for i, tokens, prompt_len in zip(batch, generated, prompt_lengths):
                used = _until_eos(tokens, loaded.eos_ids)
                # Cached even when empty or garbage: greedy decoding gives the same answer next time.
                text = tokenizer.decode(used, skip_special_tokens=True)
                on_answer(i, CachedAnswer(raw=text, prompt_tokens=int(prompt_len), completion_tokens=len(used)), None)
            start += len(batch)

    def close(self) -> None:
        """The model stays loaded for other judges of the process (it is shared)."""


AUTO_BATCH_SIZE_GPU = 256
"""``judge_batch_size`` unset on a CUDA GPU: the first batch tried (halved on out-of-memory until one
fits, then kept for the run). Judge prompts are short (a scenario and a reply, a few hundred tokens) and
answers a few tokens: a 1.5B judge fits hundreds per batch on an 80 GB card."""
AUTO_BATCH_SIZE_OTHER = 16
"""``judge_batch_size`` unset on the CPU (or MPS): a fixed size (the former default). No out-of-memory
error warns before the machine swaps, so there is nothing to search against; bench/judge_batch.py
prints what other sizes give on a machine."""


def first_batch_size(device: str) -> int:
    """The batch tried first when ``judge_batch_size`` is unset and none has been found yet."""
    return AUTO_BATCH_SIZE_GPU if str(device).startswith("cuda") else AUTO_BATCH_SIZE_OTHER


def is_out_of_memory(err: BaseException) -> bool:
    """torch's out-of-memory error (``torch.OutOfMemoryError``, ``torch.cuda.OutOfMemoryError``), or
    the RuntimeError older torch and some kernels raise ("CUDA out of memory", "MPS backend out of memory")."""
    try:
        import torch

        oom_type = getattr(torch, "OutOfMemoryError", None) or getattr(torch.cuda, "OutOfMemoryError", None)
        if oom_type is not None and isinstance(err, oom_type):
            return True
    except ImportError:  # pragma: no cover - the local judge needs torch
        pass
    return isinstance(err, RuntimeError) and "out of memory" in str(err).lower()


def _free_accelerator_memory() -> None:
    import gc

    import torch

    gc.collect()
    if torch.cuda.is_available():
        torch.cuda.empty_cache()


def _until_eos(tokens: list[int], eos_ids: frozenset[int]) -> list[int]:
    """The generated tokens up to (not including) the first end-of-sequence (padding follows it)."""
    for n, token in enumerate(tokens):
        if token in eos_ids:
            return tokens[:n]
    return tokens
