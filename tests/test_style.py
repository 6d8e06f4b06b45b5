"""The style the project keeps: ruff's lint (pycodestyle, pyflakes, import order, bugbear, pyupgrade) and its
formatter, as configured in pyproject.toml, over the whole repository."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _ruff(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ruff", *args], cwd=REPO, capture_output=True, text=True, timeout=300)


def test_ruff_lint_is_clean():
    out = _ruff("check", "--no-cache", "--output-format", "concise", ".")
    assert out.returncode == 0, (
        f"ruff check . found problems (fix them, or `ruff check --fix .`):\n{out.stdout[-4000:]}"
    )


def test_ruff_format_is_applied():
    out = _ruff("format", "--no-cache", "--check", ".")
    assert out.returncode == 0, f"run `ruff format .`; these files differ:\n{out.stdout[-4000:]}"
