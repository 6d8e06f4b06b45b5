"""``--decoding model_default``: sample with the evaluated model's own generation defaults.

TaarofBench "used each model's default temperature" (paper sec. 3); the pack's tasks decode
greedily by default, as lm-eval tasks usually do. lm-eval cannot express "the model's default"
by itself: its HF backend sets a missing temperature to 0.0, its API backends send temperature 0.
``lm-eval-persian run --decoding model_default`` therefore resolves the defaults before the run
and passes them as explicit ``--gen_kwargs`` (so lm-eval records them in each task's config), and
records the choice and the values in ``--metadata`` (``decoding``, ``decoding_values``), which
lands in every task's ``metadata`` in the results JSON.

- HF / vLLM / SGLang models: the model's ``generation_config.json`` (do_sample, temperature,
  top_p, top_k, as set there; a model whose config does not sample stays greedy).
- Served models (OpenAI-compatible APIs): ``temperature`` is sent as null, which leaves it to the
  server's default (OpenAI's API default, or a vLLM server's model default); the values the server
  applied are not reported back, so the record says "server default".
Explicit ``--gen_kwargs`` the user gives still win.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from lm_eval_persian_culture.errors import PackUserError

DECODING_CHOICES = ("greedy", "model_default")
LOCAL_MODELS = ("hf", "hf-auto", "huggingface", "vllm", "sglang", "hf-multimodal", "vllm-vlm")
SERVED_MODELS = (
    "openai-chat-completions", "local-chat-completions", "openai-completions", "local-completions",
)  # fmt: skip
SAMPLING_FIELDS = ("temperature", "top_p", "top_k")


class DecodingError(PackUserError, ValueError):
    """--decoding cannot be resolved for this model (one clear message, before any model loads)."""


def generation_config_defaults(pretrained: str, revision: str | None = None) -> dict[str, Any]:
    """gen kwargs from a local or hub model's generation_config.json (only the fields it sets)."""
    from transformers import GenerationConfig

    try:
        config = GenerationConfig.from_pretrained(pretrained, revision=revision)
    except (OSError, ValueError) as err:
        raise DecodingError(
            f"--decoding model_default: cannot read the generation config of {pretrained!r} ({err}). "
            "Without it the model's defaults are unknown; pass --gen_kwargs explicitly instead."
        ) from None
    explicit = config.to_diff_dict()  # what the model's file sets, not transformers' class defaults
    if not config.do_sample:
        return {"do_sample": False}
    kwargs: dict[str, Any] = {"do_sample": True}
    for name in SAMPLING_FIELDS:
        value = explicit.get(name, getattr(config, name, None))
        if value is not None:
            kwargs[name] = value
    # lm-eval's HF backend turns a missing temperature into 0.0 (greedy); transformers' default is 1.0
    kwargs.setdefault("temperature", 1.0)
    return kwargs


def model_default_gen_kwargs(model: str, model_args: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(gen kwargs to pass to lm-eval, record for the results metadata)."""
    if model in LOCAL_MODELS:
        pretrained = model_args.get("pretrained")
        if not pretrained:
            raise DecodingError(f"--decoding model_default with --model {model} needs pretrained=... in --model_args")
        kwargs = generation_config_defaults(str(pretrained), model_args.get("revision"))
        return kwargs, {"source": f"generation_config.json of {pretrained}", **kwargs}
    if model in SERVED_MODELS:
        return {"temperature": None}, {"source": "server default (temperature sent as null)", "temperature": None}
    raise DecodingError(
        f"--decoding model_default does not know how --model {model} sets its defaults; "
        f"supported: {list(LOCAL_MODELS + SERVED_MODELS)}. Pass --gen_kwargs explicitly instead."
    )


def _subcommand_index(argv: list[str]) -> int:
    return 1 if argv[:1] in (["run"], ["ls"], ["validate"]) else 0


def apply_decoding_option(argv: list[str]) -> list[str]:
    """Replace ``--decoding X`` in lm-eval CLI args by the gen kwargs and metadata it stands for."""
    from lm_eval._cli.utils import MergeDictAction

    if not any(a == "--decoding" or a.startswith("--decoding=") for a in argv):
        return argv
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--decoding", choices=DECODING_CHOICES)
    parser.add_argument("--model", "-m", default="hf")
    parser.add_argument("--model_args", "-a", nargs="+", action=MergeDictAction, default=None)
    known, _ = parser.parse_known_args(argv)
    rest, skip = [], False
    for _i, arg in enumerate(argv):  # drop --decoding and its value; lm-eval does not know it
        if skip:
            skip = False
            continue
        if arg == "--decoding":
            skip = True
            continue
        if arg.startswith("--decoding="):
            continue
        rest.append(arg)
    if known.decoding == "greedy":
        extra_gen: dict[str, Any] = {"do_sample": False}
        record: dict[str, Any] = {"source": "greedy (the tasks' default)"}
    else:
        extra_gen, record = model_default_gen_kwargs(known.model, dict(known.model_args or {}))
    at = _subcommand_index(rest)
    # ours first: a user's own --gen_kwargs / --metadata later on the line override them
    ours = ["--gen_kwargs", json.dumps(extra_gen),
            "--metadata", json.dumps({"decoding": known.decoding, "decoding_values": record})]  # fmt: skip
    return rest[:at] + ours + rest[at:]
