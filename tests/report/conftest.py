"""Two real tiny-model runs for the report tests (built once per session).

Run "a" and run "b" evaluate two tiny random Llamas (seeds 0 and 1) through ``--model hf`` on
TaarofBench (two types and the gender pairs), DivanBench's binary task (fixture data) and a plain
lm-eval YAML task standing for a standard task; the judge is the local OpenAI-compatible server, under a
different judge model name in each run so the report must keep them apart.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from lm_eval_persian_culture.testing.openai_server import FakeOpenAIServer

BIN = Path(sys.executable).parent
REPO = Path(__file__).resolve().parents[2]
TASKS = "taarof_expected,taarof_non_taarof,taarof_gender,divan_binary,std_copy"
STANDARD_TASK = """task: std_copy
dataset_path: json
dataset_kwargs:
  data_files: {data}
test_split: train
output_type: generate_until
doc_to_text: "{{{{question}}}}"
doc_to_target: "{{{{answer}}}}"
generation_kwargs:
  until: ["\\n"]
  max_gen_toks: 8
metric_list:
  - metric: exact_match
    aggregation: mean
    higher_is_better: true
metadata:
  version: 1.0
"""


def judge_answer(prompt: str, body: dict) -> str:
    """Deterministic verdicts keyed on the prompt text (so both runs can be compared item by item)."""
    return "Yes" if sum(map(ord, prompt)) % 3 else "No"


def _data_dir(tmp: Path, shared: Path) -> Path:
    data = tmp / "data"
    data.mkdir()
    (data / "taarof").symlink_to(shared / "taarof")
    (data / "divan").symlink_to(REPO / "tests" / "divan" / "fixtures" / "divan")
    return data


def _standard_task(tmp: Path) -> Path:
    folder = tmp / "std_tasks"
    folder.mkdir()
    rows = [{"question": "2+2=", "answer": "4"}, {"question": "capital of Iran:", "answer": "Tehran"}]
    data = folder / "std.jsonl"
    data.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    (folder / "std_copy.yaml").write_text(STANDARD_TASK.format(data=data))
    return folder


@pytest.fixture(scope="session")
def report_runs(tmp_path_factory, tiny_model, shared_data) -> dict[str, Path]:
    from tests.tiny_model import build_tiny_model

    tmp = tmp_path_factory.mktemp("report-runs")
    data = _data_dir(tmp, shared_data)
    std = _standard_task(tmp)
    models = {"a": tiny_model, "b": build_tiny_model(tmp / "tiny-b", seed=1)}
    outs = {}
    env = {
        **os.environ,
        "LMEVAL_LOG_LEVEL": "WARNING",
        "PERSIAN_CULTURE_JUDGE_CACHE": str(tmp / "cache"),
        "OMP_NUM_THREADS": "1",
    }
    with FakeOpenAIServer(answer=judge_answer, models=("judge-a", "judge-b")) as server:
        for name, model in models.items():
            out = tmp / f"OUT-{name}"
            metadata = {
                "data_dir": str(data),
                "judge_model": f"judge-{name}",
                "judge_base_url": server.base_url,
                "judge_api_key_env": "REPORT_TEST_KEY",
                "judge_max_error_rate": 1.0,
            }
            proc = subprocess.run(
                [
                    str(BIN / "lm-eval-persian"),
                    "run",
                    "--model",
                    "hf",
                    "--model_args",
                    f"pretrained={model},dtype=float32",
                    "--device",
                    "cpu",
                    "--tasks",
                    TASKS,
                    "--include_path",
                    str(std),
                    "--limit",
                    "12",
                    "--gen_kwargs",
                    "max_gen_toks=12",
                    "--apply_chat_template",
                    "--log_samples",
                    "--output_path",
                    str(out),
                    "--metadata",
                    json.dumps(metadata),
                ],
                capture_output=True,
                text=True,
                env=env,
                timeout=1200,
            )
            assert proc.returncode == 0, proc.stderr[-4000:]
            outs[name] = out
    return outs
