"""TARAZ datasets: BLEnD's exclusion rule on the real release, prompts, ISN-SAQ's schema and its
clear failure without the file, the project's ISN derivation, and bad input named by row and field."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest

from lm_eval_persian_culture.data.sources import DataNotFoundError, DataSchemaError
from lm_eval_persian_culture.tasks.taraz import embeddings, utils


class ConstantEncoder:
    def encode(self, sentences, **kwargs):
        return np.ones((len(sentences), 2), dtype=np.float32)


@pytest.fixture(autouse=True)
def _no_real_embedder():
    embeddings.register_encoder("const", ConstantEncoder())


def settings(data_dir, **extra):
    return {"data_dir": str(data_dir), "embedding_model": "const", **extra}


def test_blend_applies_blends_exclusion_rule(shared_data):
    docs = utils.load_blend(**settings(shared_data))["test"]
    # 44 of 500 excluded (no-answer + not-applicable >= 3, idk >= 5, or no annotation): 456 remain,
    # the paper's denominator (Table 2 prints multiples of 1/456, e.g. GPT-5 EM 73.246 = 334/456)
    assert len(docs) == 456
    first = docs[0]
    assert first["id"] == "Al-en-01"
    assert first["references"] == ["میوه", "ميوه", "لقمه", "کیک و شیر", "نون و پنير", "تخم‌مرغ", "کورنفلکس"]
    assert [g["count"] for g in first["annotations"]] == [3, 1, 1, 1, 1, 1]
    assert first["provenance"].startswith(f"local:{shared_data}/taraz/blend_iran/Iran_data.json sha256:")


def test_blend_exclusion_rule_on_single_rows():
    base = {"annotations": [{"answers": ["x"], "count": 1}]}
    assert utils.blend_excluded({**base, "idks": {"idk": 5, "no-answer": 0, "not-applicable": 0}})
    assert not utils.blend_excluded({**base, "idks": {"idk": 4, "no-answer": 0, "not-applicable": 0}})
    assert utils.blend_excluded({**base, "idks": {"idk": 0, "no-answer": 2, "not-applicable": 1}})
    assert not utils.blend_excluded({**base, "idks": {"idk": 0, "no-answer": 1, "not-applicable": 1}})
    assert utils.blend_excluded({"annotations": [], "idks": {"idk": 0, "no-answer": 0, "not-applicable": 0}})


def test_blend_prompt_is_blends_persian_inst4(shared_data):
    with open(shared_data / "taraz" / "blend_iran" / "Iran_prompts.csv", encoding="utf-8") as f:
        inst4 = next(r for r in csv.DictReader(f) if r["id"] == "inst-4")["Translation"]
    doc = {"question": "یک میان وعده معمول برای بچه‌های پیش دبستانی درایران چیست؟"}
    assert utils.doc_to_text_blend(doc) == inst4.replace("{q}", doc["question"])


def test_malformed_blend_is_named_by_row_and_field(shared_data, tmp_path):
    data = json.loads((shared_data / "taraz" / "blend_iran" / "Iran_data.json").read_text(encoding="utf-8"))
    key = list(data)[2]
    del data[key]["annotations"][0]["count"]
    (tmp_path / "taraz" / "blend_iran").mkdir(parents=True)
    (tmp_path / "taraz" / "blend_iran" / "Iran_data.json").write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(DataSchemaError, match=r"Iran_data.json: row 3: field 'annotations' group 0 has no positive"):
        utils.load_blend(**settings(tmp_path))


def test_isn_saq_without_the_file_says_what_to_do(tmp_path):
    with pytest.raises(DataNotFoundError, match=r"not published.*ISN/isn_farsi_saq.csv.*id, question"):
        utils.load_isn_saq(embedding_model="const")
    with pytest.raises(DataNotFoundError, match=r"taraz/ISN/isn_farsi_saq.csv: not found"):
        utils.load_isn_saq(**settings(tmp_path))


def test_isn_saq_from_a_local_copy(tmp_path):
    path = tmp_path / "taraz" / "ISN" / "isn_farsi_saq.csv"
    path.parent.mkdir(parents=True)
    path.write_text("id,question,answer\n73,در بازار ایران هنگام خرید با فروشندگان چه رفتاری رایج است؟,چانه‌زنی\n",
                    encoding="utf-8")  # fmt: skip
    docs = utils.load_isn_saq(**settings(tmp_path))["test"]
    assert docs[0]["id"] == "73" and docs[0]["references"] == ["چانه‌زنی"]
    assert utils.doc_to_text_question(docs[0]) == "در بازار ایران هنگام خرید با فروشندگان چه رفتاری رایج است؟"
    path.write_text("id,question,answer\n73,یک سوال,\n", encoding="utf-8")
    with pytest.raises(DataSchemaError, match=r"row 1: field 'answer' is empty"):
        utils.load_isn_saq(**settings(tmp_path))


def test_isn_derivation(shared_data):
    docs = utils.load_isn_derived(**settings(shared_data))["test"]
    src = shared_data / "taraz" / "isn" / "[ISN] FINAL - wo_demographiccols-updated.csv"
    with open(src, encoding="utf-8-sig") as f:
        rows = list(csv.DictReader(f))
    kept = [r for r in rows if r["Label"] in ("Expected", "Normal") and r["scope - EN"].strip() == "Specific"]
    assert len(kept) == 580  # SOURCE.md: Iran-specific non-taboo norms
    # one question per environment: 108 distinct Persian environments among them
    assert len(docs) == len({" ".join(r["Environment - FA"].split()) for r in kept}) == 108
    first = docs[0]
    env_rows = [r for r in kept if " ".join(r["Environment - FA"].split()) == first["environment"]]
    assert first["references"] == list(dict.fromkeys(" ".join(r["Norm - FA"].split()) for r in env_rows))
    assert first["question"] == (f"در {first['environment']} در ایران، چه رفتاری رایج یا مورد انتظار است؟ "
                                 "پاسخ خود را کوتاه و بدون هیچ توضیحی ارائه دهید.")  # fmt: skip
    assert not any(r["Label"] == "Taboo" for r in rows if r["ID"] in set(sum((d["norm_ids"] for d in docs), [])))


def test_judged_loader_requires_a_judge(shared_data):
    from lm_eval_persian_culture.judge import JudgeConfigError

    with pytest.raises(JudgeConfigError, match="none is configured"):
        utils.load_isn_derived_judged(**settings(shared_data))


def test_percul_category_phrases():
    from lm_eval_persian_culture.tasks.taraz import percul_saq

    assert percul_saq.category_phrase("ساز/موسیقی") == "ساز یا موسیقی"
    assert percul_saq.category_phrase("Music") == "ساز یا موسیقی"
    assert percul_saq.category_phrase("food") == "خوراکی"
    with pytest.raises(DataSchemaError, match="no Persian question phrase"):
        percul_saq.category_phrase("weather")
    doc = {"story": "در یک شب بهاری ...", "category_phrase": "ساز یا موسیقی"}
    assert utils.doc_to_text_percul_saq(doc) == (
        "در یک شب بهاری ...\n\nبا توجه به متن بالا چه ساز یا موسیقی در فرهنگ یا زندگی روزمره ایرانی قابل برداشت است؟ "
        "پاسخ خود را بدون هیچ توضیحی ارائه دهید."
    )  # Figure 5's prompt, verbatim


def test_score_filter_records_feed_process_results():
    docs = [{"id": "q1", "references": ["نان و پنیر"], "annotations": [{"answers": ["نان و پنیر"], "count": 2}]}]
    embeddings.register_encoder("const", ConstantEncoder())
    embeddings._active = "const"
    records = utils.score_filter([["نان و پنیر"]], docs)
    out = utils.process_results(docs[0], records)
    assert set(out) == set(utils.BLEND_METRICS)
    assert out["exact_match"] == 1 and out["weighted_exact_match"] == 1.0 and out["rouge2_match"] == 1
    assert out["embed_match"] == 1  # constant vectors: cosine 1


PERCUL_FIXTURE = __import__("pathlib").Path(__file__).resolve().parents[1] / "percul" / "fixtures"


def test_percul_saq_from_percul_source():
    docs = utils.load_percul_saq(data_dir=str(PERCUL_FIXTURE), embedding_model="const")["test"]
    # the fixture's 10 Persian items; reference = the text of "Correct Choice"
    assert [d["id"] for d in docs] == ["1_O_FOO", "2_O_FOO", "3_O_FOO", "4_O_FOO", "5_O_RIT", "6_O_RIT", "7_O_RIT",
                                       "8_O_OBJ", "9_O_OBJ", "10_O_MUS"]  # fmt: skip
    assert [d["references"][0] for d in docs] == ["قورمه‌سبزی", "شله‌زرد", "دوغ", "کشک بادمجان", "چهارشنبه‌سوری",
                                                  "سیزده‌بدر", "شب یلدا", "کرسی", "گلاب‌پاش", "سنتور"]  # fmt: skip
    assert [d["category_phrase"] for d in docs][::3] == ["خوراکی", "خوراکی", "آیین", "ساز یا موسیقی"]
    text = utils.doc_to_text_percul_saq(docs[9])
    assert text.startswith(docs[9]["story"].strip() + "\n\n")
    assert text.endswith("با توجه به متن بالا چه ساز یا موسیقی در فرهنگ یا زندگی روزمره ایرانی قابل برداشت است؟ "
                         "پاسخ خود را بدون هیچ توضیحی ارائه دهید.")  # fmt: skip
    assert docs[0]["provenance"].startswith("local:")


def test_deviations_in_metadata_name_every_point_of_issue_23():
    """Each task's metadata.deviations (generated from _generate_configs.DEVIATIONS) names what the
    pack does differently: the points the issue found missing."""
    from lm_eval_persian_culture.tasks.taraz._generate_configs import DEVIATIONS, task_yaml

    text = " ".join(DEVIATIONS)
    for point in ("English-answer fallback", "numeric normalisation", "dates and times",
                  "neither 1 nor 0", "system prompt", "never below embed_match", "multiples of 1/n",
                  "metadata.scoring", "greedy decoding", "alike to the reply and to every reference"):  # fmt: skip
        assert point in text, point
    assert all(json.dumps(d, ensure_ascii=False) in task_yaml("taraz_blend") for d in DEVIATIONS)


def test_deviations_and_scoring_settings_name_every_point_of_issue_32(monkeypatch):
    """Issue 32: the numeric normalisation, the range rule and exact match's containment (against the
    paper's "exactly matches") are deviations; the threshold rule follows the paper and is recorded."""
    from lm_eval_persian_culture.tasks.taraz._generate_configs import DEVIATIONS

    text = " ".join(DEVIATIONS)
    for point in ("numeric normalisation", "range rule", "'exactly matches", "12-hour times", "month name"):
        assert point in text, point
    monkeypatch.setattr(embeddings, "_active", embeddings.DISABLED)  # no model is loaded for this
    settings = utils.scoring_settings()
    assert settings["embed_match_rule"].startswith("max cosine > embed_threshold")
    for key in ("exact_match_rule", "numeric_normalisation", "range_rule"):
        assert settings[key], key
