"""Pack overhead vs. lm-eval's own path for the same docs: task loading, and scoring throughput.

(a) Loading. Every pack task is indexed and loaded from a local data dir (real TaarofBench and
    TARAZ/BLEnD data from ../shared/data; the tests' fixtures, in the documented schema, for
    DivanBench, PerCul and CAC): TaskManager over the pack's folder with include_defaults=False,
    then TaskManager.load per task. Beside it, in the same run, one plain lm-eval YAML task per pack
    task (generate_until + exact_match, written to a temp folder, the same number of docs, each doc
    the pack doc's JSON, from a local .jsonl). Each side runs in a fresh process; the rounds are
    interleaved (pack, plain, built-in, pack, ...) after one discarded warm-up round each, and the
    medians are reported. TARAZ's embedding model (the tiny offline BERT, loaded through
    sentence-transformers at task load) is timed apart. lm-eval's own index of its ~15k built-in
    tasks (TaskManager() with defaults, the pack's hook off) is reported separately.
    Target: all pack tasks load in < 3 s.
(b) Scoring. For every non-judge metric, lm-eval's scoring path (filters, process_results per
    doc, the metric's aggregation) over --replies synthetic replies (default 10,000; TARAZ, at 15-30 ms
    a reply, --taraz-replies, default 2,000; docs cycled
    from the task's docs with ids made unique), vs. the plain task's exact_match over the same
    replies, interleaved repetitions, medians; microseconds per reply and the ratio. Target:
    within 1.05x.

    .venv/bin/python bench/pack_overhead.py            # ~10 min on a loaded 2-core machine
    .venv/bin/python bench/pack_overhead.py --quick    # 1 round, 1,000 replies, ~2-3 min
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import REPO, build_tiny_embedder, go_offline, make_data_dir, quiet  # noqa: E402
from machine import describe_machine  # noqa: E402

LOAD_TARGET_S = 3.0
SCORE_TARGET = 1.05
FAKE_JUDGE = {"judge_model": "gpt-4", "judge_base_url": "http://127.0.0.1:9/v1"}  # no request at load

PLAIN_YAML = """task: {name}
dataset_path: json
dataset_kwargs:
  data_files:
    test: {data}
test_split: test
output_type: generate_until
doc_to_text: "{{{{question}}}}"
doc_to_target: {target}
generation_kwargs:
  until: ["\\n"]
  max_gen_toks: 32
metric_list:
  - metric: exact_match
    aggregation: mean
    higher_is_better: true
metadata:
  version: 1.0
"""


# ----------------------------------------------------------------------------- (a) loading, child side
def child(mode: str, spec: dict) -> dict:
    """One round in a fresh process: index, then load each task; seconds per step."""
    go_offline()
    quiet()
    out: dict = {"tasks": {}, "docs": {}, "failed": {}}
    t = time.perf_counter()
    from lm_eval.tasks import TaskManager

    import lm_eval_persian_culture as pack

    out["import_s"] = time.perf_counter() - t
    if mode == "builtin":
        t = time.perf_counter()
        tm = TaskManager()
        out["index_s"] = time.perf_counter() - t
        out["n_indexed"] = len(tm.all_tasks)
        return out
    if mode == "pack":
        from lm_eval_persian_culture.tasks.taraz.embeddings import prepare_embedding_model

        t = time.perf_counter()
        prepare_embedding_model({"embedding_model": spec["embedder"]})
        out["embedder_s"] = time.perf_counter() - t
        t = time.perf_counter()
        tm = pack.task_manager(include_defaults=False, metadata=spec["metadata"])
        _ = tm.all_tasks
        out["index_s"] = time.perf_counter() - t
        from lm_eval.tasks._index import Kind

        names = spec.get("tasks") or sorted(k for k, v in tm.task_index.items() if v.kind == Kind.TASK)
    else:
        t = time.perf_counter()
        tm = TaskManager(include_path=spec["plain_dir"], include_defaults=False)
        _ = tm.all_tasks
        out["index_s"] = time.perf_counter() - t
        names = spec["tasks"]
    for name in names:
        t = time.perf_counter()
        try:
            task = tm.load([name])["tasks"][name]
            n = len(task.eval_docs)
        except Exception as err:  # noqa: BLE001 - reported, and left out of both sides
            out["failed"][name] = f"{type(err).__name__}: {str(err).splitlines()[0][:160]}"
            continue
        out["tasks"][name] = time.perf_counter() - t
        out["docs"][name] = n
        if mode == "pack" and spec.get("dump_dir"):
            path = Path(spec["dump_dir"]) / f"{name}.jsonl"
            with path.open("w", encoding="utf-8") as f:
                for doc in task.eval_docs:
                    target = task.doc_to_target(doc)
                    f.write(json.dumps({"question": json.dumps(doc, ensure_ascii=False, default=str),
                                        "answer": str(target)}, ensure_ascii=False) + "\n")  # fmt: skip
    return out


def run_child(mode: str, spec: dict) -> dict:
    env = {**os.environ, "PERSIAN_CULTURE_DISABLE_AUTOLOAD": "0" if mode == "pack" else "1"}
    proc = subprocess.run(
        [sys.executable, __file__, "--_child", mode, json.dumps(spec)],
        capture_output=True, text=True, env=env, cwd=REPO,
    )  # fmt: skip
    if proc.returncode != 0:
        sys.exit(f"{mode} round failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def part_a(args, tmp: Path, data_dir: Path, embedder: Path) -> dict:
    dump = tmp / "docs"
    dump.mkdir()
    pack_spec = {"embedder": str(embedder), "metadata": {"data_dir": str(data_dir), **FAKE_JUDGE,
                 "embedding_model": str(embedder)}}  # fmt: skip
    print("\n(a) loading: warm-up rounds (discarded)...", flush=True)
    first = run_child("pack", {**pack_spec, "dump_dir": str(dump)})
    loaded = sorted(first["tasks"])
    plain_dir = tmp / "plain_tasks"
    plain_dir.mkdir()
    plain_of = {}
    for name in loaded:
        plain = f"plainbench_{name}"
        plain_of[name] = plain
        (plain_dir / f"{plain}.yaml").write_text(
            PLAIN_YAML.format(name=plain, data=dump / f"{name}.jsonl", target="answer")
        )
    plain_spec = {"plain_dir": str(plain_dir), "tasks": [plain_of[n] for n in loaded]}
    pack_spec["tasks"] = loaded
    run_child("plain", plain_spec)  # warm-up: builds the datasets cache of the plain files
    rounds = {"pack": [], "plain": [], "builtin": []}
    for r in range(args.rounds):
        print(f"    round {r + 1}/{args.rounds}", flush=True)
        rounds["pack"].append(run_child("pack", pack_spec))
        rounds["plain"].append(run_child("plain", plain_spec))
        if not args.no_builtin:
            rounds["builtin"].append(run_child("builtin", {}))

    def med(side: str, key: str, task: str | None = None) -> float:
        return statistics.median(x[key][task] if task else x[key] for x in rounds[side])

    print(f"\n(a) loading every pack task from {data_dir} (median of {args.rounds} fresh processes per side; "
          "load = TaskManager.load of one task, docs built)")  # fmt: skip
    print(f"    {'task':<30} {'docs':>5} {'pack s':>8} {'plain s':>8} {'ratio':>6}")
    for name in loaded:
        p, q = med("pack", "tasks", name), med("plain", "tasks", plain_of[name])
        print(f"    {name:<30} {first['docs'][name]:>5} {p:>8.3f} {q:>8.3f} {p / q:>6.2f}")
    for name, why in first["failed"].items():
        print(f"    {name:<30} not loadable here: {why}")
    pack_tasks = statistics.median(sum(x["tasks"].values()) for x in rounds["pack"])
    plain_tasks = statistics.median(sum(x["tasks"].values()) for x in rounds["plain"])
    pack_index, plain_index = med("pack", "index_s"), med("plain", "index_s")
    embedder_s = med("pack", "embedder_s")
    total = pack_index + pack_tasks
    print(f"    index (TaskManager, include_defaults=False): pack {pack_index:.3f} s, plain folder {plain_index:.3f} s")
    print(f"    all {len(loaded)} tasks: pack {pack_tasks:.2f} s (mean {pack_tasks / len(loaded) * 1000:.0f} ms/task), "
          f"plain {plain_tasks:.2f} s ({plain_tasks / len(loaded) * 1000:.0f} ms/task): "
          f"ratio {pack_tasks / plain_tasks:.2f}x")  # fmt: skip
    print(f"    TARAZ embedding model (sentence-transformers import + tiny BERT), once per process: {embedder_s:.2f} s")
    print(f"    pack index + all tasks: {total:.2f} s without the embedding model, {total + embedder_s:.2f} s with it "
          f"(target < {LOAD_TARGET_S:g} s: {'met' if total < LOAD_TARGET_S else 'NOT met'} without, "
          f"{'met' if total + embedder_s < LOAD_TARGET_S else 'NOT met'} with)")  # fmt: skip
    if rounds["builtin"]:
        print("    lm-eval's own index of its built-in tasks (TaskManager(), hook off): "
              f"{med('builtin', 'index_s'):.2f} s "
              f"for {rounds['builtin'][0]['n_indexed']} entries (paid by every lm_eval call, pack or not)")  # fmt: skip
    return {"docs": first["docs"]}


# ----------------------------------------------------------------------------- (b) scoring
FA_LETTERS = {"A": "الف", "B": "ب", "C": "ج", "D": "د"}
FA_DIGITS = {"1": "۱", "2": "۲", "3": "۳", "4": "۴", "5": "۵"}


def mcq_reply(rng: random.Random, letter: str, options: list[str] | None = None, digits: bool = False) -> str:
    key = str("ABCD".index(letter) + 1) if digits else letter
    fa = FA_DIGITS[key] if digits else FA_LETTERS[letter]
    styles = [
        lambda: key,
        lambda: f"پاسخ: {fa}",
        lambda: f"با توجه به متن، گزینهٔ {fa} درست است.",
        lambda: f"The answer is {key}.",
        lambda: f"Let me think. The story mentions several things, so the best option is ({key}).",
        lambda: f"**{key}**",
        lambda: "نمی‌دانم؛ هر کدام ممکن است.",
    ]
    if options:
        styles.append(lambda: f"به نظر من پاسخ «{options['ABCD'.index(letter)]}» است.")
    return rng.choice(styles)()


def binary_reply(rng: random.Random) -> str:
    return rng.choice([
        "بله", "خیر", "بله، این درست است.", "نه، درست نیست.", "Yes.", "No, that is not correct.",
        "این جمله درست است. پاسخ نهایی: بله", "پاسخ: خیر", "مطمئن نیستم.", "درست",
    ])  # fmt: skip


def pick_reply(rng: random.Random) -> str:
    n = rng.randint(1, 5)
    return rng.choice([
        f"{n}", f"I'd go with response {n}.", f"**{n}**", f"Response {n} is the most appropriate here.",
        f"Responses 1 and 5 are too extreme here. Response {n} fits best.", "It depends on the people.",
    ])  # fmt: skip


def short_answers(rng: random.Random, n: int) -> list[str]:
    from taraz_postprocess import replies

    pool = replies(max(2000, n // 4), seed=rng.randint(0, 10**6))
    return [
        f"{rng.choice(pool)}" if rng.random() < 0.5 else f"{rng.choice(pool)} و {rng.choice(pool)}" for _ in range(n)
    ]


def synthetic_replies(task_name: str, docs: list[dict], rng: random.Random) -> list[str]:
    if task_name.startswith("taraz"):
        return short_answers(rng, len(docs))
    out = []
    for doc in docs:
        if task_name.startswith("cac"):
            out.append(pick_reply(rng))
        elif doc.get("type") == "binary":
            out.append(binary_reply(rng))
        elif task_name.startswith("divan"):
            out.append(mcq_reply(rng, rng.choice("ABCD")))
        else:  # percul: digits 1-4, option texts
            options = doc.get("options")
            out.append(mcq_reply(rng, rng.choice("ABCD"), options if isinstance(options, list) else None, digits=True))
    return out


ID_FIELDS = ("id", "item_id", "pair_id", "pair", "conversation_id")


def expand_docs(docs: list[dict], n: int) -> list[dict]:
    """n docs cycled from ``docs``, each copy's ids suffixed so pairs and ids stay unique."""
    out = []
    for i in range(n):
        doc = copy.deepcopy(docs[i % len(docs)])
        k = i // len(docs)
        for key in ID_FIELDS:
            if isinstance(doc.get(key), str) and doc[key]:
                doc[key] = f"{doc[key]}~{k}"
        out.append(doc)
    return out


def score(task, docs: list[dict], replies: list[str]) -> dict:
    """lm-eval's scoring path (evaluator.evaluate after generation) on ``replies``."""
    from lm_eval.api.instance import Instance

    name = task.config.task
    task._instances = [
        Instance("generate_until", doc, ("", {}), 0, (name, i, 1), resps=[reply])
        for i, (doc, reply) in enumerate(zip(docs, replies))
    ]
    task.apply_filters()
    raw = defaultdict(list)
    for key in task._instances[0].filtered_resps:
        for inst in task._instances:
            for metric, value in task.process_results(inst.doc, [inst.filtered_resps[key]]).items():
                raw[(metric, key)].append(value)
    aggregation = task.aggregation()
    return {f"{m},{k}": aggregation[m](values) for (m, k), values in raw.items()}


class StubEncoder:
    """Fixed vectors, no model: the TARAZ path with the embedding step taken out."""

    def encode(self, sentences, **kwargs):
        import numpy as np

        return np.ones((len(sentences), 8), dtype=np.float32)


SCORED = [  # (task, what it exercises)
    ("divan_factual", "DivanBench factual MCQ: answer extraction (fa/en letters), accuracy ± std over prompts"),
    ("divan_binary", "DivanBench binary: yes/no extraction, accept_true/reject_false, acquiescence bias"),
    ("divan_scenario", "DivanBench scenario MCQ: extraction"),
    ("divan", "DivanBench all types: + factual-conceptual gap"),
    ("percul", "PerCul: Persian MCQ extraction (digits, option text), macro accuracy over categories"),
    ("percul_en", "PerCul English"),
    ("percul_fa_en", "PerCul fa+en paired: fa minus en"),
    ("cac_america", "CAC: pick extraction, accepted-range accuracy, axis/relationship breakdown"),
    ("cac_cross_country", "CAC all countries: + per-country, adaptation"),
    ("taraz_percul_saq", "TARAZ PerCul-SAQ: post-processing, EM, ROUGE-1/2/L, embeddings (tiny BERT), hybrid"),
    ("taraz_blend", "TARAZ BLEnD: as above + weighted EM"),
    ("taraz_blend#stub", "TARAZ BLEnD without the embedding step (stub encoder): post-processing, EM, ROUGE"),
]


def part_b(args, tmp: Path, data_dir: Path, embedder: Path) -> None:
    go_offline()
    quiet()
    from lm_eval.tasks import TaskManager

    import lm_eval_persian_culture as pack
    from lm_eval_persian_culture.tasks.taraz import embeddings

    plain_dir = tmp / "plain_one"
    plain_dir.mkdir()
    (plain_dir / "one.jsonl").write_text(json.dumps({"question": "q", "answer": "a"}) + "\n")
    # Two plain baselines: the target as a column name (cheapest: the ratio is taken against it), and
    # as a Jinja template "{{answer}}", which lm-eval compiles again for every doc (~0.4 ms a reply).
    (plain_dir / "plainbench_em.yaml").write_text(PLAIN_YAML.format(name="plainbench_em", data=plain_dir / "one.jsonl",
                                                                    target="answer"))  # fmt: skip
    (plain_dir / "plainbench_jinja.yaml").write_text(PLAIN_YAML.format(name="plainbench_jinja",
                                                                       data=plain_dir / "one.jsonl",
                                                                       target='"{{answer}}"'))  # fmt: skip
    plain_tasks = TaskManager(include_path=str(plain_dir), include_defaults=False).load(
        ["plainbench_em", "plainbench_jinja"]
    )
    plain, plain_jinja = plain_tasks["tasks"]["plainbench_em"], plain_tasks["tasks"]["plainbench_jinja"]
    # No judge: DivanBench's optional LLM extractor would send unreadable replies to it (judge
    # throughput is bench/judge_throughput.py's); here only the rules are timed.
    tm = pack.task_manager(include_defaults=False, metadata={"data_dir": str(data_dir), "judge_model": "none",
                                                             "embedding_model": str(embedder)})  # fmt: skip
    names = sorted({n.split("#")[0] for n, _ in SCORED})
    tasks = tm.load(names)["tasks"]
    stub_name = str(tmp / "stub-encoder")
    embeddings.register_encoder(stub_name, StubEncoder())

    rng = random.Random(0)
    cases = []
    for label, what in SCORED:
        name = label.split("#")[0]
        task = tasks[name]
        n = args.taraz_replies if name.startswith("taraz") else args.replies
        docs = expand_docs(list(task.eval_docs), n)
        replies = synthetic_replies(name, docs, rng)
        targets = [task.doc_to_target(d) for d in docs]
        plain_docs = [{"question": "", "answer": str(t[0] if isinstance(t, list) else t)} for t in targets]
        cases.append((label, what, task, docs, replies, plain_docs))

    times = defaultdict(lambda: {"pack": [], "plain": [], "jinja": []})
    results = {}
    # one-time costs (hazm's lexicons, the embedder's first batch, lm-eval's metric set-up) stay out of the timing
    for label, _, task, docs, replies, plain_docs in cases:
        embeddings._active = stub_name if label.endswith("#stub") else str(embedder)
        score(task, docs[:50], replies[:50])
        score(plain, plain_docs[:50], replies[:50])
        score(plain_jinja, plain_docs[:50], replies[:50])
    print(f"\n(b) scoring {args.replies:,} synthetic replies per task ({args.taraz_replies:,} for TARAZ), "
          f"{args.repeats} interleaved repetitions "
          f"({args.taraz_repeats} for TARAZ, the slow one)...", flush=True)  # fmt: skip
    for r in range(max(args.repeats, args.taraz_repeats)):
        for label, _, task, docs, replies, plain_docs in cases:
            if r >= (args.taraz_repeats if label.startswith("taraz") else args.repeats):
                continue
            model = stub_name if label.endswith("#stub") else str(embedder)
            embeddings._active = model  # the run's embedding model, as prepare_embedding_model sets it
            t = time.perf_counter()
            results[label] = score(task, docs, replies)
            times[label]["pack"].append(time.perf_counter() - t)
            t = time.perf_counter()
            results[label + "/plain"] = score(plain, plain_docs, replies)
            times[label]["plain"].append(time.perf_counter() - t)
            t = time.perf_counter()
            score(plain_jinja, plain_docs, replies)
            times[label]["jinja"].append(time.perf_counter() - t)
        print(f"    repetition {r + 1} done", flush=True)
    embeddings._active = str(embedder)

    print(f"\n(b) scoring throughput: lm-eval's path (filters + process_results + aggregation), "
          f"median of {args.repeats} ({args.taraz_repeats} for TARAZ); "
          "plain = lm-eval's exact_match on the same replies "
          "(doc_to_target a column; 'jinja': the same as a template, for reference)")  # fmt: skip
    cases_by_label = {c[0]: c for c in cases}
    print(f"    {'task':<20} {'replies':>7} {'pack us/reply':>13} {'plain us/reply':>14} {'jinja':>6} {'ratio':>7}  "
          f"target <= {SCORE_TARGET}x  headline")  # fmt: skip
    for label, _what, _task, *_ in cases:
        n = len(cases_by_label[label][3])
        p = statistics.median(times[label]["pack"]) / n * 1e6
        q = statistics.median(times[label]["plain"]) / n * 1e6
        j = statistics.median(times[label]["jinja"]) / n * 1e6
        headline = next(iter(results[label].items()))
        print(f"    {label:<20} {n:>7,} {p:>13.1f} {q:>14.1f} {j:>6.0f} {p / q:>6.1f}x  "
              f"{'met    ' if p / q <= SCORE_TARGET else 'NOT met'}"
              f"  {headline[0]}={headline[1]:.3f}")  # fmt: skip
    print("    what each exercises:")
    for label, what, *_ in cases:
        print(f"      {label}: {what}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--part", choices=("a", "b", "both"), default="both")
    parser.add_argument("--rounds", type=int, default=3, help="(a) fresh-process rounds per side")
    parser.add_argument("--replies", type=int, default=10_000, help="(b) synthetic replies per task")
    parser.add_argument("--repeats", type=int, default=3, help="(b) interleaved repetitions")
    parser.add_argument(
        "--taraz-replies",
        type=int,
        default=2000,
        help="(b) replies for the TARAZ cases (~15-30 ms each: 10,000 would take ~10 min)",
    )
    parser.add_argument("--taraz-repeats", type=int, default=1, help="(b) repetitions of the TARAZ cases")
    parser.add_argument("--no-builtin", action="store_true", help="(a) skip lm-eval's built-in index (~10 s a round)")
    parser.add_argument("--quick", action="store_true", help="1 round, 1,000 replies, 1 repetition")
    parser.add_argument("--_child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args._child:
        print(json.dumps(child(args._child[0], json.loads(args._child[1]))))
        return 0
    if args.quick:
        args.rounds, args.replies, args.repeats, args.taraz_replies, args.taraz_repeats = 1, 1000, 1, 200, 1
    print(describe_machine(), flush=True)
    go_offline()
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        os.environ["HF_DATASETS_CACHE"] = str(tmp / "hf-datasets-cache")  # the plain side's cache, not the user's
        data_dir = make_data_dir(tmp / "data")
        embedder = build_tiny_embedder(tmp / "tiny-bert")
        if args.part in ("a", "both"):
            part_a(args, tmp, data_dir, embedder)
        if args.part in ("b", "both"):
            part_b(args, tmp, data_dir, embedder)
    return 0


if __name__ == "__main__":
    sys.exit(main())
