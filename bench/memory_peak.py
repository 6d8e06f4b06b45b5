"""Peak memory of a full-suite scoring pass: every pack generate task, scripted replies, judge on a local server.

One fresh process imports lm-eval, the pack and torch, notes its RSS, resets the kernel's peak-RSS
mark (/proc/self/clear_refs, "5"), then runs lm_eval.simple_evaluate over every pack task whose
output type is generate_until and whose data is here (real TaarofBench and TARAZ/BLEnD data from
../shared/data, the tests' fixtures for DivanBench, PerCul and CAC), with
testing.scripted_lm.ScriptedLM as the model (fixed replies: no model weights, so everything
measured is lm-eval's and the pack's), --log_samples on, the judged tasks judged by the local fake
OpenAI server (testing.openai_server) over real HTTP, TARAZ's embeddings by the tiny offline BERT.
Printed: RSS after imports, peak RSS during the pass (VmHWM), and their difference.
Target (issue 15): under 1 GB beyond the model's own.

    .venv/bin/python bench/memory_peak.py            # ~2-4 min on 2 cores
    .venv/bin/python bench/memory_peak.py --quick    # --limit 20 per task
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import REPO, build_tiny_embedder, go_offline, make_data_dir, quiet  # noqa: E402
from machine import describe_machine  # noqa: E402

TARGET_MB = 1024.0


def status_kb(field: str) -> int:
    with open("/proc/self/status", encoding="ascii") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise KeyError(field)


def scripted_reply(doc: dict, prompt: str) -> str:
    """A plausible reply for any pack doc, in the shape each benchmark reads."""
    if doc.get("type") == "binary":
        return "بله، این درست است."
    if "option_a" in doc:
        return "پاسخ: ب"
    if "options" in doc:
        return "گزینهٔ ۲ درست است." if doc.get("language") == "fa" else "The answer is 2."
    if "response_1" in doc:
        return "I'd go with response 3."
    if "references" in doc:
        refs = doc["references"]
        return refs[0] if refs else "نمی‌دانم"
    return "Oh, thank you so much, but I couldn't possibly accept. Please, you keep it."


def judge_answer(prompt: str, body: dict) -> str:
    """TARAZ's judge answers 1/0; TaarofBench's and DivanBench's extractor Yes/No or a letter."""
    return "1" if prompt.startswith("You are evaluating a model's answer.") else "Yes"


def child(spec: dict) -> dict:
    go_offline()
    quiet()
    import lm_eval
    import torch  # noqa: F401 - imported by any real run; counted in the baseline
    from lm_eval.tasks._index import Kind

    import lm_eval_persian_culture as pack
    from lm_eval_persian_culture.testing.openai_server import FakeOpenAIServer
    from lm_eval_persian_culture.testing.scripted_lm import ScriptedLM

    with FakeOpenAIServer(answer=judge_answer, models=("judge",)) as server:
        metadata = {
            "data_dir": spec["data_dir"], "embedding_model": spec["embedder"],
            "judge_model": "judge", "judge_base_url": server.base_url,
        }  # fmt: skip
        tm = pack.task_manager(include_defaults=False, metadata=metadata)
        names = []
        for name, entry in sorted(tm.task_index.items()):
            if entry.kind != Kind.TASK or name in spec["skip"]:
                continue
            if entry.cfg.get("output_type", "generate_until") == "generate_until":
                names.append(name)
        baseline_kb = status_kb("VmRSS")
        with open("/proc/self/clear_refs", "w") as f:  # reset VmHWM to the current RSS
            f.write("5")
        start = time.perf_counter()
        out = lm_eval.simple_evaluate(
            model=ScriptedLM(scripted_reply), tasks=names, task_manager=tm, limit=spec["limit"],
            apply_chat_template=True, log_samples=True,
        )  # fmt: skip
        seconds = time.perf_counter() - start
        peak_kb = status_kb("VmHWM")
        requests = server.request_count
    samples = sum(len(v) for v in out["samples"].values())
    return {"tasks": names, "baseline_kb": baseline_kb, "peak_kb": peak_kb, "seconds": seconds,
            "samples": samples, "judge_requests": requests, "n_tasks_scored": len(out["results"])}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--limit", type=int, default=None, help="docs per task (default: all)")
    parser.add_argument("--quick", action="store_true", help="--limit 20")
    parser.add_argument("--_child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args._child:
        print(json.dumps(child(json.loads(args._child))))
        return 0
    print(describe_machine(), flush=True)
    limit = 20 if args.quick and args.limit is None else args.limit
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        spec = {
            "data_dir": str(make_data_dir(tmp / "data")),
            "embedder": str(build_tiny_embedder(tmp / "tiny-bert")),
            "limit": limit,
            # no data here: Iranian CAC annotations and TARAZ's ISN-SAQ file are not published
            "skip": ["cac_iran", "taraz_isn_saq", "taraz_isn_saq_judged"],
        }
        env = {**os.environ, "PERSIAN_CULTURE_JUDGE_CACHE": str(tmp / "judge-cache"), "PYTHONUNBUFFERED": "1"}
        proc = subprocess.run([sys.executable, __file__, "--_child", json.dumps(spec)], capture_output=True,
                              text=True, env=env, cwd=REPO)  # fmt: skip
        if proc.returncode != 0:
            sys.exit(f"scoring pass failed:\n{proc.stderr[-4000:]}")
        r = json.loads(proc.stdout.strip().splitlines()[-1])
    added_mb = (r["peak_kb"] - r["baseline_kb"]) / 1024
    print(f"full-suite scoring pass: {len(r['tasks'])} generate tasks ({', '.join(r['tasks'])}), "
          f"limit {limit or 'none'}, {r['samples']:,} samples logged, {r['judge_requests']:,} judge requests, "
          f"{r['seconds']:.0f} s")  # fmt: skip
    print(f"RSS after imports (lm-eval, pack, torch): {r['baseline_kb'] / 1024:,.0f} MB")
    print(f"peak RSS during the pass:                 {r['peak_kb'] / 1024:,.0f} MB")
    print(
        f"beyond the imports: {added_mb:,.0f} MB (target < {TARGET_MB:,.0f} MB beyond the model's own; "
        f"ScriptedLM has no weights, the tiny embedder ~0.1 MB): {'met' if added_mb < TARGET_MB else 'NOT met'}"
    )
    return 0 if added_mb < TARGET_MB else 1


if __name__ == "__main__":
    sys.exit(main())
