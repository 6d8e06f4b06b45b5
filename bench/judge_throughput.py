"""Judge throughput: the pack's concurrent cached Judge vs. one-call-at-a-time judging.

Runs against the local fake OpenAI server with injected per-request latency, so the numbers
measure the judging machinery, not a provider. The server runs in a child process (as a real
server would), so its request handling does not compete with the client for this process's GIL;
`--in-process` puts it back in this process for comparison.
  1. sequential: one blocking call at a time with the same openai client, as the TaarofBench
     script and lm-eval's built-in judge do (all N calls, or `--sequential-sample K` calls
     timed and extrapolated to N, printed as such);
  2. the pack's Judge at its default concurrency, fresh cache;
  3. the same judgments again, from the cache;
  4. diagnostics for the gap to the floor: when the first request reached the server, the pack's
     per-request overhead with a zero-latency server, the adaptive limit's cuts.
Targets (issue 15): >= 50x faster than sequential, <= 1.1x the floor ceil(N/concurrency) x latency,
0 requests when cached.

    .venv/bin/python bench/judge_throughput.py                          # N=1000 x 0.2 s: ~3.5 min
    .venv/bin/python bench/judge_throughput.py --sequential-sample 100  # sequential extrapolated, ~30 s
    .venv/bin/python bench/judge_throughput.py --quick                  # N=200, sequential sample 50
"""

from __future__ import annotations

import argparse
import math
import multiprocessing as mp
import os
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import openai

sys.path.insert(0, str(Path(__file__).resolve().parent))
from machine import describe_machine  # noqa: E402

from lm_eval_persian_culture.judge import Judge, JudgeSettings, parse_yes_no
from lm_eval_persian_culture.testing.openai_server import FakeOpenAIServer

SPEEDUP_TARGET = 50.0
FLOOR_TARGET = 1.1


def scripted_answer(prompt: str, body: dict) -> str:
    """Deterministic mix of verdicts, so the runs can be checked against each other."""
    return "Yes" if int(prompt.rsplit(" ", 1)[-1]) % 3 else "No."


class _StampedAnswer:
    """The scripted answer, noting when each was produced (the server calls it after the latency)."""

    def __init__(self) -> None:
        self.stamps: list[float] = []

    def __call__(self, prompt: str, body: dict) -> str:
        self.stamps.append(time.monotonic())
        return scripted_answer(prompt, body)


def _serve(conn, latency: float) -> None:
    """Child process: a FakeOpenAIServer; answers 'count' and 'stamps' over the pipe until 'stop'."""
    answer = _StampedAnswer()
    with FakeOpenAIServer(answer=answer, latency_s=latency) as server:
        conn.send(server.base_url)
        while True:
            msg = conn.recv()
            if msg == "count":
                conn.send(server.request_count)
            elif msg == "cpu":
                t = os.times()
                conn.send(t.user + t.system)
            elif msg == "stamps":
                conn.send(list(answer.stamps))
                answer.stamps.clear()
            else:
                break
    conn.close()


class Server:
    """The fake server, in a child process (default) or in this one; same small interface."""

    def __init__(self, latency: float, in_process: bool) -> None:
        self.in_process = in_process
        if in_process:
            self._answer = _StampedAnswer()
            self._server = FakeOpenAIServer(answer=self._answer, latency_s=latency)
            self.base_url = self._server.base_url
        else:
            self._conn, child = mp.get_context("fork").Pipe()
            self._proc = mp.get_context("fork").Process(target=_serve, args=(child, latency), daemon=True)
            self._proc.start()
            self.base_url = self._conn.recv()

    def request_count(self) -> int:
        if self.in_process:
            return self._server.request_count
        self._conn.send("count")
        return self._conn.recv()

    def cpu_seconds(self) -> float | None:
        """CPU time (user + system) the child server process has used; None in-process."""
        if self.in_process:
            return None
        self._conn.send("cpu")
        return self._conn.recv()

    def answer_stamps(self) -> list[float]:
        """Monotonic times (system-wide clock) of the answers since the last call."""
        if self.in_process:
            stamps, self._answer.stamps = self._answer.stamps, []
            return stamps
        self._conn.send("stamps")
        return self._conn.recv()

    def close(self) -> None:
        if self.in_process:
            self._server.close()
        else:
            self._conn.send("stop")
            self._proc.join(10)


def run_sequential(base_url: str, settings: JudgeSettings, prompts: list[str]) -> tuple[float, list]:
    client = openai.OpenAI(
        base_url=base_url, api_key="EMPTY", timeout=settings.timeout, max_retries=settings.max_retries
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


def run_pack(server: Server, settings: JudgeSettings, prompts: list[str]) -> dict:
    """A fresh Judge each time, as a re-run of lm-eval would build."""
    before = server.request_count()
    server.answer_stamps()
    server_cpu = server.cpu_seconds()
    with Judge(settings) as judge:
        start_mono, start, cpu = time.monotonic(), time.perf_counter(), time.process_time()
        results = judge.judge_many(prompts, template_id="bench/v1", desc="pack judge")
        elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
        server_cpu = None if server_cpu is None else server.cpu_seconds() - server_cpu
        judge.check_error_rate(results)
        stats = judge.backend.limit.stats if hasattr(judge.backend, "limit") else None
    return {
        "seconds": elapsed,
        "client_cpu": cpu,
        "server_cpu": server_cpu,
        "verdicts": [r.verdict for r in results],
        "requests": server.request_count() - before,
        "stamps": [s - start_mono for s in server.answer_stamps()],
        "limit_cuts": stats.decreases if stats else None,
        "lowest_limit": stats.lowest if stats else None,
    }


def chat_body(settings: JudgeSettings, prompt: str) -> dict:
    """The judge's request body, as the pack sends it, for the diagnostic clients."""
    return {
        "model": settings.model,
        "messages": [{"role": "system", "content": settings.system_prompt}, {"role": "user", "content": prompt}],
        "temperature": settings.temperature,
        "max_tokens": 16,
    }


def timed_pool(ask, prompts: list[str], concurrency: int) -> tuple[list, float, float]:
    """``ask`` over ``prompts`` in a pool of ``concurrency`` threads: (answers, wall s, CPU s)."""
    start, cpu = time.perf_counter(), time.process_time()
    with ThreadPoolExecutor(max_workers=min(concurrency, len(prompts))) as pool:
        answers = list(pool.map(ask, prompts))
    return answers, time.perf_counter() - start, time.process_time() - cpu


def run_bare_client(base_url: str, settings: JudgeSettings, prompts: list[str]) -> tuple[float, float]:
    """The same requests through a bare openai client and a thread pool of the same size, no pack code
    (no cache, no adaptive limit, no progress bar): what the client library alone costs."""
    client = openai.OpenAI(base_url=base_url, api_key="EMPTY", timeout=settings.timeout, max_retries=0)

    def ask(prompt: str) -> str:
        completion = client.chat.completions.create(**chat_body(settings, prompt))
        return completion.choices[0].message.content

    _, elapsed, cpu = timed_pool(ask, prompts, settings.concurrency)
    client.close()
    return elapsed, cpu


def run_bare_http(base_url: str, settings: JudgeSettings, prompts: list[str]) -> tuple[float, float]:
    """The same requests as plain HTTP POSTs (the HTTP library the openai client is built on, JSON
    parsed with json.loads), same thread pool: what is left without the openai client's request
    transformation and response models: the candidate fix for the gap to the floor."""
    try:
        import httpx2 as httpx  # openai 3.x ships its HTTP layer under this name
    except ImportError:  # pragma: no cover - older openai
        import httpx
    import json

    http = httpx.Client(base_url=base_url, timeout=settings.timeout,
                        limits=httpx.Limits(max_connections=settings.concurrency))  # fmt: skip

    def ask(prompt: str) -> str:
        body = chat_body(settings, prompt)
        response = http.post("/chat/completions", json=body, headers={"Authorization": "Bearer EMPTY"})
        return json.loads(response.content)["choices"][0]["message"]["content"]

    answers, elapsed, cpu = timed_pool(ask, prompts, settings.concurrency)
    http.close()
    assert [parse_yes_no(a) for a in answers] == [parse_yes_no(scripted_answer(p, {})) for p in prompts]
    return elapsed, cpu


def run_openai_raw_post(base_url: str, settings: JudgeSettings, prompts: list[str]) -> tuple[float, float]:
    """The openai client kept (its errors: APITimeoutError, RateLimitError, ...; its connection pool),
    but the request sent with ``client.post(..., cast_to=httpx.Response)`` and the JSON read with
    json.loads: no request-parameter transformation, no response models. What judge/remote.py does
    since this bench found the openai client's models to be the gap to the floor."""
    try:
        import httpx2 as httpx
    except ImportError:  # pragma: no cover - older openai
        import httpx
    import json

    client = openai.OpenAI(base_url=base_url, api_key="EMPTY", timeout=settings.timeout, max_retries=0)

    def ask(prompt: str) -> str:
        body = chat_body(settings, prompt)
        response = client.post("/chat/completions", body=body, cast_to=httpx.Response)
        return json.loads(response.content)["choices"][0]["message"]["content"]

    answers, elapsed, cpu = timed_pool(ask, prompts, settings.concurrency)
    client.close()
    assert [parse_yes_no(a) for a in answers] == [parse_yes_no(scripted_answer(p, {})) for p in prompts]
    return elapsed, cpu


def run_bare_async_client(base_url: str, settings: JudgeSettings, prompts: list[str]) -> tuple[float, float]:
    """As run_bare_client, through openai.AsyncOpenAI on one event loop (a semaphore of the same size)
    instead of threads: a candidate fix, measured rather than guessed."""
    import asyncio

    async def go() -> None:
        client = openai.AsyncOpenAI(base_url=base_url, api_key="EMPTY", timeout=settings.timeout, max_retries=0)
        gate = asyncio.Semaphore(settings.concurrency)

        async def ask(prompt: str) -> str:
            async with gate:
                completion = await client.chat.completions.create(
                    model=settings.model,
                    messages=[
                        {"role": "system", "content": settings.system_prompt},
                        {"role": "user", "content": prompt},
                    ],
                    temperature=settings.temperature,
                    max_tokens=16,
                )
                return completion.choices[0].message.content

        await asyncio.gather(*(ask(p) for p in prompts))
        await client.close()

    start, cpu = time.perf_counter(), time.process_time()
    asyncio.run(go())
    return time.perf_counter() - start, time.process_time() - cpu


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Judge throughput benchmark against a local fake server.")
    parser.add_argument("--n", type=int, default=1000, help="number of judgments")
    parser.add_argument("--latency", type=float, default=0.2, help="server latency per request, seconds")
    parser.add_argument(
        "--sequential-sample",
        type=int,
        default=None,
        metavar="K",
        help="time only K sequential calls and extrapolate to N (labelled as extrapolated)",
    )
    parser.add_argument("--repeats", type=int, default=3, help="fresh-cache pack runs (median reported)")
    parser.add_argument("--in-process", action="store_true", help="run the fake server in this process")
    parser.add_argument("--quick", action="store_true", help="N=200, sequential sample 50, 1 repeat")
    args = parser.parse_args(argv)
    n = 200 if args.quick else args.n
    sample = 50 if args.quick and args.sequential_sample is None else args.sequential_sample
    repeats = 1 if args.quick else args.repeats
    prompts = [f"Judge this response. Answer only with Yes or No. item {i}" for i in range(n)]
    print(describe_machine(), flush=True)

    server = Server(args.latency, args.in_process)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            settings = JudgeSettings(model="gpt-4", base_url=server.base_url, cache_dir=str(Path(tmp) / "c0"))
            concurrency = settings.concurrency
            where = "this process" if args.in_process else "a child process"
            print(f"N={n} judgments, server latency {args.latency:g} s (server in {where}), "
                  f"pack concurrency {concurrency}", flush=True)  # fmt: skip

            k = n if sample is None or sample >= n else sample
            seq_time, seq_verdicts = run_sequential(server.base_url, settings, prompts[:k])
            seq_total = seq_time * n / k
            # fresh cache per repeat; the cached re-run reuses the last one's cache
            runs = []
            for r in range(repeats):
                s = JudgeSettings(model="gpt-4", base_url=server.base_url, cache_dir=str(Path(tmp) / f"r{r}"))
                runs.append(run_pack(server, s, prompts))
            cached = run_pack(server, s, prompts)
            bare_time, bare_cpu = run_bare_client(server.base_url, settings, prompts)
            async_time, async_cpu = run_bare_async_client(server.base_url, settings, prompts)
            http_time, http_cpu = run_bare_http(server.base_url, settings, prompts)
            raw_time, raw_cpu = run_openai_raw_post(server.base_url, settings, prompts)
            # per-request overhead of the pack's machinery: the same batch against a zero-latency server
            zero = Server(0.0, args.in_process)
            try:
                z = run_pack(zero, JudgeSettings(model="gpt-4", base_url=zero.base_url,
                                                 cache_dir=str(Path(tmp) / "zero")), prompts)  # fmt: skip
            finally:
                zero.close()
    finally:
        server.close()

    pack_time = statistics.median(r["seconds"] for r in runs)
    median_run = sorted(runs, key=lambda r: r["seconds"])[len(runs) // 2]
    floor = math.ceil(n / concurrency) * args.latency
    speedup = seq_total / pack_time
    floor_ratio = pack_time / floor
    same = all(r["verdicts"] == runs[0]["verdicts"] for r in runs) and cached["verdicts"] == runs[0]["verdicts"]
    same = same and seq_verdicts == runs[0]["verdicts"][:k]
    label = "measured" if k == n else f"EXTRAPOLATED from {k} calls ({seq_time:.2f} s) x {n}/{k}"
    checks = [
        (f"speed-up vs sequential >= {SPEEDUP_TARGET:g}x", speedup >= SPEEDUP_TARGET),
        (f"pack time <= {FLOOR_TARGET:g}x floor", floor_ratio <= FLOOR_TARGET),
        ("0 requests when cached", cached["requests"] == 0),
        ("same verdicts in every run", same),
    ]
    print(f"sequential (1 call at a time): {seq_total:8.2f} s  ({label})")
    print(f"pack Judge, fresh cache:       {pack_time:8.2f} s  median of {repeats} "
          f"({', '.join(f'{x:.2f}' for x in (r['seconds'] for r in runs))}; "
          f"{median_run['requests']} requests)")  # fmt: skip
    print(f"pack Judge, cached re-run:     {cached['seconds']:8.3f} s  ({cached['requests']} requests)")
    print(f"speed-up:                      {speedup:8.1f}x")
    print(f"floor ceil({n}/{concurrency})*{args.latency:g}:      {floor:8.2f} s")
    print(f"pack time / floor:             {floor_ratio:8.3f}x  (+{pack_time - floor:.3f} s over the floor)")

    stamps = sorted(median_run["stamps"])
    if stamps:
        first_arrival = stamps[0] - args.latency
        waves = math.ceil(n / concurrency)
        # how long after the previous wave's answers each wave's answers landed
        per_wave = [stamps[min(len(stamps) - 1, (w + 1) * concurrency - 1)] for w in range(waves)]
        gaps = [b - a for a, b in zip([0.0, *per_wave[:-1]], per_wave)]
        print("where the time over the floor goes (median run):")
        print(f"  first request reached the server {first_arrival * 1000:.1f} ms after judge_many() started "
              "(cache lookup, client and thread-pool start)")  # fmt: skip
        print(f"  last answer left the server at {stamps[-1]:.3f} s; judge_many() returned at "
              f"{median_run['seconds']:.3f} s ({(median_run['seconds'] - stamps[-1]) * 1000:.1f} ms of tail: "
              "response parse, cache writes, results)")  # fmt: skip
        print(f"  answers per wave of {concurrency} landed every {statistics.median(gaps) * 1000:.0f} ms (median; "
              f"min {min(gaps) * 1000:.0f}, max {max(gaps) * 1000:.0f}; latency {args.latency * 1000:.0f} ms): "
              f"{(statistics.median(gaps) - args.latency) * 1000:.1f} ms "
              "per wave of client+server overhead")  # fmt: skip
        print(f"  adaptive limit: {median_run['limit_cuts']} cuts, lowest {median_run['lowest_limit']} "
              f"(it starts at the ceiling, so there is no ramp-up)")  # fmt: skip
    cpu_note = "" if median_run["server_cpu"] is None else f", server process {median_run['server_cpu']:.2f} s"
    print(f"  CPU used during the median run: client process {median_run['client_cpu']:.2f} s{cpu_note} "
          f"(over {median_run['seconds']:.2f} s wall, {os.cpu_count()} cores)")  # fmt: skip
    print(f"  bare openai client, same pool of {min(concurrency, n)} threads, no pack code: {bare_time:.2f} s "
          f"({bare_time / floor:.3f}x floor; client CPU {bare_cpu:.2f} s)")  # fmt: skip
    print(f"  bare openai.AsyncOpenAI, one event loop, semaphore {concurrency}, no pack code: {async_time:.2f} s "
          f"({async_time / floor:.3f}x floor; client CPU {async_cpu:.2f} s)")  # fmt: skip
    print(f"  plain HTTP POSTs (httpx, json.loads), same pool, no openai client: {http_time:.2f} s "
          f"({http_time / floor:.3f}x floor; client CPU {http_cpu:.2f} s)")  # fmt: skip
    print(f"  openai client, client.post(cast_to=httpx.Response) + json.loads, same pool: {raw_time:.2f} s "
          f"({raw_time / floor:.3f}x floor; client CPU {raw_cpu:.2f} s)")  # fmt: skip
    print(f"  zero-latency server: {z['seconds']:.3f} s for {n} judgments = "
          f"{z['seconds'] / n * 1000:.2f} ms per request of pure client+server machinery "
          f"({z['seconds'] / math.ceil(n / concurrency) * 1000:.0f} ms per wave of {concurrency})")  # fmt: skip
    for name, ok in checks:
        print(f"{'met    ' if ok else 'NOT met'}  {name}")
    return 0 if all(ok for _, ok in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
