"""CAC's optional LLM extractor over real HTTP (the local fake judge server): only the replies the
rules cannot read go to it, its picks are scored and counted (llm_extracted_rate)."""

from __future__ import annotations

import pytest
from cac_testlib import evaluate, metrics

from lm_eval_persian_culture.scoring.records import decode_record as rec
from lm_eval_persian_culture.testing.openai_server import FakeOpenAIServer
from tests.scripted_runs import judge_metadata


def test_only_unreadable_replies_go_to_the_extractor(tmp_path):
    # Nigeria: c1 unreadable (accepted 2..3); the rest read by the rules: c2 2 (2..2) right,
    # c3 2 (1..1) wrong, c4 1 (2..3) wrong, c5 5 (2..5) right, c6 3 (4..5) wrong -> 2/6 without the extractor
    with FakeOpenAIServer(answer=lambda prompt, body: "3") as server:
        meta = judge_metadata(server, tmp_path)
        res = evaluate(["cac_nigeria"], metadata=meta)
        assert server.request_count == 1
        prompt = server.requests[0]["messages"][-1]["content"]
        assert "Country: Nigeria" in prompt and "exactly one of the option numbers (1, 2, 3, 4, 5)" in prompt
    m = metrics(res, "cac_nigeria")
    assert m["range_accuracy"] == pytest.approx(3 / 6)
    assert m["invalid_rate"] == 0.0 and m["llm_extracted_rate"] == pytest.approx(1 / 6)
    records = {s["doc"]["conversation_id"]: rec(s["filtered_resps"][0]) for s in res["samples"]["cac_nigeria"]}
    assert (records["c1"]["pick"], records["c1"]["read_by"], records["c1"]["llm_raw"]) == (3, "llm", "3")


def test_an_out_of_range_answer_leaves_the_reply_invalid(tmp_path):
    with FakeOpenAIServer(answer=lambda prompt, body: "7") as server:
        meta = judge_metadata(server, tmp_path)
        m = metrics(evaluate(["cac_nigeria"], metadata=meta), "cac_nigeria")
        assert server.request_count == 1
    assert m["invalid_rate"] == pytest.approx(1 / 6) and m["llm_extracted_rate"] == 0.0
