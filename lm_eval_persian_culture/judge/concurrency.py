"""How many judge requests are in flight: AIMD, as TCP does against congestion.

A server with few slots (llama.cpp's default is one, Ollama's a handful) queues what it cannot
serve; with 64 requests in flight most of them wait past the client timeout, are cancelled and
re-sent, and the queue never drains. So the limit starts at ``judge_concurrency`` (the ceiling)
and adapts to what the server answers in time:

- a timeout or a 429 (congestion) halves it, or rather the number of requests in flight if that
  is lower (multiplicative decrease, never below 1), once per
  round: the other requests already in flight when it was cut were sent under the old limit and
  time out for the same reason, so they do not cut it again;
- every answered request adds 1/limit (additive increase: +1 after a full round of answers),
  up to the ceiling.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Slot:
    round: int  # the limit's round when the request was sent
    ticket: int  # how many slots had been handed out before this one


@dataclass
class LimitStats:
    ceiling: int
    lowest: int
    decreases: int = 0
    history: list[int] = field(default_factory=list)  # the limit after each change


class AdaptiveLimit:
    """A counting semaphore whose size moves AIMD-style between 1 and ``ceiling``."""

    def __init__(self, ceiling: int) -> None:
        if ceiling < 1:
            raise ValueError(f"ceiling must be >= 1, got {ceiling}")
        self.ceiling = ceiling
        self._limit = float(ceiling)
        self._in_flight = 0
        self._round = 0  # bumped at every decrease
        self._handed_out = 0
        self._cond = threading.Condition()
        self.stats = LimitStats(ceiling=ceiling, lowest=ceiling)

    @property
    def limit(self) -> int:
        return max(1, int(self._limit))

    @property
    def in_flight(self) -> int:
        return self._in_flight

    def acquire(self, timeout: float | None = None) -> Slot | None:
        """Wait for a free slot (None if ``timeout`` seconds pass first); give it back with release."""
        with self._cond:
            if not self._cond.wait_for(lambda: self._in_flight < self.limit, timeout):
                return None
            alone = self._in_flight == 0
            self._in_flight += 1
            self._handed_out += 1
            # a ticket of -1 marks a request that did not start alone
            return Slot(self._round, self._handed_out if alone else -1)

    def was_alone(self, slot: Slot) -> bool:
        """True while no other request has been in flight since ``slot`` was handed out."""
        with self._cond:
            return slot.ticket == self._handed_out and self._in_flight == 1

    def release(self, slot: Slot, congested: bool = False, answered: bool = False) -> bool:
        """Free the slot; returns True when this release cut the limit."""
        round_sent = slot.round
        with self._cond:
            self._in_flight -= 1
            cut = False
            if congested and round_sent == self._round:
                # Half of what was really in flight: a ceiling of 64 over 12 requests must not take
                # three cuts before it limits anything.
                self._limit = max(1.0, float(min(self.limit, self._in_flight + 1) // 2))
                self._round += 1
                self.stats.decreases += 1
                cut = True
            elif answered and self._limit < self.ceiling:
                before = self.limit
                self._limit = min(float(self.ceiling), self._limit + 1.0 / self.limit)
                if self.limit == before:
                    self._cond.notify_all()
                    return False
            else:
                self._cond.notify_all()
                return False
            self.stats.lowest = min(self.stats.lowest, self.limit)
            self.stats.history.append(self.limit)
            self._cond.notify_all()
            return cut
