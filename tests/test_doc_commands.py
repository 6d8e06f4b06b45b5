"""Every shell command the README and docs/ show is run here, page by page, as a reader would run it.

Each page's ```bash blocks run in order as one bash script (`set -euo pipefail`) in a fresh folder, so a
page's later commands see what its earlier ones wrote (`results/`) and its `export`s. What this machine
lacks is stood in for, and named:
- `lm_eval` and `lm-eval-persian` are wrappers first on PATH that run the REAL programs after
  tests/doc_commands/shim.py rewrites hub models to the tiny test model, 127.0.0.1 servers and served judges to
  one local OpenAI-compatible server, `--model vllm` to lm-eval's vLLM backend over the recording stand-in
  for the `vllm` package, and adds `--limit` to runs;
- the paths the docs use for "your data" and "your model" become the test data dir and the tiny model.
Commands that cannot run on a CPU machine at all (multi-GPU launchers, `vllm serve`, vLLM data parallel
over Ray), the test command itself (which `.ci/run` runs: tests/test_readme.py) and two commands another test
runs as written (the served replicas, `lm_eval ls tasks`) are listed in NOT_RUN_HERE, each with why and where
its path is tested; a command matched by nothing there runs. Runs get `--limit 1`: the commands are checked,
not the benchmarks (their own tests do that).
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from lm_eval_persian_culture.testing.openai_server import FakeOpenAIServer
from tests.benchmark_data import link_benchmark_data

REPO = Path(__file__).resolve().parents[1]
PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
SHIM = REPO / "tests" / "doc_commands" / "shim.py"

# (pattern, why it cannot run here, where the same path is tested instead)
NOT_RUN_HERE = [
    (r"-m pytest ", "the test command itself", ".ci/run runs it; tests/test_readme.py checks it is the README's"),
    (r"^(CUDA_VISIBLE_DEVICES=\S+ )?vllm serve ", "starts a vLLM server (a CUDA program)",
     "the judge it serves is this test's local server (the shim points 127.0.0.1 at it)"),
    (r"data_parallel_size=", "vLLM data parallel needs Ray and GPUs",
     "tests/test_served_models.py drives lm-eval's vLLM backend"),
    (r"parallelize=True", "splits one model across GPUs (accelerate's device map; on a CPU torch asks for CUDA)",
     "lm-eval's own HF backend option; the pack adds nothing to it"),
    (r"^accelerate launch ", "a multi-GPU launch", "tests/multiproc/test_launches.py: the same loop, 2 CPU processes"),
    (r"^torchrun ", "a multi-GPU launch", "tests/multiproc/test_launches.py: the same loop, 2 CPU processes"),
    (r"^lm_eval ls tasks$", "run as written elsewhere, output checked (lm-eval indexes its 14.7k tasks: ~15 s)",
     "tests/test_discovery.py::test_plain_lm_eval_ls_lists_pack_tasks_among_builtins"),
    (r"--model local-completions ", "loglikelihood from a served model needs prompt logprobs (llama.cpp's server)",
     "tests/test_served_models.py: the pre-flight's tokenizer check with these arguments; lm-eval's own API tests"),
    (r"model=my-model,base_url=http://127\.0\.0\.1:8000/v1/chat/completions,num_concurrent=64",
     "the served-replicas command", "tests/multiproc/test_served_replicas.py runs it as written, with 2 servers"),
]  # fmt: skip
# Commands whose documented exit status is not 0 here: (pattern, status, why)
EXPECTED_STATUS = [
    (r"judge-check .*--threshold 0\.85", 1, "the CI gate at work: the local server's judge answers Yes to every "
     "item, which agrees with about half of the labels, below 0.85 (docs/judge-check.md)"),
    (r"^lm-eval-persian data(\s+#.*)?$", 1, "every dataset: TARAZ's ISN-SAQ has no public release, never ready "
     "unless you bring a copy, and `data` exits 1 when anything it checked is not ready (docs/data.md)"),
]  # fmt: skip
INSTALL = re.compile(
    r"^python3 -m venv \.venv && \. \.venv/bin/activate && pip install (?P<pip>.*?) && (?P<rest>lm_eval .*)$"
)
# The models the docs' served judges and API models name, all served by the one local server.
SERVED_MODELS = ("gpt-4", "gpt-4-0613", "gpt-4o", "gpt-4.1", "llama3.1:70b", "qwen2.5-7b", "Qwen/Qwen2.5-1.5B-Instruct",
                 "Qwen/Qwen2.5-7B-Instruct", "judge-model", "my-judge", "my-model")  # fmt: skip
# The docs' placeholders for the reader's own data and model.
PLACEHOLDERS = {"/data/persian-culture": "DATA", "/models/my-model": "MODEL", "/models/maux-gte-persian-v3": "EMBED"}


def bash_blocks(page: Path) -> list[str]:
    return re.findall(r"```bash\n(.*?)```", page.read_text(encoding="utf-8"), flags=re.S)


def commands(block: str) -> list[str]:
    """Logical command lines: backslash continuations joined, quotes spanning lines kept whole."""
    out, pending, joined = [], "", False
    for line in block.splitlines():
        pending = (f"{pending} {line.lstrip()}" if joined else f"{pending}\n{line}") if pending else line
        joined = pending.endswith("\\")
        if joined:
            pending = pending[:-1].rstrip()
            continue
        try:
            shlex.split(pending, comments=True)
        except ValueError:  # an open quote: the command goes on
            continue
        if shlex.split(pending, comments=True):
            out.append(pending.strip())
        pending = ""
    assert not pending, f"unterminated command: {pending!r}"
    return out


def not_run_here(command: str) -> tuple[str, str] | None:
    for pattern, why, where in NOT_RUN_HERE:
        if re.search(pattern, command):
            return why, where
    return None


def page_script(page: Path, stand_ins: dict[str, str]) -> tuple[str, list[str]]:
    """The page's commands as one bash script, and the commands it runs."""
    lines, ran = ["set -euo pipefail"], []
    for block in bash_blocks(page):
        for command in commands(block):
            if not_run_here(command):
                lines.append(": not run here")
                continue
            install = INSTALL.match(command)
            if install:  # the install is .ci/run's (checked below); the run after it runs here
                command = install["rest"]
            for placeholder, key in PLACEHOLDERS.items():
                command = command.replace(placeholder, stand_ins[key])
            status = next((s for pattern, s, _ in EXPECTED_STATUS if re.search(pattern, command)), 0)
            # on a line of its own inside braces: a trailing comment must not swallow the status check
            lines.append(f"{{ {command}\n}} || [ $? -eq {status} ]" if status else command)
            ran.append(command)
    return "\n".join(lines) + "\n", ran


def test_every_exception_is_used():
    every = [c for page in PAGES for block in bash_blocks(page) for c in commands(block)]
    for pattern, why, *_ in [*NOT_RUN_HERE, *((p, w) for p, _, w in EXPECTED_STATUS)]:
        assert any(re.search(pattern, c) for c in every), f"an exception matches no command: {pattern} ({why})"


def test_the_main_jobs_install_is_the_ci_install():
    main_job = next(c for b in bash_blocks(REPO / "README.md") for c in commands(b) if INSTALL.match(c))
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    ci_pip = re.search(r"pip install (.*?) && python -m pytest", ci)[1]
    assert INSTALL.match(main_job)["pip"] == ci_pip.replace("-q ", "").replace('-e ".[test]"', "-e .")


def served_answer(prompt: str, body: dict) -> str:
    """The local server's answers: the LLM extractor's NONE (it chooses nothing), a verdict for judges, a
    reply for evaluated models."""
    return "NONE" if "or NONE if" in prompt else "Yes"


@pytest.fixture(scope="module")
def stand_ins(tmp_path_factory, tiny_model, tiny_embedder, shared_data):
    root = tmp_path_factory.mktemp("doc-commands")
    data = link_benchmark_data(root / "data", shared_data)
    bin_dir = root / "bin"
    bin_dir.mkdir()
    for prog in ("lm_eval", "lm-eval-persian"):
        wrapper = bin_dir / prog
        wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{SHIM}" {prog} "$@"\n')
        wrapper.chmod(0o755)
    return {"DATA": str(data), "MODEL": str(tiny_model), "BIN": str(bin_dir), "EMBED": str(tiny_embedder)}


@pytest.mark.e2e
@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_page_commands_run_as_written(page, stand_ins, tmp_path):
    script, ran = page_script(page, stand_ins)
    log = tmp_path / "shim.log"
    with FakeOpenAIServer(answer=served_answer, models=SERVED_MODELS) as server:
        env = {k: v for k, v in os.environ.items() if not k.startswith("PERSIAN_CULTURE_")}
        env.update({
            "PATH": f"{stand_ins['BIN']}{os.pathsep}{Path(sys.executable).parent}{os.pathsep}{env['PATH']}",
            "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")])),
            "DOC_SHIM_TINY_MODEL": stand_ins["MODEL"], "DOC_SHIM_SERVER_URL": server.base_url,
            "DOC_SHIM_LOG": str(log), "DOC_SHIM_SITE": str(tmp_path / "stand-in-site"), "DOC_SHIM_LIMIT": "1",
            "PERSIAN_CULTURE_DATA_DIR": stand_ins["DATA"], "PERSIAN_CULTURE_EMBEDDING_MODEL": stand_ins["EMBED"],
            "PERSIAN_CULTURE_JUDGE_CACHE": str(tmp_path / "judge-cache"),
            "OPENAI_API_KEY": "sk-doc-commands-test-not-a-key",
        })  # fmt: skip
        proc = subprocess.run(["bash", "-x", "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True,
                              timeout=1200)  # fmt: skip
    if proc.returncode != 0:  # the whole tail, untruncated: which command failed and how
        pytest.fail(f"{page.name}: exit {proc.returncode}\n{proc.stderr[-8000:]}", pytrace=False)
    shimmed = log.read_text(encoding="utf-8").splitlines() if log.exists() else []
    calls = sum(len(re.findall(r"(?:^|[\s(&|;$])(?:lm_eval|lm-eval-persian) ", c)) for c in ran)
    assert len(shimmed) >= calls, (page.name, shimmed, ran)  # every lm_eval / lm-eval-persian call ran
