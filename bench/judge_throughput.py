"""Judge throughput: the pack's concurrent cached Judge vs. one-call-at-a-time judging.

Runs against the local fake OpenAI server with injected per-request latency, so the numbers
measure the judging machinery, not a provider:
  1. sequential: one blocking call at a time with the same openai client, as the TaarofBench
     script and lm-eval's built-in judge do;
  2. the pack's Judge at its default concurrency, fresh cache;
  3. the same judgments again, from the cache.
Targets: >= 30x faster than sequential, <= 1.25x the floor ceil(N/concurrency) * latency,
and 0 requests when cached.

    .venv/bin/python bench/judge_throughput.py --quick     # N=200, ~45 s
    .venv/bin/python bench/judge_throughput.py             # N=1000, ~4 min
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
import time

import openai

from lm_eval_persian_culture.judge import Judge, JudgeSettings, parse_yes_no
from lm_eval_persian_culture.testing.openai_server import FakeOpenAIServer

SPEEDUP_TARGET = 30.0
FLOOR_TARGET = 1.25


def scripted_answer(prompt: str, body: dict) -> str:
    """Deterministic mix of verdicts, so the runs can be checked against each other."""
    return "Yes" if int(prompt.rsplit(" ", 1)[-1]) % 3 else "No."


def run_sequential(server: FakeOpenAIServer, settings: JudgeSettings, prompts: list[str]) -> tuple[float, list]:
    client = openai.OpenAI(
        base_url=server.base_url, api_key="EMPTY", timeout=settings.timeout, max_retries=settings.max_retries
    )
    start = time.perf_counter()
    verdicts = []
    for prompt in prompts:
        completion = client.chat.completions.create(
            model=settings.model,
            messages=[
                {"role": "system", "content": settings.system_prompt},
                {"role": "user", "content": prompt},
            ],
            temperature=settings.temperature,
        )
        verdicts.append(parse_yes_no(completion.choices[0].message.content))
    elapsed = time.perf_counter() - start
    client.close()
    return elapsed, verdicts


def run_pack(server: FakeOpenAIServer, settings: JudgeSettings, prompts: list[str]) -> tuple[float, list, int]:
    """A fresh Judge each time, as a re-run of lm-eval would build; returns (seconds, verdicts, requests)."""
    before = server.request_count
    with Judge(settings) as judge:
        start = time.perf_counter()
        results = judge.judge_many(prompts, template_id="bench/v1", desc="pack judge")
        elapsed = time.perf_counter() - start
        judge.check_error_rate(results)
    return elapsed, [r.verdict for r in results], server.request_count - before


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Judge throughput benchmark against a local fake server.")
    parser.add_argument("--n", type=int, default=1000, help="number of judgments")
    parser.add_argument("--latency", type=float, default=0.2, help="server latency per request, seconds")
    parser.add_argument("--quick", action="store_true", help="N=200 for a fast check")
    args = parser.parse_args(argv)
    n = 200 if args.quick else args.n
    prompts = [f"Judge this response. Answer only with Yes or No. item {i}" for i in range(n)]

    with FakeOpenAIServer(answer=scripted_answer, latency_s=args.latency) as server, tempfile.TemporaryDirectory() as tmp:
        settings = JudgeSettings(model="gpt-4", base_url=server.base_url, cache_dir=tmp)
        concurrency = settings.concurrency
        print(f"N={n} judgments, server latency {args.latency:g}s, pack concurrency {concurrency}", flush=True)

        seq_time, seq_verdicts = run_sequential(server, settings, prompts)
        pack_time, pack_verdicts, pack_requests = run_pack(server, settings, prompts)
        cached_time, cached_verdicts, cached_requests = run_pack(server, settings, prompts)

    floor = math.ceil(n / concurrency) * args.latency
    speedup = seq_time / pack_time
    floor_ratio = pack_time / floor
    same = seq_verdicts == pack_verdicts == cached_verdicts
    checks = [
        (f"speed-up vs sequential >= {SPEEDUP_TARGET:g}x", speedup >= SPEEDUP_TARGET),
        (f"pack time <= {FLOOR_TARGET:g}x floor", floor_ratio <= FLOOR_TARGET),
        ("0 requests when cached", cached_requests == 0),
        ("same verdicts in all three runs", same),
    ]
    print(f"sequential (1 call at a time): {seq_time:8.2f} s  ({n} requests)")
    print(f"pack Judge, fresh cache:       {pack_time:8.2f} s  ({pack_requests} requests)")
    print(f"pack Judge, cached re-run:     {cached_time:8.3f} s  ({cached_requests} requests)")
    print(f"speed-up:                      {speedup:8.1f}x")
    print(f"floor ceil(N/{concurrency})*latency:    {floor:8.2f} s")
    print(f"pack time / floor:             {floor_ratio:8.2f}x")
    for name, ok in checks:
        print(f"{'PASS' if ok else 'FAIL'}  {name}")
    return 0 if all(ok for _, ok in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
