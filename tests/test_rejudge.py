"""``rejudge`` re-scores a run from its samples: a changed judge setting is not "the data changed",
and the data itself is not needed where the samples hold the docs (no model: ScriptedLM replies,
the judge is the local server over HTTP)."""

from __future__ import annotations

import json
import logging
import shutil
from pathlib import Path

import pytest

from lm_eval_persian_culture.errors import UserInputError
from lm_eval_persian_culture.harness.rejudge import rejudge
from lm_eval_persian_culture.testing.openai_server import FakeOpenAIServer
from tests.reliability.judged_runs import JUDGE_MODEL, evaluate, judge_settings, taarof_verdict, user_prompt

LIMIT = 5


def judged_scores(results: dict) -> dict:
    return {k: v for k, v in results["results"]["taarof_expected"].items() if k.endswith(",judge")}


def saved_run(data_dir: Path, server: FakeOpenAIServer, out: Path, cache: Path) -> tuple[Path, dict]:
    """A judged taarof_expected run of LIMIT items, saved as the lm-eval CLI saves it (results + samples)."""
    from lm_eval.loggers import EvaluationTracker

    results = evaluate(
        ["taarof_expected"], {"data_dir": str(data_dir), **judge_settings(server.base_url, cache)}, limit=LIMIT
    )
    tracker = EvaluationTracker(output_path=str(out))
    samples = results.pop("samples")
    tracker.save_results_aggregated(results=results, samples=samples)
    for task, task_samples in samples.items():
        tracker.save_results_samples(task_name=task, samples=task_samples)
    return next(out.rglob("results_*.json")), results


@pytest.fixture
def run(shared_data, tmp_path):
    """(run folder, its results, its own data dir, the judge server): the data dir is a copy, so a
    test can take it away as an offline machine without the data would."""
    data = tmp_path / "data"
    shutil.copytree(shared_data / "taarof", data / "taarof")
    with FakeOpenAIServer(answer=taarof_verdict, models=(JUDGE_MODEL,)) as server:
        _, results = saved_run(data, server, tmp_path / "OUT", tmp_path / "cache")
        yield tmp_path / "OUT", results, data, server


@pytest.mark.e2e
def test_changed_judge_setting_is_rescored_not_taken_for_changed_data(run):
    """judge_reply_format=json is recorded in the docs; the run's docs said "paper". The items are the
    same, so rejudge re-scores them, with the judge prompt in the new form."""
    out, original, _, server = run
    before = server.request_count
    new_path, new, failures = rejudge(out, {"judge_reply_format": "json"})
    assert failures == [] and new_path.exists()
    prompts = [user_prompt(body) for body in server.requests[before:]]
    assert len(prompts) == LIMIT  # another template: a cache miss for every item, each asked once
    # the reply now sits in the prompt as a JSON string literal: "Person B says: \"...\""
    assert all('Person B says: "' in p for p in prompts), prompts[0]
    samples_file = max(new_path.parent.glob("samples_taarof_expected_*.jsonl"), key=lambda p: p.name)
    docs = [json.loads(line)["doc"] for line in samples_file.read_text().splitlines()]
    assert [d["judge_reply_format"] for d in docs] == ["json"] * LIMIT
    assert new["rejudge"]["tasks"] == ["taarof_expected"]


@pytest.mark.e2e
@pytest.mark.parametrize("where", ["data dir gone", "online release unreachable"])
def test_rejudge_needs_no_data_where_the_samples_hold_the_docs(run, caplog, monkeypatch, where):
    """The data dir the run read is gone (another machine), or no data dir and no network (the online
    release: a bare FileNotFoundError for its URL): the saved docs are re-scored, and the verdicts
    (from the cache) give the run's own scores."""
    caplog.set_level(logging.WARNING, logger="lm_eval_persian_culture")
    out, original, data, server = run
    shutil.rmtree(data)
    monkeypatch.delenv("PERSIAN_CULTURE_DATA_DIR", raising=False)
    before = server.request_count
    _, new, failures = rejudge(out, {"data_dir": ""} if where == "online release unreachable" else {})
    assert failures == []
    assert server.request_count == before  # every verdict from the cache: the same prompts as the run's
    assert judged_scores(new) == judged_scores(original)
    assert any(
        "the data cannot be read here" in r.getMessage() and f"the {LIMIT} docs saved" in r.getMessage()
        for r in caplog.records
    ), caplog.text


@pytest.mark.e2e
def test_rejudge_without_data_nor_saved_docs_says_to_set_data_dir(run):
    out, _, data, _ = run
    shutil.rmtree(data)
    [samples_file] = out.rglob("samples_taarof_expected_*.jsonl")
    rows = [json.loads(line) for line in samples_file.read_text().splitlines()]
    samples_file.write_text("".join(json.dumps({k: v for k, v in r.items() if k != "doc"}) + "\n" for r in rows))
    with pytest.raises(UserInputError, match=r"taarof_expected: the samples do not hold every doc .* set data_dir"):
        rejudge(out, {})
