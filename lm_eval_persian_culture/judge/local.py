"""The judge in this process: ``judge_model=hf:<hub id or directory>`` through transformers, no key.

Same prompts as the served judge (the system prompt and the judge prompt, rendered with the
model's own chat template), greedy decoding, several prompts per forward pass (left padding,
sorted by length so little is padding), on the GPU when there is one. The model loads once per
process, and only when the cache misses: a fully cached re-run loads nothing.

The cache key carries the model's revision, so a changed judge never reuses old verdicts:
- a hub id: the commit of the snapshot (the local Hugging Face cache's ref, else the hub's answer);
  the model is then loaded at exactly that commit. Pin one with ``hf:org/name@<commit>``.
- a directory: a sha256 over its files (config, tokenizer, weights), remembered per file by size
  and modification time in the judge cache folder, so large weights are hashed once.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

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
    """sha256 over (relative path, content hash) of every file; per-file hashes memoized by size and mtime."""
    memo_path = cache_dir / HASH_MEMO_FILENAME
    try:
        memo = json.loads(memo_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        memo = {}
    combined = hashlib.sha256()
    changed = False
    for path in sorted(p for p in directory.rglob("*") if p.is_file()):
        rel = path.relative_to(directory).as_posix()
        if any(part.startswith(".") for part in Path(rel).parts):
            continue  # .cache/, .git/: not part of the model
        stat = path.stat()
        memo_key = f"{path}|{stat.st_size}|{stat.st_mtime_ns}|{stat.st_ino}"
        digest = memo.get(memo_key)
        if digest is None:
            file_hash = hashlib.sha256()
            with path.open("rb") as fh:
                for chunk in iter(lambda: fh.read(1 << 22), b""):
                    file_hash.update(chunk)
            digest = memo[memo_key] = file_hash.hexdigest()
            changed = True
        combined.update(f"{rel}\0{digest}\n".encode())
    if changed:
        try:
            cache_dir.mkdir(parents=True, exist_ok=True)
            tmp = memo_path.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_text(json.dumps(memo, indent=0), encoding="utf-8")
            tmp.replace(memo_path)
        except OSError as err:  # only a speed-up: hash again next time
            log.debug("could not save %s: %s", memo_path, err)
    return combined.hexdigest()


@dataclass
class _Loaded:
    model: Any
    tokenizer: Any
    device: str
    dtype: str
    eos_ids: frozenset[int]
    merge_system: bool = False  # the chat template rejects the system role


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
        batch_size = self.settings.batch_size
        new_tokens = max_tokens or _UNCAPPED_MAX_TOKENS
        start = 0
        while start < len(order):
            batch = order[start : start + batch_size]
            encoded = tokenizer(
                [texts[i] for i in batch], return_tensors="pt", padding=True, add_special_tokens=False
            ).to(loaded.device)
            try:
                with torch.inference_mode():
                    output = loaded.model.generate(
                        **encoded, max_new_tokens=new_tokens, do_sample=False, pad_token_id=tokenizer.pad_token_id
                    )
            except torch.OutOfMemoryError:
                if batch_size == 1:
                    for i in batch:
                        on_answer(i, None, "out of memory on one prompt: use a smaller judge or judge_device=cpu")
                    start += len(batch)
                    continue
                batch_size = max(1, batch_size // 2)
                log.warning("judge out of memory: judge_batch_size lowered to %d", batch_size)
                if torch.cuda.is_available():
                    torch.cuda.empty_cache()
                continue
            except Exception as err:  # noqa: BLE001 - reported per item, never scored
                for i in batch:
                    on_answer(i, None, f"generation failed: {type(err).__name__}: {err}"[:_MAX_ERROR_TEXT])
                start += len(batch)
                continue
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


def _until_eos(tokens: list[int], eos_ids: frozenset[int]) -> list[int]:
    """The generated tokens up to (not including) the first end-of-sequence (padding follows it)."""
    for n, token in enumerate(tokens):
        if token in eos_ids:
            return tokens[:n]
    return tokens
