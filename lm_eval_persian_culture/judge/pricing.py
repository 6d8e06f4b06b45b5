"""Rough cost of judge calls, so a run can say what it spent before the bill does."""

from __future__ import annotations

# USD per 1M tokens, (input, output). List prices as commonly published by OpenAI in 2025; not
# re-checked online for this release (written offline). Verify before budgeting.
PRICES_PER_MILLION: dict[str, tuple[float, float]] = {
    "gpt-4": (30.0, 60.0),
    "gpt-4-0613": (30.0, 60.0),
    "gpt-4-turbo": (10.0, 30.0),
    "gpt-4o": (2.5, 10.0),
    "gpt-4o-2024-08-06": (2.5, 10.0),
    "gpt-4o-mini": (0.15, 0.6),
    "gpt-4.1": (2.0, 8.0),
    "gpt-4.1-mini": (0.4, 1.6),
    "gpt-4.1-nano": (0.1, 0.4),
}


def estimate_cost(model: str, prompt_tokens: int, completion_tokens: int) -> float | None:
    """List-price cost in USD; None for models without a known price (e.g. local servers).

    Names must match exactly (an "openai/" routing prefix is ignored): prefix matching would
    price e.g. "gpt-4-32k" as "gpt-4".
    """
    name = model.strip().lower().removeprefix("openai/")
    prices = PRICES_PER_MILLION.get(name)
    if prices is None:
        return None
    price_in, price_out = prices
    return (prompt_tokens * price_in + completion_tokens * price_out) / 1_000_000
