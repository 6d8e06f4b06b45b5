"""What a task can learn about the run it is scored in, that lm-eval does not hand it.

* :func:`lm_eval_context` -- from inside a ``custom`` filter: ``evaluate()``'s
  ``system_instruction`` / ``apply_chat_template`` and the rendered prompt of each doc, read
  from lm-eval's call stack (best effort; a later lm-eval that changes the stack makes the
  checks skip, never lie).
* :func:`chat_template_keeps_system` -- at dataset load: does the evaluated model's chat
  template keep a system message? (Gemma 2's raises on one; lm-eval's HF and vLLM backends
  then drop it and retry, and a task's system prompt is silently lost.)
"""

from __future__ import annotations

import logging
import sys
from functools import lru_cache
from typing import Mapping

logger = logging.getLogger("lm_eval_persian_culture")


def lm_eval_context(n_docs: int, *, start_depth: int = 1) -> tuple[dict | None, list[str] | None]:
    """(evaluate()'s system_instruction / apply_chat_template, or None) and the rendered
    prompt of each doc (FilterEnsemble.apply's instances, or None).

    lm-eval 0.4.13 calls a custom filter from FilterEnsemble.apply(instances) under evaluate().
    """
    context, prompts = None, None
    frame = sys._getframe(start_depth)
    try:
        for _ in range(24):
            if frame is None:
                break
            module = frame.f_globals.get("__name__", "")
            if prompts is None and module == "lm_eval.api.filter" and "instances" in frame.f_locals:
                instances = frame.f_locals["instances"]
                try:
                    rendered = [inst.args[0] for inst in instances]
                    if len(rendered) == n_docs:
                        prompts = [p if isinstance(p, str) else str(p) for p in rendered]
                except (AttributeError, IndexError, TypeError):
                    pass
            if module == "lm_eval.evaluator" and frame.f_code.co_name == "evaluate":
                loc = frame.f_locals
                context = {
                    "system_instruction": loc.get("system_instruction"),
                    "apply_chat_template": loc.get("apply_chat_template"),
                }
                break
            frame = frame.f_back
    finally:
        del frame
    if context is None or prompts is None:
        logger.debug("lm-eval call stack not recognised; run-time prompt checks skipped")
    return context, prompts


_PROBE = "SYSTEM-ROLE-PROBE-2f9c"


def template_keeps_system(tokenizer) -> bool:
    """Render [system, user] with the tokenizer's chat template: False when it raises (no
    system role) or the system text does not appear; True when it does (a template that folds
    the system message into the user turn itself, like Gemma 3's, keeps it)."""
    messages = [{"role": "system", "content": _PROBE}, {"role": "user", "content": "hi"}]
    try:
        rendered = tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
    except Exception as err:  # jinja2 TemplateError from raise_exception(...), or anything else
        logger.info("chat template rejects the system role: %s", err)
        return False
    return _PROBE in str(rendered)


@lru_cache(maxsize=8)
def _keeps_system(name: str, revision: str | None, trust_remote_code: bool) -> bool | None:
    try:
        from transformers import AutoTokenizer

        tokenizer = AutoTokenizer.from_pretrained(name, revision=revision, trust_remote_code=trust_remote_code)
    except Exception as err:
        logger.warning("could not load the tokenizer of %r to check its chat template (%s)", name, err)
        return None
    if not getattr(tokenizer, "chat_template", None):
        return None
    return template_keeps_system(tokenizer)


def chat_template_keeps_system(model_settings: Mapping) -> bool | None:
    """For the model named in ``--model_args`` (``tokenizer=`` or ``pretrained=``): does its
    chat template keep a system message? None when it cannot be told (API models, no local
    tokenizer, no chat template)."""
    name = model_settings.get("tokenizer") or model_settings.get("pretrained")
    if not isinstance(name, str) or not name.strip():
        return None
    trust = str(model_settings.get("trust_remote_code", "")).strip().lower() in ("1", "true", "yes")
    revision = model_settings.get("revision")
    return _keeps_system(name, revision if isinstance(revision, str) else None, trust)


__all__ = ["chat_template_keeps_system", "lm_eval_context", "running_task_metadata", "template_keeps_system"]


def running_task_metadata(start_depth: int = 1) -> dict | None:
    """The ``config.metadata`` dict of the task whose filters are running, or None.

    lm-eval dumps a task's config metadata into the results JSON after filtering, so what a
    filter writes there is recorded with the results. lm-eval passes filters no task: it is found
    on the call stack (``Task.apply_filters``); a later lm-eval that calls filters differently
    gets None (and the caller's entry is missing from the results, never wrong).
    """
    frame = sys._getframe(start_depth)
    try:
        while frame is not None:
            task = frame.f_locals.get("self") if frame.f_code.co_name == "apply_filters" else None
            metadata = getattr(getattr(task, "config", None), "metadata", None)
            if isinstance(metadata, dict):
                return metadata
            frame = frame.f_back
        return None
    finally:
        del frame
