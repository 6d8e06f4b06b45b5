"""Agreement between the verdicts of two judged runs on the same items.

Anyone who judges with a substitute (a local model, a newer GPT) needs to know how far its
verdicts are from the paper's judge: TaarofBench checked GPT-4 against human labels (94% on 50
items), TARAZ reports judge agreement tables. ``lm-eval-persian agreement RUN_A RUN_B`` reads the
``samples_*.jsonl`` files lm-eval writes with ``--log_samples`` in two runs, matches the items by
the identity of their doc (not by position: runs with ``--limit``, other task orders or other
filters still line up), and reports raw agreement and Cohen's kappa per task and per type.

A verdict is the ``verdict`` field of the JSON record a judge filter logs in ``filtered_resps``
(``"yes"``/``"no"``, or booleans/0-1); items either run left unjudged are counted, not compared.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from lm_eval_persian_culture.errors import PackUserError
from lm_eval_persian_culture.scoring.records import decode_record, json_error_text, json_safe

# Doc fields that describe how a run was made, not which item it is: two runs of the same item
# under another data path, judge prompt form or decoding still match.
VOLATILE_DOC_FIELDS = frozenset({"provenance", "judge_reply_format", "decoding"})
DEFAULT_TYPE_FIELDS = ("Type", "type", "source", "subset")


class AgreementInputError(PackUserError, ValueError):
    """A run folder without samples, or samples that cannot be read."""


def doc_identity(doc: Mapping) -> str:
    """Stable id of an item: a hash of its doc without the fields in VOLATILE_DOC_FIELDS."""
    kept = {k: v for k, v in doc.items() if k not in VOLATILE_DOC_FIELDS}
    canonical = json.dumps(kept, ensure_ascii=False, sort_keys=True, default=str)
    return hashlib.sha1(canonical.encode("utf-8")).hexdigest()


def verdict_of(sample: Mapping) -> int | None:
    """1 / 0 from the judge record in ``filtered_resps``; None when unjudged or not a judged task."""
    resps = sample.get("filtered_resps")
    first = resps[0] if isinstance(resps, list) and resps else resps
    record = decode_record(first)
    value = None if record is None else record.get("verdict")
    if isinstance(value, str):
        value = {"yes": 1, "no": 0, "true": 1, "false": 0}.get(value.strip().lower())
    elif isinstance(value, bool) or value in (0, 1):
        value = int(value)
    else:
        value = None
    return value


def type_of(doc: Mapping, type_fields: Iterable[str] = DEFAULT_TYPE_FIELDS) -> str:
    for name in type_fields:
        if isinstance(doc.get(name), str) and doc[name].strip():
            return doc[name].strip()
    return "all"


def _task_of(path: Path) -> str:
    return path.name.split("samples_", 1)[1].rsplit("_", 1)[0]


def load_run(run: Path, type_fields: Iterable[str] = DEFAULT_TYPE_FIELDS) -> dict[str, dict[str, tuple]]:
    """task -> {doc identity: (verdict, type)} from the newest samples file of each task under ``run``."""
    run = Path(run)
    if not run.exists():
        raise AgreementInputError(f"{run}: no such file or folder")
    files = [run] if run.is_file() else sorted(run.rglob("samples_*.jsonl"))
    if not files:
        raise AgreementInputError(f"{run}: no samples_*.jsonl files (run lm-eval with --log_samples)")
    newest: dict[str, Path] = {}
    for path in files:  # lm-eval's timestamps sort as text; a later run of a task wins
        task = _task_of(path)
        if task not in newest or path.name > newest[task].name:
            newest[task] = path
    out: dict[str, dict[str, tuple]] = {}
    for task, path in sorted(newest.items()):
        items: dict[str, tuple] = {}
        for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            try:
                sample = json.loads(line)
            except json.JSONDecodeError as err:
                raise AgreementInputError(
                    f"{path}: line {lineno}: not valid JSON ({json_error_text(err, with_line=False)}): "
                    "the samples file is truncated or corrupt"
                ) from None
            try:
                doc = sample["doc"]
            except (KeyError, TypeError):
                raise AgreementInputError(f"{path}: line {lineno}: not an lm-eval sample (no 'doc' field)") from None
            items[doc_identity(doc)] = (verdict_of(sample), type_of(doc, type_fields))
        out[task] = items
    return out


@dataclass
class Agreement:
    """Verdict agreement between two raters (runs) over the items both judged."""

    n: int = 0  # items both judged
    both_yes: int = 0
    both_no: int = 0
    a_yes_b_no: int = 0
    a_no_b_yes: int = 0
    unjudged: int = 0  # matched items at least one run left without a verdict
    only_a: int = 0
    only_b: int = 0
    extra: dict = field(default_factory=dict)

    def add(self, a: int | None, b: int | None) -> None:
        if a is None or b is None:
            self.unjudged += 1
            return
        self.n += 1
        if a and b:
            self.both_yes += 1
        elif not a and not b:
            self.both_no += 1
        elif a:
            self.a_yes_b_no += 1
        else:
            self.a_no_b_yes += 1

    @property
    def raw_agreement(self) -> float:
        return (self.both_yes + self.both_no) / self.n if self.n else math.nan

    @property
    def kappa(self) -> float:
        """Cohen's kappa, (p_o - p_e) / (1 - p_e); NaN when chance agreement is 1 (one label only)."""
        return cohen_kappa(self.both_yes, self.a_yes_b_no, self.a_no_b_yes, self.both_no)

    def as_dict(self) -> dict:
        return {
            "n": self.n, "raw_agreement": self.raw_agreement, "kappa": self.kappa,
            "both_yes": self.both_yes, "both_no": self.both_no,
            "a_yes_b_no": self.a_yes_b_no, "a_no_b_yes": self.a_no_b_yes,
            "unjudged": self.unjudged, "only_in_a": self.only_a, "only_in_b": self.only_b,
        }  # fmt: skip


def cohen_kappa(yy: int, yn: int, ny: int, nn: int) -> float:
    """Cohen's kappa from a 2x2 table (rows: rater A yes/no; columns: rater B yes/no)."""
    n = yy + yn + ny + nn
    if n == 0:
        return math.nan
    p_o = (yy + nn) / n
    p_e = ((yy + yn) / n) * ((yy + ny) / n) + ((ny + nn) / n) * ((yn + nn) / n)
    return math.nan if p_e == 1 else (p_o - p_e) / (1 - p_e)


def compare(run_a: Mapping[str, Mapping[str, tuple]], run_b: Mapping[str, Mapping[str, tuple]]) -> dict:
    """{task: {"all": Agreement, type: Agreement, ...}} over the tasks both runs have."""
    report: dict[str, dict[str, Agreement]] = {}
    for task in sorted(set(run_a) & set(run_b)):
        a, b = run_a[task], run_b[task]
        rows: dict[str, Agreement] = {"all": Agreement()}
        for key in a.keys() | b.keys():
            kind = (a.get(key) or b.get(key))[1]
            targets = [rows["all"]] + ([rows.setdefault(kind, Agreement())] if kind != "all" else [])
            for agg in targets:
                if key not in b:
                    agg.only_a += 1
                elif key not in a:
                    agg.only_b += 1
                else:
                    agg.add(a[key][0], b[key][0])
        report[task] = rows
    return report


def format_report(report: Mapping[str, Mapping[str, Agreement]], a_name: str, b_name: str) -> str:
    lines = [
        f"A: {a_name}",
        f"B: {b_name}",
        "",
        f"{'task':32s} {'type':18s} {'n':>5s} {'agree':>7s} {'kappa':>7s} {'yy':>5s} {'yn':>5s} {'ny':>5s} {'nn':>5s}"
        f" {'unjudged':>8s} {'only A':>6s} {'only B':>6s}",
    ]

    def fmt(x: float) -> str:
        return "   n/a" if math.isnan(x) else f"{x:7.3f}"

    for task, rows in report.items():
        for kind, g in sorted(rows.items(), key=lambda kv: (kv[0] != "all", kv[0])):
            lines.append(
                f"{task:32s} {kind:18s} {g.n:5d} {fmt(g.raw_agreement)} {fmt(g.kappa)} {g.both_yes:5d} "
                f"{g.a_yes_b_no:5d} {g.a_no_b_yes:5d} {g.both_no:5d} {g.unjudged:8d} {g.only_a:6d} {g.only_b:6d}"
            )
    lines += ["", "yn: A said Yes, B said No. Kappa is n/a when both runs used a single label."]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="lm-eval-persian agreement",
        description="Raw agreement and Cohen's kappa between the judge verdicts of two runs "
        "(folders or samples_*.jsonl files written with --log_samples), matched by doc identity.",
    )
    parser.add_argument("run_a")
    parser.add_argument("run_b")
    parser.add_argument("--type_field", action="append", default=None,
                        help="doc field that holds the item type "
                             f"(default: first of {list(DEFAULT_TYPE_FIELDS)})")  # fmt: skip
    parser.add_argument("--json", dest="json_out", default=None, help="also write the report as JSON here")
    args = parser.parse_args(argv)
    type_fields = tuple(args.type_field) if args.type_field else DEFAULT_TYPE_FIELDS
    try:
        run_a, run_b = load_run(Path(args.run_a), type_fields), load_run(Path(args.run_b), type_fields)
    except AgreementInputError as err:
        print(f"lm-eval-persian agreement: {err}", file=sys.stderr)
        return 2
    report = compare(run_a, run_b)
    if not report:
        print(f"lm-eval-persian agreement: the runs share no task (A: {sorted(run_a)}, B: {sorted(run_b)})",
              file=sys.stderr)  # fmt: skip
        return 2
    print(format_report(report, args.run_a, args.run_b))
    if args.json_out:
        data = {task: {kind: g.as_dict() for kind, g in rows.items()} for task, rows in report.items()}
        # kappa/agreement are NaN when undefined (one label, no item judged): null in JSON, never NaN
        text = json.dumps(json_safe(data), indent=2, default=str, allow_nan=False)
        Path(args.json_out).write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
