"""Shared by the reliability tests: judged lm-eval runs with scripted replies against the local server.

Replies come from ``ScriptedLM`` (no model time); the judge is the real ``Judge`` with the real openai
client over HTTP against ``FakeOpenAIServer``, whose scripted answers depend only on the prompt, so a
run with faults must end with exactly the verdicts of a run without.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import lm_eval

import lm_eval_persian_culture as pack
from lm_eval_persian_culture.judge import Judge
from lm_eval_persian_culture.judge import filter as judge_filter
from lm_eval_persian_culture.testing.scripted_lm import ScriptedLM

JUDGE_MODEL = "judge-model"


def digest(text: str) -> int:
    return int(hashlib.sha256(text.encode("utf-8")).hexdigest(), 16)


def scripted_reply(doc: dict, prompt: str) -> str:
    """A reply that differs per doc (so every judge prompt is distinct) and never changes."""
    return f"My reply, number {digest(json.dumps(doc, sort_keys=True, ensure_ascii=False, default=str)) % 10**8}."


def user_prompt(body: dict) -> str:
    return [m["content"] for m in body["messages"] if m["role"] == "user"][-1]


def taarof_verdict(prompt: str, body: dict) -> str:
    """Yes for about 60% of prompts, decorated as real judges do."""
    return "Yes" if digest(prompt) % 5 < 3 else "No."


def taraz_verdict(prompt: str, body: dict) -> str:
    return "1" if digest(prompt) % 3 else "0"


def divan_extraction(prompt: str, body: dict) -> str:
    """An option letter, or YES / NO; NONE now and then (an answer, not an error)."""
    n = digest(prompt)
    if "YES, NO, or NONE" in prompt:
        return ("YES", "NO", "YES", "NO", "NONE")[n % 5]
    return ("A", "B", "C", "D", "NONE")[n % 5]


def judge_settings(server_url: str, cache_dir: Path, **extra: Any) -> dict:
    """Short waits, so a fault costs milliseconds: the settings a user would lower too."""
    return {
        "judge_model": JUDGE_MODEL,
        "judge_base_url": server_url,
        "judge_cache_dir": str(cache_dir),
        "judge_concurrency": 16,
        "judge_timeout": 1.0,
        "judge_retry_backoff": 0.05,
        # the fault mix has stray non-verdicts, which a judge sampling above temperature 0 would
        # not repeat: re-asked (the default at temperature 0 is not to)
        "judge_unparseable_retries": 2,
        **extra,
    }


def evaluate(tasks: list[str], metadata: dict, limit: int | None = None) -> dict:
    return lm_eval.simple_evaluate(
        model=ScriptedLM(scripted_reply),
        tasks=tasks,
        task_manager=pack.task_manager(include_defaults=False, metadata=metadata),
        apply_chat_template=True,
        log_samples=True,
        bootstrap_iters=0,
        limit=limit,
    )


def judges_of(server_url: str) -> list[Judge]:
    """The run's Judges talking to that server (one per settings and parser, kept for the process)."""
    return [j for j in judge_filter._judges.values() if j.settings.base_url == server_url]


def per_sample(results: dict, task: str) -> list[tuple[int, list, dict]]:
    """(doc_id, filtered_resps, per-doc metric values) of every sample, in doc order."""
    metric_names = [m["metric"] for m in results["configs"][task]["metric_list"]]
    rows = [
        (s["doc_id"], s["filtered_resps"], {name: s.get(name) for name in metric_names})
        for s in results["samples"][task]
    ]
    return sorted(rows, key=lambda row: row[0])


def scores(results: dict, task: str) -> dict:
    return dict(results["results"][task])
