"""A non-editable install carries every task file (YAMLs, templates, shipped data, READMEs)."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import lm_eval_persian_culture as pack

REPO = Path(__file__).resolve().parents[1]


def test_wheel_contains_every_task_file(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", str(tmp_path), str(REPO)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    wheel = next(tmp_path.glob("*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    wanted = {
        "lm_eval_persian_culture/" + p.relative_to(pack.TASKS_DIR.parent).as_posix()
        for p in pack.TASKS_DIR.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"
    }
    assert wanted - names == set()
