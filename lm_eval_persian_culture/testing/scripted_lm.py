"""A scripted language model for running real lm-eval evaluations with fixed replies.

``ScriptedLM`` is an ``lm_eval.api.model.LM``: pass it to ``lm_eval.simple_evaluate`` and
every step of the harness (prompt building, chat templating, filters, metrics, sample
logging) runs as for a real model, while the replies come from a function you write::

    lm = ScriptedLM(lambda doc, prompt: "Answer: C" if doc["prompt_id"] == 1 else "پاسخ: ب")
    lm_eval.simple_evaluate(model=lm, tasks=["divan_factual"], apply_chat_template=True, ...)

``apply_chat_template`` renders the chat messages as a JSON list, so the logged
``arguments`` of each sample hold exactly the messages lm-eval built (system, user);
``drop_system=True`` imitates a chat template that rejects the system role, the way
lm-eval's HF backend drops it and retries.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping

from lm_eval.api.model import LM

Reply = Callable[[dict, str], str]


class ScriptedLM(LM):
    """generate_until returns ``reply(doc, rendered_prompt)``; loglikelihood is not scripted."""

    def __init__(
        self,
        reply: Reply | Mapping | None = None,
        key: Callable[[dict], object] | None = None,
        default: str = "",
        drop_system: bool = False,
    ) -> None:
        """``reply`` is a function ``(doc, prompt) -> str`` or a mapping looked up with ``key(doc)``
        (``default`` when absent)."""
        super().__init__()
        if reply is None:
            reply = {}
        if isinstance(reply, Mapping):
            table, key_fn = reply, key or (lambda doc: doc)
            self._reply: Reply = lambda doc, prompt: table.get(key_fn(doc), default)
        else:
            self._reply = reply
        self.drop_system = drop_system
        self.calls: list[tuple[dict, str, dict]] = []  # (doc, rendered prompt, gen_kwargs)

    # ------------------------------------------------------------------ generation
    def generate_until(self, requests, disable_tqdm: bool = False) -> list[str]:
        out = []
        for req in requests:
            prompt, gen_kwargs = req.args[0], (req.args[1] if len(req.args) > 1 else {})
            self.calls.append((req.doc, prompt, dict(gen_kwargs)))
            out.append(self._reply(req.doc, prompt))
        return out

    def loglikelihood(self, requests, disable_tqdm: bool = False):
        raise NotImplementedError("ScriptedLM only scripts generate_until")

    def loglikelihood_rolling(self, requests, disable_tqdm: bool = False):
        raise NotImplementedError("ScriptedLM only scripts generate_until")

    # ------------------------------------------------------------------ chat
    def apply_chat_template(self, chat_history: list[dict[str, str]], add_generation_prompt: bool = True) -> str:
        messages = [m for m in chat_history if not (self.drop_system and m.get("role") == "system")]
        return json.dumps(messages, ensure_ascii=False)

    @property
    def tokenizer_name(self) -> str:
        return "scripted-lm"

    def chat_template(self, chat_template: bool | str = False) -> str | None:
        return "json-messages" + ("-no-system" if self.drop_system else "")


def messages_of(rendered_prompt: str) -> list[dict[str, str]]:
    """The chat messages inside a prompt rendered by :meth:`ScriptedLM.apply_chat_template`."""
    return json.loads(rendered_prompt)


__all__ = ["ScriptedLM", "messages_of"]
