"""``lm-eval-persian data`` and the suite's pre-flight: which benchmarks can run in a setup, and why not.

Data dirs are assembled from ../shared/data (TaarofBench, TARAZ) and the project's fixtures in the
documented layouts (DivanBench, PerCul, CAC); the online probe talks to a local HTTP server.
"""

from __future__ import annotations

import http.server
import json
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from lm_eval_persian_culture.harness import data_check
from lm_eval_persian_culture.harness.data_check import DATASETS, check, probe, suite_members
from tests.benchmark_data import link_benchmark_data

BIN = Path(sys.executable).parent
TESTS = Path(__file__).resolve().parent
OFFLINE = {"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}


def cli(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    full = {**os.environ, "LMEVAL_LOG_LEVEL": "WARNING", **(env or {})}
    full.pop("PERSIAN_CULTURE_DATA_DIR", None)
    return subprocess.run([str(BIN / "lm-eval-persian"), *args], capture_output=True, text=True, env=full, timeout=600)


def dataset(name: str):
    return next(ds for ds in DATASETS if ds.name == name)


@pytest.fixture()
def data_dir(tmp_path, shared_data) -> Path:
    """Everything but TARAZ's unpublished ISN-SAQ file: each benchmark's test data, found by folder (its
    fixtures in the documented layout, else ../shared/data)."""
    return link_benchmark_data(tmp_path / "data", shared_data)


# The suite run with TARAZ's and CAC's data left out: every other member's data is there.
LEFT_OUT = {"taraz": "taraz_blend", "cac": "cac"}


def partial_data_dir(data_dir: Path, root: Path) -> Path:
    root.mkdir()
    for folder in data_dir.iterdir():
        if folder.name not in LEFT_OUT:
            (root / folder.name).symlink_to(folder.resolve())
    return root


def ready_members() -> list[str]:
    return [m for m in suite_members() if m not in LEFT_OUT.values()]


def test_every_dataset_reads_under_a_complete_data_dir(data_dir):
    got = {ds.name: check(ds, {"data_dir": str(data_dir)}) for ds in DATASETS}
    assert {n for n, s in got.items() if not s.ready} == {"TARAZ: ISN-SAQ"}
    assert got["TaarofBench"].detail.endswith("taarof-expected.jsonl: 311 rows, non-taarof.jsonl: 139 rows")
    assert "blend_iran/Iran_data.json: 500 rows" in got["TARAZ: BLEnD Iran"].detail  # BLEnD's 500 Iran questions
    fixture = [json.loads(line) for line in (data_dir / "divan" / "binary.jsonl").read_text().splitlines() if line]
    assert f"binary.jsonl: {len(fixture)} rows" in got["DivanBench"].detail
    isn = got["TARAZ: ISN-SAQ"]
    assert isn.state == "missing" and "taraz/ISN/isn_farsi_saq.csv: not found" in isn.detail
    assert "no public release the pack can download: bring your own copy" in isn.detail


def test_a_malformed_file_is_invalid_naming_row_and_field(data_dir, tmp_path):
    divan = tmp_path / "divan"
    shutil.copytree(data_dir / "divan", divan)
    (data_dir / "divan").unlink()
    rows = [json.loads(line) for line in (divan / "binary.jsonl").read_text().splitlines() if line]
    rows[3]["polarity"] = "maybe"
    (divan / "binary.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    (data_dir / "divan").symlink_to(divan)
    status = check(dataset("DivanBench"), {"data_dir": str(data_dir)})
    assert status.state == "invalid" and not status.ready
    assert "binary.jsonl: row 4: field 'polarity' has value 'maybe'" in status.detail


def test_without_a_data_dir_offline_each_dataset_says_what_to_do(monkeypatch):
    monkeypatch.delenv("PERSIAN_CULTURE_DATA_DIR", raising=False)
    for name, value in OFFLINE.items():
        monkeypatch.setenv(name, value)
    got = {ds.name: check(ds, {}) for ds in DATASETS}
    assert not any(s.ready for s in got.values())
    assert got["CAC"].state == "missing" and "no online release the pack can read" in got["CAC"].detail
    assert "<data_dir>/cac/conversations.jsonl, <data_dir>/cac/annotations.jsonl" in got["CAC"].detail
    assert (
        got["TaarofBench"].state == "offline"
        and "HF_HUB_OFFLINE and HF_DATASETS_OFFLINE set" in got["TaarofBench"].detail
    )


class _Handler(http.server.BaseHTTPRequestHandler):
    codes = {"/open": 200, "/gated": 403}

    def do_HEAD(self):  # noqa: N802
        # like the hub's API, /api/ answers GET only
        self.send_response(405 if self.path.startswith("/api/") else self.codes.get(self.path, 404))
        self.end_headers()

    def do_GET(self):  # noqa: N802
        self.send_response(200 if self.path.startswith("/api/") else 404)
        self.end_headers()

    def log_message(self, *args):
        pass


@pytest.fixture()
def http_server():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_probe_and_online_statuses(http_server, monkeypatch):
    monkeypatch.delenv("PERSIAN_CULTURE_DATA_DIR", raising=False)
    for name in OFFLINE:
        monkeypatch.delenv(name, raising=False)
    assert probe(f"{http_server}/open") == (200, "OK")
    assert probe(f"{http_server}/api/datasets/x/auth-check") == (200, "OK")  # the hub API is asked with GET
    assert probe(f"{http_server}/gated")[0] == 403
    closed = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    port = closed.server_address[1]
    closed.server_close()  # nothing listens there now
    status, reason = probe(f"http://127.0.0.1:{port}/x", timeout=2)
    assert status is None and "refused" in reason.lower()

    def at(path):
        return lambda url, token=None: probe(f"{http_server}{path}", token)

    taarof, percul = dataset("TaarofBench"), dataset("PerCul")
    assert check(taarof, {}, probe_fn=at("/open")).ready
    unreachable = check(taarof, {}, probe_fn=at("/missing"))
    assert unreachable.state == "unreachable" and "HTTP 404" in unreachable.detail
    monkeypatch.setattr(data_check, "_hf_token", lambda: None)
    assert check(percul, {}, probe_fn=at("/open")).state == "needs token"
    monkeypatch.setattr(data_check, "_hf_token", lambda: "hf_test")
    refused = check(percul, {}, probe_fn=at("/gated"))
    assert (
        refused.state == "refused"
        and "accept the terms on https://huggingface.co/datasets/teias-ai/percul" in refused.detail
    )


def test_cli_table_for_the_suite(data_dir, tmp_path):
    partial = partial_data_dir(data_dir, tmp_path / "partial")
    no_judge = json.dumps({"judge_model": "none"})  # TaarofBench's replies unscored: its judge is not missing
    proc = cli("data", "--data_dir", str(partial), "--tasks", "persian_culture", "--metadata", no_judge, env=OFFLINE)
    assert proc.returncode == 1, proc.stderr  # not everything asked about is ready
    out = proc.stdout
    assert "[ready] TaarofBench" in out and "[ready] DivanBench" in out and "[ready] PerCul" in out
    assert "[missing] TARAZ: BLEnD Iran" in out and "[missing] CAC" in out
    assert "TARAZ: ISN-SAQ" not in out  # persian_culture runs taraz_blend only
    ready = ready_members()
    assert {"taarof", "divan", "percul"} <= set(ready)
    assert (
        f"persian_culture: {len(ready)} of {len(suite_members())} members ready ({', '.join(ready)}); "
        "cannot run: taraz_blend, cac"
    ) in out
    full = cli("data", "--data_dir", str(data_dir), "--tasks", "taarof,cac_iran", "--metadata", no_judge, env=OFFLINE)
    assert full.returncode == 0 and "[ready] CAC" in full.stdout


def test_data_advises_only_members_whose_judge_and_embedding_model_are_there(data_dir, tmp_path):
    """Every data file there, offline, no embedding model: taraz_blend cannot run (its embedding model is
    neither a folder nor in the hub cache), so the advised --tasks list leaves it out (was: advised, then the
    run refused it); no judge: TaarofBench cannot run either."""
    proc = cli("data", "--data_dir", str(data_dir), "--tasks", "persian_culture", env={
        **OFFLINE, "HF_HOME": str(tmp_path / "empty-hf-home")})  # fmt: skip
    assert proc.returncode == 1, proc.stderr
    out = proc.stdout
    assert "[ready] TARAZ: BLEnD Iran" in out  # the data is there ...
    assert (
        "[missing] embedding model (taraz*)\n    status:  embedding_model=xmanii/maux-gte-persian-v3: not a "
        "local folder, not in the Hugging Face cache" in out
    )  # ... the model is not
    assert "[missing] judge (taarof*)\n    status:  no judge configured: set judge_model" in out
    runnable = [m for m in suite_members() if m not in ("taarof", "taraz_blend")]
    assert f"; cannot run: taarof, taraz_blend\n  run the ready ones alone with --tasks {','.join(runnable)}, " in out
    # a judge and an embedding model that are there: every member can run
    meta = json.dumps({"judge_model": "none", "embedding_model": str(tmp_path)})
    proc = cli("data", "--data_dir", str(data_dir), "--tasks", "persian_culture", "--metadata", meta, env=OFFLINE)
    assert proc.returncode == 0, proc.stdout[-2000:]
    assert f"persian_culture: {len(suite_members())} of {len(suite_members())} members ready" in proc.stdout
    assert (
        f"[ready] embedding model (taraz*)\n    status:  embedding model {tmp_path} (metadata embedding_model): "
        "a local folder" in proc.stdout
    )


def test_cli_data_errors_are_one_line_exit_2(tmp_path):
    proc = cli("data", "--data_dir", str(tmp_path / "nope"), env=OFFLINE)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith(f"data_dir {tmp_path / 'nope'}: no such folder (set by data_dir (--metadata)); it must hold")
    proc = cli("data", "--tasks", "hellaswag", env=OFFLINE)
    assert proc.returncode == 2 and "hellaswag read no dataset the pack knows" in proc.stderr


def test_suite_preflight_names_the_members_that_cannot_run_before_any_model(data_dir, tmp_path):
    partial = partial_data_dir(data_dir, tmp_path / "partial")
    meta = json.dumps({"data_dir": str(partial), "judge_model": "none"})
    proc = cli(
        "run",
        "--model",
        "hf",
        "--model_args",
        f"pretrained={tmp_path}",  # a folder, no model: the pre-flight stops the run first
        "--tasks",
        "persian_culture",
        "--metadata",
        meta,
        env=OFFLINE,
    )
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    start = next(i for i, line in enumerate(lines) if line.startswith("pre-flight:"))
    ready = ready_members()
    assert lines[start + 1] == (
        f"  1. suite [persian_culture]: 2 of {len(suite_members())} members cannot run: taraz_blend (data: problem "
        f"2), cac (data: problem 3); ready: {', '.join(ready)}. `lm-eval-persian data` shows where each "
        f"benchmark's data comes from and what it needs; or run the ready members alone: --tasks {','.join(ready)}, "
        """or add --metadata '{"suite_skip_unavailable": true}' to run them and record the skipped ones in the """
        "results."
    )
    assert lines[start + 2].startswith(f"  2. data [taraz_blend]: {partial}/taraz/blend_iran/Iran_data.json: not found")
    assert lines[start + 3].startswith("  3. data [cac_america, ")
    assert "no public release the pack can download: bring your own copy" in lines[start + 3]


def test_offline_without_data_dir_the_preflight_says_data_not_settings(tmp_path):
    meta = json.dumps({"judge_model": "none", "embedding_model": str(tmp_path)})
    proc = cli("validate", "--tasks", "taarof_expected,taraz_blend", "--metadata", meta, env=OFFLINE)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    taarof = next(line for line in proc.stderr.splitlines() if "[taarof_expected]" in line)
    assert taarof.startswith(
        "  1. data [taarof_expected]: taarof/taarof-expected.jsonl: could not read the online "
        "release https://raw.githubusercontent.com/niktaas/TAAROFBENCH/"
    )
    assert "download the file to <data_dir>/taarof/taarof-expected.jsonl and set data_dir" in taarof
    blend = next(line for line in proc.stderr.splitlines() if "[taraz_blend]" in line)
    assert blend.startswith("  2. data [taraz_blend]: could not read the data: ")
    assert "Put a local copy in a data dir and set data_dir" in blend


def test_every_pack_task_reads_a_dataset_the_data_command_knows():
    from lm_eval_persian_culture.harness.data_check import SUITE, datasets_for
    from lm_eval_persian_culture.harness.discovery import pack_task_names
    from lm_eval_persian_culture.tasks._benchmark import suite_members as listed_members

    assert suite_members() == listed_members() and {"taarof", "divan", "percul", "taraz_blend", "cac"} <= set(
        suite_members()
    )
    orphans = [t for t in pack_task_names() if t != SUITE and not datasets_for([t])]
    assert orphans == []


CAC_TASKS = ["cac_america", "cac_india", "cac_china", "cac_japan", "cac_korea", "cac_netherlands", "cac_mexico",
             "cac_nigeria"]  # fmt: skip  # tasks/cac/cac.yaml's members


def test_suite_skip_unavailable_runs_the_members_that_can_run_and_records_the_others(data_dir, tmp_path):
    """Opt-in (--metadata suite_skip_unavailable): the suite with TARAZ's and CAC's data left out runs the other
    members, and results["suite_skipped"] says which members were left out, their tasks, and why. Default unchanged."""
    import lm_eval

    import lm_eval_persian_culture as pack
    from lm_eval_persian_culture.harness.preflight import PreflightError
    from lm_eval_persian_culture.testing.scripted_lm import ScriptedLM

    partial = partial_data_dir(data_dir, tmp_path / "partial")

    def run(tasks=("persian_culture",), **more):
        metadata = {"data_dir": str(partial), "judge_model": "none", **more}
        return lm_eval.simple_evaluate(
            model=ScriptedLM(lambda doc, prompt: "1"), tasks=list(tasks), limit=1, bootstrap_iters=0,
            task_manager=pack.task_manager(include_defaults=False, metadata=metadata),
        )  # fmt: skip

    with pytest.raises(PreflightError):  # by default a suite with a member that cannot run runs nothing
        run()
    results = run(suite_skip_unavailable=True)
    record = results["suite_skipped"]["persian_culture"]
    assert record["ran"] == ready_members()
    assert list(record["skipped"]) == ["taraz_blend", "cac"]
    blend, cac = record["skipped"]["taraz_blend"], record["skipped"]["cac"]
    assert blend["tasks"] == ["taraz_blend"] and cac["tasks"] == CAC_TASKS
    [why] = blend["reasons"]
    assert why.startswith(
        f"data: {partial}/taraz/blend_iran/Iran_data.json: not found. The data dir {partial} must hold"
    )
    [why] = cac["reasons"]
    assert why.startswith(f"data: {partial}/cac/conversations.jsonl: not found.")
    ran = set(results["results"])
    assert {"taarof_expected", "taarof_non_taarof", "percul"} <= ran
    assert not [t for t in ran if t.startswith(("taraz", "cac"))]
    # a problem that is no member's (a misspelt task beside the suite) still stops the run, setting or not
    with pytest.raises(PreflightError, match="task 'taarof_expcted' not found"):
        run(["persian_culture", "taarof_expcted"], suite_skip_unavailable=True)
