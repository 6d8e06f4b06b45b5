"""A data dir holding every benchmark's test data, for the reliability tests.

TaarofBench and TARAZ (BLEnD, ISN) come from ``../shared/data``; DivanBench, PerCul and CAC from the
fixtures their own tests use (``tests/<benchmark>/fixtures``); TaarofBench's Persian rendering from the
package; ISN-SAQ's file (unpublished) is written here in its documented schema (id, question, answer).
Every other benchmark folder (MasalBench, GhazalBench, and any added later) is found by folder, as
``tests/benchmark_data.py`` finds it: its fixtures in the data-dir layout, else ``../shared/data/<benchmark>``.
Files are linked, not copied: a test that corrupts one replaces the link with a real file.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

from lm_eval_persian_culture.tasks._benchmark import benchmark_folders
from tests.benchmark_data import benchmark_data_source

REPO = Path(__file__).resolve().parents[2]
TESTS = REPO / "tests"

ISN_SAQ_ROWS = [
    {"id": "1", "question": "در بازار ایران هنگام خرید با فروشندگان چه رفتاری رایج است؟", "answer": "چانه‌زنی"},
    {"id": "2", "question": "هنگام ورود بزرگ‌تر به اتاق چه می‌کنند؟", "answer": "برخاستن"},
    {"id": "3", "question": "در مهمانی برای تعارف چه می‌گویند؟", "answer": "بفرمایید"},
    {"id": "4", "question": "پیش از غذا چه می‌گویند؟", "answer": "نوش جان"},
]


# --------------------------------------------------------------------------- the data dir
def build_data_dir(root: Path, shared_data: Path) -> Path:
    """Every benchmark's files, linked (each case replaces the one it corrupts with a real copy)."""
    links = {
        "taarof/taarof-expected.jsonl": shared_data / "taarof" / "taarof-expected.jsonl",
        "taarof/non-taarof.jsonl": shared_data / "taarof" / "non-taarof.jsonl",
        "taarof/taarof-expected.fa.jsonl": (
            REPO / "lm_eval_persian_culture/tasks/taarof/persian/taarof-expected.fa.jsonl"
        ),
        "taraz/blend_iran/Iran_data.json": shared_data / "taraz" / "blend_iran" / "Iran_data.json",
        "taraz/isn/[ISN] FINAL - wo_demographiccols-updated.csv":
            shared_data / "taraz" / "isn" / "[ISN] FINAL - wo_demographiccols-updated.csv",
        "cac/annotations_iran.jsonl": TESTS / "cac/fixtures/iran/annotations_iran.jsonl",
    }  # fmt: skip
    for folder in ("divan/fixtures/divan", "percul/fixtures/percul", "cac/fixtures/cac"):
        for f in (TESTS / folder).iterdir():
            links[f"{Path(folder).name}/{f.name}"] = f
    named = {rel.split("/", 1)[0] for rel in links}
    for bench in benchmark_folders():  # the rest, found by folder (MasalBench, GhazalBench, ...)
        source = benchmark_data_source(bench.name, shared_data)
        if bench.name not in named and source is not None:
            for f in source.iterdir():
                links[f"{bench.name}/{f.name}"] = f
    for rel, target in links.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).symlink_to(target)
    isn_saq = root / "taraz/ISN/isn_farsi_saq.csv"
    isn_saq.parent.mkdir(parents=True)
    isn_saq.write_text(csv_text(ISN_SAQ_ROWS), encoding="utf-8")
    return root


def csv_text(rows: list[dict], quote_all: bool = False) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0]), quoting=csv.QUOTE_ALL if quote_all else csv.QUOTE_MINIMAL,
                            lineterminator="\n")  # fmt: skip
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()
