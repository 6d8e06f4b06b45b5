"""DivanBench at dataset load: does the evaluated model's chat template keep a system message?

Gemma 2's template raises on one; lm-eval's HF and vLLM backends then drop the system message and
retry, and the setting's system prompt is silently lost. :func:`chat_template_keeps_system` tells it
from ``--model_args`` (``tokenizer=`` or ``pretrained=``), None when it cannot be told.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from functools import lru_cache

logger = logging.getLogger("lm_eval_persian_culture")


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


__all__ = ["chat_template_keeps_system", "template_keeps_system"]
