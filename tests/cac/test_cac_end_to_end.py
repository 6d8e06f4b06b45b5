"""CAC through the real lm-eval harness with a scripted model; every expected score is worked out by
hand from cac_testlib.ACCEPTED (the made-up annotators' accepted picks) and cac_testlib.PICKS.

Correct (pick inside the accepted range) per conversation and country, from the two tables:

    conv  america india china japan korea netherlands mexico nigeria
    c1    1 in1-2  3 in3-4 4 in3-4 2 out  5 out  2 in1-2  2 in2-3 None
    c2    2 in2    2 in2   2 in2   2 out1 2 out1 3 in3    2 in2   2 in2
    c3    3 in3-4  1 in1-3 1 in1-4 4 in   4 in   None     3 in1-3 2 out1
    c4    2 in2    3 in1-3 1 in1-2 1 in   3 out  3 in2-3  3 in2-3 1 out2-3
    c5    2 in1-2  4 in4-5 5 in    3 out  4 in   1 in1-2  2 out   5 in2-5
    c6    3 in1-3  3 out   3 out   3 out  3 out  3 out1-2 3 out   3 out
    right 6/6      5/6     5/6     2/6    2/6    4/6      4/6     2/6     -> 30/48, mean over countries 0.625
"""

from __future__ import annotations

import pytest
from cac_testlib import data_dir_with_iran, evaluate, metrics, pick_of, scripted_reply

from lm_eval_persian_culture.scoring.records import decode_record as rec
from lm_eval_persian_culture.tasks.cac.utils import PROMPT
from lm_eval_persian_culture.testing.scripted_lm import ScriptedLM, messages_of

PER_COUNTRY = {"america": 6 / 6, "india": 5 / 6, "china": 5 / 6, "japan": 2 / 6, "korea": 2 / 6,
               "netherlands": 4 / 6, "mexico": 4 / 6, "nigeria": 2 / 6}  # fmt: skip
INVALID = {"netherlands": 1 / 6, "nigeria": 1 / 6}  # c3 and c1 unreadable
# chance = mean accepted-range size / 5, per country from ACCEPTED:
#   america sizes 2,1,2,1,2,3 = 11; india 2,1,3,3,2,2 = 13; china 2,1,4,2,2,2 = 13; japan 2,1,2,2,2,2 = 11;
#   korea 11; netherlands 2,1,2,2,2,2 = 11; mexico 2,1,3,2,2,2 = 12; nigeria 2,1,1,2,4,2 = 12
CHANCE = {"america": 11 / 30, "india": 13 / 30, "china": 13 / 30, "japan": 11 / 30, "korea": 11 / 30,
          "netherlands": 11 / 30, "mexico": 12 / 30, "nigeria": 12 / 30}  # fmt: skip
# per conversation over the eight countries (one conversation per axis and per relationship):
#   c1 5/8, c2 6/8, c3 6/8, c4 6/8, c5 6/8, c6 1/8
PER_CONVERSATION = {"c1": 5 / 8, "c2": 6 / 8, "c3": 6 / 8, "c4": 6 / 8, "c5": 6 / 8, "c6": 1 / 8}
AXIS = {"directness_indirectness": "c1", "politeness_rudeness": "c2", "insistence_yielding": "c3",
        "gratitude_expectation": "c4", "pride_shame": "c5", "self_disclosure_secrecy": "c6"}  # fmt: skip
RELATIONSHIP = {"neighbors": "c1", "boss_employee": "c2", "grandparent_grandchild": "c3", "friends": "c4",
                "parent_child": "c5", "husband_wife": "c6"}  # fmt: skip
# adaptation: contrasting pairs (accepted ranges differ and annotator means differ) and those on which
# the pick rises toward the country with the higher mean (None or an equal pick does not move):
#   c1: {am,nl} mu 4/3 < {mx,ng} 7/3 < {in,cn,jp,kr} 11/3: 2x2 + 2x4 + 2x4 = 20 pairs;
#       moved: am1<mx2; am1<in3,cn4,jp2,kr5 (4); nl2<in3,cn4,kr5 (3); mx2<in3,cn4,kr5 (3) = 11
#   c2: {am,in,cn,mx,ng} mu 2, {jp,kr} 1, nl 3: 10 + 5 + 2 = 17; moved: jp/kr picked 2 = 2 (0); 2<3 (5); 2<3 (2) = 7
#   c3: ng 1 < {in,mx} 2 < cn 8/3 < {am,jp,kr,nl} 11/3: 2+1+4+2+8+4 = 21;
#       moved: ng2<mx3 (1); ng2>cn1 (0); ng2<am3,jp4,kr4 (3); in1/mx3 vs cn1 (0); in1<am,jp,kr (3), mx3<jp,kr (2);
#       cn1<am,jp,kr (3) = 12   (nl unreadable: never moves)
#   c4: america (mu 2, 2..2) vs india (mu 2, 1..3) excluded (same mean); {cn,jp,kr} 5/3 < am, in 2 < {nl,mx,ng} 8/3:
#       3+3+3+3+9 = 21; moved: cn1,jp1<am2 (2); nl3,mx3>am2 (2); cn1,jp1<in3 (2); none>in3 (0); cn1,jp1<nl3,mx3 (4) = 10
#   c5: america and netherlands share 1..2 (excluded); {am 5/3, nl 4/3} < ng 11/3 < {in,cn,jp,kr,mx} 13/3:
#       5+1+5+1+5 = 17; moved: am2<in4,cn5,jp3,kr4 (4); am2<ng5 (1); nl1<all five (5); nl1<ng5 (1); ng5<none (0) = 11
#   c6: nl 4/3 < am 2 < others 14/3: 1 + 6 + 6 = 13 pairs; every pick is 3: 0
#   total 51 of 109
ADAPTATION = 51 / 109


@pytest.fixture(scope="module")
def run():
    return evaluate(["cac", "cac_cross_country"])


def test_scripted_replies_are_read_as_the_intended_picks(run):
    samples = run["samples"]["cac_cross_country"]
    assert len(samples) == 48
    styles = set()
    for s in samples:
        record = rec(s["filtered_resps"][0])
        assert record["reply"] == scripted_reply(s["doc"]) == s["resps"][0][0]
        assert record["pick"] == pick_of(s["doc"])
        styles.add(record["reply"][:6])
    assert len(styles) > 6  # the replies really vary


def test_country_tasks_and_the_group(run):
    for country, accuracy in PER_COUNTRY.items():
        m = metrics(run, f"cac_{country}")
        assert m["range_accuracy"] == pytest.approx(accuracy), country
        assert m["invalid_rate"] == pytest.approx(INVALID.get(country, 0.0)), country
        assert m["chance_range_accuracy"] == pytest.approx(CHANCE[country]), country
        assert run["n-samples"][f"cac_{country}"]["effective"] == 6
    # per axis in one country: Japan is right on c3 and c4 only
    japan = metrics(run, "cac_japan")
    assert japan["range_accuracy_axis_insistence_yielding"] == 1.0
    assert japan["range_accuracy_axis_gratitude_expectation"] == 1.0
    assert japan["range_accuracy_axis_directness_indirectness"] == 0.0
    assert japan["range_accuracy_relationship_husband_wife"] == 0.0
    assert japan["range_accuracy_relationship_friends"] == 1.0
    group = metrics(run, "cac")
    assert group["range_accuracy"] == pytest.approx(0.625)  # 30/48: (6+5+5+2+2+4+4+2) / 6 / 8
    assert group["invalid_rate"] == pytest.approx(2 / 48)


def test_cross_country_task(run):
    m = metrics(run, "cac_cross_country")
    assert m["range_accuracy"] == pytest.approx(0.625)
    for country, accuracy in PER_COUNTRY.items():
        assert m[f"range_accuracy_{country}"] == pytest.approx(accuracy), country
    for axis, conv in AXIS.items():
        assert m[f"range_accuracy_axis_{axis}"] == pytest.approx(PER_CONVERSATION[conv]), axis
    for rel, conv in RELATIONSHIP.items():
        assert m[f"range_accuracy_relationship_{rel}"] == pytest.approx(PER_CONVERSATION[conv]), rel
    # no fixture conversation is between coworkers or strangers
    assert m["range_accuracy_relationship_coworkers"] != m["range_accuracy_relationship_coworkers"]  # NaN
    assert m["adaptation_pairs"] == 109
    assert m["adaptation"] == pytest.approx(ADAPTATION)
    assert m["invalid_rate"] == pytest.approx(2 / 48)
    assert m["chance_range_accuracy"] == pytest.approx(sum(CHANCE.values()) / 8)


def test_a_country_blind_model_does_not_adapt():
    m = metrics(evaluate(["cac_cross_country"], lm=ScriptedLM(lambda doc, prompt: "3")), "cac_cross_country")
    assert m["adaptation"] == 0.0 and m["adaptation_pairs"] == 109
    # always 3: right wherever 3 is accepted. From ACCEPTED: c1 in,cn,jp,kr,mx,ng (6); c2 nl (1);
    # c3 in,mx,cn,am,jp,kr,nl (7); c4 in,nl,mx,ng (4); c5 ng (1); c6 am (1) = 20 of 48
    assert m["range_accuracy"] == pytest.approx(20 / 48)


def test_a_model_that_follows_every_mean_adapts_fully():
    def follow(doc, prompt):  # the rounded annotator mean, always inside its own range
        return str(int(doc["pick_mean"] + 0.5))

    m = metrics(evaluate(["cac_cross_country"], lm=ScriptedLM(follow)), "cac_cross_country")
    assert m["range_accuracy"] == 1.0
    # rounded means can tie inside a contrasting pair, and then the pick does not move:
    #   c4: china/japan/korea 5/3 -> 2 against america 2 -> 2 (3 pairs) and against india 2 -> 2 (3 pairs)
    #   c5: nigeria 11/3 -> 4 against india/china/japan/korea/mexico 13/3 -> 4 (5 pairs)
    #   every other contrasting pair has distinct rounded means in the right order: 109 - 11 = 98 move
    assert m["adaptation"] == pytest.approx(98 / 109)


def test_population_sigma_changes_china(run):
    m = metrics(evaluate(["cac_china"], metadata={"cac_sigma": "population"}), "cac_china")
    # c3 china {1,2,5} accepts 2..4 with the population sigma: the pick 1 is now wrong -> 4/6
    assert m["range_accuracy"] == pytest.approx(4 / 6)


def test_limit_keeps_whole_conversations():
    m = metrics(evaluate(["cac_cross_country"], limit=16), "cac_cross_country")
    # c1 and c2 under all eight countries: c1 5/8 + c2 6/8 -> 11/16; pairs 20 + 17, moved 11 + 7
    assert m["range_accuracy"] == pytest.approx(11 / 16)
    assert m["adaptation"] == pytest.approx(18 / 37)


def test_prompt_is_one_user_message():
    results = evaluate(["cac_korea"], apply_chat_template=True)
    sample = next(s for s in results["samples"]["cac_korea"] if s["doc"]["conversation_id"] == "c2")
    doc = sample["doc"]
    expected = PROMPT.format(
        country="Korea",
        situation=doc["situation"],
        characters=doc["characters"],
        first_turn=doc["first_turn"],
        **{f"response_{i}": doc[f"response_{i}"] for i in range(1, 6)},
    )
    assert messages_of(sample["arguments"][0][0]) == [{"role": "user", "content": expected}]
    assert sample["target"] == "1"  # Korea's made-up annotators all chose 1 for c2


def test_cac_iran_runs_on_supplied_annotations(tmp_path):
    # ACCEPTED_IRAN vs PICKS_IRAN: c1 2 in 2; c2 3 out 1..2; c3 1 in 1; c4 1 in 1..2; c5 None; c6 5 in 4..5 -> 4/6
    m = metrics(evaluate(["cac_iran"], data_dir=data_dir_with_iran(tmp_path)), "cac_iran")
    assert m["range_accuracy"] == pytest.approx(4 / 6)
    assert m["invalid_rate"] == pytest.approx(1 / 6)


def test_cac_iran_refuses_before_generation():
    lm = ScriptedLM(scripted_reply)
    with pytest.raises(Exception, match="cac_iran: no Iranian annotations supplied"):
        evaluate(["cac_iran"], lm=lm)
    assert lm.calls == []
