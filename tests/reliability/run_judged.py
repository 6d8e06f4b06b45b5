"""A judged evaluation in its own process, for the crash, shared-cache and secrets tests.

    python -m tests.reliability.run_judged --task taarof_expected --data-dir D --judge-url U --cache C --out O.json

Runs ``lm_eval.simple_evaluate`` on the task with ``ScriptedLM`` replies and the judge at ``U``
(key from $RELIABILITY_JUDGE_KEY when set), then writes the outcome (``outcome``) as JSON to ``O``.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path

from tests.reliability.judged_runs import evaluate, judge_settings, per_sample, scores

KEY_ENV = "RELIABILITY_JUDGE_KEY"


def outcome(results: dict, task: str) -> dict:
    """What must not depend on crashes or concurrency: every sample's verdict record (less whether it
    came from the cache) and metric values, and the task's scores."""
    samples = []
    for doc_id, filtered, metrics in per_sample(results, task):
        record = json.loads(filtered[0])
        record.pop("judge_cached", None)
        samples.append([doc_id, record, metrics])
    return {"samples": samples, "scores": scores(results, task)}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--task", default="taarof_expected")
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--judge-url", required=True)
    parser.add_argument("--cache", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--timeout", type=float, default=1.0, help="judge_timeout")
    parser.add_argument("--results-dir", help="also save results and samples as the lm-eval CLI does")
    parser.add_argument("--debug-log", action="store_true", help="log everything (every logger, DEBUG) to stderr")
    args = parser.parse_args(argv)
    if args.debug_log:
        logging.basicConfig(level=logging.DEBUG, stream=sys.stderr)
    meta = {
        "data_dir": args.data_dir,
        **judge_settings(
            args.judge_url, Path(args.cache), judge_concurrency=args.concurrency, judge_timeout=args.timeout
        ),
        "judge_api_key_env": KEY_ENV,
    }
    results = evaluate([args.task], meta)
    if args.results_dir:
        from lm_eval.loggers import EvaluationTracker

        tracker = EvaluationTracker(output_path=args.results_dir)
        samples = results.pop("samples")
        tracker.save_results_aggregated(results=results, samples=samples)
        for task, task_samples in samples.items():
            tracker.save_results_samples(task_name=task, samples=task_samples)
        results["samples"] = samples
    Path(args.out).write_text(json.dumps(outcome(results, args.task), ensure_ascii=False, sort_keys=True))


if __name__ == "__main__":
    main()
