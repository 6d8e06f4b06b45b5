"""The served-replicas command of docs/served-models-and-gpus.md, run as written against a local model server
and judge server.

The model's "router" and the judge are two local OpenAI-compatible servers (``FakeOpenAIServer``) on
the ports the page names' stand-ins; the command is taken from the page's "More than one GPU /
more than one machine" section, with only the URLs, the data folder, the output folder and
``--limit`` filled in.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from lm_eval_persian_culture.testing.openai_server import FakeOpenAIServer
from tests.reliability.judged_runs import taarof_verdict

REPO = Path(__file__).resolve().parents[2]
LIMIT = 6
pytestmark = pytest.mark.e2e


def readme_command() -> list[str]:
    readme = (REPO / "docs" / "served-models-and-gpus.md").read_text(encoding="utf-8")
    section = readme.split("## More than one GPU / more than one machine", 1)[1].split("\n## ", 1)[0]
    block = next(b for b in re.findall(r"```bash\n(.*?)```", section, flags=re.S) if "local-chat-completions" in b)
    lines = [line for line in block.replace("\\\n", " ").splitlines() if line.startswith("lm_eval ")]
    assert len(lines) == 1 and "export LOCAL_JUDGE_KEY=EMPTY" in block
    return shlex.split(lines[0])


def model_reply(prompt: str, body: dict) -> str:
    return "بله، این کار درست است."  # DivanBench's rules read a yes; TaarofBench's judge rates it


def test_readme_served_replicas_command_judges_each_item_once(tmp_path, launch_data_dir):
    data = launch_data_dir
    args = readme_command()
    with FakeOpenAIServer(answer=model_reply, models=("my-model",)) as model, \
            FakeOpenAIServer(answer=taarof_verdict, models=("judge-model",)) as judge:  # fmt: skip
        model_url, judge_url = model.base_url.removesuffix("/v1"), judge.base_url.removesuffix("/v1")
        filled = []
        for arg in args:
            arg = arg.replace("http://127.0.0.1:8000", model_url).replace("http://127.0.0.1:8001", judge_url)
            if arg.startswith("{"):
                arg = json.dumps({**json.loads(arg), "data_dir": str(data)})
            filled.append(arg)
        filled[filled.index("--output_path") + 1] = str(tmp_path / "results")
        cmd = [sys.executable, "-m", "lm_eval", *filled[1:], "--limit", str(LIMIT)]
        env = {**os.environ, "LOCAL_JUDGE_KEY": "EMPTY"}
        proc = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
        judge_attempts = dict(judge.prompt_attempts)
        model_requests = model.request_count
        probes = judge.model_list_requests
    assert model_requests == 2 * LIMIT  # taarof_expected and divan_binary, LIMIT docs each
    # every TaarofBench reply judged exactly once; DivanBench's replies all read by the rules (no extraction)
    assert len(judge_attempts) == LIMIT and set(judge_attempts.values()) == {1}
    assert probes == 1
    [results_file] = (tmp_path / "results").rglob("results_*.json")
    results = json.loads(results_file.read_text(encoding="utf-8"))["results"]
    expected = sum(taarof_verdict(p, {}) == "Yes" for p in judge_attempts) / LIMIT
    assert results["taarof_expected"]["accuracy,judge"] == pytest.approx(expected)
    assert results["divan_binary"]["invalid_rate,extract"] == 0.0
    assert len(list((tmp_path / "results").rglob("samples_*.jsonl"))) == 2
