"""Did the five system prompts reach the model? Read lm-eval's logged samples and tell.

DivanBench's spread over prompts only means something if each of the five system prompts
of App. B.2 was really sent. Two things silently break that:

* a chat template that rejects the system role: lm-eval's HF and vLLM backends then drop
  the system message and retry, so all five variants of an item render identically;
* ``--system_instruction``: lm-eval prepends it to every system prompt.

Usage::

    python -m lm_eval_persian_culture.tasks.divan.check_prompts OUT/<model>/samples_divan_*.jsonl
    python -m lm_eval_persian_culture.tasks.divan.check_prompts OUT/<model>/     # every divan samples file

It prints, per file, how many rendered prompts contain their doc's system prompt, how many
items render identically under all their prompts (collapsed), the text found before the
system prompt, and the run's ``system_instruction`` from the matching ``results_*.json``.
Exit status 1 when a problem is found, 0 otherwise. The same inspection runs inside the
task's filter at run time and logs a warning (see ``utils.check_run``).
"""

from __future__ import annotations

import argparse
import json
import logging
import re
import sys
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

logger = logging.getLogger("lm_eval_persian_culture")

# The run-time warnings already given in this process (once each): kept here, in a normally imported
# module, because lm-eval executes the task's utils.py anew for every ``!function``.
WARNED: set[str] = set()


def warn_once(key: str, message: str, *args) -> None:
    if key not in WARNED:
        WARNED.add(key)
        logger.warning(message, *args)


_DATE = re.compile(r"^samples_(?P<task>.+)_(?P<date>\d{4}-\d{2}-\d{2}T[0-9.\-]+)\.jsonl$")


def rendered_prompt(sample: dict) -> str | None:
    """The context lm-eval sent for a logged sample (in-memory or samples_*.jsonl form)."""
    args = sample.get("arguments")
    if isinstance(args, dict):  # samples_*.jsonl: {"gen_args_0": {"arg_0": context, "arg_1": gen_kwargs}}
        first = args.get("gen_args_0") or {}
        value = first.get("arg_0")
    elif isinstance(args, (list, tuple)) and args:  # simple_evaluate(...)["samples"]: [(context, gen_kwargs)]
        first = args[0]
        value = first[0] if isinstance(first, (list, tuple)) and first else first
    else:
        value = None
    return value if isinstance(value, str) else (None if value is None else str(value))


def inspect_samples(pairs: Sequence[tuple[dict, str | None]]) -> dict[str, Any]:
    """Check (doc, rendered prompt) pairs of DivanBench docs."""
    present_flags: list[bool | None] = []
    missing_by_prompt: Counter = Counter()
    prefixes: Counter = Counter()
    variants: dict[tuple, dict[int, str]] = defaultdict(dict)
    for doc, prompt in pairs:
        system = doc.get("system_prompt") or ""
        if prompt is None or not system:
            present_flags.append(None)
            continue
        at = prompt.find(system)
        present_flags.append(at >= 0)
        if at < 0:
            missing_by_prompt[doc.get("prompt_id")] += 1
        else:
            prefixes[prompt[:at][-160:]] += 1
        variants[(doc.get("type"), str(doc.get("item_id")))][doc.get("prompt_id")] = prompt
    multi = {k: v for k, v in variants.items() if len(v) > 1}
    collapsed = sum(1 for v in multi.values() if len(set(v.values())) == 1)
    known = [f for f in present_flags if f is not None]
    return {
        "samples": len(pairs),
        "checked": len(known),
        "present": sum(known),
        "missing": len(known) - sum(known),
        "missing_by_prompt": dict(sorted(missing_by_prompt.items(), key=lambda kv: str(kv[0]))),
        "prompt_ids": sorted({doc.get("prompt_id") for doc, _ in pairs}, key=str),
        "items_with_variants": len(multi),
        "collapsed_items": collapsed,
        "text_before_system_prompt": [p for p, _ in prefixes.most_common(3)],
        "per_sample_present": present_flags,
    }


def read_samples(path: Path) -> list[tuple[dict, str | None]]:
    pairs = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                sample = json.loads(line)
                pairs.append((sample.get("doc") or {}, rendered_prompt(sample)))
    return pairs


def results_for(samples_path: Path) -> Path | None:
    """The results_<date>.json written by the same run, if it sits beside the samples file."""
    m = _DATE.match(samples_path.name)
    if m:
        candidate = samples_path.with_name(f"results_{m.group('date')}.json")
        if candidate.is_file():
            return candidate
    return None


def run_settings(results_path: Path | None) -> dict[str, Any]:
    if results_path is None:
        return {}
    data = json.loads(results_path.read_text(encoding="utf-8"))
    return {
        "system_instruction": data.get("system_instruction"),
        "chat_template_applied": bool(data.get("chat_template")) if "chat_template" in data else None,
    }


def check_system_prompts(samples_jsonl_path: str | Path, results_json_path: str | Path | None = None) -> dict[str, Any]:
    """Report on one samples_divan*.jsonl file; ``ok`` is False when the prompts did not arrive as intended."""
    path = Path(samples_jsonl_path)
    results = Path(results_json_path) if results_json_path else results_for(path)
    report = inspect_samples(read_samples(path))
    report.pop("per_sample_present")
    report.update(file=str(path), results_file=str(results) if results else None, **run_settings(results))
    problems = []
    if report["missing"]:
        problems.append(
            f"{report['missing']} of {report['checked']} rendered prompts lack their system prompt "
            f"(by prompt id: {report['missing_by_prompt']}): the chat template dropped the system role"
        )
    if report["collapsed_items"]:
        problems.append(
            f"{report['collapsed_items']} of {report['items_with_variants']} items render identically under "
            "all their system prompts: the five variants collapsed"
        )
    if report.get("system_instruction"):
        problems.append(f"--system_instruction {report['system_instruction']!r} was prepended to every system prompt")
    if report.get("chat_template_applied") is False:
        problems.append("no chat template was applied: the system prompts were glued before the question as text")
    report["problems"] = problems
    report["ok"] = not problems
    return report


def _expand(paths: Iterable[str]) -> list[Path]:
    out = []
    for p in map(Path, paths):
        out.extend(sorted(p.rglob("samples_divan*.jsonl")) if p.is_dir() else [p])
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="+", help="samples_divan*.jsonl files or folders holding them")
    parser.add_argument("--results", help="results_*.json of the run (default: the one beside each samples file)")
    parser.add_argument("--json", action="store_true", help="print the reports as JSON")
    args = parser.parse_args(argv)
    files = _expand(args.paths)
    if not files:
        print("no samples_divan*.jsonl files found", file=sys.stderr)
        return 2
    reports = [check_system_prompts(f, args.results) for f in files]
    if args.json:
        print(json.dumps(reports, ensure_ascii=False, indent=2))
    else:
        for r in reports:
            status = "OK" if r["ok"] else "PROBLEM"
            print(f"{status}  {r['file']}")
            print(f"  samples {r['samples']}, prompt ids {r['prompt_ids']}, system prompt found in "
                  f"{r['present']}/{r['checked']}, "
                  f"collapsed items {r['collapsed_items']}/{r['items_with_variants']}")  # fmt: skip
            if r["results_file"]:
                print(f"  run: system_instruction={r.get('system_instruction')!r}, "
                      f"chat template applied={r.get('chat_template_applied')}")  # fmt: skip
            for prefix in r["text_before_system_prompt"][:1]:
                print(f"  text before the system prompt: {prefix!r}")
            for problem in r["problems"]:
                print(f"  - {problem}")
    return 0 if all(r["ok"] for r in reports) else 1


if __name__ == "__main__":
    sys.exit(main())
