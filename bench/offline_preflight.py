"""How fast an offline run that cannot work stops (issue 34): wall time of `lm-eval-persian run` to its
exit status 2, with the Hugging Face hub unreachable (HF_ENDPOINT on a closed local port, no offline
variable set, an empty hub cache), for:

  1. a misspelt task name (the reference: refused before any index is built);
  2. an evaluated model (`pretrained=acme/...`) and a judge (`judge_model=hf:acme/...`) that are neither
     local folders nor in the hub cache;
  3. DivanBench read from the hub (no data dir): `datasets` used to retry the hub five times (~25 s);
  4. as 2, with HF_HUB_OFFLINE=1 set by the user (nothing is probed).

Each case runs `--runs` times, interleaved; the median and the lines the user sees are printed, and
whether anything retried ("Retrying in" on stderr). Target: cases 2-4 about as fast as case 1.

    .venv/bin/python bench/offline_preflight.py            # 3 runs each, ~1-2 min on 2 loaded cores
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import SHARED_DATA  # noqa: E402
from machine import describe_machine  # noqa: E402

BIN = Path(sys.executable).parent


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cases(data: Path) -> dict[str, list[str]]:
    run = ["run", "--model", "hf", "--limit", "2"]
    return {
        "misspelt task name": [*run, "--model_args", "pretrained=acme/no-such-model", "--tasks", "taarof_expcted"],
        "model and judge unreachable": [
            *run, "--model_args", "pretrained=acme/no-such-model", "--tasks", "taarof_expected",
            "--metadata", json.dumps({"data_dir": str(data), "judge_model": "hf:acme/no-such-judge"}),
        ],
        "hub dataset (DivanBench), no data dir": [
            *run, "--model_args", "pretrained=acme/no-such-model", "--tasks", "divan_binary",
            "--metadata", json.dumps({"divan_llm_extractor": False}),
        ],
        "model and judge, HF_HUB_OFFLINE=1 set": [
            *run, "--model_args", "pretrained=acme/no-such-model", "--tasks", "taarof_expected",
            "--metadata", json.dumps({"data_dir": str(data), "judge_model": "hf:acme/no-such-judge"}),
        ],
    }  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    print(describe_machine())
    with tempfile.TemporaryDirectory() as tmp:
        base = {k: v for k, v in os.environ.items() if not k.startswith(("PERSIAN_CULTURE_", "HF_", "TRANSFORMERS_"))}
        base |= {"HF_HOME": str(Path(tmp) / "hf-home"), "LMEVAL_LOG_LEVEL": "WARNING"}
        all_cases = cases(SHARED_DATA)
        times: dict[str, list[float]] = {name: [] for name in all_cases}
        shown: dict[str, tuple[int, str]] = {}
        for _ in range(args.runs):
            for name, argv in all_cases.items():
                env = {**base, "HF_ENDPOINT": f"http://127.0.0.1:{closed_port()}"}
                if "HF_HUB_OFFLINE" in name:
                    env["HF_HUB_OFFLINE"] = "1"
                start = time.perf_counter()
                proc = subprocess.run([str(BIN / "lm-eval-persian"), *argv], env=env, capture_output=True, text=True)
                times[name].append(time.perf_counter() - start)
                shown[name] = (proc.returncode, proc.stderr)
        reference = statistics.median(times["misspelt task name"])
        for name, values in times.items():
            rc, stderr = shown[name]
            lines = [line for line in stderr.splitlines() if line.strip() and not line.startswith("20")]
            retried = "Retrying in" in stderr
            trace = "Traceback" in stderr
            print(f"\n{name}: median {statistics.median(values):.2f} s over {len(values)} runs "
                  f"({statistics.median(values) / reference:.2f}x the misspelt name); exit {rc}; "
                  f"retries: {'YES' if retried else 'none'}; traceback: {'YES' if trace else 'none'}")  # fmt: skip
            for line in lines[-4:]:
                print(f"    {line[:160]}{' ...' if len(line) > 160 else ''}")


if __name__ == "__main__":
    main()
