"""One process of a (possibly multi-process) judged evaluation, for tests/multiproc.

    python -m tests.multiproc.run_launch --mode single --data-dir D --judge-url U --cache C --out O
    python -m torch.distributed.run --standalone --nproc_per_node 2 -m tests.multiproc.run_launch --mode dp ...

Runs ``lm_eval.simple_evaluate`` on a judged TaarofBench task, DivanBench's five-prompt binary task
(with the LLM extractor for the replies the rules cannot read) and PerCul's paired fa/en task, with
scripted replies, and writes what this process got to ``O.rank<RANK>.json``. Modes:

* ``single``: one process;
* ``dp``: data parallel as lm-eval runs it under ``accelerate launch`` (each rank its own docs, rank 0
  gathers), through :class:`DataParallelScriptedLM` over torch.distributed's gloo backend: lm-eval's HF
  model does data parallel only on GPUs, so this stand-in reports the rank and world size it would;
* ``replicated``: every process runs the whole loop with world size 1, as lm-eval does under torchrun
  with HF ``tp_plan`` (each process ``ScriptedLM``, i.e. rank 0 / world size 1, LOCAL_RANK from torchrun).
"""

from __future__ import annotations

import argparse
import json
import os

from lm_eval_persian_culture.judge import filter as judge_filter
from lm_eval_persian_culture.testing.scripted_lm import ScriptedLM
from tests.divan import divan_testlib
from tests.percul import percul_testlib
from tests.reliability import judged_runs

TASKS = ["taarof_expected", "divan_binary", "percul_fa_en"]


def reply(doc: dict, prompt: str) -> str:
    if "item_id" in doc and "prompt_id" in doc:
        return divan_testlib.scripted_reply(doc, prompt)
    if "language" in doc and "id" in doc:
        return percul_testlib.scripted_reply(doc, prompt)
    return judged_runs.scripted_reply(doc, prompt)


def judge_answer(prompt: str, body: dict) -> str:
    """DivanBench's extraction prompts get a label, PerCul's (its unreadable scripted replies choose
    nothing) NONE, TaarofBench's judge prompts a verdict."""
    if "YES, NO, or NONE" in prompt:
        return judged_runs.divan_extraction(prompt, body)
    if "one of the option numbers" in prompt:
        return "NONE"
    return judged_runs.taarof_verdict(prompt, body)


class DataParallelScriptedLM(ScriptedLM):
    """ScriptedLM that is one rank of a data-parallel launch (torch.distributed must be initialised)."""

    def __init__(self, *args, **kwargs) -> None:
        import torch.distributed as dist

        super().__init__(*args, **kwargs)
        self._rank, self._world_size = dist.get_rank(), dist.get_world_size()

    @property
    def rank(self) -> int:
        return self._rank

    @property
    def world_size(self) -> int:
        return self._world_size

    @property
    def device(self) -> str:
        return "cpu"

    def all_gather(self, tensor):
        import torch
        import torch.distributed as dist

        parts = [torch.zeros_like(tensor.reshape(1)) for _ in range(self._world_size)]
        dist.all_gather(parts, tensor.reshape(1))
        return torch.cat(parts)

    def gather_object(self, obj, dst=0):
        import torch.distributed as dist

        out = [None] * self._world_size if self._rank == dst else None
        dist.gather_object(obj, object_gather_list=out, dst=dst)
        return out

    def barrier(self) -> None:
        import torch.distributed as dist

        dist.barrier()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", choices=["single", "dp", "replicated"], required=True)
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--judge-url", required=True)
    parser.add_argument("--cache", required=True)
    parser.add_argument("--out", required=True, help="path prefix: <out>.rank<RANK>.json is written")
    parser.add_argument("--limit", type=int, default=12)
    args = parser.parse_args(argv)
    if args.mode == "dp":
        import torch.distributed as dist

        dist.init_process_group("gloo")
        lm = DataParallelScriptedLM(reply)
    else:
        lm = ScriptedLM(reply)
    import lm_eval

    import lm_eval_persian_culture as pack

    metadata = {"data_dir": args.data_dir, **judged_runs.judge_settings(args.judge_url, args.cache, judge_timeout=60.0)}
    results = lm_eval.simple_evaluate(
        model=lm,
        tasks=TASKS,
        task_manager=pack.task_manager(include_defaults=False, metadata=metadata),
        apply_chat_template=True,
        log_samples=True,
        bootstrap_iters=0,
        limit=args.limit,
    )
    usage = [j.usage for j in judge_filter._judges.values()]
    outcome = {
        "env": {k: os.environ.get(k) for k in ("RANK", "LOCAL_RANK", "WORLD_SIZE")},
        "lm_world_size": lm.world_size,
        "requests_sent": sum(u.requests_sent for u in usage),
        "cache_hits": sum(u.cache_hits for u in usage),
        "items": sum(u.items for u in usage),
        "results": None
        if results is None
        else {
            "results": {t: results["results"][t] for t in TASKS},
            "n-samples": {t: results["n-samples"][t] for t in TASKS},
            "samples": {t: sorted(results["samples"][t], key=lambda s: s["doc_id"]) for t in TASKS},
        },
    }
    path = f"{args.out}.rank{os.environ.get('RANK', '0')}.json"
    with open(path, "w", encoding="utf-8") as f:
        json.dump(outcome, f, ensure_ascii=False, sort_keys=True, default=str)
    if args.mode == "dp":
        import torch.distributed as dist

        dist.destroy_process_group()


if __name__ == "__main__":
    main()
