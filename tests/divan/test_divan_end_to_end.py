"""DivanBench through the real lm-eval harness with a scripted model and hand-computed scores.

The scripted answers are in divan_testlib.SHEET. Every expected value below is computed by
hand from that sheet (comments show the arithmetic); ``statistics.pstdev`` only re-does the
population standard deviation of the hand-listed per-prompt values.
"""

from __future__ import annotations

import json
import logging
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from statistics import pstdev

import pytest
from divan_testlib import GOLD, evaluate, metrics, scripted_reply

from lm_eval_persian_culture.scoring.records import decode_record as rec
from lm_eval_persian_culture.tasks.divan.check_prompts import (
    WARNED,
    check_system_prompts,
    inspect_samples,
    rendered_prompt,
)
from lm_eval_persian_culture.tasks.divan.check_prompts import main as check_prompts_main
from lm_eval_persian_culture.tasks.divan.utils import SYSTEM_PROMPTS
from lm_eval_persian_culture.testing.scripted_lm import ScriptedLM, messages_of

# ---- hand computation from SHEET ---------------------------------------------------------
# factual, correct per prompt: p1 4/4, p2 3/4 (f4 said A), p3 3/4 (f1 said B), p4 2/4 (f2 unreadable,
# f3 said C), p5 4/4
FACTUAL = [1.0, 0.75, 0.75, 0.5, 1.0]  # mean 4.0/5 = 0.8
# scenario: p1 2/3 (s3 said A), p2 2/3 (s2 said D), p3 1/3 (s1 unreadable, s3 said D), p4 1/3, p5 3/3
SCENARIO = [2 / 3, 2 / 3, 1 / 3, 1 / 3, 1.0]  # mean 9/15 = 0.6
# binary: accept_true = positives answered yes; reject_false = negatives answered no
ACCEPT = [1.0, 1.0, 2 / 3, 1.0, 1 / 3]  # p3: b2p unreadable; p5: b1p and b3p said no. mean 4/5 = 0.8
REJECT = [1 / 3, 0.0, 2 / 3, 1 / 3, 1.0]  # mean (1/3+0+2/3+1/3+1)/5 = 7/15
BIAS = [a - r for a, r in zip(ACCEPT, REJECT)]  # [2/3, 1, 0, 2/3, -2/3], mean 1/3
BINARY = [(a + r) / 2 for a, r in zip(ACCEPT, REJECT)]  # 6 statements per prompt: [4/6, 3/6, 4/6, 4/6, 4/6]
GAP = [f - s for f, s in zip(FACTUAL, SCENARIO)]  # [1/3, 1/12, 5/12, 1/6, 0], mean 0.2


@pytest.fixture(scope="module")
def full_run():
    return evaluate(["divan", "divan_factual", "divan_binary", "divan_scenario"])


def test_per_type_tasks(full_run):
    f = metrics(full_run, "divan_factual")
    assert f["accuracy"] == pytest.approx(0.8)
    assert f["accuracy_std"] == pytest.approx(pstdev(FACTUAL)) == pytest.approx(0.1870829, abs=1e-6)
    assert f["invalid_rate"] == pytest.approx(1 / 20)  # f2 under prompt 4
    assert f["llm_extracted_rate"] == 0.0

    s = metrics(full_run, "divan_scenario")
    assert s["accuracy"] == pytest.approx(0.6)
    assert s["accuracy_std"] == pytest.approx(pstdev(SCENARIO)) == pytest.approx(0.2494438, abs=1e-6)
    assert s["invalid_rate"] == pytest.approx(1 / 15)

    b = metrics(full_run, "divan_binary")
    assert b["accuracy"] == pytest.approx(19 / 30)  # (4+3+4+4+4)/6/5
    assert b["accuracy_std"] == pytest.approx(pstdev(BINARY)) == pytest.approx(1 / 15)
    assert b["accept_true"] == pytest.approx(0.8)
    assert b["reject_false"] == pytest.approx(7 / 15)
    assert b["acquiescence_bias"] == pytest.approx(1 / 3)  # = 0.8 - 7/15
    assert b["acquiescence_bias_abs"] == pytest.approx(1 / 3)  # its magnitude
    assert b["accept_true_std"] == pytest.approx(pstdev(ACCEPT)) == pytest.approx(0.2666667, abs=1e-6)
    assert b["reject_false_std"] == pytest.approx(pstdev(REJECT)) == pytest.approx(0.3399346, abs=1e-6)
    assert b["acquiescence_bias_std"] == pytest.approx(pstdev(BIAS)) == pytest.approx(0.5962848, abs=1e-6)
    assert b["invalid_rate"] == pytest.approx(1 / 30)
    assert b["llm_extracted_rate"] == 0.0


def test_whole_benchmark_row(full_run):
    d = metrics(full_run, "divan")
    assert d["factual_accuracy"] == pytest.approx(0.8)
    assert d["scenario_accuracy"] == pytest.approx(0.6)
    assert d["binary_accuracy"] == pytest.approx(19 / 30)
    assert d["factual_accuracy_std"] == pytest.approx(pstdev(FACTUAL))
    assert d["scenario_accuracy_std"] == pytest.approx(pstdev(SCENARIO))
    assert d["binary_accuracy_std"] == pytest.approx(pstdev(BINARY))
    assert d["accept_true"] == pytest.approx(0.8)
    assert d["reject_false"] == pytest.approx(7 / 15)
    assert d["acquiescence_bias"] == pytest.approx(1 / 3)
    assert d["acquiescence_bias_std"] == pytest.approx(pstdev(BIAS))
    assert d["factual_conceptual_gap"] == pytest.approx(0.2)  # 0.8 - 0.6
    assert d["factual_conceptual_gap_abs"] == pytest.approx(0.2)
    assert d["acquiescence_bias_abs"] == pytest.approx(1 / 3)
    assert d["factual_conceptual_gap_std"] == pytest.approx(pstdev(GAP)) == pytest.approx(0.1545603, abs=1e-6)
    assert d["invalid_rate"] == pytest.approx(3 / 65)  # one unreadable reply per type, 65 docs
    assert d["factual_invalid_rate"] == pytest.approx(1 / 20)
    assert d["binary_invalid_rate"] == pytest.approx(1 / 30)
    assert d["scenario_invalid_rate"] == pytest.approx(1 / 15)
    assert d["llm_extracted_rate"] == 0.0
    assert full_run["n-samples"]["divan"]["effective"] == 65  # (4 + 6 + 3) items x 5 prompts


def test_five_system_prompts_are_the_system_messages(full_run):
    for task in ("divan", "divan_binary"):
        seen = set()
        for sample in full_run["samples"][task]:
            doc = sample["doc"]
            messages = messages_of(rendered_prompt(sample))
            assert messages[0] == {"role": "system", "content": SYSTEM_PROMPTS[doc["prompt_id"] - 1]}
            assert messages[1]["role"] == "user" and doc["system_prompt"] not in messages[1]["content"]
            seen.add(messages[0]["content"])
        assert seen == set(SYSTEM_PROMPTS)


def test_logged_records_and_targets(full_run):
    sample = next(
        s for s in full_run["samples"]["divan_factual"] if s["doc"]["item_id"] == "f2" and s["doc"]["prompt_id"] == 4
    )
    record = rec(sample["filtered_resps"][0])
    assert record["extracted"] is None and record["extracted_by"] is None
    assert record["reply"] == scripted_reply(sample["doc"])
    assert record["system_prompt_rendered"] is True
    assert sample["target"] == GOLD["f2"]
    ok = next(s for s in full_run["samples"]["divan_binary"] if s["doc"]["item_id"] == "b1n")
    assert rec(ok["filtered_resps"][0])["extracted"] in ("yes", "no")
    assert rec(ok["filtered_resps"][0])["extracted_by"] == "rule"


def test_doc_order_keeps_pairs_and_prompts_together(full_run):
    docs = [s["doc"] for s in full_run["samples"]["divan_binary"]]
    order = [(d["pair_id"], d["prompt_id"], d["polarity"]) for d in docs]
    expected = [
        (p, k, pol) for p in ("elders", "bread", "sweeping") for k in range(1, 6) for pol in ("positive", "negative")
    ]
    assert order == expected
    interleaved = [d["type"] for d in (s["doc"] for s in full_run["samples"]["divan"])][::5]
    assert interleaved[:5] == ["factual", "binary", "binary", "scenario", "factual"]


def test_limit_keeps_pairs_intact_and_drops_split_pairs_from_paired_metrics():
    # --limit 7 on divan_binary: elders under p1, p2, p3 (both statements) and p4 (positive only)
    b = metrics(evaluate(["divan_binary"], limit=7), "divan_binary")
    # accuracy per prompt: p1 2/2 (yes, no), p2 1/2 (yes, yes), p3 2/2, p4 1/1 -> mean 3.5/4
    assert b["accuracy"] == pytest.approx(0.875)
    # paired metrics only over p1..p3, where the pair is complete: accept [1,1,1], reject [1,0,1]
    assert b["accept_true"] == pytest.approx(1.0)
    assert b["reject_false"] == pytest.approx(2 / 3)
    assert b["acquiescence_bias"] == pytest.approx(1 / 3)
    # --limit 10 = one pair under all five prompts: nothing split
    b = metrics(evaluate(["divan_binary"], limit=10), "divan_binary")
    assert b["accept_true"] == pytest.approx(4 / 5)  # elders positive: yes yes yes yes no
    assert b["reject_false"] == pytest.approx(3 / 5)  # elders negative: no yes no yes no


def test_limit_on_the_whole_benchmark_samples_every_type():
    # first 20 docs: f1 x 5 prompts, the elders pair x 5 prompts, s1 x 5 prompts
    d = metrics(evaluate(["divan"], limit=20), "divan")
    assert d["factual_accuracy"] == pytest.approx(4 / 5)  # f1: C C B C C
    assert d["scenario_accuracy"] == pytest.approx(3 / 5)  # s1: A A - B A
    assert d["factual_conceptual_gap"] == pytest.approx(0.2)  # per prompt [0, 0, 1, 0, 0]
    # per-prompt gap = f1 correct - s1 correct = [1-1, 1-1, 0-0, 1-0, 1-1]; pstdev: sqrt((4*0.04+0.64)/5)
    assert d["factual_conceptual_gap_std"] == pytest.approx(0.4) == pytest.approx(pstdev([0, 0, 0, 1, 0]))


def test_single_prompt_tasks():
    res = evaluate(["divan_factual_sp4", "divan_binary_sp5", "divan_scenario_sp1"])
    assert metrics(res, "divan_factual_sp4") == pytest.approx(
        {"accuracy": 0.5, "invalid_rate": 0.25, "llm_extracted_rate": 0.0, "llm_extractor_errors": 0}
    )
    b = metrics(res, "divan_binary_sp5")
    assert b["accept_true"] == pytest.approx(1 / 3) and b["reject_false"] == pytest.approx(1.0)
    assert b["acquiescence_bias"] == pytest.approx(-2 / 3)
    assert b["acquiescence_bias_abs"] == pytest.approx(2 / 3)  # a negative bias is as far from 0 as +2/3
    assert res["higher_is_better"]["divan_binary_sp5"]["acquiescence_bias"] is None
    assert res["higher_is_better"]["divan_binary_sp5"]["acquiescence_bias_abs"] is False
    assert res["configs"]["divan_binary_sp5"]["metadata"]["signed_metrics"] == ["acquiescence_bias"]
    from lm_eval.utils import make_table

    table = {line.split("|")[5].strip(): line for line in make_table(res).splitlines() if line.count("|") > 8}
    assert "↑" in table["accept_true"] and "↓" in table["acquiescence_bias_abs"]
    assert "↑" not in table["acquiescence_bias"] and "↓" not in table["acquiescence_bias"]  # no direction shown
    assert "accuracy_std" not in b
    assert metrics(res, "divan_scenario_sp1")["accuracy"] == pytest.approx(2 / 3)
    for task in res["samples"]:
        assert {s["doc"]["prompt_id"] for s in res["samples"][task]} == {int(task[-1])}


def test_gen_kwargs_default_and_override():
    lm = ScriptedLM(scripted_reply)
    evaluate(["divan_factual_sp1"], lm=lm)
    assert lm.calls[0][2] == {"until": [], "do_sample": True, "temperature": 0.1, "top_p": 0.9, "max_gen_toks": 512}
    lm = ScriptedLM(scripted_reply)
    evaluate(["divan_factual_sp1"], lm=lm, gen_kwargs="temperature=0,do_sample=false")
    assert lm.calls[0][2]["temperature"] == 0 and lm.calls[0][2]["do_sample"] is False


def test_system_instruction_warns_and_is_visible(caplog):
    with caplog.at_level(logging.WARNING, logger="lm_eval_persian_culture"):
        WARNED.clear()
        res = evaluate(["divan_factual_sp2"], system_instruction="Be brief.")
    assert any("--system_instruction is in effect" in r.getMessage() for r in caplog.records)
    messages = messages_of(rendered_prompt(res["samples"]["divan_factual_sp2"][0]))
    assert messages[0]["content"] == "Be brief.\n\n" + SYSTEM_PROMPTS[1]


def test_dropped_system_role_is_detected(caplog, tmp_path):
    WARNED.clear()
    with caplog.at_level(logging.WARNING, logger="lm_eval_persian_culture"):
        res = evaluate(["divan_factual"], lm=ScriptedLM(scripted_reply, drop_system=True))
    assert any("dropped the system role" in r.getMessage() for r in caplog.records)
    samples = res["samples"]["divan_factual"]
    assert all(rec(s["filtered_resps"][0])["system_prompt_rendered"] is False for s in samples)
    report = inspect_samples([(s["doc"], rendered_prompt(s)) for s in samples])
    assert report["missing"] == 20 and report["collapsed_items"] == 4 and report["items_with_variants"] == 4

    # the same verdict from a samples file, as lm-eval writes it
    path = tmp_path / "samples_divan_factual_2026-01-01T00-00-00.000000.jsonl"
    with open(path, "w", encoding="utf-8") as f:
        for s in samples:
            args = {f"gen_args_{i}": {f"arg_{j}": a for j, a in enumerate(arg)} for i, arg in enumerate(s["arguments"])}
            f.write(json.dumps({**s, "arguments": args}, ensure_ascii=False, default=str) + "\n")
    checked = check_system_prompts(path)
    assert not checked["ok"] and checked["collapsed_items"] == 4
    assert check_prompts_main([str(path)]) == 1


def test_folded_system_prompt_survives_a_template_without_system_role(caplog):
    WARNED.clear()
    with caplog.at_level(logging.WARNING, logger="lm_eval_persian_culture"):
        res = evaluate(
            ["divan_factual"], lm=ScriptedLM(scripted_reply, drop_system=True), metadata={"divan_system_prompt": "user"}
        )
    assert not any("dropped the system role" in r.getMessage() for r in caplog.records)
    samples = res["samples"]["divan_factual"]
    for s in samples:
        messages = messages_of(rendered_prompt(s))
        assert [m["role"] for m in messages] == ["user"]
        assert messages[0]["content"].startswith(SYSTEM_PROMPTS[s["doc"]["prompt_id"] - 1] + "\n\n")
        assert rec(s["filtered_resps"][0])["system_prompt_rendered"] is True
    report = inspect_samples([(s["doc"], rendered_prompt(s)) for s in samples])
    assert report["missing"] == 0 and report["collapsed_items"] == 0  # five distinct prompts per item again
    assert res["configs"]["divan_factual"]["metadata"]["divan_system_prompt"] == "user"  # recorded in the results
    assert {s["doc"]["system_prompt_placement"] for s in samples} == {"user"}
    # the scores do not depend on where the prompt went (same scripted answers): 0.8 as above
    assert metrics(res, "divan_factual")["accuracy"] == pytest.approx(0.8)


def test_no_chat_template_warns(caplog):
    WARNED.clear()
    with caplog.at_level(logging.WARNING, logger="lm_eval_persian_culture"):
        res = evaluate(["divan_scenario_sp3"], apply_chat_template=False)
    assert any("without --apply_chat_template" in r.getMessage() for r in caplog.records)
    prompt = rendered_prompt(res["samples"]["divan_scenario_sp3"][0])
    assert prompt.startswith(SYSTEM_PROMPTS[2])  # glued before the question, as lm-eval does


# ---- the optional LLM extractor, through a local OpenAI-compatible server -------------------
class _Extractor(BaseHTTPRequestHandler):
    answers: list[str] = []

    def do_POST(self):  # noqa: N802
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        prompt = body["messages"][-1]["content"]
        type(self).answers.append(prompt)
        text = "NO" if "YES, NO, or NONE" in prompt else "A"
        out = {
            "id": "x", "object": "chat.completion", "created": 0, "model": body["model"],
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 1, "total_tokens": 11},
        }  # fmt: skip
        data = json.dumps(out).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


@pytest.fixture()
def extractor_server():
    _Extractor.answers = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Extractor)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


def test_llm_extractor_fallback_is_used_and_counted(extractor_server, tmp_path):
    meta = {"judge_model": "extractor-test", "judge_base_url": extractor_server, "judge_cache_dir": str(tmp_path)}
    res = evaluate(["divan_scenario_sp3", "divan_binary_sp3"], metadata=meta)
    # scenario p3: s1 unreadable -> LLM says A (correct); s2 C correct; s3 D wrong -> 2/3
    s = metrics(res, "divan_scenario_sp3")
    assert s["accuracy"] == pytest.approx(2 / 3)
    assert s["llm_extracted_rate"] == pytest.approx(1 / 3) and s["invalid_rate"] == 0.0
    # binary p3: b2p unreadable -> LLM says NO (wrong for a positive): accept 2/3 (b1p, b3p said yes)
    b = metrics(res, "divan_binary_sp3")
    assert b["accept_true"] == pytest.approx(2 / 3) and b["llm_extracted_rate"] == pytest.approx(1 / 6)
    assert len(_Extractor.answers) == 2  # only the two unreadable replies went to the LLM
    record = next(
        rec(x["filtered_resps"][0]) for x in res["samples"]["divan_scenario_sp3"] if x["doc"]["item_id"] == "s1"
    )
    assert record["extracted_by"] == "llm" and record["extracted"] == "A" and record["llm_raw"] == "A"
    # divan_llm_extractor=false keeps the run rule-only even with a judge configured
    res = evaluate(["divan_scenario_sp3"], metadata={**meta, "divan_llm_extractor": "false"})
    assert metrics(res, "divan_scenario_sp3")["invalid_rate"] == pytest.approx(1 / 3)
    assert len(_Extractor.answers) == 2


def test_paper_pipeline_reads_every_reply_with_the_llm(extractor_server, tmp_path):
    meta = {"divan_pipeline": "paper", "judge_model": "extractor-test", "judge_base_url": extractor_server,
            "judge_cache_dir": str(tmp_path)}  # fmt: skip
    res = evaluate(["divan_factual_sp1", "divan_binary_sp1"], metadata=meta)
    assert len(_Extractor.answers) == 4 + 6  # every reply, not only the unreadable ones
    assert all("Reply (a JSON string)" in p for p in _Extractor.answers)
    # the server answers A for every MCQ and NO for every statement:
    # factual gold C A B D -> 1/4; binary: positives 0/3, negatives 3/3
    f = metrics(res, "divan_factual_sp1")
    assert f["accuracy"] == pytest.approx(1 / 4) and f["llm_extracted_rate"] == 1.0 and f["invalid_rate"] == 0.0
    b = metrics(res, "divan_binary_sp1")
    assert b["accept_true"] == 0.0 and b["reject_false"] == 1.0 and b["acquiescence_bias"] == pytest.approx(-1.0)
    assert b["acquiescence_bias_abs"] == pytest.approx(1.0)
    for task in ("divan_factual_sp1", "divan_binary_sp1"):
        assert res["configs"][task]["metadata"]["divan_pipeline"] == "paper"  # recorded in the results
        for sample in res["samples"][task]:
            doc, record = sample["doc"], rec(sample["filtered_resps"][0])
            assert doc["instruction"] == "" and doc["pipeline"] == "paper"
            assert messages_of(rendered_prompt(sample))[1]["content"] == core_doc_to_text(doc)
            assert record["extracted_by"] == "llm"
            assert record["rule_extracted"] == GOLD_SHEET_P1[doc["item_id"]]  # the rules' reading, kept beside it


def core_doc_to_text(doc):
    from lm_eval_persian_culture.tasks.divan.utils import doc_to_text

    return doc_to_text(doc)


# the scripted answers under prompt 1 (divan_testlib.SHEET), all readable by the rules
GOLD_SHEET_P1 = {"f1": "C", "f2": "A", "f3": "B", "f4": "D", "b1p": "yes", "b1n": "no", "b2p": "yes", "b2n": "yes",
                 "b3p": "yes", "b3n": "yes"}  # fmt: skip
