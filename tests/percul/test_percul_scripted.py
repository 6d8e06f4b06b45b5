"""PerCul's generative tasks through the real lm-eval harness with a scripted model.

Every expected value is computed by hand from percul_testlib.SHEET (comments show the
arithmetic). Category sizes in the fixture are unequal (Foods 4, Rituals 3, Objects 2,
Music 1), so macro accuracy (each category once) and micro accuracy (each story once) differ.
"""

from __future__ import annotations

import json
import math

import pytest
from percul_testlib import FIXTURES, GOLD, evaluate, metrics, scripted_reply

from lm_eval_persian_culture.scoring.records import decode_record as rec
from lm_eval_persian_culture.tasks.percul import utils
from lm_eval_persian_culture.testing.scripted_lm import ScriptedLM, messages_of

ABSENT = ("visible_behavior", "iconic_figures", "institution", "architecture", "appropriacy", "dress", "art")

# Persian: Foods 1,2,3 right, 4 wrong -> 3/4; Rituals 5 right, 6 unreadable, 7 wrong -> 1/3;
# Objects 8,9 right -> 2/2; Music 10 wrong -> 0/1.
FA = {"foods": 3 / 4, "rituals": 1 / 3, "objects": 1.0, "music": 0.0}
FA_MICRO = 6 / 10  # 3 + 1 + 2 + 0 right of 10
FA_MACRO = (3 / 4 + 1 / 3 + 1 + 0) / 4  # = 25/48 = 0.5208333
# English: Foods 1,4 right, 2 wrong, 3 unreadable -> 2/4; Rituals 5,6,7 right -> 3/3;
# Objects 8 wrong, 9 right -> 1/2; Music 10 right -> 1/1.
EN = {"foods": 2 / 4, "rituals": 1.0, "objects": 1 / 2, "music": 1.0}
EN_MICRO = 7 / 10  # 2 + 3 + 1 + 1 right of 10
EN_MACRO = (1 / 2 + 1 + 1 / 2 + 1) / 4  # = 0.75


@pytest.fixture(scope="module")
def run():
    return evaluate(["percul", "percul_en", "percul_fa_en"])


def test_persian_task_macro_micro_and_per_category(run):
    m = metrics(run, "percul")
    assert m["accuracy"] == pytest.approx(FA_MICRO)
    assert m["macro_accuracy"] == pytest.approx(FA_MACRO) == pytest.approx(25 / 48)
    assert m["macro_accuracy"] != pytest.approx(m["accuracy"])  # unequal sizes: macro is not micro
    for name, value in FA.items():
        assert m[f"accuracy_{name}"] == pytest.approx(value), name
    for name in ABSENT:  # no story of these categories in the fixture
        assert math.isnan(m[f"accuracy_{name}"]), name
    assert m["invalid_rate"] == pytest.approx(1 / 10)  # 6_O_RIT
    assert run["n-samples"]["percul"]["effective"] == 10


def test_english_task(run):
    m = metrics(run, "percul_en")
    assert m["accuracy"] == pytest.approx(EN_MICRO)
    assert m["macro_accuracy"] == pytest.approx(EN_MACRO)
    for name, value in EN.items():
        assert m[f"accuracy_{name}"] == pytest.approx(value), name
    assert m["invalid_rate"] == pytest.approx(1 / 10)  # 3_O_FOO


def test_two_language_task_reports_the_difference(run):
    m = metrics(run, "percul_fa_en")
    assert run["n-samples"]["percul_fa_en"]["effective"] == 20
    assert m["macro_accuracy_fa"] == pytest.approx(FA_MACRO)
    assert m["macro_accuracy_en"] == pytest.approx(EN_MACRO)
    assert m["macro_accuracy_fa_minus_en"] == pytest.approx(25 / 48 - 0.75)  # -0.2291667
    assert m["accuracy_fa"] == pytest.approx(0.6) and m["accuracy_en"] == pytest.approx(0.7)
    assert m["accuracy_fa_minus_en"] == pytest.approx(-0.1)
    assert m["invalid_rate_fa"] == pytest.approx(0.1) and m["invalid_rate_en"] == pytest.approx(0.1)


def test_samples_log_reply_extraction_and_provenance(run):
    samples = {s["doc"]["id"]: s for s in run["samples"]["percul"]}
    s = samples["2_O_FOO"]  # style 2: the option's own text
    record = rec(s["filtered_resps"][0])
    assert record == {"reply": "به نظر من پاسخ «شله‌زرد» است.", "extracted": "B", "extracted_by": "rule"}
    assert s["resps"][0][0] == record["reply"]
    assert s["doc"]["prompt_version"] == utils.PROMPT_VERSION
    assert s["doc"]["provenance"].startswith(f"local:{FIXTURES}/percul/original_persian.jsonl sha256:")
    assert rec(samples["6_O_RIT"]["filtered_resps"][0])["extracted"] is None
    for sid, sample in samples.items():  # every logged verdict follows the sheet
        got = rec(sample["filtered_resps"][0])["extracted"]
        assert sample["accuracy"]["correct"] == int(got == GOLD[sid])


def test_prompt_version_and_decoding_land_in_the_results(run):
    cfg = run["configs"]["percul"]
    assert cfg["metadata"]["prompt_version"] == utils.PROMPT_VERSION == "percul-prompt-v1"
    assert "deviations" in cfg["metadata"]
    assert cfg["generation_kwargs"]["temperature"] == 0.0 and cfg["generation_kwargs"]["do_sample"] is False


def test_exact_prompts_in_both_languages():
    lm = ScriptedLM(scripted_reply)
    evaluate(["percul", "percul_en"], lm=lm, limit=1)
    by_lang = {doc["language"]: prompt for doc, prompt, _ in lm.calls}
    fa = (
        "داستان:\n"
        "مادربزرگ از صبح زود سبزی‌های خردشده را در روغن تفت می‌داد تا رنگشان تیره شود و بوی آن همهٔ خانه را پر کند."
        " لوبیا قرمزها را از شب قبل خیس کرده بود و چند لیموی خشک را با چنگال سوراخ کرد و در قابلمه انداخت."
        " گوشت و سبزی ساعت‌ها روی شعلهٔ کم جا افتادند. ظهر جمعه که همه دور سفره نشستند، کنار برنج زعفرانی"
        " کاسه‌ای خورش سبزرنگ و غلیظ گذاشت و نوه‌ها با ته‌دیگ شروع به خوردن کردند.\n\n"
        "پرسش: این داستان به‌طور ضمنی به کدام مفهوم از فرهنگ ایرانی در دستهٔ «خوراک‌ها» اشاره دارد؟\n"
        "۱. قورمه‌سبزی\n۲. قیمه\n۳. آش رشته\n۴. کوکو سبزی\n\n"
        "با شمارهٔ گزینهٔ درست پاسخ دهید."
    )
    en = (
        "Story:\n"
        "Since early morning, Grandmother had been frying the chopped herbs in oil until they turned dark and their"
        " smell filled the whole house. She had soaked the red kidney beans the night before, and she pierced a few"
        " dried limes with a fork and dropped them into the pot. The meat and herbs simmered for hours over a low"
        " flame. At noon on Friday, when everyone sat around the sofreh, she placed a bowl of thick green stew next"
        " to the saffron rice, and the grandchildren started eating with the tahdig.\n\n"
        'Question: Which concept of Iranian culture in the category "Foods" does this story imply?\n'
        "1. Ghormeh sabzi\n2. Gheymeh\n3. Ash reshteh\n4. Kuku sabzi\n\n"
        "Answer with the number of the correct option."
    )
    # no system prompt: the paper describes none; the prompt is the one user message
    assert messages_of(by_lang["fa"]) == [{"role": "user", "content": fa}]
    assert messages_of(by_lang["en"]) == [{"role": "user", "content": en}]
    assert all(kw["temperature"] == 0.0 and kw["do_sample"] is False for _, _, kw in lm.calls)


def test_limit_keeps_language_pairs_whole(tmp_path):
    """--limit 3 on the two-language task: fa1, en1, fa2 -> the difference uses pair 1 only."""
    results = evaluate(["percul_fa_en"], limit=3)
    m = metrics(results, "percul_fa_en")
    # per-language rows use every doc of that language: fa 1_O_FOO, 2_O_FOO right -> 1.0; en 1_O_FOO right
    assert m["accuracy_fa"] == pytest.approx(1.0) and m["accuracy_en"] == pytest.approx(1.0)
    # the difference only over the intact pair 1_O_FOO: 1 - 1
    assert m["accuracy_fa_minus_en"] == pytest.approx(0.0)
    order = [(s["doc"]["id"], s["doc"]["language"]) for s in results["samples"]["percul_fa_en"]]
    assert order == [("1_O_FOO", "fa"), ("1_O_FOO", "en"), ("2_O_FOO", "fa")]


def test_aggregations_by_hand():
    """The aggregation functions on hand-made records (no harness)."""

    def r(lang, pair, cat, correct, invalid=0):
        return {"language": lang, "pair": pair, "category": cat, "correct": correct, "invalid": invalid}

    items = [
        r("fa", "a", "Foods", 1),
        r("fa", "b", "Foods", 1),
        r("fa", "c", "Foods", 0),
        r("fa", "d", "Music", 0, 1),
        r("en", "a", "Foods", 0),
        r("en", "b", "Foods", 0),
        r("en", "c", "Foods", 1),
        r("en", "d", "Music", 1),
        r("en", "e", "Music", 1),  # no Persian partner: left out of the difference
    ]
    fa = [it for it in items if it["language"] == "fa"]
    got = utils.aggregate(fa, ["accuracy", "macro_accuracy", "accuracy_foods", "accuracy_music", "invalid_rate"])
    assert got == pytest.approx(
        {
            "accuracy": 2 / 4,
            "macro_accuracy": (2 / 3 + 0) / 2,
            "accuracy_foods": 2 / 3,
            "accuracy_music": 0.0,
            "invalid_rate": 1 / 4,
        }
    )
    both = utils.aggregate(items, ["macro_accuracy_en", "macro_accuracy_fa_minus_en", "accuracy_fa_minus_en"])
    assert both["macro_accuracy_en"] == pytest.approx((1 / 3 + 2 / 2) / 2)  # all 5 English docs
    # paired a-d only: fa macro (2/3 + 0)/2 = 1/3; en macro (1/3 + 1)/2 = 2/3
    assert both["macro_accuracy_fa_minus_en"] == pytest.approx(1 / 3 - 2 / 3)
    assert both["accuracy_fa_minus_en"] == pytest.approx(2 / 4 - 2 / 4)
    assert math.isnan(utils.aggregate([], ["macro_accuracy"])["macro_accuracy"])


def test_pairing_falls_back_to_row_order_and_refuses_mismatches(tmp_path):
    import shutil

    from lm_eval_persian_culture.data.sources import DataSchemaError

    (tmp_path / "percul").mkdir()
    shutil.copy(FIXTURES / "percul" / "original_persian.jsonl", tmp_path / "percul")
    en = [
        json.loads(x)
        for x in (FIXTURES / "percul" / "gpt_english_translation.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    for row in en:
        row["ID"] = row["ID"].replace("_O_", "_T_")  # the translation numbered its own way
    path = tmp_path / "percul" / "gpt_english_translation.jsonl"
    path.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in en), encoding="utf-8")
    docs = utils.build_docs(("fa", "en"), {"data_dir": str(tmp_path)})
    assert [(d["id"], d["pair"]) for d in docs[:4]] == [
        ("1_O_FOO", "1_O_FOO"),
        ("1_T_FOO", "1_O_FOO"),
        ("2_O_FOO", "2_O_FOO"),
        ("2_T_FOO", "2_O_FOO"),
    ]

    en[0]["Category"], en[4]["Category"] = "Rituals", "Foods"  # rows no longer line up
    path.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in en), encoding="utf-8")
    with pytest.raises(DataSchemaError, match="cannot be paired: ID '1_O_FOO' of original_persian"):
        utils.build_docs(("fa", "en"), {"data_dir": str(tmp_path)})
