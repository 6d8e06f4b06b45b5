"""One judged evaluation under lm-eval's multi-process launches: equal to one process, one judge request per item.

Runs ``lm_eval run --model hf`` on TaarofBench's taarof_expected (judged), DivanBench's divan_binary (LLM
extractor on) and PerCul's percul_fa_en, with the judge on a local fake server in this process
(one fresh server and judge cache per launch), as:

  single  one process
  dp      accelerate launch --multi_gpu --num_processes N (data parallel: needs N GPUs)
  tp      torchrun --nproc_per_node N with tp_plan=auto (every process runs the whole loop)

and prints, per launch: wall time, judge requests, distinct judge prompts, the most requests any
prompt got, the pre-flight's GET /models count, and whether the metrics and the samples (sorted by
doc_id) equal the single run's. Greedy generation under different batch compositions can differ in
the last logits on a GPU, so a samples difference is shown with the first differing field.

    # two GPUs (a real model, or --model-config with random weights)
    .venv/bin/python bench/multiproc_launch.py --model-args pretrained=Qwen/Qwen2.5-0.5B-Instruct --nproc 2
    # CPU check of the script: the tiny model, every-process mode without tp_plan (lm-eval's HF model on
    # CPU gives every process world size 1, as tp_plan does)
    .venv/bin/python bench/multiproc_launch.py --launches single,tp --tp-extra "" --limit 8 --max-gen-toks 16
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
from _common import REPO, build_tiny_model, go_offline, make_data_dir  # noqa: E402
from machine import describe_machine  # noqa: E402

sys.path.insert(0, str(REPO))
from lm_eval_persian_culture.testing.openai_server import FakeOpenAIServer  # noqa: E402
from tests.multiproc.run_launch import TASKS, judge_answer  # noqa: E402

JUDGE = "judge-model"


def launch_command(kind: str, nproc: int) -> list[str]:
    if kind == "single":
        return [sys.executable, "-m", "lm_eval"]
    if kind == "dp":
        return [sys.executable, "-m", "accelerate.commands.launch", "--multi_gpu", "--num_processes", str(nproc),
                "-m", "lm_eval"]  # fmt: skip
    return [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node", str(nproc),
            "-m", "lm_eval"]  # fmt: skip


def run_launch(kind: str, args, data_dir: Path, out: Path) -> dict:
    model_args = args.model_args + (args.tp_extra if kind == "tp" else "")
    with FakeOpenAIServer(answer=judge_answer, models=(JUDGE,)) as server:
        metadata = {"data_dir": str(data_dir), "judge_model": JUDGE, "judge_base_url": server.base_url,
                    "judge_cache_dir": str(out / f"cache-{kind}"), "judge_timeout": 120}  # fmt: skip
        cmd = [*launch_command(kind, args.nproc), "run", "--model", "hf", "--model_args", model_args,
               "--tasks", ",".join(TASKS), "--apply_chat_template", "--limit", str(args.limit),
               "--batch_size", args.batch_size, "--metadata", json.dumps(metadata),
               "--output_path", str(out / kind), "--log_samples"]  # fmt: skip
        if args.max_gen_toks:
            cmd += ["--gen_kwargs", f"max_gen_toks={args.max_gen_toks}"]
        start = time.monotonic()
        proc = subprocess.run(cmd, cwd=out, capture_output=True, text=True)
        wall = time.monotonic() - start
        attempts = dict(server.prompt_attempts)
        probes = server.model_list_requests
    if proc.returncode != 0:
        sys.exit(f"{kind} failed ({proc.returncode}):\n{proc.stdout[-2000:]}\n{proc.stderr[-4000:]}")
    [results_file] = (out / kind).rglob("results_*.json")
    samples = {}
    for task in TASKS:
        [path] = (out / kind).rglob(f"samples_{task}_*.jsonl")
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        samples[task] = sorted(rows, key=lambda s: s["doc_id"])
    results = json.loads(results_file.read_text(encoding="utf-8"))["results"]
    return {"wall": wall, "attempts": attempts, "probes": probes, "results": {t: results[t] for t in TASKS},
            "samples": samples}  # fmt: skip


def first_difference(a: dict, b: dict) -> str:
    for task in TASKS:
        for x, y in zip(a["samples"][task], b["samples"][task]):
            for key in x:
                if json.dumps(x[key], sort_keys=True) != json.dumps(y.get(key), sort_keys=True):
                    return f"{task} doc {x['doc_id']} field {key}"
        if len(a["samples"][task]) != len(b["samples"][task]):
            return f"{task}: {len(a['samples'][task])} vs {len(b['samples'][task])} samples"
    return "-"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model-args", help="lm-eval --model_args for --model hf (default: the tiny offline Llama)")
    parser.add_argument("--nproc", type=int, default=2)
    parser.add_argument("--launches", default="single,dp,tp")
    parser.add_argument("--tp-extra", default=",tp_plan=auto", help="appended to --model-args for the tp launch")
    parser.add_argument("--limit", type=int, default=16)
    parser.add_argument("--batch-size", default="1")
    parser.add_argument("--max-gen-toks", type=int, help="override the tasks' token budgets (quick CPU checks)")
    args = parser.parse_args()
    go_offline()
    print(describe_machine())
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        data_dir = make_data_dir(out / "data")
        if not args.model_args:
            args.model_args = f"pretrained={build_tiny_model(out / 'tiny')}"
        env_note = os.environ.get("CUDA_VISIBLE_DEVICES", "(all)")
        print(f"model_args={args.model_args} nproc={args.nproc} limit={args.limit} CUDA_VISIBLE_DEVICES={env_note}")
        runs = {kind: run_launch(kind, args, data_dir, out) for kind in args.launches.split(",")}
    single = runs.get("single")
    print(f"{'launch':<8} {'wall s':>7} {'requests':>8} {'prompts':>7} {'max/prompt':>10} {'GET /models':>11} "
          f"{'metrics = single':>16} {'samples = single':>16}  first sample difference")  # fmt: skip
    for kind, run in runs.items():
        same_metrics = same_samples = diff = "-"
        if single is not None and kind != "single":
            same_metrics = json.dumps(run["results"], sort_keys=True) == json.dumps(single["results"], sort_keys=True)
            same_samples = json.dumps(run["samples"], sort_keys=True) == json.dumps(single["samples"], sort_keys=True)
            diff = "-" if same_samples else first_difference(single, run)
        attempts = run["attempts"]
        print(f"{kind:<8} {run['wall']:>7.1f} {sum(attempts.values()):>8} {len(attempts):>7} "
              f"{max(attempts.values(), default=0):>10} {run['probes']:>11} {str(same_metrics):>16} "
              f"{str(same_samples):>16}  {diff}")  # fmt: skip


if __name__ == "__main__":
    main()
