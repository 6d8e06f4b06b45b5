"""--decoding model_default: the model's own generation defaults become explicit, recorded gen kwargs."""

from __future__ import annotations

import json

import pytest

from lm_eval_persian_culture.harness.decoding import (
    DecodingError,
    apply_decoding_option,
    generation_config_defaults,
    model_default_gen_kwargs,
)


def save_generation_config(folder, **values):
    from transformers import GenerationConfig

    GenerationConfig(**values).save_pretrained(folder)
    return str(folder)


def test_sampling_defaults_come_from_generation_config(tmp_path):
    # Llama-3-8B-Instruct's generation_config.json: do_sample true, temperature 0.6, top_p 0.9
    path = save_generation_config(tmp_path, do_sample=True, temperature=0.6, top_p=0.9)
    kwargs = generation_config_defaults(path)
    assert kwargs["do_sample"] is True and kwargs["temperature"] == 0.6 and kwargs["top_p"] == 0.9


def test_a_greedy_generation_config_stays_greedy(tmp_path):
    assert generation_config_defaults(save_generation_config(tmp_path, do_sample=False)) == {"do_sample": False}


def test_served_models_leave_temperature_to_the_server():
    kwargs, record = model_default_gen_kwargs("local-chat-completions", {"model": "m"})
    assert kwargs == {"temperature": None} and record["source"].startswith("server default")


def test_unreadable_config_and_unknown_backend_are_one_clear_error(tmp_path):
    with pytest.raises(DecodingError, match="cannot read the generation config"):
        generation_config_defaults(str(tmp_path / "nothing-here"))
    with pytest.raises(DecodingError, match="does not know how --model dummy"):
        model_default_gen_kwargs("dummy", {})


def test_cli_args_are_rewritten_before_the_users_own(tmp_path):
    path = save_generation_config(tmp_path, do_sample=True, temperature=0.7, top_p=0.8)
    argv = ["run", "--model", "hf", "--model_args", f"pretrained={path},dtype=float32", "--decoding", "model_default",
            "--tasks", "taarof", "--gen_kwargs", "top_p=0.5"]  # fmt: skip
    out = apply_decoding_option(argv)
    assert "--decoding" not in out and out[0] == "run"
    gen = json.loads(out[out.index("--gen_kwargs") + 1])
    assert gen["do_sample"] is True and gen["temperature"] == 0.7 and gen["top_p"] == 0.8
    meta = json.loads(out[out.index("--metadata") + 1])
    assert meta["decoding"] == "model_default" and meta["decoding_values"]["temperature"] == 0.7
    # the user's own --gen_kwargs comes later on the line, so lm-eval's merge lets it win
    assert out.index("--gen_kwargs") < len(out) - 2 and out[-2:] == ["--gen_kwargs", "top_p=0.5"]
    assert apply_decoding_option(["run", "--tasks", "x"]) == ["run", "--tasks", "x"]
