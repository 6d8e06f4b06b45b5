"""TARAZ post-processing speed: answers per second on one core (target >= 2,000); embedding throughput.

Replies are realistic short answers of the kinds the paper describes (one word, lists joined by
و or commas, a sentence, mixed digits, Arabic letter forms, half-spaces, numbered lists), built
from the BLEnD Iran answers when ../shared/data is present, else from a fixed set. The run is
pinned to one CPU core (os.sched_setaffinity) and repeated; the best pass is reported.

Then the embedding step as the pack runs it (tasks.taraz.embeddings.embed: distinct texts, batches of
PERSIAN_CULTURE_EMBEDDING_BATCH_SIZE, default 64, unit vectors) with the tiny BERT built offline as
tests/taraz/tiny_embedder.py does (the paper's maux-gte-persian-v3 cannot be downloaded here: its
sentences/s will be far lower), in sentences/s, on --device cpu (all cores) or cuda (when a GPU is
lent; `--embedding-model DIR` points at a real model there).

    .venv/bin/python bench/taraz_postprocess.py            # ~30 s
    .venv/bin/python bench/taraz_postprocess.py --n 20000
    .venv/bin/python bench/taraz_postprocess.py --device cuda --embedding-model /models/maux-gte-persian-v3
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from pathlib import Path

from lm_eval_persian_culture.tasks.taraz.normalize import postprocess

TARGET = 2000.0
FIXED = [
    "نان و پنیر", "نون و پنیر و سبزی", "چلوکباب", "۱. چای\n۲. قهوه", "13 فروردین، سیزده بدر",
    "در ایران معمولاً در شب یلدا هندوانه و انار می‌خورند.", "كباب كوبيده يا جوجه كباب", "فوتبال",
    "صد و بیست و سه", "کتاب ها و دفترها", "- آش رشته\n- حلیم\n- عدسی", "«تنبک»", "می رود به مدرسه",
]  # fmt: skip


def replies(n: int, seed: int = 0) -> list[str]:
    rng = random.Random(seed)
    blend = Path(__file__).resolve().parents[2] / "shared" / "data" / "taraz" / "blend_iran" / "Iran_data.json"
    pool = list(FIXED)
    if blend.is_file():
        data = json.loads(blend.read_text(encoding="utf-8"))
        answers = [a for q in data.values() for g in q["annotations"] for a in g["answers"]]
        for _ in range(400):  # answers, joined the ways replies join them
            k = rng.randint(1, 3)
            parts = rng.sample(answers, k)
            pool.append(rng.choice([" و ", "، ", "\n- ", " یا "]).join(parts))
            pool.append(f"به نظر من {parts[0]} است.")
    return [rng.choice(pool) for _ in range(n)]


def embedding_throughput(texts: list[str], device: str, model_dir: str | None, repeats: int) -> None:
    """Sentences/s of the pack's embed() on ``device``; the tiny offline BERT unless ``model_dir``."""
    import tempfile

    import torch

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from _common import build_tiny_embedder, go_offline, quiet

    from lm_eval_persian_culture.tasks.taraz import embeddings

    go_offline()
    quiet()
    if device == "cuda" and not torch.cuda.is_available():
        sys.exit("--device cuda: no CUDA device here")
    with tempfile.TemporaryDirectory() as tmp:
        name = model_dir or str(build_tiny_embedder(Path(tmp) / "tiny-bert"))
        embeddings._device = lambda: device  # the pack picks cuda when present; pin what was asked
        t = time.perf_counter()
        embeddings.load_encoder(name)
        load_s = time.perf_counter() - t
        # distinct replies (embed() encodes each distinct text once): pool entries, then pairs of them
        unique = list(dict.fromkeys(texts))
        rng = random.Random(1)
        while len(unique) < len(texts):
            unique.append(f"{rng.choice(texts)} و {rng.choice(texts)}")
            if len(unique) % 1000 == 0:
                unique = list(dict.fromkeys(unique))
        unique = list(dict.fromkeys(unique))[: len(texts)]
        label = "tiny offline BERT (1 layer, hidden 32)" if model_dir is None else name
        print(f"taraz embeddings: {len(unique)} distinct replies "
              f"(mean {sum(map(len, unique)) / len(unique):.0f} chars), "
              f"{label}, batch {os.environ.get(embeddings.EMBEDDING_BATCH_ENV, '64')}, best of {repeats}; "
              f"model load {load_s:.1f} s (incl. the sentence-transformers import)")  # fmt: skip
        # On CPU, torch's default (one thread per core) vs one thread: on a machine other jobs load,
        # OpenMP threads that spin-wait for each other can be many times slower than one thread.
        default_threads = torch.get_num_threads()
        for threads in [default_threads, 1] if device == "cpu" and default_threads > 1 else [default_threads]:
            torch.set_num_threads(threads)
            embeddings.embed(unique[:64], model=name)  # first batch: kernels, allocator
            best = float("inf")
            for _ in range(repeats):
                t = time.perf_counter()
                vectors = embeddings.embed(unique, model=name, desc="embedding bench")
                if device == "cuda":
                    torch.cuda.synchronize()
                best = min(best, time.perf_counter() - t)
            assert len(vectors) == len(unique)
            where = torch.cuda.get_device_name(0) if device == "cuda" else f"cpu, {threads} torch thread(s)"
            print(
                f"  on {where}: {best:.2f} s -> {len(unique) / best:,.0f} sentences/s "
                f"(load average {os.getloadavg()[0]:.1f})"
            )
        torch.set_num_threads(default_threads)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=5000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--device", choices=("cpu", "cuda"), default="cpu", help="embedding device")
    parser.add_argument("--embedding-model", default=None, help="a local model dir instead of the tiny BERT")
    parser.add_argument("--skip-embeddings", action="store_true")
    args = parser.parse_args()
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from machine import describe_machine

    print(describe_machine(), flush=True)
    all_cores = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else None
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
    data = replies(args.n)
    postprocess(data[0])  # load hazm's resources outside the timing
    best_cpu = best_wall = float("inf")
    for _ in range(args.repeats):
        c0, t0 = time.process_time(), time.perf_counter()
        for reply in data:
            postprocess(reply)
        best_cpu = min(best_cpu, time.process_time() - c0)
        best_wall = min(best_wall, time.perf_counter() - t0)
    rate = args.n / best_cpu
    mean_chars = sum(map(len, data)) / len(data)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"taraz post-processing: {args.n} replies (mean {mean_chars:.0f} chars), best of {args.repeats}: "
          f"{best_cpu:.2f} s CPU -> {rate:,.0f} answers/s on one core (target >= {TARGET:,.0f}): "
          f"{'OK' if rate >= TARGET else 'BELOW TARGET'}; wall {best_wall:.2f} s -> {args.n / best_wall:,.0f}/s "
          f"at load average {load:.1f}")  # fmt: skip
    if not args.skip_embeddings:
        if all_cores:
            os.sched_setaffinity(0, all_cores)  # the embedder uses every core, as in a run
        embedding_throughput(data, args.device, args.embedding_model, args.repeats)
    sys.exit(0 if rate >= TARGET else 1)


if __name__ == "__main__":
    main()
