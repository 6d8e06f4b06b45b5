"""A slow, single-slot judge server: the pack's adaptive concurrency vs. a fixed pool of requests.

The local fake server answers one request at a time (``slots=1``), ``--latency`` seconds each, and
queues the rest, dropping a queued request when its client gives up (as llama.cpp and vLLM do).
With ``judge_concurrency=64`` (the default) and a client timeout of ``--timeout`` seconds, only
``timeout / latency`` answers fit in the first timeout; the rest time out and are re-sent. Compared:
  1. fixed: the same Judge with its limit held at judge_concurrency (no backing off), as before;
  2. adaptive: the Judge as shipped (halve on timeouts, +1 per round of answers).
Printed per mode: wall time, requests the server received, answers, timeouts, lowest limit, and
whether every verdict arrived. Target: adaptive sends fewer requests than fixed and loses none.

    .venv/bin/python bench/judge_slow_server.py            # 64 items, 0.05 s each, 0.5 s timeout
    .venv/bin/python bench/judge_slow_server.py --n 128 --latency 0.05 --timeout 0.5
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import sys
import tempfile
import time
from pathlib import Path
from unittest import mock

from lm_eval_persian_culture.judge import Judge, JudgeSettings
from lm_eval_persian_culture.judge.concurrency import AdaptiveLimit
from lm_eval_persian_culture.testing.openai_server import FakeOpenAIServer


def run(n: int, latency: float, timeout: float, adaptive: bool) -> dict:
    prompts = [f"<item {i}>" for i in range(n)]
    release = AdaptiveLimit.release

    def fixed_release(self, slot, congested=False, answered=False):  # never cut, never grow
        return release(self, slot)

    patch = contextlib.nullcontext() if adaptive else mock.patch.object(AdaptiveLimit, "release", fixed_release)
    with patch, FakeOpenAIServer(answer=lambda p, b: "Yes", latency_s=latency, slots=1) as server:
        with (
            tempfile.TemporaryDirectory() as cache,
            Judge(JudgeSettings(model="judge", base_url=server.base_url, cache_dir=cache, timeout=timeout)) as judge,
        ):
            start = time.perf_counter()
            results = judge.judge_many(prompts, template_id="bench", desc="adaptive" if adaptive else "fixed")
            elapsed = time.perf_counter() - start
            backend = judge.backend
        return {
            "mode": "adaptive" if adaptive else "fixed",
            "wall_s": elapsed,
            "requests": server.request_count,
            "answered": server.served,
            "timeouts": backend.timeouts,
            "lowest_limit": backend.limit.stats.lowest,
            "verdicts": sum(r.verdict is True for r in results),
        }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=64)
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--timeout", type=float, default=0.5)
    args = parser.parse_args(argv)
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from machine import describe_machine

    print(describe_machine(), flush=True)
    logging.getLogger("lm_eval_persian_culture").setLevel(logging.ERROR)  # the slow-judge warnings

    rows = [run(args.n, args.latency, args.timeout, adaptive) for adaptive in (False, True)]
    print(
        f"\n{args.n} items, one slot, {args.latency:g} s per answer, timeout {args.timeout:g} s, judge_concurrency 64"
    )
    print(f"{'mode':<9} {'wall s':>7} {'requests':>9} {'per item':>9} {'timeouts':>9} {'lowest':>7} {'verdicts':>9}")
    for r in rows:
        print(
            f"{r['mode']:<9} {r['wall_s']:>7.1f} {r['requests']:>9} {r['requests'] / args.n:>9.2f} "
            f"{r['timeouts']:>9} {r['lowest_limit']:>7} {r['verdicts']:>6}/{args.n}"
        )
    fixed, adaptive = rows
    ok = adaptive["verdicts"] == args.n and adaptive["requests"] < fixed["requests"]
    print(f"target (adaptive loses nothing and sends fewer requests than fixed): {'met' if ok else 'NOT met'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
