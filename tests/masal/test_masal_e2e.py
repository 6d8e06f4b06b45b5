"""``lm_eval run --tasks masal`` end to end with the tiny model (``--model hf``, CPU, chat template), on the
authors' real files: once from a local data dir (../shared/data/masal), once from the online location, with a
local HTTP server on 127.0.0.1 standing in for raw.githubusercontent.com (the same path, pinned commit included,
set through ``masal_base_url``)."""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from masal_testlib import metrics

from lm_eval_persian_culture.scoring.records import decode_record as rec
from lm_eval_persian_culture.tasks.masal.source import CONTEXTUAL, CROSS_CULTURAL, RELEASE_COMMIT
from lm_eval_persian_culture.tasks.masal.utils import read_pick

BIN = Path(sys.executable).parent
LETTERS = ["الف", "ب", "ج", "د"]


class _Raw(SimpleHTTPRequestHandler):
    asked: list[str] = []

    def do_GET(self):
        type(self).asked.append(self.path)
        super().do_GET()

    def log_message(self, *args):
        pass


class _QuietServer(ThreadingHTTPServer):
    def handle_error(self, request, client_address):  # a client that closes early (a probe) is no error here
        pass


@pytest.fixture()
def raw_server(shared_data, tmp_path):
    """Serves ../shared/data/masal as raw.githubusercontent.com serves the repository at the pinned commit."""
    root = tmp_path / "raw"
    folder = root / "kalhorghazal" / "MasalBench" / RELEASE_COMMIT
    folder.mkdir(parents=True)
    for part in (CONTEXTUAL, CROSS_CULTURAL):
        (folder / part.filename).symlink_to(shared_data / "masal" / part.filename)
    server = _QuietServer(("127.0.0.1", 0), functools.partial(_Raw, directory=str(root)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    _Raw.asked = []
    yield f"http://127.0.0.1:{server.server_port}/kalhorghazal/MasalBench/{RELEASE_COMMIT}/"
    server.shutdown()
    server.server_close()


def _run(tiny_model, out: Path, metadata: dict, env: dict) -> tuple[dict, dict]:
    proc = subprocess.run(
        [str(BIN / "lm_eval"), "run", "--tasks", "masal", "--model", "hf",
         "--model_args", f"pretrained={tiny_model},dtype=float32", "--device", "cpu", "--limit", "2",
         "--gen_kwargs", "max_gen_toks=8", "--apply_chat_template", "--log_samples", "--output_path", str(out),
         "--metadata", json.dumps(metadata)],
        capture_output=True, text=True, timeout=600, env={**os.environ, **env},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-4000:]
    results = json.loads(next(out.rglob("results_*.json")).read_text())
    samples = {}
    for path in out.rglob("samples_*.jsonl"):
        task = "masal_contextual" if "masal_contextual" in path.name else "masal_cross_cultural"
        samples[task] = [json.loads(line) for line in path.read_text().splitlines()]
    return results, samples


def _prompt(sample: dict) -> str:
    """The prompt a logged sample sent (samples files write ``{"gen_args_0": {"arg_0": prompt, ...}}``)."""
    args = sample["arguments"]
    return args[0][0] if isinstance(args, list) else next(iter(args.values()))["arg_0"]


def _check_scores(results: dict, samples: dict) -> None:
    for task, logged in samples.items():
        assert len(logged) == 2
        m = metrics(results, task)
        records = [rec(s["filtered_resps"][0]) for s in logged]
        # the record holds what the shared grammar reads in the model's own reply, ج spelled C
        assert [r["reply"] for r in records] == [s["resps"][0][0] for s in logged]
        picks = [read_pick(s["resps"][0][0], s["doc"]) for s in logged]
        assert [r["answer"] for r in records] == [None if p is None else "ABCD"[p] for p in picks]
        assert m["accuracy"] == pytest.approx(sum(p == s["doc"]["answer_index"] for p, s in zip(picks, logged)) / 2)
        assert m["invalid_rate"] == pytest.approx(sum(p is None for p in picks) / 2)
        trap = [p is not None and s["doc"]["roles"][p] == "Literal Trap" for p, s in zip(picks, logged)]
        if task == "masal_contextual":  # every real contextual item has a literal trap: the denominator is 2
            assert m["literal_trap_rate"] == pytest.approx(sum(trap) / 2)
        for s in logged:  # the Question column, verbatim, as the one user message of the chat template
            assert _prompt(s) == f"<|user|>\n{s['doc']['question']}</s>\n<|assistant|>\n"
            assert s["target"] == LETTERS[s["doc"]["answer_index"]]


@pytest.mark.e2e
@pytest.mark.lmeval05  # also run under lm-eval 0.5 (.ci/run)
def test_lm_eval_runs_masal_from_a_data_dir_and_from_the_pinned_urls(shared_data, tiny_model, raw_server, tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    (data / "masal").symlink_to(shared_data / "masal")
    local, local_samples = _run(tiny_model, tmp_path / "OUT-local", {"data_dir": str(data)}, {})
    _check_scores(local, local_samples)
    assert all(s["doc"]["provenance"].startswith(f"local:{data}/masal/") for v in local_samples.values() for s in v)

    online_env = {"HF_DATASETS_OFFLINE": "0", "HF_DATASETS_CACHE": str(tmp_path / "hf-datasets")}
    online, online_samples = _run(tiny_model, tmp_path / "OUT-url", {"masal_base_url": raw_server}, online_env)
    _check_scores(online, online_samples)
    # the client asked for the two files at the pinned commit, and for nothing else
    assert set(_Raw.asked) == {
        f"/kalhorghazal/MasalBench/{RELEASE_COMMIT}/{p.filename}" for p in (CONTEXTUAL, CROSS_CULTURAL)
    }
    for task, logged in online_samples.items():
        assert all(s["doc"]["provenance"] == f"url:{raw_server}{s['doc']['provenance'].rsplit('/', 1)[1]}"
                   for s in logged)  # fmt: skip
        # the same items, read either way
        assert [s["doc"]["question"] for s in logged] == [s["doc"]["question"] for s in local_samples[task]]
        assert [s["doc"]["id"] for s in logged] == [f"{task[6:]}-0000", f"{task[6:]}-0001"]
