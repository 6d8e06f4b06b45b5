"""PerCul's optional LLM extractor over real HTTP (the local fake judge server): only the replies the
rules cannot read go to it, its answers are scored and counted (llm_extracted_rate)."""

from __future__ import annotations

import pytest
from percul_testlib import evaluate, metrics

from lm_eval_persian_culture.scoring.records import decode_record as rec
from lm_eval_persian_culture.testing.openai_server import FakeOpenAIServer
from tests.scripted_runs import judge_metadata


@pytest.fixture(autouse=True)
def _extractor_off_afterwards():
    """The extractor a run configures is the process's (lm-eval re-executes utils.py): switched off after each
    test, so later tests that call the filter directly do not ask this test's stopped server."""
    yield
    from lm_eval_persian_culture.tasks.percul import utils

    utils.EXTRACTOR.settings = None


def test_only_unreadable_replies_go_to_the_extractor(tmp_path):
    # the sheet's only unreadable Persian reply is story 6_O_RIT (gold Choice 2); the server says "2"
    with FakeOpenAIServer(answer=lambda prompt, body: "2") as server:
        meta = judge_metadata(server, tmp_path)
        res = evaluate(["percul"], metadata=meta)
        assert server.request_count == 1
        assert server.requests_matching("نمی‌دانم؛ هر کدام ممکن است.") == 1
        prompt = server.requests[0]["messages"][-1]["content"]
        assert "Reply (a JSON string)" in prompt and "exactly one of the option numbers (1, 2, 3, 4)" in prompt
    m = metrics(res, "percul")
    # without the extractor: 6 of 10 right, 1 invalid (test_percul_scripted); the extractor reads it as 2, right
    assert m["accuracy"] == pytest.approx(7 / 10)
    assert m["invalid_rate"] == 0.0 and m["llm_extracted_rate"] == pytest.approx(1 / 10)
    records = {s["doc"]["id"]: rec(s["filtered_resps"][0]) for s in res["samples"]["percul"]}
    assert records["6_O_RIT"]["extracted"] == "B" and records["6_O_RIT"]["extracted_by"] == "llm"
    assert records["6_O_RIT"]["llm_raw"] == "2"
    assert {r["extracted_by"] for k, r in records.items() if k != "6_O_RIT"} == {"rule"}


def test_none_and_the_off_switch_leave_replies_invalid(tmp_path):
    with FakeOpenAIServer(answer=lambda prompt, body: "NONE") as server:
        meta = judge_metadata(server, tmp_path)
        m = metrics(evaluate(["percul"], metadata=meta), "percul")
        assert server.request_count == 1
        assert m["invalid_rate"] == pytest.approx(1 / 10) and m["llm_extracted_rate"] == 0.0
        m = metrics(evaluate(["percul"], metadata={**meta, "percul_llm_extractor": "false"}), "percul")
        assert server.request_count == 1  # switched off: nothing more was asked
        assert m["invalid_rate"] == pytest.approx(1 / 10)
