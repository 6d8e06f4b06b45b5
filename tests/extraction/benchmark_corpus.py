"""The per-benchmark reply corpora of issue #22 (tests/extraction/corpus/<benchmark>.jsonl), read by
each benchmark's own reader, and their agreement with the labels.

The files are copied unchanged from the people who wrote them; they never saw the rules. One JSON
object a line: ``benchmark``, ``lang``, ``kind`` ("option" with ``labels`` "1-4" (PerCul) or "A-D"
(DivanBench MCQ); "pick" with "1-5" (CAC); "yes_no" (DivanBench binary, with ``statement``)),
``options`` (the texts the model saw), ``reply``, ``label`` (1..4 / 1..5, "A".."D", "yes"/"no", or
null = the reply states no answer), ``shapes``, ``note``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from lm_eval_persian_culture.tasks.cac import utils as cac
from lm_eval_persian_culture.tasks.divan import utils as divan
from lm_eval_persian_culture.tasks.percul import utils as percul

CORPUS_DIR = Path(__file__).resolve().parent / "corpus"
BENCHMARKS = ("percul", "cac", "divan")


def rows(benchmark: str) -> list[dict]:
    path = CORPUS_DIR / f"{benchmark}.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def percul_doc(row: dict) -> dict:
    return {"options": list(row["options"])}


def cac_doc(row: dict) -> dict:
    return dict(zip(cac.RESPONSE_FIELDS, row["options"]))


def divan_doc(row: dict) -> dict:
    if row["kind"] == "yes_no":
        return {"type": "binary", "statement": row.get("statement", "")}
    return {"type": "factual", "question": row.get("question", ""),
            **{f"option_{x}": t for x, t in zip("abcd", row["options"])}}  # fmt: skip


def read(row: dict):
    """What the benchmark's own reader gives for the row's reply, in the label's spelling."""
    reply = row["reply"]
    if row["benchmark"] == "percul":
        got = percul.read_answer(reply, percul_doc(row))
        return None if got is None else percul.LETTERS.index(got) + 1
    if row["benchmark"] == "cac":
        return cac.read_pick(reply, cac_doc(row))[0]
    return divan.extract_rule(divan_doc(row), reply)


@dataclass
class Tally:
    total: int = 0
    right: int = 0
    wrong: int = 0  # a different option / verdict than the label
    invented: int = 0  # an answer read from a reply that states none
    missed: int = 0  # no answer read from a reply that states one

    @property
    def invalid(self) -> int:
        return self.missed

    def add(self, label, got) -> str:
        self.total += 1
        if label == got:
            self.right += 1
            return "right"
        if label is None:
            self.invented += 1
            return "invented"
        if got is None:
            self.missed += 1
            return "missed"
        self.wrong += 1
        return "wrong"

    def line(self, name: str) -> str:
        return (f"{name}: {self.right}/{self.total} read right, {self.wrong} wrong option, "
                f"{self.missed} invalid (answer missed), {self.invented} answers invented")  # fmt: skip


def measure(benchmark: str) -> tuple[dict[str, Tally], list[tuple[str, dict, object]]]:
    """Tallies per group ("all", "fa", "en", and per kind) and the rows not read as labelled."""
    tallies: dict[str, Tally] = {}
    misses = []
    for row in rows(benchmark):
        got = read(row)
        outcome = None
        for key in ("all", row["lang"], row["kind"]):
            outcome = tallies.setdefault(key, Tally()).add(row["label"], got)
        if outcome != "right":
            misses.append((outcome, row, got))
    return tallies, misses


def report(benchmark: str) -> str:
    tallies, misses = measure(benchmark)
    lines = [tallies["all"].line(f"{benchmark} corpus")]
    lines += ["  " + tallies[k].line(k) for k in tallies if k != "all"]
    for outcome, row, got in misses:
        lines.append(f"  [{outcome}] {row['id']} label {row['label']!r} got {got!r}: {row['reply']!r}")
    return "\n".join(lines)
