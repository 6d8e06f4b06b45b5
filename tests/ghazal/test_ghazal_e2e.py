"""GhazalBench end to end: ``lm_eval run --tasks ghazal`` (every task, ``--limit 1``) with the tiny model through
``--model hf``, the release read from the pinned raw URLs, a local HTTP server standing in for
raw.githubusercontent.com (``PERSIAN_CULTURE_RAW_MIRROR``) and serving ../shared/data/ghazal at the pinned path."""

from __future__ import annotations

import functools
import http.server
import json
import os
import subprocess
import sys
import threading
import urllib.parse
from pathlib import Path

import pytest

from lm_eval_persian_culture.tasks.ghazal.scoring import score_reply
from lm_eval_persian_culture.tasks.ghazal.source import RELEASE_COMMIT

BIN = Path(sys.executable).parent
PINNED = f"/kalhorghazal/GhazalBench/{RELEASE_COMMIT}/Poem Access/"


class _Release(http.server.BaseHTTPRequestHandler):
    """Serves ``folder``'s files at the pinned path only (anything else: 404), and records each request."""

    def __init__(self, *args, folder: Path, seen: list, **kwargs):
        self.folder, self.seen = folder, seen
        super().__init__(*args, **kwargs)

    def do_GET(self):  # noqa: N802
        path = urllib.parse.unquote(self.path)
        self.seen.append(path)
        file = self.folder / path[len(PINNED) :] if path.startswith(PINNED) else None
        if file is None or not file.is_file():
            self.send_response(404)
            self.end_headers()
            return
        data = file.read_bytes()
        self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


@pytest.fixture()
def raw_server(shared_data):
    folder = shared_data / "ghazal"
    if not (folder / "completionQsHafez.xlsx").is_file():
        pytest.skip("../shared/data/ghazal is missing")
    seen: list[str] = []
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Release, folder=folder, seen=seen))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/", seen
    server.shutdown()
    server.server_close()


@pytest.mark.e2e
@pytest.mark.lmeval05  # also run under lm-eval 0.5 (.ci/run)
def test_lm_eval_run_ghazal_from_the_pinned_urls(tiny_model, raw_server, tmp_path):
    base, seen = raw_server
    env = {**os.environ, "PERSIAN_CULTURE_RAW_MIRROR": base, "LMEVAL_LOG_LEVEL": "WARNING"}
    env.pop("PERSIAN_CULTURE_DATA_DIR", None)
    proc = subprocess.run(
        [str(BIN / "lm_eval"), "run", "--tasks", "ghazal", "--model", "hf",
         "--model_args", f"pretrained={tiny_model},dtype=float32", "--device", "cpu", "--limit", "1",
         "--gen_kwargs", "max_gen_toks=8", "--apply_chat_template", "--log_samples", "--output_path", str(tmp_path)],
        capture_output=True, text=True, env=env, timeout=900,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    # every file of the release was fetched from the pinned commit, and nothing else was asked for
    assert {p[len(PINNED) :] for p in seen} == {
        "completionQsHafez.xlsx",
        "completionQsSaadi.xlsx",
        "completionQsEnglish.xlsx",
        "multipleChoiceQsHafez.xlsx",
        "multipleChoiceQsSaadi.xlsx",
    }
    results = json.loads(max(tmp_path.rglob("results_*.json")).read_text(encoding="utf-8"))
    # lm-eval 0.5 names a group's members "group::task" in results and file names
    tasks = {t.split("::")[-1]: t for t in results["results"] if t.split("::")[-1].count("_") == 3}
    assert len(tasks) == 20  # 12 completion + 8 recognition tasks, one item each
    files = {f.name[len("samples_") :].rsplit("_", 1)[0].split("::")[-1]: f for f in tmp_path.rglob("samples_*.jsonl")}
    for short, task in tasks.items():
        samples = [json.loads(line) for line in files[short].read_text(encoding="utf-8").splitlines()]
        assert len(samples) == 1
        assert samples[0]["doc"]["provenance"].startswith(f"url:{base}kalhorghazal/GhazalBench/{RELEASE_COMMIT}/")
        row = {k.split(",")[0]: v for k, v in results["results"][task].items() if "," in k and "stderr" not in k}
        if "_completion_" in short:
            reply, doc = samples[0]["resps"][0][0], samples[0]["doc"]
            label, format_error = score_reply(reply, doc["gold"], "en" if doc["poet"] == "shakespeare" else "fa")
            assert row["format_error_rate"] == float(format_error)
            assert row["complete_rate"] + row["partial_rate"] + row["non_retrieval_rate"] == 1.0
            assert row["complete_rate"] == float(label == "Complete")
        else:
            assert row["accuracy"] + row["invalid_rate"] <= 1.0
