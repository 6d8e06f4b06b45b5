"""What a user sees through ``lm-eval-persian`` when PerCul's data is gated, absent or malformed.

The gated case runs the real ``datasets`` / ``huggingface_hub`` clients against a stand-in for
the hub on 127.0.0.1 (``HF_ENDPOINT``) that answers every request as the hub answers a gated
repo to a user without access (401, ``X-Error-Code: GatedRepo``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from percul_testlib import FIXTURES

GATED_MESSAGE = ("Access to dataset teias-ai/percul is restricted. You must have access to it and be "
                 "authenticated to access it. Please log in.")  # fmt: skip


class _GatedHub(BaseHTTPRequestHandler):
    requests: list[tuple[str, str]] = []

    def _refuse(self):
        type(self).requests.append((self.command, self.path))
        body = json.dumps({"error": GATED_MESSAGE}).encode()
        self.send_response(401)
        self.send_header("X-Error-Code", "GatedRepo")
        self.send_header("X-Error-Message", GATED_MESSAGE)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    do_GET = do_HEAD = do_POST = _refuse

    def log_message(self, *args):
        pass


@pytest.fixture()
def gated_hub():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _GatedHub)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    _GatedHub.requests = []
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    server.server_close()


def _cli(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "lm_eval_persian_culture.harness.cli", *args],
        capture_output=True, text=True, timeout=600, env={**os.environ, "LMEVAL_LOG_LEVEL": "WARNING", **(env or {})},
    )  # fmt: skip


@pytest.mark.e2e
def test_gated_dataset_is_one_line_without_traceback(gated_hub, tmp_path):
    out = _cli(
        "run", "--tasks", "percul", "--model", "dummy",
        env={"HF_ENDPOINT": gated_hub, "HF_HUB_OFFLINE": "0", "HF_DATASETS_OFFLINE": "0",
             "HF_HOME": str(tmp_path / "hf"), "HF_TOKEN": ""},
    )  # fmt: skip
    assert out.returncode == 2, out.stderr[-3000:]
    assert "Traceback" not in out.stderr
    assert any("teias-ai/percul" in path for _, path in _GatedHub.requests)  # the client did ask the hub
    # the pre-flight finds it before the model loads: one problem, one line naming what to do
    assert "pre-flight: 1 problem found before loading the model" in out.stderr, out.stderr[-3000:]
    errors = [line.strip() for line in out.stderr.splitlines() if line.strip().startswith("1. data [percul]: ")]
    assert len(errors) == 1, out.stderr[-3000:]
    assert errors[0] == (
        "1. data [percul]: PerCul (teias-ai/percul) is a gated dataset: accept its terms on "
        "https://huggingface.co/datasets/teias-ai/percul while logged in, then log in here with "
        "`huggingface-cli login` (or set HF_TOKEN); or pass a local copy: --metadata "
        '\'{"data_dir": "DIR"}\' with DIR/percul/original_persian.jsonl.'
    )


@pytest.mark.e2e
def test_malformed_local_copy_is_one_line_before_generation(tmp_path):
    (tmp_path / "percul").mkdir()
    rows = (FIXTURES / "percul" / "gpt_english_translation.jsonl").read_text(encoding="utf-8").splitlines()
    bad = json.loads(rows[4])
    bad["Correct Choice"] = 7
    rows[4] = json.dumps(bad)
    path = tmp_path / "percul" / "gpt_english_translation.jsonl"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    out = _cli("run", "--tasks", "percul_en", "--model", "dummy", "--metadata", json.dumps({"data_dir": str(tmp_path)}))
    assert out.returncode == 2 and "Traceback" not in out.stderr, out.stderr[-3000:]
    assert (f"  1. data [percul_en]: {path}: row 5: field 'Correct Choice' has value 7, "
            "expected one of [1, 2, 3, 4]") in out.stderr.splitlines()  # fmt: skip
