"""Judge configuration: where the judge lives, how hard to push it, and what determines a verdict.

Settings come from lm-eval's ``--metadata`` (merged with ``--model_args``) or from environment
variables. Metadata is written verbatim into the results JSON, so the API key itself is never a
setting: only the *name* of the environment variable that holds it is.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from lm_eval_persian_culture.errors import PackUserError

log = logging.getLogger(__name__)

PAPER_JUDGE_MODEL = "gpt-4"
"""TaarofBench's judge (App. 1.8); the documented choice for paper-faithful scores.

``gpt-4`` is a moving alias; during the paper's period (2025) it pointed to the ``gpt-4-0613``
snapshot, which is the name to pass to pin the paper's judge."""
PAPER_JUDGE_SNAPSHOT = "gpt-4-0613"

PAPER_SYSTEM_PROMPT = "You are a helpful assistant."

LOCAL_PREFIX = "hf:"
"""``judge_model=hf:<hub id or directory>`` runs the judge in-process through transformers."""

VERDICT_MAX_TOKENS = 16
"""Default answer budget of verdict prompts (Yes/No, an option letter): the paper's judge answers
one word, and the parsers read only the start of the answer. Without a cap a local model may ramble
until its context ends. Prompt kinds that need more pass their own default to ``judge_many``."""
UNPARSEABLE_RETRIES = 2
"""Re-asks of an unreadable answer from a served judge sampling above temperature 0 (unless
``judge_unparseable_retries`` says otherwise)."""
CACHE_ENV = "PERSIAN_CULTURE_JUDGE_CACHE"
_ENV_PREFIX = "PERSIAN_CULTURE_JUDGE_"
JUDGE_MODEL_ENV = _ENV_PREFIX + "MODEL"  # "none" switches judging off (--predict_only sets it)


class JudgeConfigError(PackUserError, ValueError):
    """The judge is misconfigured; raised before any request is paid for."""


class JudgeFailureError(PackUserError, RuntimeError):
    """Too many judgments failed: reporting a score from the rest would be misleading."""


def _default_cache_dir() -> str:
    return os.environ.get(CACHE_ENV) or str(Path("~/.cache/lm_eval_persian_culture/judge").expanduser())


def redact_url(url: str | None) -> str | None:
    """Drop user:password@ and the query string, where OpenAI-compatible proxies sometimes carry keys."""
    if not url:
        return url
    parts = urlsplit(url)
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit((parts.scheme, host, parts.path.rstrip("/"), "", ""))


@dataclass(frozen=True)
class JudgeSettings:
    """Everything needed to reach the judge and reproduce its verdicts (never the key itself)."""

    model: str = PAPER_JUDGE_MODEL
    base_url: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    concurrency: int = 64
    cache_dir: str = field(default_factory=_default_cache_dir)
    temperature: float = 0.0
    max_tokens: int | None = None
    timeout: float = 60.0
    max_retries: int = 6
    retry_backoff: float = 0.5  # seconds before the first retry without Retry-After; doubles, capped at 8 s
    # served judges: re-asks of an answer the parser cannot read; unset: UNPARSEABLE_RETRIES above
    # temperature 0, none at 0 (a served judge at temperature 0 repeats itself: a re-ask is paid for nothing)
    unparseable_retries: int | None = None
    max_error_rate: float = 0.05
    system_prompt: str = PAPER_SYSTEM_PROMPT
    allow_self_judge: bool = False
    # local judge (judge_model=hf:...) only; batch_size None ("auto", the default): the largest batch that
    # fits, found by halving on out-of-memory (judge.local)
    batch_size: int | None = None
    device: str = "auto"
    dtype: str = "auto"

    def __post_init__(self) -> None:
        if not self.model.strip():
            raise JudgeConfigError("judge model must be a non-empty name (or 'none' to disable judging)")
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", self.api_key_env):
            # Don't echo the value: the usual mistake is pasting the key itself here.
            raise JudgeConfigError(
                "judge_api_key_env must be the NAME of an environment variable (e.g. OPENAI_API_KEY), "
                "not the key itself; put the key into that variable"
            )
        if self.concurrency < 1:
            raise JudgeConfigError(f"judge concurrency must be >= 1, got {self.concurrency}")
        if self.timeout <= 0:
            raise JudgeConfigError(f"judge timeout must be > 0 seconds, got {self.timeout}")
        if self.max_retries < 0:
            raise JudgeConfigError(f"judge max_retries must be >= 0, got {self.max_retries}")
        if self.retry_backoff < 0:
            raise JudgeConfigError(f"judge retry_backoff must be >= 0 seconds, got {self.retry_backoff}")
        if self.unparseable_retries is None:
            object.__setattr__(self, "unparseable_retries", UNPARSEABLE_RETRIES if self.temperature > 0 else 0)
        if self.unparseable_retries < 0:
            raise JudgeConfigError(f"judge unparseable_retries must be >= 0, got {self.unparseable_retries}")
        if not 0.0 <= self.max_error_rate <= 1.0:
            raise JudgeConfigError(f"judge max_error_rate must be within [0, 1], got {self.max_error_rate}")
        if self.max_tokens is not None and self.max_tokens < 1:
            raise JudgeConfigError(f"judge max_tokens must be >= 1 or unset, got {self.max_tokens}")
        if self.batch_size is not None and self.batch_size < 1:
            raise JudgeConfigError(f"judge batch_size must be >= 1, got {self.batch_size}")
        if self.is_local:
            if not self.local_model:
                raise JudgeConfigError(
                    f"judge_model={self.model!r}: name a Hugging Face model id or a directory after 'hf:' "
                    "(e.g. hf:Qwen/Qwen2.5-1.5B-Instruct or hf:/models/judge)"
                )
            if self.base_url:
                raise JudgeConfigError(
                    f"judge_model={self.model!r} runs in-process, but judge_base_url={redact_url(self.base_url)} "
                    "is set too: drop the 'hf:' prefix to use the server, or unset judge_base_url"
                )
            if self.temperature != 0.0:
                raise JudgeConfigError(
                    f"the local judge ({self.model}) decodes greedily; judge_temperature must be 0, "
                    f"got {self.temperature}"
                )

    @property
    def is_local(self) -> bool:
        """True for ``hf:<model>``: the judge runs in this process through transformers, no server, no key."""
        return self.model.strip().lower().startswith(LOCAL_PREFIX)

    @property
    def local_model(self) -> str:
        """The hub id or directory after ``hf:`` (empty for served judges)."""
        return self.model.strip()[len(LOCAL_PREFIX) :].strip() if self.is_local else ""

    @property
    def disabled(self) -> bool:
        """True when the user explicitly turned judging off with ``judge_model=none``."""
        return self.model.strip().lower() == "none"

    @classmethod
    def from_settings(cls, settings: Mapping[str, Any] | None) -> JudgeSettings | None:
        """Build settings from lm-eval metadata, falling back to env vars; None when no judge is configured."""
        metadata = dict(settings or {})
        _reject_secrets(metadata)
        _warn_unknown_keys(metadata)

        values: dict[str, Any] = {}
        for spec in _SPECS:
            raw, source = _lookup(metadata, spec)
            if raw is None:
                continue
            try:
                values[spec.attr] = spec.parse(raw)
            except (TypeError, ValueError) as err:
                raise JudgeConfigError(f"{source}: cannot read {raw!r} as {spec.kind} ({err})") from None

        if "model" not in values:
            given = sorted(k for k in metadata if k in _METADATA_KEYS)
            if given:
                raise JudgeConfigError(
                    f"judge settings {given} were given but no judge model: set judge_model "
                    f"(e.g. judge_model={PAPER_JUDGE_MODEL}, the paper's judge) or judge_model=none"
                )
            return None
        return cls(**values)

    def public_dict(self) -> dict[str, Any]:
        """All settings, safe to log or write into results (URL credentials removed)."""
        out = dataclasses.asdict(self)
        out["base_url"] = redact_url(self.base_url)
        return out

    def effective_max_tokens(self, default: int | None) -> int | None:
        """judge_max_tokens when set, else the prompt kind's own default."""
        return self.max_tokens if self.max_tokens is not None else default

    def fingerprint(self, default_max_tokens: int | None = None) -> dict[str, Any]:
        """What determines a verdict; the cache key is built from it (so it carries no credentials).

        The local judge adds the model's revision (see ``judge.local``).
        """
        return {
            "model": self.model,
            "base_url": redact_url(self.base_url),
            "temperature": self.temperature,
            "max_tokens": self.effective_max_tokens(default_max_tokens),
            "system_prompt": self.system_prompt,
        }


def _parse_str(value: Any) -> str:
    return str(value).strip()


def _parse_int(value: Any) -> int:
    if isinstance(value, bool):
        raise ValueError("a boolean is not a number")
    if isinstance(value, float):
        if not value.is_integer():
            raise ValueError("not a whole number")
        return int(value)
    return int(str(value).strip())


def _parse_optional_int(value: Any) -> int | None:
    if isinstance(value, str) and value.strip().lower() in ("none", "null"):
        return None
    return _parse_int(value)


def _parse_batch_size(value: Any) -> int | None:
    if isinstance(value, str) and value.strip().lower() in ("auto", "none", "null"):
        return None
    return _parse_int(value)


def _parse_float(value: Any) -> float:
    if isinstance(value, bool):
        raise ValueError("a boolean is not a number")
    return float(str(value).strip()) if isinstance(value, str) else float(value)


_TRUE = {"1", "true", "yes", "y", "on"}
_FALSE = {"0", "false", "no", "n", "off"}


def _parse_bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise ValueError(f"expected one of {sorted(_TRUE | _FALSE)}")


@dataclass(frozen=True)
class _Spec:
    attr: str
    key: str  # --metadata / --model_args key
    env: str
    parse: Callable[[Any], Any]
    kind: str


_SPECS = (
    _Spec("model", "judge_model", JUDGE_MODEL_ENV, _parse_str, "a model name"),
    _Spec("base_url", "judge_base_url", _ENV_PREFIX + "BASE_URL", _parse_str, "a URL"),
    _Spec("api_key_env", "judge_api_key_env", _ENV_PREFIX + "API_KEY_ENV", _parse_str, "an env var name"),
    _Spec("concurrency", "judge_concurrency", _ENV_PREFIX + "CONCURRENCY", _parse_int, "an integer"),
    _Spec("cache_dir", "judge_cache_dir", CACHE_ENV, _parse_str, "a folder"),
    _Spec("temperature", "judge_temperature", _ENV_PREFIX + "TEMPERATURE", _parse_float, "a number"),
    _Spec("max_tokens", "judge_max_tokens", _ENV_PREFIX + "MAX_TOKENS", _parse_optional_int, "an integer or none"),
    _Spec("timeout", "judge_timeout", _ENV_PREFIX + "TIMEOUT", _parse_float, "seconds"),
    _Spec("max_retries", "judge_max_retries", _ENV_PREFIX + "MAX_RETRIES", _parse_int, "an integer"),
    _Spec("retry_backoff", "judge_retry_backoff", _ENV_PREFIX + "RETRY_BACKOFF", _parse_float, "seconds"),
    _Spec(
        "unparseable_retries",
        "judge_unparseable_retries",
        _ENV_PREFIX + "UNPARSEABLE_RETRIES",
        _parse_int,
        "an integer",
    ),
    _Spec("max_error_rate", "judge_max_error_rate", _ENV_PREFIX + "MAX_ERROR_RATE", _parse_float, "a number"),
    _Spec("allow_self_judge", "judge_allow_self", _ENV_PREFIX + "ALLOW_SELF", _parse_bool, "true/false"),
    _Spec("batch_size", "judge_batch_size", _ENV_PREFIX + "BATCH_SIZE", _parse_batch_size, "an integer or auto"),
    _Spec("device", "judge_device", _ENV_PREFIX + "DEVICE", _parse_str, "a device (auto, cpu, cuda, cuda:1)"),
    _Spec("dtype", "judge_dtype", _ENV_PREFIX + "DTYPE", _parse_str, "a dtype (auto, float32, bfloat16)"),
)
_METADATA_KEYS = {spec.key for spec in _SPECS}
# Judge-related keys a task reads itself (how its judge prompt is built), not judge settings.
TASK_JUDGE_KEYS = {"judge_reply_format"}
# A jury's keys, read by ``judge.jury`` (a list of judges and the tie rule), not by one judge's settings.
JURY_KEYS = frozenset({"judge_jury", "judge_jury_tie"})


def _lookup(metadata: Mapping[str, Any], spec: _Spec) -> tuple[Any, str]:
    """Metadata wins over the environment; empty values count as unset."""
    value = metadata.get(spec.key)
    if value is not None and str(value).strip() != "":
        return value, f"--metadata {spec.key}"
    value = os.environ.get(spec.env)
    if value is not None and value.strip() != "":
        return value, f"${spec.env}"
    return None, ""


def _reject_secrets(metadata: Mapping[str, Any]) -> None:
    leaked = sorted(k for k in metadata if "api_key" in str(k).lower() and str(k).lower() != "judge_api_key_env")
    if leaked:
        raise JudgeConfigError(
            f"{leaked} found in --metadata/--model_args: lm-eval writes those into the results JSON, so a key "
            "there would leak. Put the key in an environment variable instead (OPENAI_API_KEY by default, "
            "or name your own with judge_api_key_env=MY_VAR)."
        )


def _warn_unknown_keys(metadata: Mapping[str, Any]) -> None:
    known = _METADATA_KEYS | TASK_JUDGE_KEYS | JURY_KEYS
    unknown = sorted(k for k in metadata if str(k).startswith("judge_") and k not in known)
    if unknown:
        log.warning("Ignoring unknown judge settings %s; known: %s", unknown, sorted(_METADATA_KEYS))


_MODEL_ARG_KEYS = ("pretrained", "model", "model_name", "path")


def _name_forms(name: str) -> set[str]:
    full = name.strip().rstrip("/\\").lower()
    if full.startswith(LOCAL_PREFIX):  # hf:org/name@revision is the model org/name
        full = full.removeprefix(LOCAL_PREFIX).partition("@")[0]
    return {full, re.split(r"[/\\]", full)[-1]} - {""}


def check_not_self_judge(settings: JudgeSettings, model_args: Mapping[str, Any]) -> None:
    """Refuse to let the evaluated model grade its own answers unless explicitly allowed."""
    if settings.disabled or settings.allow_self_judge:
        return
    judge = _name_forms(settings.model)
    for key in _MODEL_ARG_KEYS:
        value = model_args.get(key)
        if isinstance(value, str) and judge & _name_forms(value):
            raise JudgeConfigError(
                f"the evaluated model ({key}={value}) is also the judge ({settings.model}): it would grade its "
                "own answers. Choose another judge_model, or pass judge_allow_self=true to do it on purpose."
            )
