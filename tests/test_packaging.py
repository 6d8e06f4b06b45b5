"""A non-editable install carries every task file (YAMLs, templates, shipped data, READMEs), and
wheel and editable installs carry the startup hook that `pip uninstall` removes again."""

from __future__ import annotations

import csv
import io
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import lm_eval_persian_culture as pack

REPO = Path(__file__).resolve().parents[1]
HOOK_FILES = {"lm_eval_persian_culture_autoload.pth", "_lm_eval_persian_culture_autoload.py"}
PTH_LINE = "import _lm_eval_persian_culture_autoload; _lm_eval_persian_culture_autoload.register()"


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", str(out), str(REPO)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return next(out.glob("*.whl"))


def record_paths(archive: zipfile.ZipFile) -> set[str]:
    record = next(n for n in archive.namelist() if n.endswith(".dist-info/RECORD"))
    return {row[0] for row in csv.reader(io.StringIO(archive.read(record).decode()))}


def test_wheel_contains_every_task_file(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    wanted = {
        "lm_eval_persian_culture/" + p.relative_to(pack.TASKS_DIR.parent).as_posix()
        for p in pack.TASKS_DIR.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"
    }
    assert wanted - names == set()


def test_wheel_carries_the_startup_hook_at_the_top_of_site_packages(wheel):
    with zipfile.ZipFile(wheel) as archive:
        assert HOOK_FILES <= set(archive.namelist())
        assert HOOK_FILES <= record_paths(archive)  # what pip uninstall deletes
        assert archive.read("lm_eval_persian_culture_autoload.pth").decode().strip() == PTH_LINE


def test_editable_install_carries_the_hook_too(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-c",
         "import sys; from hatchling.build import build_editable; print(build_editable(sys.argv[1]))",
         str(tmp_path)],
        capture_output=True, text=True, cwd=REPO, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    with zipfile.ZipFile(tmp_path / proc.stdout.strip()) as archive:
        assert HOOK_FILES <= record_paths(archive)
        # the path entry that makes the source tree importable
        assert archive.read("_lm_eval_persian_culture.pth").decode().strip() == str(REPO)


def test_install_then_uninstall_in_a_throwaway_venv(wheel, tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    py = venv / "bin" / "python"
    site = Path(subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())  # fmt: skip
    pip = [sys.executable, "-m", "pip", "--python", str(py)]
    proc = subprocess.run(
        [*pip, "install", "-q", "--no-deps", "--no-index", str(wheel)], capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    assert all((site / name).is_file() for name in HOOK_FILES)
    # active at start-up there (lm-eval is not installed in this venv, so it only waits)
    first = subprocess.run([str(py), "-c", "import sys; print(type(sys.meta_path[0]).__module__)"],
                           capture_output=True, text=True, check=True).stdout.strip()  # fmt: skip
    assert first == "_lm_eval_persian_culture_autoload"

    proc = subprocess.run([*pip, "uninstall", "-y", "-q", "lm-eval-persian-culture"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    left = sorted(str(p.relative_to(site)) for p in site.rglob("*persian*"))  # .pyc of the hook included
    assert left == []
    clean = subprocess.run([str(py), "-c", "import sys; print([type(f).__module__ for f in sys.meta_path])"],
                           capture_output=True, text=True, check=True)  # fmt: skip
    assert "autoload" not in clean.stdout and clean.stderr == ""
