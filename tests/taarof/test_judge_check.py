"""TaarofBench's judge check: the labelled set, a team's own labels, and ``lm-eval-persian judge-check``
against a scripted judge served over HTTP (the real openai client), every figure worked out by hand."""

from __future__ import annotations

import collections
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from lm_eval_persian_culture.harness import cli
from lm_eval_persian_culture.tasks.taarof import judge_check
from lm_eval_persian_culture.tasks.taarof.prompts import strip_reply
from lm_eval_persian_culture.tasks.taarof.utils import RELEASE
from lm_eval_persian_culture.testing.openai_server import FakeOpenAIServer

BIN = Path(sys.executable).parent
_REPLY = re.compile(r"Person B says: (.*?)\n\nExpected Answer for Person B", re.S)


def reply_in(prompt: str) -> str:
    return _REPLY.search(prompt).group(1)


def serve(answers: dict[str, str]) -> FakeOpenAIServer:
    """A judge answering by the reply in its prompt (the judge sees the reply after its last "I say:")."""
    table = {strip_reply(reply): answer for reply, answer in answers.items()}
    return FakeOpenAIServer(answer=lambda prompt, body: table[reply_in(prompt)], models=("scripted",))


def judge_meta(server) -> str:
    return json.dumps({"judge_model": "scripted", "judge_base_url": server.base_url})


# --------------------------------------------------------------------------- the shipped set
def test_the_set_covers_what_the_readme_says(shared_data):
    rows = judge_check.read_labels()
    assert len(rows) >= 200
    docs, provenance = judge_check.attach_items(rows, RELEASE, {"data_dir": str(shared_data)})  # all resolve
    assert "labels:" in provenance and "sha256:" in provenance
    assert all(r["source_sha1"] for r in rows)  # each row pins its scenario
    assert {d["Topic"].split(",")[0].strip() for d in docs} == set(judge_check_topics())
    balance = collections.Counter((r["type"], r["language"], r["label"]) for r in rows)
    for kind in judge_check.TYPES:
        for lang in ("en", "fa"):
            assert balance[(kind, lang, 0)] >= 10 and balance[(kind, lang, 1)] >= 10, (kind, lang, balance)
    cases = {r["case"] for r in rows}
    assert {"clear_pass", "clear_fail", "polite_not_taarof", "partial_taarof", "refusal", "wrong_role",
            "off_topic", "wrong_language", "over_taarof"} <= cases  # fmt: skip
    assert {r["annotator"] for r in rows} == {"claude-judgecheck31"}
    # a Persian-condition doc carries the Persian rendering, so its judge prompt shows both expectations
    fa = next(d for d in docs if d["condition"] == "fa")
    assert fa["fa_Annotations"] and "در فارسی:" in judge_check.judge_prompt_of(fa)
    std = next(d for d in docs if d["condition"] == "standard")
    assert std["fa_Annotations"] == "" and "در فارسی:" not in judge_check.judge_prompt_of(std)


def judge_check_topics():
    from lm_eval_persian_culture.tasks.taarof.utils import TOPICS

    return TOPICS


# --------------------------------------------------------------------------- a hand-worked example
# (item, condition, reply, label, the scripted judge's answer)
HAND = [
    ("taarof-expected:0", "standard", "Thanks, I'll keep it then!", 0, "No"),  # nn
    ("taarof-expected:0", "standard", "No, please, take it back, I insist.", 1, "Yes"),  # yy
    ("taarof-expected:1", "standard", "Thank you, but I don't want to trouble you.", 1, "Yes"),  # yy
    ("taarof-expected:1", "fa", "باشه، بریم!", 0, "Yes"),  # ny
    ("taarof-expected:2", "standard", "Thank you, but I really must go now.", 1, "No"),  # yn
    ("non-taarof:0", "standard", "Of course, I'd be glad to taste it.", 1, "Yes"),  # yy
    ("non-taarof:0", "fa", "حتماً، با کمال میل می‌چشم.", 1, "No"),  # yn
    ("non-taarof:1", "standard", "Oh no, I couldn't possibly.", 0, "No"),  # nn
    ("non-taarof:2", "fa", "ممنون، حتماً میام.", 1, "Yes."),  # yy
    ("non-taarof:3", "standard", "I'd rather not, thanks.", 0, "No"),  # nn
    ("taarof-expected:3", "standard", "No, please, I insist on paying.", 1, "It depends."),  # no verdict
]


def write_hand_file(tmp_path: Path) -> Path:
    path = tmp_path / "ours.jsonl"
    lines = [
        json.dumps({"item": item, "condition": cond, "reply": reply, "label": label, "annotator": "A"},
                   ensure_ascii=False)
        for item, cond, reply, label, _ in HAND
    ]  # fmt: skip
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def run_in_process(args: list[str], capsys) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exit_:
        cli.main(args)
    out, err = capsys.readouterr()
    return exit_.value.code, out, err


def test_hand_worked_check_with_own_labels(shared_data, tmp_path, capsys):
    """Over the 10 judged rows: yy 4, yn 2, ny 1, nn 3. Agreement 7/10; labels 6 Yes / 4 No, judge 5 / 5, so
    p_e = .6*.5 + .4*.5 = .5 and kappa = (.7 - .5) / .5 = .4. Wilson 95% for 7/10: [0.3968, 0.8922].
    taarof-expected (5 judged, 1 without verdict): agreement 3/5, p_e = .6*.6 + .4*.4 = .52, kappa = .08/.48 = 1/6.
    non-taarof: 4/5, p_e = .6*.4 + .4*.6 = .48, kappa = .32/.52 = 8/13. en: 6/7, p_e = 24/49, kappa = 18/25.
    fa: 1/3, p_e = 5/9, kappa = -.5."""
    labels = write_hand_file(tmp_path)
    with serve({reply: answer for _, _, reply, _, answer in HAND}) as server:
        code, out, err = run_in_process(
            ["judge-check", "--labels", str(labels), "--data_dir", str(shared_data), "--metadata", judge_meta(server),
             "--json", "-"], capsys)  # fmt: skip
    assert code == 0, err
    s = json.loads(out)["judges"]["scripted"]
    assert (s["n"], s["judged"], s["no_verdict"], s["unparseable"], s["errors"]) == (11, 10, 1, 1, 0)
    assert s["confusion"] == {"label_yes_judge_yes": 4, "label_yes_judge_no": 2,
                              "label_no_judge_yes": 1, "label_no_judge_no": 3}  # fmt: skip
    assert s["agreement"] == pytest.approx(0.7)
    assert s["agreement_strict"] == pytest.approx(7 / 11)
    assert s["kappa"] == pytest.approx(0.4)
    assert s["agreement_ci95"] == pytest.approx([0.3968, 0.8922], abs=1e-4)
    assert s["by_type"]["taarof-expected"]["agreement"] == pytest.approx(0.6)
    assert s["by_type"]["taarof-expected"]["kappa"] == pytest.approx(1 / 6)
    assert s["by_type"]["taarof-expected"]["no_verdict"] == 1
    assert s["by_type"]["non-taarof"]["agreement"] == pytest.approx(0.8)
    assert s["by_type"]["non-taarof"]["kappa"] == pytest.approx(8 / 13)
    assert s["by_language"]["en"]["agreement"] == pytest.approx(6 / 7)
    assert s["by_language"]["en"]["kappa"] == pytest.approx(18 / 25)
    assert s["by_language"]["fa"]["agreement"] == pytest.approx(1 / 3)
    assert s["by_language"]["fa"]["kappa"] == pytest.approx(-0.5)
    assert s["paper"]["agreement"] == 0.94 and s["paper"]["n"] == 50


def test_the_same_labels_as_csv_give_the_same_figures(shared_data, tmp_path, capsys):
    path = tmp_path / "ours.csv"
    import csv

    with open(path, "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerow(["item", "reply", "label", "condition"])
        for item, cond, reply, label, _ in HAND:
            w.writerow([item, reply, label, cond])
    with serve({reply: answer for _, _, reply, _, answer in HAND}) as server:
        code, out, err = run_in_process(
            ["judge-check", "--labels", str(path), "--data_dir", str(shared_data), "--metadata", judge_meta(server),
             "--json", "-"], capsys)  # fmt: skip
    assert code == 0, err
    s = json.loads(out)["judges"]["scripted"]
    assert (s["agreement"], s["judged"]) == (pytest.approx(0.7), 10) and s["kappa"] == pytest.approx(0.4)


# --------------------------------------------------------------------------- the whole set, real CLI
def hand_kappa(pairs):
    n = len(pairs)
    p_o = sum(a == b for a, b in pairs) / n
    label_yes = sum(a for a, _ in pairs) / n
    judge_yes = sum(b for _, b in pairs) / n
    p_e = label_yes * judge_yes + (1 - label_yes) * (1 - judge_yes)
    return (p_o - p_e) / (1 - p_e)


def test_scripted_judge_on_the_whole_set_over_http(shared_data, tmp_path):
    """The judge agrees with every label except the first 30 rows (flipped) and rows 31-35 ("Maybe.")."""
    rows = [json.loads(line) for line in judge_check.SET_PATH.read_text(encoding="utf-8").splitlines()]
    answers, pairs = {}, []
    for i, row in enumerate(rows):
        agree = i >= 35
        verdict = row["label"] if agree else 1 - row["label"]
        answers[row["reply"]] = "Maybe." if 30 <= i < 35 else ("Yes" if verdict else "No")
        if not 30 <= i < 35:
            pairs.append((row["label"], verdict))
    out = tmp_path / "check.json"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(Path.cwd()), os.environ.get("PYTHONPATH")]))}
    with serve(answers) as server:
        run = subprocess.run(
            [str(BIN / "lm-eval-persian"), "judge-check", "--data_dir", str(shared_data), "--metadata",
             judge_meta(server), "--json", str(out)],
            capture_output=True, text=True, env=env, timeout=600,
        )  # fmt: skip
    assert run.returncode == 0, run.stderr[-2000:]
    s = json.loads(out.read_text())["judges"]["scripted"]
    assert (s["n"], s["judged"], s["no_verdict"]) == (len(rows), len(rows) - 5, 5)
    assert s["agreement"] == pytest.approx((len(rows) - 35) / (len(rows) - 5))
    assert s["kappa"] == pytest.approx(hand_kappa(pairs))
    assert "paper: gpt-4 (temperature 0) 94% agreement with human labels, n=50" in run.stdout
    per_item = json.loads(out.read_text())["per_item"]
    assert [p["check_id"] for p in per_item] == [r["check_id"] for r in rows]
    assert per_item[0]["verdicts"]["scripted"] == 1 - rows[0]["label"]


@pytest.mark.parametrize("threshold, code", [("0.6", 0), ("0.7", 1)])
def test_threshold_exit_status(shared_data, tmp_path, capsys, threshold, code):
    """Strict agreement of the hand example is 7/11 = 0.636: above 0.6, below 0.7 (exit 1, one line)."""
    labels = write_hand_file(tmp_path)
    with serve({reply: answer for _, _, reply, _, answer in HAND}) as server:
        got, out, err = run_in_process(
            ["judge-check", "--labels", str(labels), "--data_dir", str(shared_data), "--metadata", judge_meta(server),
             "--threshold", threshold], capsys)  # fmt: skip
    assert got == code
    if code:
        assert err.strip().splitlines()[-1] == (
            f"lm-eval-persian judge-check: strict agreement below --threshold {threshold}: scripted 0.636"
        )
    assert "agreement  70.0%" in out


# --------------------------------------------------------------------------- a team's own file: errors
BAD_FILES = [
    ("bad.jsonl", '{"item": "taarof-expected:0", "reply": "x"}\n', "line 1: field 'label'"),
    ("bad.jsonl", '{"item": "taarof-expected:0", "reply": "x", "label": 1}\n{"item": "taarof-expected:1", '
                  '"reply": "y", "label": 2}\n', "line 2: field 'label'"),
    ("bad.jsonl", '{"item": "taarof:0", "reply": "x", "label": 1}\n', "line 1: field 'item'"),
    ("bad.jsonl", '{"item": "non-taarof:139", "reply": "x", "label": 1}\n', "line 1: field 'item'"),
    ("bad.jsonl", '{"item": "non-taarof:1", "reply": "", "label": 1}\n', "line 1: field 'reply'"),
    ("bad.jsonl", '{"item": "non-taarof:1", "reply": "x", "label": 1, "condition": "farsi"}\n',
     "line 1: field 'condition'"),
    ("bad.jsonl", '{"item": "non-taarof:1", "reply": "x", "label": 1}\n{"item": "non-taarof:1", "reply": "x", "label": '
                  '1\n', "line 2: not valid JSON"),
    ("bad.jsonl", '{"check_id": "a", "item": "non-taarof:1", "reply": "x", "label": 1}\n{"check_id": "a", "item": '
                  '"non-taarof:2", "reply": "y", "label": 0}\n', "line 2: field 'check_id'"),
    ("bad.jsonl", '{"item": "non-taarof:1", "reply": "x", "label": 1, "source_sha1": "0000"}\n',
     "line 1: field 'source_sha1'"),
    ("bad.csv", "item,label\nnon-taarof:1,1\n", "line 1: the CSV header lacks field(s) ['reply']"),
    ("bad.csv", "item,reply,label\nnon-taarof:1,fine,1\nnon-taarof:2,fine,maybe\n", "line 3: field 'label'"),
]  # fmt: skip


@pytest.mark.parametrize("name, text, expected", BAD_FILES, ids=[e for _, _, e in BAD_FILES])
def test_own_labels_errors_name_file_line_and_field(shared_data, tmp_path, capsys, name, text, expected):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    meta = json.dumps({"judge_model": "scripted", "judge_base_url": "http://127.0.0.1:9/v1"})  # never called
    code, _, err = run_in_process(
        ["judge-check", "--labels", str(path), "--data_dir", str(shared_data), "--metadata", meta], capsys
    )
    assert code == 2
    # the judges' usage lines are the process's (earlier tests' judges, in one pytest process), not this error's
    lines = [line for line in err.strip().splitlines() if not line.startswith("[lm-eval-persian] judge ")]
    assert len(lines) == 1 and "Traceback" not in err, err
    assert lines[0].startswith(f"lm-eval-persian: error: {path}: ") or f"{path}: " in lines[0], lines[0]
    assert expected in lines[0], lines[0]


def test_no_judge_is_a_one_line_error(capsys):
    code, _, err = run_in_process(["judge-check"], capsys)
    assert code == 2 and "judge-check needs a judge" in err and "Traceback" not in err


def test_openai_judge_without_its_key_is_refused_before_anything_runs(capsys):
    code, _, err = run_in_process(["judge-check", "--metadata", '{"judge_model": "gpt-4-0613"}'], capsys)
    assert code == 2 and "$OPENAI_API_KEY is not set" in err and "Traceback" not in err


@pytest.mark.e2e
def test_an_in_process_hf_judge(shared_data, tiny_model, capsys):
    """The tiny random model as an ``hf:`` judge on 4 rows: whatever it answers, every row is accounted for."""
    meta = json.dumps({"judge_model": f"hf:{tiny_model}", "judge_device": "cpu"})
    code, out, err = run_in_process(
        ["judge-check", "--data_dir", str(shared_data), "--metadata", meta, "--limit", "4", "--json", "-"], capsys
    )
    assert code == 0, err
    report = json.loads(out)
    s = report["judges"][f"hf:{tiny_model}"]
    assert s["n"] == 4 and s["judged"] + s["no_verdict"] == 4
    assert s["judge"]["backend"] == "transformers (in-process)" and s["judge"]["revision"]
    assert len(report["per_item"]) == 4


def test_a_jury_of_three_side_by_side_with_its_members(shared_data, tmp_path, capsys):
    """Members: a = the hand example's answers, b = always the label, c = always No. Majority per row
    (label: a b c -> jury): 1 (0: N N N -> N), 2 (1: Y Y N -> Y), 3 (1: Y Y N -> Y), 4 (0: Y N N -> N),
    5 (1: N Y N -> N), 6 (1: Y Y N -> Y), 7 (1: N Y N -> N), 8 (0: N N N -> N), 9 (1: Y Y N -> Y),
    10 (0: N N N -> N), 11 (1: a unreadable, Y N: a tie -> not met, N). Jury: yy 4, yn 3, ny 0, nn 4: 8/11;
    labels 7 Yes, jury 4 Yes: p_e = 56/121, kappa = (88 - 56) / (121 - 56) = 32/65.
    Fleiss' kappa over rows 1-10 (all three answered), Yes counts 0 2 2 1 1 2 1 0 2 0: P_i is 1 for the
    three unanimous rows and 1/3 for the others, mean 8/15; p_yes = 11/30, P_e = (121 + 361)/900 = 241/450;
    kappa = (240/450 - 241/450) / (209/450) = -1/209."""
    labels = write_hand_file(tmp_path)
    table = {strip_reply(reply): (answer, label) for _, _, reply, label, answer in HAND}

    def answer(prompt: str, body: dict) -> str:
        given, label = table[reply_in(prompt)]
        return {"a": given, "b": "Yes" if label else "No", "c": "No"}[body["model"]]

    with FakeOpenAIServer(answer=answer, models=("a", "b", "c")) as server:
        meta = json.dumps({"judge_model": ["a", "b", "c"], "judge_base_url": server.base_url})
        code, out, err = run_in_process(
            ["judge-check", "--labels", str(labels), "--data_dir", str(shared_data), "--metadata", meta, "--json", "-"],
            capsys,
        )
    assert code == 0, err
    judges = json.loads(out)["judges"]
    assert list(judges) == ["jury(a, b, c)/a", "jury(a, b, c)/b", "jury(a, b, c)/c", "jury(a, b, c)"]
    assert judges["jury(a, b, c)/a"]["agreement"] == pytest.approx(0.7)  # the hand example's judge
    assert judges["jury(a, b, c)/b"]["agreement"] == 1.0 and judges["jury(a, b, c)/b"]["kappa"] == 1.0
    assert judges["jury(a, b, c)/c"]["agreement"] == pytest.approx(4 / 11) and judges["jury(a, b, c)/c"]["kappa"] == 0
    jury = judges["jury(a, b, c)"]
    assert (jury["n"], jury["judged"]) == (11, 11)
    assert jury["confusion"] == {"label_yes_judge_yes": 4, "label_yes_judge_no": 3,
                                 "label_no_judge_yes": 0, "label_no_judge_no": 4}  # fmt: skip
    assert jury["agreement"] == pytest.approx(8 / 11) and jury["kappa"] == pytest.approx(32 / 65)
    assert jury["judge"]["jury"]["ties"] == 1 and jury["judge"]["jury"]["tie_rule"] == "not_met"
    assert jury["judge"]["jury"]["fleiss_kappa"] == pytest.approx(-1 / 209)
