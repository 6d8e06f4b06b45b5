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


# --------------------------------------------------------------------------- failed extractor calls (#31 item 5)
FAILING = ("c1", "c2", "c3")  # the extractor's calls about these conversations fail, whatever the retry


def _half_failing_run(tmp_path, **settings):
    """cac_cross_country (6 conversations x 8 countries) with every reply unreadable by the rules, so all 48
    go to the extractor; its calls about c1-c3 (24 replies) always fail with HTTP 500, the others answer 3."""
    from lm_eval_persian_culture.testing.scripted_lm import ScriptedLM
    from tests.cac.cac_testlib import FIXTURES

    situations = {}
    for line in (FIXTURES / "cac" / "conversations.jsonl").read_text(encoding="utf-8").splitlines():
        row = __import__("json").loads(line)
        situations[row["id"]] = row["situation"]
    server = FakeOpenAIServer(answer=lambda prompt, body: "3")
    for conv in FAILING:
        server.fail_next(10_000, kind="500", match=situations[conv], retry_after=None)
    meta = {**judge_metadata(server, tmp_path), "judge_max_retries": 0, "judge_retry_backoff": 0.01, **settings}
    lm = ScriptedLM(lambda doc, prompt: "It depends on the people involved.")
    return server, lambda: evaluate(["cac_cross_country"], lm=lm, metadata=meta)


def test_failed_extractor_calls_are_counted_and_warned_within_the_error_rate(tmp_path, caplog, capsys, monkeypatch):
    from lm_eval_persian_culture.judge import filter as judge_filter

    server, run = _half_failing_run(tmp_path, judge_max_error_rate=0.6)
    monkeypatch.setattr(judge_filter, "_judges", {})
    with server:
        res = run()
    # the usage line printed at the end of the run counts the extractor's calls and failures
    monkeypatch.setattr(judge_filter, "_usage_printed", False)
    judge_filter._print_usage_at_exit()
    (line,) = [x for x in capsys.readouterr().err.splitlines() if x.startswith("[lm-eval-persian] judge fake-judge")]
    assert "48 items" in line and "24 errors" in line, line
    m = metrics(res, "cac_cross_country")
    # by hand: 24 of 48 calls failed (c1-c3 x 8 countries): left invalid and counted; 24 read as 3 by the extractor
    assert m["llm_extractor_errors"] == 24
    assert m["invalid_rate"] == pytest.approx(24 / 48) and m["llm_extracted_rate"] == pytest.approx(24 / 48)
    records = [rec(s["filtered_resps"][0]) for s in res["samples"]["cac_cross_country"]]
    failed = [r for r in records if r["llm_error"]]
    assert len(failed) == 24 and all(r["pick"] is None and r["read_by"] is None for r in failed)
    warning = "CAC: the LLM extractor failed on 24 of 48 replies (50.0%"
    assert any(
        warning in r.getMessage() and "within judge_max_error_rate=0.6" in r.getMessage() for r in caplog.records
    )


def test_failed_extractor_calls_past_the_error_rate_stop_the_run_as_a_judges_do(tmp_path):
    from lm_eval_persian_culture.judge import JudgeFailureError

    server, run = _half_failing_run(tmp_path)  # judge_max_error_rate: the default 0.05
    with server, pytest.raises(JudgeFailureError) as failure:
        run()
    # the pack's run wrapper, as for a judge: the run finishes (results and samples written), then stops with
    # the failure of each task and how to re-score the saved replies
    message = str(failure.value)
    assert message.startswith("judge failed on 1 task")
    assert "cac_cross_country: CAC: the LLM extractor failed on 24 of 48 replies (50.0%" in message
    assert "Above judge_max_error_rate=0.05" in message and "lm-eval-persian rejudge" in message
