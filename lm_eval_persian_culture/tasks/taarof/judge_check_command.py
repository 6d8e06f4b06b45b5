"""``lm-eval-persian judge-check``: TaarofBench's judge check for configured judges (served or ``hf:``).

Each ``--metadata`` names one judge, in the settings a run takes (``judge_model``, ``judge_base_url``, ...,
or the ``PERSIAN_CULTURE_JUDGE_*`` variables when none is given); several are checked side by side. Every
labelled reply is put to each judge in the paper's judge prompt (``prompts.judge_prompt``), the answer
is read with the pack's Yes/No parser, and the figures of :func:`judge_check.summarize` are printed, written
as JSON with ``--json``, and compared with ``--threshold``: exit status 1, one line, when a judge's strict
agreement (an item without a verdict counts as a disagreement) is below it. Bad input exits 2 (the CLI guard).

A ``--metadata`` naming a jury (``judge_model`` as a list, or ``judge_jury``; ``judge/jury.py``) is checked
as a jury: every member is asked every item, and each member's figures and the jury's (strict majority of
the members that answered, the jury's tie rule) are reported side by side, with the members' pairwise
agreement and Fleiss' kappa.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from lm_eval_persian_culture.judge import VERDICT_MAX_TOKENS, Judge, JudgeConfigError, JudgeSettings
from lm_eval_persian_culture.judge.filter import configured_jury
from lm_eval_persian_culture.judge.jury import Jury, jury_summary, majority
from lm_eval_persian_culture.scoring.records import json_safe
from lm_eval_persian_culture.tasks.taarof.judge_check import (
    JudgeCheckInputError,
    format_summary,
    judge_prompt_of,
    load_docs,
    records_of,
    summarize,
)
from lm_eval_persian_culture.tasks.taarof.prompts import JUDGE_TEMPLATE_IDS
from lm_eval_persian_culture.tasks.taarof.utils import RELEASE

PROG = "lm-eval-persian judge-check"


class ThresholdNotMet(Exception):
    """A judge's agreement is below --threshold (exit status 1, not a user error)."""


def judge_settings(metadatas: Sequence[str] | None) -> list[Jury]:
    """One judge or jury per ``--metadata`` JSON (none given: the environment's judge)."""
    out = []
    for text in metadatas or ["{}"]:
        try:
            meta = json.loads(text)
        except json.JSONDecodeError as err:
            raise JudgeCheckInputError(
                f"--metadata {text!r}: not valid JSON ({err.msg} at column {err.colno})"
            ) from None
        if not isinstance(meta, dict):
            raise JudgeCheckInputError(f"--metadata {text!r}: expected a JSON object of judge settings")
        js = configured_jury(meta)  # as a run checks it: an OpenAI judge needs its key, hf: its model
        if js is None or js.disabled:
            raise JudgeConfigError(
                "judge-check needs a judge: --metadata '{\"judge_model\": ...}' (with judge_base_url for a served "
                "model, or hf:<model> in-process), or PERSIAN_CULTURE_JUDGE_MODEL"
            )
        out.append(js)
    return out


def ask(docs: Sequence[Mapping], settings: Sequence[Jury]) -> dict[str, dict]:
    """{judge name: {"verdicts": [...], "usage": ..., "judge": ...}} for every judge, items in order; a jury
    adds each member (``<jury>/<member>``) and then the jury itself (its majority verdicts)."""
    prompts = [judge_prompt_of(doc) for doc in docs]
    fmt = docs[0]["judge_reply_format"] if docs else "paper"
    out: dict[str, dict] = {}
    for jury in settings:
        if not jury.is_jury:
            _ask_one(out, jury.first, jury.first.model, prompts, fmt)
            continue
        jury_name = _unique_name(out, jury.model)
        members = [_ask_one(out, js, f"{jury_name}/{n}", prompts, fmt) for js, n in zip(jury.members, jury.names)]
        votes = [[out[m]["verdicts"][i] for m in members] for i in range(len(prompts))]
        decided = [majority(row, jury.tie_rule) for row in votes]
        verdicts = [verdict for verdict, _ in decided]
        out[jury_name] = {
            "verdicts": verdicts,
            "raw": [None] * len(prompts),
            "errors": sum(v is None for v in verdicts),
            "unparseable": 0,
            "judge": {"jury": jury_summary(jury, votes, verdicts, sum(tie for _, tie in decided))},
            "usage": "; ".join(out[m]["usage"] for m in members),
        }
    return out


def _unique_name(out: Mapping, name: str) -> str:
    return name if name not in out else f"{name}#{len(out) + 1}"


def _ask_one(out: dict, js: JudgeSettings, name: str, prompts: Sequence[str], fmt: str) -> str:
    """Ask one judge every prompt; its answers go into ``out`` under a unique name, which is returned."""
    name = _unique_name(out, name)
    with Judge(js) as judge:
        results = judge.judge_many(
            prompts,
            template_id=JUDGE_TEMPLATE_IDS[fmt],
            desc=f"judge-check ({js.model})",
            max_tokens=VERDICT_MAX_TOKENS,
        )
        shown = {k: v for k, v in js.public_dict().items() if k in ("temperature", "system_prompt", "max_tokens")}
        out[name] = {
            "verdicts": [r.verdict for r in results],
            "raw": [r.raw for r in results],
            "errors": sum(r.error is not None and r.raw is None for r in results),
            "unparseable": sum(r.error is not None and r.raw is not None for r in results),
            "judge": {**judge.describe(), "settings": shown},
            "usage": judge.usage.summary(),
        }
    return name


def check(docs: Sequence[Mapping], settings: Sequence[Jury]) -> dict:
    """The machine-readable report: per judge its figures, and per item label and verdicts."""
    answers = ask(docs, settings)
    report = {"items": len(docs), "labels_files": sorted({d.get("labels_file", "") for d in docs} - {""}),
              "judges": {}, "per_item": []}  # fmt: skip
    for name, a in answers.items():
        summary = summarize(records_of(docs, a["verdicts"]))
        summary.update(errors=a["errors"], unparseable=a["unparseable"], judge=a["judge"], usage=a["usage"])
        report["judges"][name] = summary
    for i, doc in enumerate(docs):
        report["per_item"].append({
            "check_id": doc["check_id"], "item": doc["item"], "condition": doc["condition"],
            "case": doc.get("case", ""), "label": doc["label"],
            "verdicts": {name: (None if a["verdicts"][i] is None else int(bool(a["verdicts"][i])))
                         for name, a in answers.items()},
            "raw": {name: a["raw"][i] for name, a in answers.items()},
        })  # fmt: skip
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="TaarofBench's judge check: agreement of configured judges with labelled replies (the pack's "
        "set, labelled by an AI assistant from the annotations; or your own human labels), with a Wilson "
        "interval, Cohen's kappa and the confusion matrix, per type "
        "and per language, beside the paper's GPT-4 figure (94%, n=50).",
    )
    parser.add_argument("--metadata", action="append", default=None,
                        help="judge settings as JSON, e.g. '{\"judge_model\": \"gpt-4-0613\"}'; repeat for several "
                             "judges (default: the PERSIAN_CULTURE_JUDGE_* variables)")  # fmt: skip
    parser.add_argument("--labels", default=None, help="your own labels (JSONL or CSV: item, reply, label[, condition, "
                        "annotator, check_id]); default: the pack's set")  # fmt: skip
    parser.add_argument("--data_dir", default=None, help="a local TaarofBench copy (<dir>/taarof/*.jsonl)")
    parser.add_argument("--judge_reply_format", default=None, choices=("paper", "json"))
    parser.add_argument("--limit", type=int, default=None, help="only the first N labelled rows")
    parser.add_argument("--json", dest="json_out", default=None, help="write the report as JSON here ('-': stdout)")
    parser.add_argument("--threshold", type=float, default=None, metavar="X",
                        help="exit 1 when a judge's strict agreement (no verdict = wrong) is under X")  # fmt: skip
    args = parser.parse_args(argv)
    if args.threshold is not None and not 0 <= args.threshold <= 1:
        raise JudgeCheckInputError(f"--threshold {args.threshold}: expected a fraction within [0, 1], e.g. 0.9")
    if args.limit is not None and args.limit < 1:
        raise JudgeCheckInputError(f"--limit {args.limit}: expected a positive number of rows")
    settings = judge_settings(args.metadata)  # checked before any data is read or any judge called
    data_settings = {k: v for k, v in (("data_dir", args.data_dir), ("judge_reply_format", args.judge_reply_format))
                     if v}  # fmt: skip
    docs = load_docs(RELEASE, data_settings, labels=args.labels)[0][: args.limit]
    report = check(docs, settings)
    text = json.dumps(json_safe(report), ensure_ascii=False, indent=2, allow_nan=False)
    if args.json_out == "-":
        print(text)
    else:
        for name, summary in report["judges"].items():
            print(format_summary(name, summary))
        if args.json_out:
            Path(args.json_out).write_text(text + "\n", encoding="utf-8")
    if args.threshold is not None:
        below = {n: s["agreement_strict"] for n, s in report["judges"].items()
                 if math.isnan(s["agreement_strict"]) or s["agreement_strict"] < args.threshold}  # fmt: skip
        if below:
            worst = ", ".join(f"{n} {v:.3f}" for n, v in below.items())
            print(f"{PROG}: strict agreement below --threshold {args.threshold:g}: {worst}", file=sys.stderr)
            return 1
    return 0
