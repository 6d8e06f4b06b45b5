"""Juries and per-task judge settings through real lm-eval evaluations (``simple_evaluate``), the
evaluated model scripted, the judges scripted over real HTTP (one server, one script per model).

TaarofBench rows 0-4 (taarof-expected) are keyed by a word of their scenario. Expected figures,
worked out by hand from JURY_SCRIPT before running:

    row  key             a     b       c     jury (tie -> not met)
    0    necklace        Yes   Yes     No    Yes
    1    ran into        No    No      No    No
    2    hung out        Yes   No      Yes   Yes
    3    offered cash    Yes   (fails) No    tie -> No
    4    beach           No    Yes     No    No

accuracy 2/5; judge_errors 0; own accuracy a 3/5, b 2/4, c 1/5; failures a 0, b 1, c 0; ties 1.
accuracy_paper ('Yes' anywhere in each member's answer, then the vote): b's row-3 answer has no
'Yes', so row 3 is Yes/No/No -> No: 2/5.
Fleiss' kappa over rows 0, 1, 2, 4: Yes counts 2, 0, 2, 1 -> P_i 1/3, 1, 1/3, 1/3 -> P_bar 1/2;
p_yes 5/12 -> P_e = (25 + 49)/144 = 74/144; kappa = (72 - 74)/144 / (70/144) = -1/35.
Pairwise: a-b on rows 0, 1, 2, 4 agree on 0, 1 -> 2/4; a-c on rows 0-4 agree on 1, 2, 4 -> 3/5;
b-c on rows 0, 1, 2, 4 agree on 1 -> 1/4.
"""

from __future__ import annotations

import json
import os

import pytest

from lm_eval_persian_culture.testing.openai_server import FakeOpenAIServer
from lm_eval_persian_culture.testing.scripted_lm import ScriptedLM

ROWS = ("necklace", "ran into each other", "hung out", "offered cash", "beach")
JURY_SCRIPT = {
    "judge-a": ("Yes", "No", "Yes", "Yes", "No"),
    "judge-b": ("Yes", "No", "No", "I would rather not say.", "Yes"),
    "judge-c": ("No", "No", "Yes", "No", "No"),
}


def scripted(prompt: str, body: dict) -> str:
    script = JURY_SCRIPT.get(body["model"])
    for i, key in enumerate(ROWS):
        if key in prompt:
            return script[i] if script else "No"
    return "No"  # the non-taarof rows (per-task test)


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    from lm_eval_persian_culture.judge import filter as judge_filter

    for name in list(os.environ):
        if name.startswith("PERSIAN_CULTURE_JUDGE_") or name in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
            monkeypatch.delenv(name)
    monkeypatch.setattr(judge_filter, "_judges", {})
    monkeypatch.setattr(judge_filter, "_task_juries", {})


@pytest.fixture
def server():
    with FakeOpenAIServer(answer=scripted, models=(*JURY_SCRIPT, "judge-x", "judge-y")) as srv:
        yield srv


def evaluate(tasks, meta, include_path=None):
    import lm_eval

    import lm_eval_persian_culture as pack

    tm = pack.task_manager(include_path=include_path, include_defaults=False, metadata=meta)
    return lm_eval.simple_evaluate(
        model=ScriptedLM(lambda doc, prompt: "Thank you, that is very kind."), tasks=tasks, task_manager=tm,
        limit=5, apply_chat_template=True, log_samples=True, bootstrap_iters=0,
    )  # fmt: skip


@pytest.mark.e2e
def test_jury_of_three_through_lm_eval(shared_data, server, tmp_path):
    meta = {
        "data_dir": str(shared_data), "judge_base_url": server.base_url, "judge_cache_dir": str(tmp_path),
        "judge_jury": [{"model": "judge-a", "name": "a"}, {"model": "judge-b", "name": "b"},
                       {"model": "judge-c", "name": "c"}],
        "judge_max_retries": 0,
    }  # fmt: skip
    out = evaluate(["taarof_expected"], meta)
    r = {k.removesuffix(",judge"): v for k, v in out["results"]["taarof_expected"].items()}
    assert r["accuracy"] == pytest.approx(2 / 5)
    assert r["judge_errors"] == 0
    assert r["accuracy_paper"] == pytest.approx(2 / 5)
    assert r["accuracy_judge_a"] == pytest.approx(3 / 5)
    assert r["accuracy_judge_b"] == pytest.approx(2 / 4)
    assert r["accuracy_judge_c"] == pytest.approx(1 / 5)
    assert (r["judge_failures_a"], r["judge_failures_b"], r["judge_failures_c"]) == (0, 1, 0)
    assert r["jury_ties"] == 1
    assert r["jury_fleiss_kappa"] == pytest.approx(-1 / 35)
    assert r["jury_agreement_a_b"] == pytest.approx(2 / 4)
    assert r["jury_agreement_a_c"] == pytest.approx(3 / 5)
    assert r["jury_agreement_b_c"] == pytest.approx(1 / 4)

    judge_meta = out["configs"]["taarof_expected"]["metadata"]["judge"]
    assert [m["name"] for m in judge_meta["jury"]] == ["a", "b", "c"]
    assert judge_meta["tie_rule"] == "not_met"
    assert judge_meta["figures"]["fleiss_kappa"] == pytest.approx(-1 / 35)

    samples = out["samples"]["taarof_expected"]
    record = json.loads(samples[3]["filtered_resps"][0])
    assert record["verdict"] == "no" and record["jury_tie"] is True
    assert [(m["judge"], m["verdict"], m["judge_model"]) for m in record["jury"]] == [
        ("a", "yes", "judge-a"), ("b", None, "judge-b"), ("c", "no", "judge-c")]  # fmt: skip
    # every judge was asked every item once
    for model in JURY_SCRIPT:
        assert sum(1 for body in server.requests if body["model"] == model) == 5


@pytest.mark.e2e
def test_two_tasks_each_use_their_own_judge(shared_data, server, tmp_path):
    """A group YAML gives taarof_expected judge-x and taarof_non_taarof judge-y in one run."""
    folder = tmp_path / "mytasks"
    folder.mkdir()
    (folder / "two_judges.yaml").write_text(
        "group: two_judges\n"
        "task:\n"
        "  - task: taarof_expected\n    metadata:\n      judge_model: judge-x\n"
        "  - task: taarof_non_taarof\n    metadata:\n      judge_model: judge-y\n"
    )
    meta = {"data_dir": str(shared_data), "judge_base_url": server.base_url, "judge_cache_dir": str(tmp_path)}
    out = evaluate(["two_judges"], meta, include_path=str(folder))
    for task, model, keys in (("taarof_expected", "judge-x", ROWS), ("taarof_non_taarof", "judge-y", None)):
        for sample in out["samples"][task]:
            assert json.loads(sample["filtered_resps"][0])["judge_model"] == model
        prompts = [body["messages"][-1]["content"] for body in server.requests if body["model"] == model]
        assert len(prompts) == 5
        if keys is not None:  # judge-x got exactly taarof_expected's five scenarios
            assert sorted(next(k for k in keys if k in p) for p in prompts) == sorted(keys)
    assert {body["model"] for body in server.requests} == {"judge-x", "judge-y"}
    x_prompts = {body["messages"][-1]["content"] for body in server.requests if body["model"] == "judge-x"}
    y_prompts = {body["messages"][-1]["content"] for body in server.requests if body["model"] == "judge-y"}
    assert not x_prompts & y_prompts


@pytest.mark.e2e
def test_rejudge_a_single_judge_run_with_a_jury(shared_data, server, tmp_path):
    """A run judged by judge-a alone, re-scored by the jury a, b, c: judge-a's verdicts come from its
    cache (it is asked nothing), b and c are asked every item once, and the figures are the jury's."""
    from lm_eval.loggers import EvaluationTracker

    from lm_eval_persian_culture.harness.rejudge import rejudge

    meta = {"data_dir": str(shared_data), "judge_base_url": server.base_url, "judge_cache_dir": str(tmp_path),
            "judge_model": "judge-a", "judge_max_retries": 0}  # fmt: skip
    results = evaluate(["taarof_expected"], meta)
    assert results["results"]["taarof_expected"]["accuracy,judge"] == pytest.approx(3 / 5)
    tracker = EvaluationTracker(output_path=str(tmp_path / "OUT"))
    samples = results.pop("samples")
    tracker.save_results_aggregated(results=results, samples=samples)
    tracker.save_results_samples(task_name="taarof_expected", samples=samples["taarof_expected"])
    before = list(server.requests)
    jury = [{"model": "judge-a", "name": "a"}, {"model": "judge-b", "name": "b"}, {"model": "judge-c", "name": "c"}]
    _, new, failures = rejudge(tmp_path / "OUT", {"judge_jury": jury})
    asked = [body["model"] for body in server.requests[len(before) :]]
    assert sorted(asked) == ["judge-b"] * 5 + ["judge-c"] * 5
    r = {k.removesuffix(",judge"): v for k, v in new["results"]["taarof_expected"].items()}
    assert r["accuracy"] == pytest.approx(2 / 5) and r["jury_fleiss_kappa"] == pytest.approx(-1 / 35)
    assert failures == []
    assert [m["name"] for m in new["rejudge"]["judge"]["jury"]] == ["a", "b", "c"]
