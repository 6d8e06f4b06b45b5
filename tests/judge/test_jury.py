"""Juries: three scripted judges over real HTTP (one local server, one script per model name).

Every expected figure below was worked out by hand from the SCRIPT table, before running the code:

    item   judge-a  judge-b  judge-c   jury (not_met)  jury (first)
    0      Yes      Yes      No        Yes             Yes
    1      No       No       No        No              No
    2      Yes      No       Yes       Yes             Yes
    3      Yes      Yes      Yes       Yes             Yes
    4      No       Yes      No        No              No
    5      Yes      (fails)  No        tie -> No       tie -> a: Yes
    6      (fails)  (fails)  (fails)   no verdict      no verdict

Fleiss' kappa over the items all three rated (0-4), n = 3 raters, N = 5 items:
  Yes counts 2, 0, 2, 3, 1 -> P_i = (y^2 + (3-y)^2 - 3) / 6 = 1/3, 1, 1/3, 1, 1/3 -> P_bar = 3/5;
  p_yes = 8/15, p_no = 7/15 -> P_e = (64 + 49) / 225 = 113/225;
  kappa = (135/225 - 113/225) / (112/225) = 22/112 = 11/56.
Pairwise agreement (items both rated): a-b on 0-4: agree on 0, 1, 3 -> 3/5; a-c on 0-5: agree on
1, 2, 3, 4 -> 4/6; b-c on 0-4: agree on 1, 3 -> 2/5.
Failures: a 1 (item 6), b 2 (items 5, 6), c 1 (item 6).
Each judge's own accuracy (Yes share of the items it answered): a 4/6, b 3/5, c 2/6.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import pytest

from lm_eval_persian_culture.judge import filter as judge_filter
from lm_eval_persian_culture.judge import parse_yes_no
from lm_eval_persian_culture.judge.jury import (
    TIE_FIRST,
    TIE_NOT_MET,
    Jury,
    fleiss_kappa,
    jury_from_settings,
    majority,
    member_name,
)
from lm_eval_persian_culture.judge.settings import JudgeConfigError
from lm_eval_persian_culture.testing.openai_server import FakeOpenAIServer

Y, N, F = "Yes", "No.", "I cannot judge this."  # F: an answer no parser reads (the member fails the item)
SCRIPT = {
    "judge-a": [Y, N, Y, Y, N, Y, F],
    "judge-b": [Y, N, N, Y, Y, F, F],
    "judge-c": [N, N, Y, Y, N, N, F],
}
JURY_NOT_MET = [True, False, True, True, False, False, None]
JURY_FIRST = [True, False, True, True, False, True, None]
TIES = [False, False, False, False, False, True, False]
FLEISS = 11 / 56
PAIRWISE = {("judge_a", "judge_b"): 3 / 5, ("judge_a", "judge_c"): 4 / 6, ("judge_b", "judge_c"): 2 / 5}
FAILURES = {"judge_a": 1, "judge_b": 2, "judge_c": 1}
OWN_ACCURACY = {"judge_a": 4 / 6, "judge_b": 3 / 5, "judge_c": 2 / 6}
PROMPTS = [f"Judge item number {i}." for i in range(7)]


def scripted(prompt: str, body: dict) -> str:
    item = int(prompt.rsplit("number ", 1)[1].split(".")[0])
    return SCRIPT[body["model"]][item]


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.startswith("PERSIAN_CULTURE_JUDGE_") or name in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
            monkeypatch.delenv(name)
    monkeypatch.setattr(judge_filter, "_judges", {})


@pytest.fixture
def server():
    with FakeOpenAIServer(answer=scripted, models=tuple(SCRIPT)) as srv:
        yield srv


def jury_settings(server, tmp_path: Path, **extra) -> dict:
    return {"judge_model": list(SCRIPT), "judge_base_url": server.base_url, "judge_cache_dir": str(tmp_path),
            "judge_max_retries": 0, "judge_max_error_rate": 0.5, **extra}  # fmt: skip


def ask(jury: Jury) -> list:
    return judge_filter.ask_jury(jury, PROMPTS, parser=parse_yes_no, template_id="t", metric_prefix="accuracy")


# ---------------------------------------------------------------- settings
def test_jury_settings_forms(tmp_path):
    as_list = jury_from_settings({"judge_model": ["gpt-4", "hf:Qwen/Qwen2.5-7B-Instruct"], "judge_concurrency": 8})
    assert as_list.is_jury and as_list.names == ("gpt_4", "qwen2_5_7b_instruct")
    assert [m.concurrency for m in as_list.members] == [8, 8]
    assert as_list.tie_rule == TIE_NOT_MET
    objects = jury_from_settings({
        "judge_jury": [{"model": "llama3", "base_url": "http://127.0.0.1:8000/v1", "name": "llama"},
                       {"judge_model": "gpt-4", "judge_api_key_env": "MY_KEY"}, "qwen"],
        "judge_jury_tie": "first", "judge_timeout": 5,
    })  # fmt: skip
    assert objects.names == ("llama", "gpt_4", "qwen")
    assert objects.members[0].base_url == "http://127.0.0.1:8000/v1" and objects.members[1].base_url is None
    assert objects.members[1].api_key_env == "MY_KEY" and objects.members[2].timeout == 5
    assert objects.tie_rule == TIE_FIRST
    # a JSON list in a string (--model_args cannot carry lists; the env var can)
    assert jury_from_settings({"judge_model": '["a", "b"]'}).names == ("a", "b")
    single = jury_from_settings({"judge_model": "gpt-4"})
    assert not single.is_jury and single.public_dict() == single.first.public_dict()
    assert jury_from_settings({}) is None
    assert member_name("hf:/models/My Judge/") == "my_judge"


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"judge_model": "gpt-4", "judge_jury": ["a", "b"]}, "both set"),
        ({"judge_jury": [{"base_url": "http://x/v1"}]}, "no model"),
        ({"judge_jury": [{"model": "a", "colour": "red"}]}, "unknown judge setting 'colour'"),
        ({"judge_jury": [{"model": "a", "api_key": "sk-123"}]}, "looks like an API key"),
        ({"judge_model": ["a", "a"]}, "same judge"),
        ({"judge_model": ["a", "none"]}, "cannot be 'none'"),
        ({"judge_model": []}, "empty list"),
        ({"judge_model": ["a", "b"], "judge_jury_tie": "yes"}, "judge_jury_tie"),
    ],
)
def test_jury_settings_refused(settings, message):
    with pytest.raises(JudgeConfigError, match=message):
        jury_from_settings(settings)


# ---------------------------------------------------------------- the vote and the figures, by hand
def test_majority_and_tie_rules():
    assert majority([True, True, False]) == (True, False)
    assert majority([None, False, True], TIE_NOT_MET) == (False, True)
    assert majority([None, False, True], TIE_FIRST) == (False, True)  # the first that answered: No
    assert majority([True, None, False], TIE_FIRST) == (True, True)
    assert majority([None, None]) == (None, False)


def test_fleiss_kappa_by_hand():
    rows = [[s == Y if s != F else None for s in col] for col in zip(*SCRIPT.values())]
    assert fleiss_kappa(rows) == pytest.approx(FLEISS)
    assert math.isnan(fleiss_kappa([[True, True], [True, True]]))  # one label only: undefined


@pytest.mark.parametrize(("tie", "expected"), [(TIE_NOT_MET, JURY_NOT_MET), (TIE_FIRST, JURY_FIRST)])
def test_three_scripted_judges(server, tmp_path, tie, expected):
    jury = judge_filter.configured_jury(jury_settings(server, tmp_path, judge_jury_tie=tie))
    items = ask(jury)
    assert [i.verdict for i in items] == expected
    assert [i.tie for i in items] == TIES
    # each judge got every item exactly once (failed members too: no re-ask at temperature 0)
    for model in SCRIPT:
        assert sum(1 for body in server.requests if body["model"] == model) == len(PROMPTS)
    record = judge_filter.verdict_fields(jury, items[5], lambda v: "yes" if v else "no")
    assert [m["verdict"] for m in record["jury"]] == ["yes", None, "no"]
    assert record["jury_votes"] == {"yes": 1, "no": 1, "failed": 1} and record["jury_tie"] is True
    assert record["jury"][1]["judge_error"].startswith("unparseable")
    assert judge_filter.verdict_fields(jury, items[6], str)["judge_error"] == "no judge of the jury gave a verdict"


def test_jury_figures_and_cache_per_judge(server, tmp_path):
    from lm_eval_persian_culture.judge.jury import jury_summary

    jury = judge_filter.configured_jury(jury_settings(server, tmp_path))
    items = ask(jury)
    votes = [[r.verdict for r in i.results] for i in items]
    figures = jury_summary(jury, votes, [i.verdict for i in items], sum(i.tie for i in items))
    assert figures["fleiss_kappa"] == pytest.approx(FLEISS) and figures["fleiss_items"] == 5
    assert {tuple(p["judges"]): p["agreement"] for p in figures["pairwise"]} == pytest.approx(PAIRWISE)
    assert {m["name"]: m["failures"] for m in figures["members"]} == FAILURES
    assert {m["name"]: m["yes_rate"] for m in figures["members"]} == pytest.approx(OWN_ACCURACY)
    assert figures["ties"] == 1 and figures["no_verdict"] == 1 and figures["tie_rule"] == TIE_NOT_MET
    json.dumps(figures, allow_nan=False)  # NaN-free: the results JSON stays valid

    # a re-run: every readable answer comes from each judge's own cache (keys carry the judge's model)
    sent = len(server.requests)
    judge_filter._judges.clear()
    again = ask(judge_filter.configured_jury(jury_settings(server, tmp_path)))
    assert [i.verdict for i in again] == JURY_NOT_MET
    # served judges' unreadable answers are not cached: only those 4 (a: 1, b: 2, c: 1) are asked again
    assert len(server.requests) - sent == sum(FAILURES.values())


def test_jury_metric_aggregations_by_hand(server, tmp_path):
    from lm_eval_persian_culture.judge.jury import jury_metric_specs, jury_metric_values

    jury = judge_filter.configured_jury(jury_settings(server, tmp_path))
    items = ask(jury)
    specs = jury_metric_specs(jury, "accuracy")
    per_doc = [jury_metric_values(jury, "accuracy", [r.verdict for r in i.results], i.tie) for i in items]

    def agg(name):
        return specs[name][0]([d[name] for d in per_doc])

    for name, value in OWN_ACCURACY.items():
        assert agg(f"accuracy_judge_{name}") == pytest.approx(value)
        assert agg(f"judge_failures_{name}") == FAILURES[name]
    for (a, b), value in PAIRWISE.items():
        assert agg(f"jury_agreement_{a}_{b}") == pytest.approx(value)
    assert agg("jury_fleiss_kappa") == pytest.approx(FLEISS)
    assert agg("jury_ties") == 1


def test_jury_without_verdicts_past_the_rate_fails(server, tmp_path):
    from lm_eval_persian_culture.judge import JudgeFailureError

    # item 6 has no verdict: 1/7 > 0.1
    jury = judge_filter.configured_jury(jury_settings(server, tmp_path, judge_max_error_rate=0.1))
    with pytest.raises(JudgeFailureError, match="1/7 items have no verdict from any judge"):
        ask(jury)
