"""Reading a task's settings (``--metadata`` / ``--model_args`` as lm-eval hands them to a dataset loader).

One reader for a setting that takes one of a few values, so every benchmark accepts them alike (case and
surrounding spaces ignored, empty means the default, aliases allowed) and refuses a bad value with one message
naming the setting, before any model time.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from lm_eval_persian_culture.errors import PackUserError


class SettingError(PackUserError, ValueError):
    """A task setting has a value it cannot take."""


def choice_setting(
    settings: Mapping | None,
    key: str,
    choices: Sequence[str],
    default: str,
    aliases: Mapping[str, str] | None = None,
    error: type[SettingError] = SettingError,
) -> str:
    """The value of ``settings[key]``, lower-cased, one of ``choices`` (``default`` when unset or empty)."""
    raw = (settings or {}).get(key)
    value = default if raw is None or str(raw).strip() == "" else str(raw).strip().lower()
    value = (aliases or {}).get(value, value)
    if value not in choices:
        raise error(f"--metadata {key}={raw!r}: expected one of {list(choices)}")
    return value


__all__ = ["SettingError", "choice_setting"]
