"""TaarofBench's judge check: how far a judge is from labelled replies, the paper's protocol for any judge.

The paper validated its GPT-4 judge on 50 hand-labelled scenario-reply pairs (94% agreement, sec. 3
"Evaluation Protocol"). The pack ships a labelled set (``judge_check/taarof_judge_check.jsonl``, see the
README for how it was made) and reads a team's own labels in the same format (JSONL or CSV: ``item``,
``reply``, ``label``, optional ``condition``, ``annotator``, ``check_id``). Each item names a release
scenario as ``<type>:<row>`` (the release has no id field; ``row`` is the 0-based line of
``taarof-expected.jsonl`` / ``non-taarof.jsonl``), checked against the data when read.

Two ways to run it share this module: ``lm-eval-persian judge-check`` asks configured judges (served,
``hf:``) through the pack's Judge, and the lm-eval task ``taarof_judge_check`` makes the evaluated model
the judge (its prompt is the judge prompt; its generation is parsed as the verdict), so vLLM / HF
backends batch it. Both report the same figures (:func:`summarize`).
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lm_eval_persian_culture.errors import PackUserError
from lm_eval_persian_culture.scoring.agreement import cohen_kappa
from lm_eval_persian_culture.scoring.proportions import wilson_interval

SET_PATH = Path(__file__).resolve().parent / "judge_check" / "taarof_judge_check.jsonl"
LABELS_SETTING = "judge_check_file"  # --metadata key of the task: a team's own labels instead of the set
PAPER_REFERENCE = {
    "judge": "gpt-4 (temperature 0)",
    "agreement": 0.94,
    "n": 50,
    "source": "TaarofBench paper, sec. 3 'Evaluation Protocol': 50 randomly sampled scenario-response "
    "pairs labelled by the authors, 94% agreement between human and GPT-4 judgments",
}
TYPES = ("taarof-expected", "non-taarof")
CONDITIONS = {"standard": "en", "fa": "fa"}  # condition -> the language of its prompt and expected reply
SPLIT_OF_TYPE = {"taarof-expected": "expected", "non-taarof": "non_taarof"}
ITEM = re.compile(r"^\s*(taarof-expected|non-taarof)\s*:\s*(\d+)\s*$")
REQUIRED = ("item", "reply", "label")
OPTIONAL = ("condition", "annotator", "check_id", "case", "note", "source_sha1", "type", "row", "topic", "language")
_LABELS = {"1": 1, "0": 0, "yes": 1, "no": 0, "true": 1, "false": 0}


class JudgeCheckInputError(PackUserError, ValueError):
    """A labels file that does not have the documented shape, or that names items the data lacks."""


# --------------------------------------------------------------------------- reading labels
def _records(path: Path) -> list[tuple[int, dict]]:
    """(line number, raw record) from a JSONL or CSV file (by suffix; CSV with a header line)."""
    if not path.is_file():
        raise JudgeCheckInputError(f"{path}: no such file")
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as err:
        raise JudgeCheckInputError(f"{path}: not UTF-8 text ({err.reason} at byte {err.start})") from None
    if path.suffix.lower() == ".csv":
        reader = csv.DictReader(io.StringIO(text))
        missing = [f for f in REQUIRED if f not in (reader.fieldnames or [])]
        if missing:
            raise JudgeCheckInputError(
                f"{path}: line 1: the CSV header lacks field(s) {missing} (needs {list(REQUIRED)})"
            )
        # line numbers count the header as line 1 (a quoted newline inside a field shifts later rows)
        return [(reader.line_num, dict(row)) for row in reader]
    out = []
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as err:
            raise JudgeCheckInputError(
                f"{path}: line {lineno}: not valid JSON ({err.msg} at column {err.colno})"
            ) from None
        if not isinstance(rec, dict):
            raise JudgeCheckInputError(f"{path}: line {lineno}: expected a JSON object with {list(REQUIRED)}")
        out.append((lineno, rec))
    return out


def read_labels(path: str | Path | None = None) -> list[dict]:
    """The labelled rows of a judge-check file (the shipped set by default), checked field by field."""
    path = Path(path) if path else SET_PATH
    rows, seen = [], {}
    records = _records(path)
    if not records:
        raise JudgeCheckInputError(f"{path}: no labelled rows")
    for lineno, rec in records:
        where = f"{path}: line {lineno}"
        for name in REQUIRED:
            value = rec.get(name)
            if value is None or (isinstance(value, str) and not value.strip()):
                raise JudgeCheckInputError(f"{where}: field '{name}' is missing or empty")
        match = ITEM.match(str(rec["item"]))
        if match is None:
            raise JudgeCheckInputError(
                f"{where}: field 'item': {rec['item']!r} is not '<type>:<row>' with type in {list(TYPES)} "
                "(e.g. 'taarof-expected:0', the first line of taarof-expected.jsonl)"
            )
        raw_label = rec["label"]
        if isinstance(raw_label, float) and raw_label in (0.0, 1.0):  # 1.0 / 0.0 from a spreadsheet export
            raw_label = int(raw_label)
        label = _LABELS.get(str(raw_label).strip().lower())
        if label is None:
            raise JudgeCheckInputError(
                f"{where}: field 'label': {rec['label']!r} is not 1 or 0 (1 = the reply meets the expectation)"
            )
        condition = str(rec.get("condition") or "standard").strip().lower()
        if condition not in CONDITIONS:
            raise JudgeCheckInputError(f"{where}: field 'condition': {condition!r} is not one of {list(CONDITIONS)}")
        if not isinstance(rec["reply"], str):
            raise JudgeCheckInputError(f"{where}: field 'reply' must be text")
        check_id = str(rec.get("check_id") or f"line-{lineno}").strip()
        if check_id in seen:
            raise JudgeCheckInputError(f"{where}: field 'check_id': {check_id!r} repeats line {seen[check_id]}")
        seen[check_id] = lineno
        rows.append({
            "check_id": check_id,
            "item": f"{match[1]}:{int(match[2])}",
            "type": match[1],
            "row": int(match[2]),
            "condition": condition,
            "language": CONDITIONS[condition],
            "reply": rec["reply"],
            "label": label,
            "case": str(rec.get("case") or ""),
            "annotator": str(rec.get("annotator") or ""),
            "source_sha1": str(rec.get("source_sha1") or ""),
            "labels_file": str(path),
            "line": lineno,
        })  # fmt: skip
    return rows


@dataclass(frozen=True)
class Release:
    """How the release is read, handed in by ``utils.RELEASE`` (this module does not import utils: utils
    imports it for the task's hooks)."""

    rows: Callable[[str, dict], tuple[list[dict], str]]  # (split, settings) -> (rows, provenance)
    persian_rows: Callable[[str, dict, list[dict]], tuple[list[dict], str]]  # the Persian rendering, checked
    scenario_sha1: Callable[[dict], str]
    fields: tuple[str, ...]  # the scenario fields the Persian rendering renders
    reply_format: Callable[[dict], str]  # the judge_reply_format setting, checked


def attach_items(rows: Sequence[dict], release: Release, settings: Mapping | None = None) -> tuple[list[dict], str]:
    """(docs, provenance): each labelled row joined with its release scenario (and the Persian rendering for
    ``fa``), the doc the judge prompt is built from. An item the release lacks, or whose scenario changed,
    is refused. Every doc has the ``fa_*`` fields ("" in the standard condition): one set of columns."""
    from lm_eval_persian_culture.data.sources import sha256_file

    settings = dict(settings or {})
    english: dict[str, list[dict]] = {}
    persian: dict[str, list[dict]] = {}
    provenance: dict[str, str] = {}
    docs = []
    for row in rows:
        split = SPLIT_OF_TYPE[row["type"]]
        if split not in english:
            english[split], provenance[split] = release.rows(split, settings)
        found = english[split]
        where = f"{row['labels_file']}: line {row['line']}: field 'item'"
        if row["row"] >= len(found):
            raise JudgeCheckInputError(
                f"{where}: {row['item']!r}: the release's {row['type']} file has {len(found)} rows (0-{len(found) - 1})"
            )
        scenario = found[row["row"]]
        if row["source_sha1"] and row["source_sha1"] != release.scenario_sha1(scenario):
            raise JudgeCheckInputError(
                f"{row['labels_file']}: line {row['line']}: field 'source_sha1' does not match scenario {row['item']} "
                "of the data read (the labels were made for a different release)"
            )
        doc = {**scenario, "row": row["row"], **{f"fa_{k}": "" for k in release.fields}}
        if row["condition"] == "fa":
            if split not in persian:
                persian[split], provenance[f"{split} persian"] = release.persian_rows(split, settings, found)
            doc.update({f"fa_{k}": persian[split][row["row"]][k] for k in release.fields})
        doc.update(
            {k: row[k] for k in ("check_id", "item", "condition", "language", "reply", "label", "case", "annotator")}
        )
        doc["judge_reply_format"] = release.reply_format(settings)
        docs.append(doc)
    files = sorted({row["labels_file"] for row in rows})
    labels = "; ".join(f"labels:{f} sha256:{sha256_file(Path(f))}" for f in files)
    return docs, "; ".join([*provenance.values(), labels])


def load_docs(
    release: Release, settings: Mapping | None = None, labels: str | Path | None = None
) -> tuple[list[dict], str]:
    """(docs, provenance): labels (``labels``, else ``judge_check_file`` in settings, else the set) + items."""
    settings = dict(settings or {})
    return attach_items(read_labels(labels or settings.get(LABELS_SETTING)), release, settings)


def judge_prompt_of(doc: Mapping) -> str:
    """The paper's judge prompt for the item and the labelled reply (what the judge is asked)."""
    from lm_eval_persian_culture.tasks.taarof.prompts import judge_prompt

    return judge_prompt(dict(doc), doc["reply"])


# --------------------------------------------------------------------------- figures
def _agreement(pairs: Sequence[tuple[int, int | None]]) -> dict:
    """Figures over (label, verdict) pairs; a verdict of None (no readable answer) is counted, not compared."""
    judged = [(lab, v) for lab, v in pairs if v is not None]
    yy = sum(1 for lab, v in judged if lab == 1 and v == 1)
    yn = sum(1 for lab, v in judged if lab == 1 and v == 0)
    ny = sum(1 for lab, v in judged if lab == 0 and v == 1)
    nn = sum(1 for lab, v in judged if lab == 0 and v == 0)
    k, n = yy + nn, len(judged)
    low, high = wilson_interval(k, n)
    return {
        "n": len(pairs),
        "judged": n,
        "no_verdict": len(pairs) - n,
        "agreement": k / n if n else math.nan,
        "agreement_ci95": [low, high],
        "agreement_strict": k / len(pairs) if pairs else math.nan,
        "kappa": cohen_kappa(yy, yn, ny, nn),
        "confusion": {
            "label_yes_judge_yes": yy,
            "label_yes_judge_no": yn,
            "label_no_judge_yes": ny,
            "label_no_judge_no": nn,
        },  # fmt: skip
    }


def summarize(records: Sequence[Mapping]) -> dict:
    """The check's figures from per-item records ``{label, verdict, type, language}`` (verdict 1/0/None).

    ``agreement`` is over the items the judge gave a verdict (the paper's figure is of this kind; its
    Wilson 95% interval beside it); ``agreement_strict`` counts an item without a verdict as a disagreement
    (what ``--threshold`` compares); ``kappa`` is Cohen's kappa between the labels and the verdicts.
    """
    pairs = [(int(r["label"]), None if r.get("verdict") is None else int(r["verdict"])) for r in records]
    out = _agreement(pairs)
    for field, key in (("type", "by_type"), ("language", "by_language")):
        values = sorted({r[field] for r in records})
        out[key] = {v: _agreement([p for p, r in zip(pairs, records) if r[field] == v]) for v in values}
    out["labels"] = {"yes": sum(lab for lab, _ in pairs), "no": sum(1 - lab for lab, _ in pairs)}
    out["paper"] = dict(PAPER_REFERENCE)
    return out


def _pct(x: float) -> str:
    return "  n/a" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{100 * x:5.1f}%"


def _num(x: float) -> str:
    return "  n/a" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:6.3f}"


def format_summary(name: str, s: Mapping) -> str:
    """A judge's figures as text, the paper's GPT-4 figure beside them."""
    low, high = s["agreement_ci95"]
    c = s["confusion"]
    lines = [
        f"judge: {name}",
        f"  agreement {_pct(s['agreement'])} (95% Wilson {_pct(low).strip()}-{_pct(high).strip()}) over "
        f"{s['judged']} judged of {s['n']} items; kappa {_num(s['kappa']).strip()}; "
        f"no verdict {s['no_verdict']}; strict (no verdict = disagreement) {_pct(s['agreement_strict']).strip()}",
        f"  paper: {s['paper']['judge']} {100 * s['paper']['agreement']:.0f}% agreement with human labels, "
        f"n={s['paper']['n']}",
        "  confusion (label x judge):   judge Yes  judge No",
        f"    label Yes (meets)        {c['label_yes_judge_yes']:9d} {c['label_yes_judge_no']:9d}",
        f"    label No  (does not)     {c['label_no_judge_yes']:9d} {c['label_no_judge_no']:9d}",
    ]
    for key, title in (("by_type", "type"), ("by_language", "language")):
        for value, g in s[key].items():
            lines.append(
                f"  {title} {value:16s} n={g['n']:4d} agreement {_pct(g['agreement'])} kappa {_num(g['kappa'])} "
                f"no verdict {g['no_verdict']}"
            )
    return "\n".join(lines)


def records_of(docs: Sequence[Mapping], verdicts: Sequence[Any]) -> list[dict]:
    """Per-item records for :func:`summarize` (verdict True/False/None as 1/0/None)."""
    return [
        {"check_id": d["check_id"], "label": d["label"], "verdict": None if v is None else int(bool(v)),
         "type": d["Type"], "language": d["language"]}
        for d, v in zip(docs, verdicts)
    ]  # fmt: skip


# --------------------------------------------------------------------------- the lm-eval task
# ``taarof_judge_check``: the evaluated model is the candidate judge. Per doc, process_results gives every
# metric the same record; each aggregation below reads what it needs (pure: lm-eval 0.5 may re-run them).
def task_record(doc: Mapping, generation: str) -> dict:
    """The per-doc record of the task: the label, the verdict read from the model's answer, type, language."""
    from lm_eval_persian_culture.judge.parse import parse_yes_no

    verdict = parse_yes_no(generation)
    return {
        "check_id": doc["check_id"],
        "label": int(doc["label"]),
        "verdict": None if verdict is None else int(verdict),
        "type": doc["Type"],
        "language": doc["language"],
    }


def _pairs(items: Sequence[Mapping], **where: str) -> list[tuple[int, int | None]]:
    return [(r["label"], r["verdict"]) for r in items if all(r[k] == v for k, v in where.items())]


def _figure(key: str, **where: str):
    def aggregate(items: Sequence[Mapping]) -> float:
        return _agreement(_pairs(items, **where))[key]

    return aggregate


def _ci(side: int):
    def aggregate(items: Sequence[Mapping]) -> float:
        return _agreement(_pairs(items))["agreement_ci95"][side]

    return aggregate


def _cell(name: str):
    def aggregate(items: Sequence[Mapping]) -> int:
        return _agreement(_pairs(items))["confusion"][name]

    return aggregate


_SLICES = {"expected": {"type": "taarof-expected"}, "non_taarof": {"type": "non-taarof"},
           "en": {"language": "en"}, "fa": {"language": "fa"}}  # fmt: skip
TASK_AGGREGATIONS = {
    "agreement": _figure("agreement"),
    "agreement_ci95_low": _ci(0),
    "agreement_ci95_high": _ci(1),
    "agreement_strict": _figure("agreement_strict"),
    "kappa": _figure("kappa"),
    "no_verdict": _figure("no_verdict"),
    **{
        name: _cell(name)
        for name in ("label_yes_judge_yes", "label_yes_judge_no", "label_no_judge_yes", "label_no_judge_no")
    },  # fmt: skip
    **{f"agreement_{s}": _figure("agreement", **w) for s, w in _SLICES.items()},
    **{f"kappa_{s}": _figure("kappa", **w) for s, w in _SLICES.items()},
}
TASK_LOWER_IS_BETTER = frozenset({"no_verdict", "label_yes_judge_no", "label_no_judge_yes"})
