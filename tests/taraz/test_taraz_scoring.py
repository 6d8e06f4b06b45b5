"""TARAZ metrics: BLEnD exact match, ROUGE on Persian (worked out by hand), the embedding
metrics with controlled vectors around the 0.85 threshold and with a tiny real model, the judge
answer parser, and the embedding model's settings and compatibility check."""

from __future__ import annotations

import math

import numpy as np
import pytest

from lm_eval_persian_culture.tasks.taraz import embeddings
from lm_eval_persian_culture.tasks.taraz import short_answer as sa

ZWNJ = "\u200c"


# ------------------------------------------------------------------ exact match (BLEnD)
@pytest.mark.parametrize(
    "reply, refs, expected",
    [
        ("معمولاً نان و پنیر می‌خورند", ["نان و پنیر"], True),  # normalised substring
        ("نان و پنیر", ["نون و پنیر"], False),  # colloquial reference: exact match misses it
        ("تخم مرغ", [f"تخم{ZWNJ}مرغ"], True),  # half-space vs space
        ("كيك", ["کیک"], True),  # Arabic kaf/yeh
        ("یک کتاب", [f"کتاب{ZWNJ}ها"], True),  # lemma: کتاب‌ها -> کتاب
        ("نان و پنیر", ["پنیر و نان"], True),  # every lemma of the reference is in the reply
        ("پیتزا", ["نان", "پنیر"], False),
        ("نان", [""], False),  # an empty reference never matches
        ("۱۲", ["12"], True),  # digits unified
        ("13", ["1"], False),  # a number matches only a whole number (BLEnD's substring test said yes)
        ("08:00", ["0"], False),
        ("ساعت 13:00", ["13:00"], True),
        ("2-3 ساعت", ["3 ساعت"], True),  # a reply range holds its ends (BLEnD: "3 ساعت" is in it)
        ("3 ساعت", ["2-3 ساعت"], False),  # a reference range is not one of its ends
        ("6-9 ساعت", ["8 ساعت"], False),  # nor is a number inside a reply range (BLEnD: not a substring)
        ("کتابها", ["کتاب"], True),  # words are still substrings, as in BLEnD
    ],
)
def test_exact_match(reply, refs, expected):
    assert sa.exact_match(reply, refs) is expected


def test_blend_weighted_score_on_the_paper_example():
    groups = [  # Al-en-01 (TARAZ Figure 4)
        {"answers": ["میوه", "ميوه"], "count": 3},
        {"answers": ["لقمه"], "count": 1},
        {"answers": ["نون و پنير"], "count": 1},
    ]
    assert sa.blend_weighted_score("میوه", groups) == 1.0
    assert sa.blend_weighted_score("لقمه", groups) == pytest.approx(1 / 3)
    assert sa.blend_weighted_score("نون و پنیر", groups) == pytest.approx(1 / 3)  # ي vs ی
    assert sa.blend_weighted_score("پیتزا", groups) == 0.0
    assert sa.blend_weighted_score("میوه", []) == 0.0


# ------------------------------------------------------------------ ROUGE
def test_rouge_default_tokenizer_drops_persian():
    from rouge_score import rouge_scorer

    default = rouge_scorer.RougeScorer(["rouge1"]).score("نان و پنیر", "نان و پنیر")["rouge1"]
    assert default.fmeasure == 0.0  # why a Persian tokenizer is passed


@pytest.mark.parametrize(
    "reply, ref, f1",
    [
        # identical three-word answer: every n-gram matches
        ("نان و پنیر", "نان و پنیر", {"rouge1": 1.0, "rouge2": 1.0, "rougeL": 1.0}),
        # one word: R1 = 1; no bigram on either side, so ROUGE-2 is 0 (cannot fire), RL = 1
        ("نان", "نان", {"rouge1": 1.0, "rouge2": 0.0, "rougeL": 1.0}),
        # reply 3 tokens, ref 1: P = 1/3, R = 1 -> F = 2*(1/3)/(4/3) = 0.5; no bigram in ref
        ("نان و پنیر", "نان", {"rouge1": 0.5, "rouge2": 0.0, "rougeL": 0.5}),
        # same bag of words, reversed: R1 = 1; bigrams {پنیر و, و نان} vs {نان و, و پنیر}: 0;
        # LCS of (پنیر و نان) and (نان و پنیر) is 1 token -> P = R = 1/3
        ("پنیر و نان", "نان و پنیر", {"rouge1": 1.0, "rouge2": 0.0, "rougeL": 1 / 3}),
        # reply 4 tokens (آش رشته با کشک), ref 2 (آش رشته): R1 P = 2/4, R = 1 -> 2/3;
        # R2: reply bigrams 3, ref 1, 1 shared -> P = 1/3, R = 1 -> 0.5; RL: LCS 2 -> 2/3
        ("آش رشته با کشک", "آش رشته", {"rouge1": 2 / 3, "rouge2": 0.5, "rougeL": 2 / 3}),
        # Arabic letters and a half-space are normalised away before counting
        (f"كيك{ZWNJ}ها", "کیک ها", {"rouge1": 1.0, "rouge2": 1.0, "rougeL": 1.0}),
    ],
)
def test_rouge_f1_by_hand(reply, ref, f1):
    got = sa.rouge_f1(reply, ref)
    for kind, value in f1.items():
        assert got[kind] == pytest.approx(value), kind


def test_rouge_matches_need_f1_one_against_some_reference():
    assert sa.rouge_matches("نان و پنیر", ["چای", "نان و پنیر"]) == {
        "rouge1_match": True, "rouge2_match": True, "rougeL_match": True}  # fmt: skip
    assert sa.rouge_matches("نان", ["نان"]) == {"rouge1_match": True, "rouge2_match": False, "rougeL_match": True}
    assert sa.rouge_matches("پنیر و نان", ["نان و پنیر"]) == {
        "rouge1_match": True, "rouge2_match": False, "rougeL_match": False}  # fmt: skip


# ------------------------------------------------------------------ embeddings: controlled vectors
class VectorEncoder:
    """Maps each text to a given vector; counts calls (the batching contract)."""

    def __init__(self, table: dict[str, list[float]]):
        self.table = table
        self.calls: list[list[str]] = []

    def encode(self, sentences, **kwargs):
        self.calls.append(list(sentences))
        return np.array([self.table.get(s, [0.0, 0.0, 1.0]) for s in sentences], dtype=np.float32)


def _unit_at(cos: float) -> list[float]:
    """A 3-d vector whose cosine with (1, 0, 0) is ``cos``."""
    return [cos, math.sqrt(1 - cos * cos), 0.0]


@pytest.fixture()
def controlled(monkeypatch):
    table = {
        "نان": [1.0, 0.0, 0.0],  # the reference
        "نون": _unit_at(0.9),  # colloquial form, close
        "بالای آستانه": _unit_at(0.8501),
        "زیر آستانه": _unit_at(0.8499),
        "پنیر": [0.0, 1.0, 0.0],
        "صبحانه": [0.0, 1.0, 0.0],
    }
    encoder = VectorEncoder(table)
    embeddings.register_encoder("controlled", encoder)
    monkeypatch.setattr(embeddings, "_active", "controlled")
    return encoder


def test_embed_threshold_with_controlled_vectors(controlled):
    rows = sa.score_replies(["بالای آستانه", "زیر آستانه", "نون", "پنیر"], [["نان"]] * 4)
    assert [r["embed_match"] for r in rows] == [1, 0, 1, 0]
    assert rows[0]["embed_cosine"] == pytest.approx(0.8501, abs=1e-6)
    assert rows[1]["embed_cosine"] == pytest.approx(0.8499, abs=1e-6)
    assert rows[3]["embed_cosine"] == pytest.approx(0.0, abs=1e-6)


def test_embed_takes_the_max_over_sentences_and_references(controlled):
    # sentence 1 "پنیر" scores 0 against نان; sentence 2 "نون" scores 0.9 -> max 0.9
    rows = sa.score_replies(["پنیر.\nنون"], [["صبحانه", "نان"]])
    assert rows[0]["sentences"] == ["پنیر.", "نون"]
    # "پنیر." has no vector in the table (default (0,0,1)); "نون" vs "نان" = 0.9; vs صبحانه = sqrt(1-0.81)
    assert rows[0]["embed_cosine"] == pytest.approx(0.9, abs=1e-6)
    assert rows[0]["embed_match"] == 1


def test_hybrid_uses_postprocessed_items(controlled):
    # "نون و پنیر." -> items ["نون", "پنیر"]: "نون" vs "نان" = 0.9 >= 0.85; the raw sentence
    # "نون و پنیر." has no vector of its own (default), so plain embed_match misses it
    rows = sa.score_replies(["نون و پنیر."], [["نان"]])
    assert rows[0]["items"] == ["نون", "پنیر"]
    assert rows[0]["hybrid_match"] == 1 and rows[0]["hybrid_cosine"] == pytest.approx(0.9, abs=1e-6)
    assert rows[0]["embed_match"] == 0


def test_one_batched_encode_call_per_task_with_distinct_texts(controlled, monkeypatch):
    sa.score_replies(["نان", "نان", "نون و پنیر"], [["نان"], ["نان"], ["نان", "پنیر"]])
    assert len(controlled.calls) == 1
    batch = controlled.calls[0]
    assert len(batch) == len(set(batch))  # each distinct text once
    # the reply's sentence, its items and its whole post-processed answer; the references raw and
    # post-processed (here the same texts)
    assert set(batch) == {"نان", "نون و پنیر", "نون", "پنیر", "نون پنیر"}
    # bigger tasks: one call per batch of PERSIAN_CULTURE_EMBEDDING_BATCH_SIZE texts, never per item
    monkeypatch.setenv("PERSIAN_CULTURE_EMBEDDING_BATCH_SIZE", "2")
    controlled.calls.clear()
    sa.score_replies(["نان", "نون", "پنیر"], [["نان"], ["نان"], ["نان"]])
    assert [len(c) for c in controlled.calls] == [2, 1]


class SameVector:
    """Every text maps to one vector: every cosine is 1, so only the number rule can say no."""

    def encode(self, sentences, **kwargs):
        return np.ones((len(sentences), 3), dtype=np.float32)


@pytest.mark.parametrize(
    "reply, reference, match",
    [
        ("08:00", "13:00", 0),
        ("ساعت ۸ صبح", "08:00", 1),  # a time on the hour is its hour
        ("ساعت ۸:۰۰", "08:00", 1),  # 08:00 and ۸:۰۰ are one time
        ("ساعت ۸:۳۰", "08:00", 0),
        ("3 ساعت", "2-3 ساعت", 0),  # a reference range is not its end
        ("2-3 ساعت", "3 ساعت", 1),  # a reply range holds its two ends (BLEnD's substring test)
        ("2-4 ساعت", "3 ساعت", 0),  # ... but not what lies between them
        ("۲ تا ۳ ساعت", "2-3 ساعت", 1),
        ("۱۳ فروردین", "14 فروردین", 0),
        ("13 فروردین", "۱۳ فروردین", 1),
        ("سیزده بدر", "13 فروردین", 1),  # no digits on one side: the cosine decides
        # a right answer that also holds other numbers: the reference's numbers are all in it
        ("ساعت 1 بعد از ظهر (13:00)", "13:00", 1),
        ("سفره ۷ سین در ۱ فروردین", "سفره ۷ سین", 1),
        ("ساعت ۱۲ یا ۱۴", "13:00", 0),  # other numbers only
        ("۷ سین", "سفره ۷ سین در ۱ فروردین", 0),  # the reply lacks one of the reference's numbers
        # Persian writes the decimal 1.5 as ۱/۵ too: the rule cannot tell it from a date, so the cosine decides
        ("۱/۵ ساعت", "1.5", 1),
        ("1.5 ساعت", "۱/۵", 1),
        ("۲/۵ ساعت", "1.5", 0),
    ],
)
def test_texts_with_different_numbers_never_match(monkeypatch, reply, reference, match):
    embeddings.register_encoder("same-vector", SameVector())
    monkeypatch.setattr(embeddings, "_active", "same-vector")
    row = sa.score_replies([reply], [[reference]])[0]
    assert (row["embed_match"], row["hybrid_match"]) == (match, match)
    if match == 0:
        assert row["exact_match"] == 0


def test_no_embedding_model_leaves_embedding_metrics_unscored(monkeypatch):
    monkeypatch.setattr(embeddings, "_active", embeddings.DISABLED)
    row = sa.score_replies(["نان و پنیر"], [["نان و پنیر"]])[0]
    assert row["embed_match"] is None and row["hybrid_match"] is None
    assert row["exact_match"] == 1 and row["rouge1_match"] == 1  # the rest is still scored
    assert row["items"] == ["نان", "پنیر"]


ARABIC_FORMS = str.maketrans({"ی": "ي", "ک": "ك"})
TO_PERSIAN = str.maketrans("0123456789", "۰۱۲۳۴۵۶۷۸۹")
TO_LATIN = str.maketrans("۰۱۲۳۴۵۶۷۸۹", "0123456789")


def surface_variants(answer: str) -> set[str]:
    """ي/ك for ی/ک, Latin <-> Persian digits, a space for each half-space."""
    swapped = answer.translate(TO_PERSIAN) if any("0" <= c <= "9" for c in answer) else answer.translate(TO_LATIN)
    return {answer.translate(ARABIC_FORMS), swapped, answer.replace(ZWNJ, " ")} - {answer}


def test_every_blend_reference_verbatim_or_varied_scores_one(shared_data, tiny_embedder):
    """Issue 23: each of BLEnD's 2,020 scored references, given as the reply verbatim or in a
    surface variant, is right on exact_match, embed_match and hybrid_match (it was 86.1% on
    hybrid_match when references were compared raw with post-processed replies)."""
    from lm_eval_persian_culture.tasks.taraz import utils

    name = embeddings.prepare_embedding_model({"embedding_model": str(tiny_embedder)})
    docs = utils.load_blend(data_dir=str(shared_data), embedding_model=name)["test"]
    replies, refs = [], []
    for doc in docs:
        for answer in doc["references"]:
            for reply in (answer, *sorted(surface_variants(answer))):
                replies.append(reply)
                refs.append(doc["references"])
    assert sum(len(d["references"]) for d in docs) == 2020
    rows = sa.score_replies(replies, refs)
    for metric in ("exact_match", "embed_match", "hybrid_match"):
        wrong = [(r["response"], r["references"][:3]) for r in rows if r[metric] != 1]
        assert not wrong, (metric, len(wrong), wrong[:5])


def test_empty_reply_scores_zero_not_an_error(controlled):
    rows = sa.score_replies([""], [["نان"]])
    assert rows[0]["embed_match"] == 0 and rows[0]["embed_cosine"] is None
    assert rows[0]["hybrid_match"] == 0 and rows[0]["exact_match"] == 0


# ------------------------------------------------------------------ embeddings: tiny real model
def test_tiny_model_through_sentence_transformers(tiny_embedder, monkeypatch):
    monkeypatch.setenv("PERSIAN_CULTURE_EMBEDDING_MODEL", str(tiny_embedder))
    name = embeddings.prepare_embedding_model({})
    assert name == str(tiny_embedder)
    first = embeddings.load_encoder(name)
    assert embeddings.load_encoder(name) is first  # loaded once per process
    rows = sa.score_replies(["نان و پنیر", "چای"], [["نان و پنیر"], ["قهوه"]])
    assert rows[0]["embed_cosine"] == pytest.approx(1.0, abs=1e-5)  # the same text
    assert rows[0]["embed_match"] == 1
    assert -1.0 <= rows[1]["embed_cosine"] < 1.0 - 1e-4  # a different text is not identical
    vectors = embeddings.embed(["نان", "پنیر"])
    assert all(abs(np.linalg.norm(v) - 1.0) < 1e-5 for v in vectors.values())


def test_metadata_wins_over_env(monkeypatch):
    monkeypatch.setenv("PERSIAN_CULTURE_EMBEDDING_MODEL", "/from/env")
    assert embeddings.embedding_model_name({"embedding_model": "/from/metadata"}) == "/from/metadata"
    assert embeddings.embedding_model_name({}) == "/from/env"
    monkeypatch.delenv("PERSIAN_CULTURE_EMBEDDING_MODEL")
    assert embeddings.embedding_model_name(None) == "xmanii/maux-gte-persian-v3"


def test_paper_model_refused_at_load_under_a_transformers_5_without_gte(monkeypatch):
    from lm_eval_persian_culture.tasks.taraz import gte_native

    monkeypatch.setattr(gte_native, "native_available", lambda: False)
    with pytest.raises(embeddings.EmbeddingConfigError, match=r"transformers>=4.51,<5"):
        embeddings.check_compatible("xmanii/maux-gte-persian-v3", transformers_version="5.23.0")
    embeddings.check_compatible("xmanii/maux-gte-persian-v3", transformers_version="4.57.1")  # fine
    monkeypatch.setattr(gte_native, "native_available", lambda: True)  # transformers' GteModel loads it
    embeddings.check_compatible("xmanii/maux-gte-persian-v3", transformers_version="5.24.0")


def test_local_gte_remote_code_dir_is_recognised(tmp_path, monkeypatch):
    import json

    from lm_eval_persian_culture.tasks.taraz import gte_native

    monkeypatch.setattr(gte_native, "native_available", lambda: False)

    (tmp_path / "config.json").write_text(json.dumps(
        {"architectures": ["NewModel"],
         "auto_map": {"AutoModel": "Alibaba-NLP/new-impl--modeling.NewModel"}}))  # fmt: skip
    with pytest.raises(embeddings.EmbeddingConfigError, match="NewModel"):
        embeddings.check_compatible(str(tmp_path), transformers_version="5.0.0")


def test_unloadable_model_is_one_clear_error(tmp_path):
    # not there at all: found (not) as every model is, before sentence-transformers is asked
    with pytest.raises(embeddings.EmbeddingConfigError, match=r"embedding_model=\S+/no-such-model: no such folder"):
        embeddings.load_encoder(str(tmp_path / "no-such-model"))
    (tmp_path / "empty").mkdir()  # there, but no model in it
    with pytest.raises(embeddings.EmbeddingConfigError, match="could not be loaded"):
        embeddings.load_encoder(str(tmp_path / "empty"))


@pytest.mark.parametrize("value", ["abc", "0", "-4"])
def test_bad_embedding_batch_size_is_refused_at_load_not_after_generation(monkeypatch, value):
    embeddings.register_encoder("same-vector", SameVector())
    monkeypatch.setattr(embeddings, "_active", None)
    monkeypatch.setenv(embeddings.EMBEDDING_BATCH_ENV, value)
    with pytest.raises(embeddings.EmbeddingConfigError, match=f"PERSIAN_CULTURE_EMBEDDING_BATCH_SIZE={value!r}"):
        embeddings.prepare_embedding_model({"embedding_model": "same-vector"})


# ------------------------------------------------------------------ judge
@pytest.mark.parametrize(
    "raw, verdict",
    [("1", True), ("0", False), ("۱", True), ("۰", False), ("**1**", True), ("Answer: 0", False),
     ("1\n", True), ("<think>hmm</think>1", True), ("10", None), ("maybe", None), ("", None), (None, None)],
)  # fmt: skip
def test_parse_one_zero(raw, verdict):
    assert sa.parse_one_zero(raw) is verdict


def test_judge_prompt_is_the_papers():
    prompt = sa.judge_prompt("Al-en-01", 'نان "و" پنیر', ["میوه", "لقمه"])
    assert prompt.startswith("You are evaluating a model's answer.\n\nQuestion ID: Al-en-01\n")
    assert 'Response: "نان \\"و\\" پنیر"' in prompt
    assert "Valid answers: ['میوه', 'لقمه']" in prompt
    assert prompt.endswith("Answer ONLY with 1 if it matches, 0 if it does not.")


def test_aggregations_skip_unscored():
    assert sa.mean_of_scored([1, 0, None, 1]) == pytest.approx(2 / 3)
    assert sa.count_unscored([1, None, None]) == 2
    assert math.isnan(sa.mean_of_scored([None]))
