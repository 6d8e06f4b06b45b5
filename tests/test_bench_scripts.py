"""bench/ scripts stay runnable: each compiles, and the machine header they all print works.

Timings are never asserted (issue 15: they are printed by the scripts and kept in bench/RESULTS.md).
"""

from __future__ import annotations

import py_compile
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench"
SCRIPTS = sorted(BENCH.glob("*.py"))


def test_every_bench_script_is_listed_in_the_bench_readme():
    readme = (BENCH / "README.md").read_text(encoding="utf-8")
    assert len(SCRIPTS) >= 8
    missing = [p.name for p in SCRIPTS if f"`{p.name}`" not in readme]
    assert missing == []


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_bench_script_compiles(script, tmp_path):
    py_compile.compile(str(script), cfile=str(tmp_path / "out.pyc"), doraise=True)


def test_machine_header_names_cpu_cores_load_and_versions():
    out = subprocess.run([sys.executable, str(BENCH / "machine.py")], capture_output=True, text=True, check=True).stdout
    first, second = out.splitlines()
    assert "cores" in first and "load average" in first and "UTC" in first
    assert second.startswith("versions: python 3.") and "lm-eval 0.4" in second and "torch " in second
