"""Stands in for `lm_eval` and `lm-eval-persian` while tests/test_doc_commands.py runs the docs' commands.

The docs show commands for hub models, GPUs and paid APIs; this machine has none of them. The test puts
two wrapper scripts named `lm_eval` and `lm-eval-persian` first on PATH; each calls this file, which
rewrites only what cannot exist here and then runs the REAL program in this process:

- a hub model id (`pretrained=Qwen/...`, `pretrained=...`, `tokenizer=google/...`) becomes the tiny test
  model's folder (a path that exists is kept); an in-process judge from the hub (`"judge_model": "hf:Qwen/..."`,
  a jury member too) is served by the local server under that id instead (a tiny random model gives no verdicts);
- every `http://127.0.0.1:<port>` becomes the test's local OpenAI-compatible server, and a served judge with no
  `judge_base_url` (the paper's `gpt-4`) or lm-eval's `openai-chat-completions` model is sent there too;
- `--model vllm` runs lm-eval's own vLLM backend over the recording stand-in for the `vllm` package
  (lm_eval_persian_culture/testing/vllm_stand_in.py: vLLM is a CUDA build);
- a bare `...` (the docs' "your other flags") is dropped; a run gets `--limit` (DOC_SHIM_LIMIT) unless it has
  one, and `export` therefore gets `--allow-subset`.

Every rewritten command line is appended to DOC_SHIM_LOG, so the test can check that each command ran.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import sys
from pathlib import Path

TINY = os.environ["DOC_SHIM_TINY_MODEL"]
SERVER = os.environ["DOC_SHIM_SERVER_URL"].rstrip("/")  # http://127.0.0.1:<port>/v1
SERVER_ROOT = SERVER.rsplit("/v1", 1)[0]
LIMIT = os.environ.get("DOC_SHIM_LIMIT", "2")


def _local(value: str) -> str:
    """A model reference that exists here: kept; anything else (a hub id, `...`) -> the tiny model."""
    return value if value and Path(value).expanduser().exists() else TINY


def _urls(text: str) -> str:
    return re.sub(r"http://127\.0\.0\.1:\d+", SERVER_ROOT, text)


def _model_args(value: str, model: str | None) -> str:
    pairs = [kv.split("=", 1) if "=" in kv else [kv, ""] for kv in value.split(",") if kv and kv != "..."]
    out = []
    for key, val in pairs:
        if key in ("pretrained", "tokenizer"):
            val = _local(val)
        out.append(f"{key}={_urls(val)}")
    if model == "openai-chat-completions" and not any(k == "base_url" for k, _ in pairs):
        out.append(f"base_url={SERVER}/chat/completions")
    return ",".join(out)


def _hub_judge(model: str) -> bool:
    return model.startswith("hf:") and not Path(model[3:]).expanduser().exists()


def _judge(settings: dict, model_key: str, url_key: str) -> None:
    """One judge's settings: an in-process judge from the hub is served by the local server under its hub id
    instead (a tiny random model gives no verdicts; tests/judge/test_local_judge_e2e.py runs the hf: path
    itself), and a served judge with no server of its own (the paper's `gpt-4`) is sent to the local one."""
    model = settings.get(model_key)
    if isinstance(model, str) and _hub_judge(model):
        settings[model_key] = model[3:]
        settings.pop("batch_size", None)  # a local judge's setting, refused for a served one
        settings.setdefault(url_key, SERVER)
    elif isinstance(model, str) and model != "none" and not settings.get(url_key):
        settings[url_key] = SERVER
    for key, val in list(settings.items()):
        if isinstance(val, str):
            settings[key] = _urls(val)


def _metadata(value: str) -> str:
    metadata = json.loads(value)
    judge = metadata.get("judge_model")
    if isinstance(judge, list):  # a jury of models sharing one server
        metadata["judge_model"] = [j[3:] if _hub_judge(j) else j for j in judge]
        metadata.setdefault("judge_base_url", SERVER)
    else:
        _judge(metadata, "judge_model", "judge_base_url")
    jury = metadata.get("judge_jury")
    if isinstance(jury, list):  # a jury whose members live in different places
        members = [{"model": m} if isinstance(m, str) else m for m in jury]
        for member in members:
            _judge(member, "model", "base_url")
        metadata["judge_jury"] = members
    for key, val in list(metadata.items()):
        if isinstance(val, str):
            metadata[key] = _urls(val)
    return json.dumps(metadata, ensure_ascii=False)


def rewrite(prog: str, args: list[str]) -> list[str]:
    model = next((args[i + 1] for i, a in enumerate(args[:-1]) if a == "--model"), None)
    out: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "...":
            i += 1
            continue
        if arg in ("--model_args", "--metadata") and i + 1 < len(args):
            value = args[i + 1]
            out += [arg, _model_args(value, model) if arg == "--model_args" else _metadata(value)]
            i += 2
            continue
        out.append(_urls(arg))
        i += 1
    runs = (out[:1] == ["run"]) or (prog == "lm_eval" and out[:1] != ["ls"] and model is not None)
    if runs and "--limit" not in out:
        out += ["--limit", LIMIT]
    if out[:1] == ["export"] and "--allow-subset" not in out:
        out.append("--allow-subset")
    return out


def main() -> None:
    prog, *args = sys.argv[1:]
    args = rewrite(prog, args)
    with open(os.environ["DOC_SHIM_LOG"], "a", encoding="utf-8") as log:
        log.write(shlex.join([prog, *args]) + "\n")
    if "vllm" in args:
        from lm_eval_persian_culture.testing import vllm_stand_in

        vllm_stand_in.install(Path(os.environ["DOC_SHIM_SITE"]))
    sys.argv = [prog, *args]
    if prog == "lm_eval":
        from lm_eval.__main__ import cli_evaluate

        sys.exit(cli_evaluate())
    from lm_eval_persian_culture.harness.cli import main as pack_main

    sys.exit(pack_main())


if __name__ == "__main__":
    main()
