"""What every bench script prints first: the machine, its load, and the versions that matter.

Versions come from the installed distributions' metadata, so printing them imports nothing heavy.
"""

from __future__ import annotations

import datetime as _dt
import os
import platform
import sys
from importlib import metadata


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "not installed"


def load_average() -> str:
    if not hasattr(os, "getloadavg"):
        return "n/a"
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def describe_machine() -> str:
    cores = os.cpu_count()
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else cores
    now = _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return (
        f"machine: {_cpu_model()}, {cores} cores ({usable} usable), load average {load_average()} (1/5/15 min), {now}\n"
        f"versions: python {sys.version.split()[0]}, torch {_version('torch')}, lm-eval {_version('lm_eval')}, "
        f"transformers {_version('transformers')}, lm-eval-persian-culture {_version('lm-eval-persian-culture')}"
    )


if __name__ == "__main__":
    print(describe_machine())
