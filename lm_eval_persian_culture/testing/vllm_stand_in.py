"""A RECORDING STAND-IN for the `vllm` package (tests and the docs' command runner only).

vLLM is a CUDA build that cannot be installed on CPU machines. lm-eval's OWN vLLM backend class
(lm_eval/models/vllm_causallms.py, unchanged) runs on top of these modules, which implement only the
surface that class uses (LLM, SamplingParams, TokensPrompt, LoRARequest, get_tokenizer,
resolve_chat_template), reject sampling parameters real vLLM does not know, and record what each
task sends. Generation is a fixed reply; nothing here pretends to be a model.
"""

from __future__ import annotations

import copy
import importlib.machinery
import sys
import types
from pathlib import Path


class VLLMStandInRecorder:
    """What lm-eval's vLLM backend handed to the stand-in engine."""

    def __init__(self) -> None:
        self.engine_args: list[dict] = []
        self.generate_calls: list[list[tuple[list[int], dict]]] = []  # per call: (prompt ids, sampling kwargs)
        self.chats: list[list[dict]] = []  # messages given to the tokenizer's chat template
        self.reply = "پاسخ: بله"


# Fields of vllm.SamplingParams (vLLM 0.x); the real class rejects any other keyword.
VLLM_SAMPLING_FIELDS = {
    "n", "best_of", "presence_penalty", "frequency_penalty", "repetition_penalty", "temperature", "top_p",
    "top_k", "min_p", "seed", "stop", "stop_token_ids", "ignore_eos", "max_tokens", "min_tokens", "logprobs",
    "prompt_logprobs", "detokenize", "skip_special_tokens", "spaces_between_special_tokens",
    "include_stop_str_in_output", "logits_processors", "truncate_prompt_tokens", "output_kind",
    "guided_decoding", "logit_bias", "allowed_token_ids", "extra_args", "bad_words",
}  # fmt: skip


def build_vllm_stand_in(recorder: VLLMStandInRecorder) -> dict[str, types.ModuleType]:
    """Modules standing in for the `vllm` package (named `vllm...` so lm-eval imports them)."""

    def module(name: str, **attrs) -> types.ModuleType:
        mod = types.ModuleType(name, f"STAND-IN for {name} (tests only; vLLM cannot be installed here)")
        mod.__spec__ = importlib.machinery.ModuleSpec(name, None, is_package=True)
        mod.__dict__.update(attrs)
        return mod

    class SamplingParams:
        def __init__(self, **kwargs) -> None:
            unknown = set(kwargs) - VLLM_SAMPLING_FIELDS
            if unknown:
                raise TypeError(f"SamplingParams got unexpected keyword arguments {sorted(unknown)}")
            self.kwargs = kwargs

    class LLM:
        def __init__(self, **kwargs) -> None:
            recorder.engine_args.append(kwargs)
            max_len = kwargs.get("max_model_len") or 2048
            self.llm_engine = types.SimpleNamespace(model_config=types.SimpleNamespace(max_model_len=max_len))

        def generate(self, prompts, sampling_params=None, use_tqdm=True, lora_request=None):
            assert isinstance(sampling_params, list) and len(sampling_params) == len(prompts)
            call = [(list(p["prompt_token_ids"]), sp.kwargs) for p, sp in zip(prompts, sampling_params)]
            recorder.generate_calls.append(call)
            out = types.SimpleNamespace
            return [out(outputs=[out(text=recorder.reply)]) for _ in prompts]

    def get_tokenizer(name, *args, **kwargs):
        from transformers import AutoTokenizer

        tokenizer = AutoTokenizer.from_pretrained(name)
        real = tokenizer.apply_chat_template

        def recording_apply_chat_template(conversation, *a, **k):
            recorder.chats.append(copy.deepcopy(conversation))
            return real(conversation, *a, **k)

        tokenizer.apply_chat_template = recording_apply_chat_template
        return tokenizer

    def resolve_chat_template(tokenizer, chat_template=None, tools=None, **kwargs):
        return chat_template or tokenizer.chat_template

    class LoRARequest:
        def __init__(self, *args) -> None:
            self.args = args

    return {
        "vllm": module("vllm", LLM=LLM, SamplingParams=SamplingParams, TokensPrompt=dict),
        "vllm.lora": module("vllm.lora"),
        "vllm.lora.request": module("vllm.lora.request", LoRARequest=LoRARequest),
        "vllm.renderers": module("vllm.renderers"),
        "vllm.renderers.hf": module("vllm.renderers.hf", resolve_chat_template=resolve_chat_template),
        "vllm.tokenizers": module("vllm.tokenizers", get_tokenizer=get_tokenizer),
    }


def install(site_dir: Path, recorder: VLLMStandInRecorder | None = None) -> VLLMStandInRecorder:
    """Put the stand-in in ``sys.modules`` (and a ``vllm`` distribution's metadata, which lm-eval reads
    for the version, under ``site_dir`` on ``sys.path``) for the rest of this process."""
    recorder = recorder or VLLMStandInRecorder()
    dist = Path(site_dir) / "vllm-0.33.0.dist-info"
    dist.mkdir(parents=True, exist_ok=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: vllm\nVersion: 0.33.0\n")
    sys.path.insert(0, str(site_dir))
    sys.modules.pop("lm_eval.models.vllm_causallms", None)
    sys.modules.update(build_vllm_stand_in(recorder))
    return recorder
