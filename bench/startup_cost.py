"""Startup cost of the pack's `.pth` hook: `python -c pass` with and without it.

The hook (autoload/_lm_eval_persian_culture_autoload.py) runs at every interpreter start in the
environment the pack is installed in, so it must stay cheap: the budget is 5 ms. Measured here:

  1. `python -c pass` in two throwaway venvs of this interpreter, one bare and one with the
     installed hook files copied into its site-packages; runs interleaved, medians compared:
     wall time, and CPU time (user + sys, less disturbed by other load on the machine).
     In the bare venv nothing else reads site-packages, so the hook also pays for the first look
     into that folder: an upper bound of what it adds to a real environment.
  1b. The part of startup where .pth files run (`site.main()`), timed inside the interpreter
     (`python -S`), in the same two venvs: the hook's cost without fork/exec noise. Not quite
     normal startup: under -S the script's folder is already first on sys.path when the hook is
     imported, so that folder is searched too (runs start in an empty folder).
  2. `-X importtime` of the hook module in this environment.
  3. What startup imports here: no lm_eval, no pack, no torch.
  4. What the hook does when lm-eval's task index is imported (install_into_lm_eval()), timed
     in-process: paid only by processes that import lm_eval.tasks.

    .venv/bin/python bench/startup_cost.py            # 200 runs each, ~15 s on an idle core
    .venv/bin/python bench/startup_cost.py --runs 40  # quicker
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BUDGET_MS = 5.0
HOOK_MODULE = "_lm_eval_persian_culture_autoload"
HOOK_PTH = "lm_eval_persian_culture_autoload.pth"
HEAVY = ("lm_eval", "lm_eval_persian_culture", "torch", "transformers", "datasets", "numpy")


def installed_hook_files() -> tuple[Path, Path]:
    spec = importlib.util.find_spec(HOOK_MODULE)
    if spec is None or spec.origin is None:
        sys.exit(f"{HOOK_MODULE} is not installed in this environment: pip install -e . first")
    module = Path(spec.origin)
    pth = module.with_name(HOOK_PTH)
    if not pth.is_file():
        sys.exit(f"{pth} missing: the hook is not installed")
    return module, pth


def make_venv(path: Path) -> tuple[Path, Path]:
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(path)], check=True)
    python = path / "bin" / "python"
    site = Path(
        subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            check=True, capture_output=True, text=True,
        ).stdout.strip()
    )  # fmt: skip
    return python, site


def _children_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def time_pass(python: Path, env: dict, cwd: Path) -> tuple[float, float]:
    """(wall ms, CPU ms) of one `python -c pass`."""
    cpu, start = _children_cpu_s(), time.perf_counter()
    subprocess.run([str(python), "-c", "pass"], check=True, env=env, cwd=cwd)
    return (time.perf_counter() - start) * 1000, (_children_cpu_s() - cpu) * 1000


SITE_MAIN = "import time; t = time.perf_counter(); import site; site.main(); print((time.perf_counter() - t) * 1000)"


def time_site_main(python: Path, env: dict, cwd: Path) -> float:
    out = subprocess.run(
        [str(python), "-S", "-c", SITE_MAIN], check=True, env=env, cwd=cwd, capture_output=True, text=True
    )
    return float(out.stdout)


def hook_importtime(env: dict) -> tuple[int, int] | None:
    err = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "pass"], capture_output=True, text=True, env=env
    ).stderr
    for line in err.splitlines():
        if line.rstrip().endswith(HOOK_MODULE):
            self_us, cumulative_us = (int(x.strip()) for x in line.split(":", 1)[1].split("|")[:2])
            return self_us, cumulative_us
    return None


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=200, help="`python -c pass` runs per venv")
    args = parser.parse_args(argv)

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from machine import describe_machine

    print(describe_machine())
    module, pth = installed_hook_files()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "PERSIAN_CULTURE_"))}
    print(f"interpreter: {sys.version.split()[0]} ({sys.executable})")
    print(f"hook: {pth.name} + {module.name} from {module.parent}")

    with tempfile.TemporaryDirectory() as tmp:
        empty = Path(tmp) / "empty"
        empty.mkdir()
        bare_python, _ = make_venv(Path(tmp) / "bare")
        hooked_python, hooked_site = make_venv(Path(tmp) / "hooked")
        shutil.copy2(module, hooked_site / module.name)
        shutil.copy2(pth, hooked_site / pth.name)
        # the hook must actually be active in the hooked venv, or the comparison means nothing
        probe = subprocess.run(
            [str(hooked_python), "-c", "import sys; print(type(sys.meta_path[0]).__module__)"],
            capture_output=True, text=True, env=env, check=True,
        ).stdout.strip()  # fmt: skip
        if probe != HOOK_MODULE:
            sys.exit(f"hook not active in the test venv (first finder from {probe!r})")
        for python in (bare_python, hooked_python):  # warm the page cache and .pyc files
            for _ in range(5):
                time_pass(python, env, empty)
        bare, hooked, site_bare, site_hooked = [], [], [], []
        for _ in range(args.runs):  # interleaved, so load on the machine hits both alike
            bare.append(time_pass(bare_python, env, empty))
            hooked.append(time_pass(hooked_python, env, empty))
            site_bare.append(time_site_main(bare_python, env, empty))
            site_hooked.append(time_site_main(hooked_python, env, empty))

    print(f"\n1. `python -c pass`, {args.runs} interleaved runs each (ms, incl. fork/exec)")
    for i, what in enumerate(("wall", "CPU")):
        b, h = [x[i] for x in bare], [x[i] for x in hooked]
        stat = statistics.median if what == "wall" else statistics.fmean
        name = "median" if what == "wall" else "mean"  # CPU time comes in clock ticks: average it
        added = stat(h) - stat(b)
        print(f"   {what:4} without hook: {name} {stat(b):7.2f}   with hook: {name} {stat(h):7.2f}   "
              f"added: {added:+.2f} ms "
              f"(budget {BUDGET_MS:.0f} ms: {'OK' if added <= BUDGET_MS else 'OVER BUDGET'})")  # fmt: skip
    added_site = statistics.median(site_hooked) - statistics.median(site_bare)
    print(f"1b. site.main() (where .pth files run), in-process: median without {statistics.median(site_bare):.3f} ms, "
          f"with {statistics.median(site_hooked):.3f} ms, added {added_site:+.3f} ms")  # fmt: skip

    timing = hook_importtime(env)
    print("\n2. -X importtime in this environment:", end=" ")
    if timing is None:
        print(f"{HOOK_MODULE} not imported at startup (is the .pth installed here?)")
    else:
        print(f"{HOOK_MODULE}: self {timing[0]} us, cumulative {timing[1]} us")

    loaded = subprocess.run(
        [sys.executable, "-c", "import sys; print(' '.join(sorted(sys.modules)))"],
        capture_output=True, text=True, env=env, check=True,
    ).stdout.split()  # fmt: skip
    heavy = sorted(m for m in loaded if m.split(".")[0] in HEAVY)
    print(f"\n3. modules at startup: {len(loaded)}; "
          "lm_eval / pack / torch / transformers / datasets / numpy among them: "
          f"{heavy or 'none'}")  # fmt: skip

    code = (
        "import time, lm_eval.tasks\n"
        "t = time.perf_counter()\n"
        "from lm_eval_persian_culture.harness import install_into_lm_eval\n"
        "install_into_lm_eval()\n"
        "print((time.perf_counter() - t) * 1000)\n"
    )
    trigger = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True,
        env={**env, "PERSIAN_CULTURE_DISABLE_AUTOLOAD": "1"},
    )  # fmt: skip
    if trigger.returncode != 0:
        print("\n4. skipped: lm-eval or the pack is not importable here")
        return
    print(f"\n4. when lm_eval.tasks is imported: install_into_lm_eval() takes {float(trigger.stdout):.2f} ms "
          "(only in processes that use lm-eval's task index)")  # fmt: skip


if __name__ == "__main__":
    main()
