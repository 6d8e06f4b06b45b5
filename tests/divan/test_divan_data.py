"""DivanBench's data schema: local copies, the hub mapping, and the errors for data that does not fit."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import datasets
import pytest
from divan_testlib import FIXTURES

from lm_eval_persian_culture.data.sources import DataNotFoundError, DataSchemaError
from lm_eval_persian_culture.tasks.divan import utils


def _rows(name: str) -> list[dict]:
    return [json.loads(line) for line in (FIXTURES / "divan" / name).read_text(encoding="utf-8").splitlines() if line]


def _data_dir(tmp_path: Path, name: str, rows: list[dict]) -> dict:
    shutil.copytree(FIXTURES / "divan", tmp_path / "divan")
    with open(tmp_path / "divan" / name, "w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    return {"data_dir": str(tmp_path)}


def test_fixture_loads_in_documented_order():
    items, provenance = utils.load_items("binary", {"data_dir": str(FIXTURES)})
    assert [(i["pair_id"], i["polarity"]) for i in items] == [
        ("elders", "positive"), ("elders", "negative"), ("bread", "positive"),
        ("bread", "negative"), ("sweeping", "positive"), ("sweeping", "negative"),
    ]  # fmt: skip
    assert provenance.startswith("local:") and "sha256:" in provenance
    mcq, _ = utils.load_items("factual", {"data_dir": str(FIXTURES)})
    assert [i["answer"] for i in mcq] == ["C", "A", "B", "D"]
    assert mcq[0]["concept"] == "شب یلدا"


def test_doc_counts_and_fields():
    settings = {"data_dir": str(FIXTURES)}
    assert len(utils.build_docs(("factual",), utils.PROMPT_IDS, settings)) == 4 * 5
    assert len(utils.build_docs(("binary",), utils.PROMPT_IDS, settings)) == 6 * 5
    assert len(utils.build_docs(("scenario",), (3,), settings)) == 3
    docs = utils.build_docs(utils.TYPES, utils.PROMPT_IDS, settings)
    assert len(docs) == 65 and all(set(d) == set(utils.DOC_FIELDS) for d in docs)
    assert {d["system_prompt"] for d in docs} == set(utils.SYSTEM_PROMPTS)


def test_instruction_setting():
    settings = {"data_dir": str(FIXTURES)}
    doc = utils.build_docs(("factual",), (1,), {**settings, "divan_instruction": "none"})[0]
    assert utils.doc_to_text(doc) == (
        "کدام میوه به‌عنوان نماد بر سفرهٔ شب یلدا گذاشته می‌شود؟\n\n(A) پرتقال\n(B) سیب\n(C) انار\n(D) گلابی"
    )
    doc = utils.build_docs(("binary",), (1,), {**settings, "divan_instruction": "en"})[0]
    assert utils.doc_to_text(doc).endswith('end your reply with "Answer: Yes" or "Answer: No".')
    with pytest.raises(ValueError, match="divan_instruction"):
        utils.build_docs(("binary",), (1,), {**settings, "divan_instruction": "de"})


# App. A's English examples beside the fixture's Persian items
YALDA_EN = {
    "id": "f9",
    "question": "What fruit is used as a symbol on the Yalda night table?",
    "option_a": "Orange",
    "option_b": "Apple",
    "option_c": "Pomegranate",
    "option_d": "Pear",
    "answer": "C",
}
ELDERS_EN = [
    {"id": "b9p", "pair_id": "elders_en", "polarity": "positive", "answer": "yes", "statement":
     "During a casual family gathering, an elderly aunt walks into the room. Everyone younger immediately stands up "
     "as a respectful acknowledgment of her presence. Did they act according to Persian tradition?"},
    {"id": "b9n", "pair_id": "elders_en", "polarity": "negative", "answer": "no", "statement":
     "During a family gathering, an elderly aunt enters the room. Since everyone is already comfortable, no one stands "
     "up and they simply greet her warmly from their seats. Did they act according to Persian tradition?"},
]  # fmt: skip


def test_default_instruction_is_in_each_items_language(tmp_path):
    settings = _data_dir(tmp_path, "factual.jsonl", [*_rows("factual.jsonl"), YALDA_EN])
    with open(tmp_path / "divan" / "binary.jsonl", "a", encoding="utf-8") as f:
        for row in ELDERS_EN:
            f.write(json.dumps(row) + "\n")
    docs = {d["item_id"]: d for d in utils.build_docs(("factual", "binary"), (1,), settings)}
    assert (docs["f1"]["language"], docs["f1"]["instruction_language"]) == ("fa", "fa")
    assert utils.doc_to_text(docs["f1"]).endswith(utils.INSTRUCTIONS["fa"]["mcq"])
    assert (docs["f9"]["language"], docs["f9"]["instruction_language"]) == ("en", "en")
    assert utils.doc_to_text(docs["f9"]) == (
        "What fruit is used as a symbol on the Yalda night table?\n\n(A) Orange\n(B) Apple\n(C) Pomegranate\n"
        '(D) Pear\n\nChoose the correct option and end your reply with "Answer: <letter>".'
    )
    assert utils.doc_to_text(docs["b9n"]).endswith('"Answer: Yes" or "Answer: No".')
    assert utils.doc_to_text(docs["b1p"]).endswith("«پاسخ: بله» یا «پاسخ: خیر».")
    # an explicit language is applied to every item, as asked
    forced = {d["item_id"]: d for d in utils.build_docs(("factual",), (1,), {**settings, "divan_instruction": "fa"})}
    assert forced["f9"]["instruction_language"] == "fa" and forced["f9"]["language"] == "en"


def test_system_prompt_placement_setting():
    settings = {"data_dir": str(FIXTURES)}
    kept = utils.build_docs(("binary",), (2,), settings)[0]
    assert kept["system_message"] == utils.SYSTEM_PROMPTS[1] and kept["system_prompt_placement"] == "system"
    assert not utils.doc_to_text(kept).startswith(utils.SYSTEM_PROMPTS[1])
    for value in ("user", "fold"):
        folded = utils.build_docs(("binary",), (2,), {**settings, "divan_system_prompt": value})[0]
        assert folded["system_message"] == "" and folded["system_prompt_placement"] == "user"
        assert utils.doc_to_text(folded) == utils.SYSTEM_PROMPTS[1] + "\n\n" + utils.doc_to_text(kept)
    # auto without a local tokenizer (API models) cannot tell: the system message stays
    auto = utils.build_docs(("binary",), (2,), {**settings, "divan_system_prompt": "auto"})[0]
    assert auto["system_prompt_placement"] == "system"
    with pytest.raises(utils.DivanSettingError, match="divan_system_prompt"):
        utils.build_docs(("binary",), (2,), {**settings, "divan_system_prompt": "first_turn"})


def test_paper_pipeline_settings(monkeypatch):
    from lm_eval_persian_culture.judge import JudgeConfigError

    settings = {"data_dir": str(FIXTURES), "divan_pipeline": "paper"}
    assert utils.run_settings(settings) == utils.RunSettings(
        instruction="none", system_prompt="system", pipeline="paper"
    )
    doc = utils.build_docs(
        ("binary",), (1,), {**settings, "judge_model": "x", "judge_base_url": "http://127.0.0.1:9/v1"}
    )[0]
    assert doc["instruction"] == "" and doc["pipeline"] == "paper" and utils.doc_to_text(doc) == doc["statement"]
    assert utils.run_settings({**settings, "divan_instruction": "none"}).instruction == "none"
    with pytest.raises(utils.DivanSettingError, match="divan_instruction='fa'"):
        utils.run_settings({**settings, "divan_instruction": "fa"})
    with pytest.raises(utils.DivanSettingError, match="divan_pipeline"):
        utils.run_settings({"divan_pipeline": "gpt"})
    # the paper's extractor by default: GPT-4o-mini, which needs its key before any model time
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("PERSIAN_CULTURE_JUDGE_MODEL", raising=False)
    with pytest.raises(JudgeConfigError, match="gpt-4o-mini.*OPENAI_API_KEY"):
        utils.configure_extractor(settings)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-used")
    assert utils.configure_extractor(settings).model == "gpt-4o-mini"
    with pytest.raises(JudgeConfigError, match="needs the LLM extractor"):
        utils.configure_extractor({**settings, "divan_llm_extractor": "false"})
    with pytest.raises(JudgeConfigError, match="needs the LLM extractor"):
        utils.configure_extractor({**settings, "judge_model": "none"})
    # rules pipeline: no judge configured, no extractor
    assert utils.configure_extractor({"data_dir": str(FIXTURES)}) is None


def test_system_prompts_are_verbatim_from_the_paper():
    paper = Path(__file__).resolve().parents[3] / "shared" / "seeds" / "001_10f3491b9f64d050.txt"
    if not paper.is_file():
        pytest.skip("the paper text is not beside the repo")
    text = paper.read_text(encoding="utf-8")
    for prompt in utils.SYSTEM_PROMPTS:
        assert f"“{prompt}”" in text


# ---- malformed data: one DataSchemaError naming file, row and field ---------------------------
def _expect(tmp_path, name, rows, *fragments):
    settings = _data_dir(tmp_path, name, rows)
    kind = name.removesuffix(".jsonl")
    with pytest.raises(DataSchemaError) as err:
        utils.load_items(kind, settings)
    message = str(err.value)
    assert str(tmp_path / "divan" / name) in message
    for fragment in fragments:
        assert fragment in message, message
    return message


def test_missing_field(tmp_path):
    rows = _rows("factual.jsonl")
    del rows[2]["option_c"]
    _expect(tmp_path, "factual.jsonl", rows, "row 3", "'option_c'", "missing")


def test_missing_column_everywhere_lists_columns_found(tmp_path):
    rows = [{k: v for k, v in r.items() if k != "statement"} for r in _rows("binary.jsonl")]
    _expect(tmp_path, "binary.jsonl", rows, "columns found", "'statement'")


def test_bad_polarity(tmp_path):
    rows = _rows("binary.jsonl")
    rows[3]["polarity"] = "pos"
    _expect(tmp_path, "binary.jsonl", rows, "row 4", "'polarity'", "'pos'")


def test_unpaired_pair_id(tmp_path):
    rows = _rows("binary.jsonl")
    rows[5]["pair_id"] = "lonely"  # sweeping loses its negative, "lonely" has no positive
    _expect(tmp_path, "binary.jsonl", rows, "row 5", "'pair_id'", "'sweeping'", "no negative")


def test_pair_with_two_positives(tmp_path):
    rows = _rows("binary.jsonl")
    rows[1].update(polarity="positive", answer="yes")
    _expect(tmp_path, "binary.jsonl", rows, "row 2", "'polarity'", "'elders'", "already has a positive", "(row 1)")


def test_answer_contradicts_polarity(tmp_path):
    rows = _rows("binary.jsonl")
    rows[0]["answer"] = "no"
    _expect(tmp_path, "binary.jsonl", rows, "row 1", "'answer'", "'positive'")


def test_bad_mcq_answer_and_duplicate_id(tmp_path):
    rows = _rows("scenario.jsonl")
    rows[1]["answer"] = "E"
    _expect(tmp_path, "scenario.jsonl", rows, "row 2", "'answer'", "'E'")
    rows = _rows("scenario.jsonl")
    rows[2]["id"] = "s1"
    _expect(tmp_path / "dup", "scenario.jsonl", rows, "row 3", "'id'", "repeats row 1")


def test_lenient_spellings_are_normalised(tmp_path):
    rows = _rows("factual.jsonl")
    rows[0]["answer"], rows[1]["id"] = "(c)", 7
    settings = _data_dir(tmp_path, "factual.jsonl", rows)
    items, _ = utils.load_items("factual", settings)
    assert items[0]["answer"] == "C" and items[1]["item_id"] == "7"


def test_data_dir_without_divan_files(tmp_path):
    with pytest.raises(DataNotFoundError, match="divan/factual.jsonl"):
        utils.load_items("factual", {"data_dir": str(tmp_path)})


# ---- the hub release (unreachable here: datasets.load_dataset is replaced) ---------------------
def _fake_hub(monkeypatch, tables: dict[str, list[dict]]):
    calls = []

    def load_dataset(repo, name=None, revision=None, split=None, **kw):
        calls.append((repo, name, revision, split))
        return datasets.Dataset.from_list(tables[name])

    monkeypatch.setattr(datasets, "load_dataset", load_dataset)
    return calls


def test_hub_layout_that_does_not_fit_lists_the_columns_found(monkeypatch):
    _fake_hub(monkeypatch, {"factual": [{"Question": "؟", "Choices": ["a", "b", "c", "d"], "Label": 2}]})
    with pytest.raises(DataSchemaError) as err:
        utils.load_items("factual", {})
    message = str(err.value)
    assert "hf:divanbench/divanbench@main" in message
    assert "columns found ['Question', 'Choices', 'Label']" in message


def test_hub_layout_as_guessed_is_mapped(monkeypatch):
    hub_rows = [{"id": r["id"], "question": r["question"], "A": r["option_a"], "B": r["option_b"],
                 "C": r["option_c"], "D": r["option_d"], "answer": r["answer"]}
                for r in _rows("factual.jsonl")]  # fmt: skip
    calls = _fake_hub(monkeypatch, {"factual": hub_rows, "binary": _rows("binary.jsonl")})
    items, provenance = utils.load_items("factual", {})
    assert calls == [("divanbench/divanbench", "factual", "main", "train")]
    assert provenance == "hf:divanbench/divanbench@main split=train"
    assert items[2]["option_b"] == "به طبیعت می‌روند و سبزه را به آب می‌دهند" and items[2]["concept"] == ""
    binary, _ = utils.load_items("binary", {})
    assert len(binary) == 6


def test_hub_binary_without_pairs_names_the_row(monkeypatch):
    rows = _rows("binary.jsonl")[:3]  # elders pair + the negative of bread
    _fake_hub(monkeypatch, {"binary": rows})
    with pytest.raises(DataSchemaError, match=r"hf:divanbench/divanbench@main split=train: row 3: field 'pair_id'"):
        utils.load_items("binary", {})


def test_unreachable_hub_says_how_to_use_a_local_copy(monkeypatch):
    def offline(*args, **kwargs):
        raise ConnectionError("Couldn't reach 'divanbench/divanbench' on the Hub (OfflineModeIsEnabled)")

    monkeypatch.setattr(datasets, "load_dataset", offline)
    with pytest.raises(DataNotFoundError) as err:
        utils.load_items("scenario", {})
    message = str(err.value)
    assert "hf:divanbench/divanbench@main" in message and "OfflineModeIsEnabled" in message
    assert "divan/scenario.jsonl" in message and "data_dir" in message
