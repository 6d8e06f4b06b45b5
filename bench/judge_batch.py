"""The in-process judge (``judge_model=hf:...``): verdicts per second by ``judge_batch_size``.

TaarofBench judge prompts (the paper's Yes/No prompt over the real scenarios, with a fixed polite
reply) are judged by the local judge at each batch size, then once with ``judge_batch_size`` unset
(auto: the largest batch that fits, found by halving on out-of-memory; on the CPU a small default),
each pass with a fresh verdict cache, the model loaded once beforehand (load time excluded; printed
apart). Random weights never stop early, so every prompt runs its whole answer budget
(``--max-tokens``, 16 as for the verdict prompts): the figures are an upper bound on decode work.

    # CPU: the tiny random Llama of the tests (figures say little about a real judge)
    .venv/bin/python bench/judge_batch.py                    # ~1 min
    # GPU: a real-size model from a published config, random weights
    python bench/judge_batch.py --model-config /carry/qwen15 --random-weights --device cuda \\
        --sizes 8,16,32,64,128,256 --n 512
    # or a real judge
    python bench/judge_batch.py --model /models/Qwen2.5-1.5B-Instruct --device cuda --n 512
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import DATA_SOURCES, build_tiny_model, go_offline, quiet  # noqa: E402
from machine import describe_machine  # noqa: E402

REPLY = "Oh, thank you so much, you really shouldn't have! I couldn't possibly accept, it is too much."


def judge_prompts(n: int) -> list[str]:
    """n TaarofBench judge prompts (both types, cycled), built by the pack's own prompt function."""
    from lm_eval_persian_culture.tasks.taarof.prompts import judge_prompt

    rows = []
    for name in ("taarof-expected.jsonl", "non-taarof.jsonl"):
        path = DATA_SOURCES["taarof"] / name
        rows += [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    # distinct prompts (a reply number per pass), so nothing is a repeat inside one batch
    return [judge_prompt(rows[i % len(rows)], f"{REPLY} ({i})") for i in range(n)]


def run_pass(model: str, device: str, dtype: str, batch_size: int | None, prompts: list[str], max_tokens: int):
    from lm_eval_persian_culture.judge import Judge, JudgeSettings

    with tempfile.TemporaryDirectory() as cache:
        settings = JudgeSettings(model=f"hf:{model}", cache_dir=cache, batch_size=batch_size, device=device,
                                 dtype=dtype, max_tokens=max_tokens)  # fmt: skip
        with Judge(settings) as judge:
            start = time.perf_counter()
            results = judge.judge_many(prompts, template_id="bench", desc=f"batch {batch_size or 'auto'}")
            seconds = time.perf_counter() - start
            used = judge.describe().get("batch_size")
    errors = sum(r.raw is None for r in results)
    return seconds, used, errors


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, default=None, help="a judge model folder (default: the tiny Llama)")
    parser.add_argument("--model-config", type=Path, default=None, help="a published config folder (GPU runs)")
    parser.add_argument("--random-weights", action="store_true", help="with --model-config: random weights")
    parser.add_argument("--device", default="auto")
    parser.add_argument("--dtype", default="auto")
    parser.add_argument("--sizes", default="1,4,8,16,32,64", help="comma-separated batch sizes")
    parser.add_argument("--n", type=int, default=128, help="prompts per pass")
    parser.add_argument("--max-tokens", type=int, default=16)
    parser.add_argument("--no-auto", action="store_true", help="skip the judge_batch_size-unset pass")
    args = parser.parse_args(argv)
    go_offline()
    quiet()
    print(describe_machine(), flush=True)
    from lm_eval_persian_culture.judge import local

    with tempfile.TemporaryDirectory() as tmp:
        if args.model is not None:
            model, label = args.model, args.model.name
        elif args.model_config is not None:
            if not args.random_weights:
                sys.exit("--model-config needs --random-weights (or pass --model for real weights)")
            from e2e_suite import random_weight_model

            dtype = "bfloat16" if args.dtype == "auto" else args.dtype
            model = random_weight_model(args.model_config, Path(tmp) / "random-model", dtype)
            label = f"{args.model_config.name}, random weights"
        else:
            model, label = build_tiny_model(Path(tmp) / "tiny-llama"), "tiny random Llama (tests/tiny_model.py)"
        prompts = judge_prompts(args.n)
        start = time.perf_counter()
        run_pass(str(model), args.device, args.dtype, 1, prompts[:1], args.max_tokens)  # load + warm up
        load_s = time.perf_counter() - start
        loaded = next(iter(local._models.values()))
        device = getattr(loaded, "device", args.device)
        print(f"judge model: {label} on {device} ({getattr(loaded, 'dtype', '?')}); load + first verdict "
              f"{load_s:.1f} s; {args.n} TaarofBench judge prompts per pass, "
              f"{args.max_tokens} answer tokens each")  # fmt: skip
        print(f"{'judge_batch_size':>16s} {'seconds':>8s} {'verdicts/s':>10s} {'batch used':>10s} {'errors':>6s}")
        sizes: list[int | None] = [int(s) for s in args.sizes.split(",") if s.strip()]
        if not args.no_auto:
            sizes.append(None)
        for size in sizes:
            if size is None:
                loaded.batch_size = None  # as at the start of a run: nothing remembered yet
            seconds, used, errors = run_pass(str(model), args.device, args.dtype, size, prompts, args.max_tokens)
            name = "auto" if size is None else str(size)
            print(f"{name:>16s} {seconds:8.2f} {args.n / seconds:10.1f} {used!s:>10s} {errors:6d}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
