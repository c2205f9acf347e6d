"""Which answers are retried, and how long to wait before the next attempt (spec sections 10, 14)."""

from __future__ import annotations

import asyncio
import math
import random as _random
import re
import time
from dataclasses import dataclass
from datetime import datetime
from email.utils import parsedate_to_datetime
from typing import Awaitable, Callable

from .errors import NetworkError, ProblemError


@dataclass(frozen=True)
class RetryNotice:
    """What ``on_retry`` is told before each wait."""

    operation: str
    """The call, e.g. ``deliver_completion``."""
    attempt: int
    """The attempt that just failed (1 = the first)."""
    error: ProblemError | NetworkError
    """What it failed with."""
    reason: str
    """One line saying why, e.g. ``503 delivery_stopped (inbox_full): ...``."""
    delay: float
    """How long it waits before the next attempt, in seconds."""
    next_attempt_at: datetime
    """When the next attempt starts."""


class RetryPolicy:
    """The TypeScript client's ``RetryPolicy``, in seconds.

    Retried: ``delivery_stopped`` with cause ``inbox_full`` or ``misrouted``,
    ``owner_unavailable``, ``journal_unavailable``, 429, any other 5xx and network errors.
    Everything else is final, ``delivery_stopped`` with cause ``loop_stopped`` included. The wait
    is capped exponential backoff with full jitter, and never shorter than the server's
    ``Retry-After``.

    :param base_delay: backoff ceiling before the first retry, doubled on every further one.
    :param max_delay: most the ceiling grows to (a server's ``Retry-After`` may ask for longer).
    :param max_attempts: attempts in all, the first included; ``None`` retries until answered.
    :param sleep, async_sleep, now, random: injected for tests (a wait, its coroutine form, the
        clock in epoch seconds, uniform in [0, 1)).
    """

    def __init__(
        self,
        base_delay: float = 0.25,
        max_delay: float = 30.0,
        max_attempts: int | None = None,
        *,
        sleep: Callable[[float], None] | None = None,
        async_sleep: Callable[[float], Awaitable[None]] | None = None,
        now: Callable[[], float] | None = None,
        random: Callable[[], float] | None = None,
    ) -> None:
        self.base_delay = base_delay
        self.max_delay = max_delay
        self.max_attempts = max_attempts
        self.sleep: Callable[[float], None] = sleep or time.sleep
        self.async_sleep: Callable[[float], Awaitable[None]] = async_sleep or asyncio.sleep
        self.now: Callable[[], float] = now or time.time
        self._random: Callable[[], float] = random or _random.random

    def is_retryable(self, error: BaseException) -> bool:
        """True when the contract says to send the identical request again after this error."""
        if isinstance(error, NetworkError):
            return True
        if not isinstance(error, ProblemError):
            return False
        if error.code == "delivery_stopped":
            return error.cause in ("inbox_full", "misrouted")
        return error.status == 429 or error.status >= 500

    def should_retry(self, error: BaseException, attempt: int) -> bool:
        """True when attempt number ``attempt`` (1 = the first) failed with ``error`` and another may follow."""
        return (self.max_attempts is None or attempt < self.max_attempts) and self.is_retryable(error)

    def delay(self, attempt: int, error: BaseException | None = None) -> float:
        """Seconds to wait after failed attempt number ``attempt``: uniform in
        [0, min(max_delay, base_delay * 2^(attempt-1))), at least the error's ``Retry-After``."""
        ceiling = min(self.max_delay, self.base_delay * 2.0 ** max(0, attempt - 1))
        jittered = self._random() * ceiling
        retry_after = error.retry_after if isinstance(error, ProblemError) and error.retry_after is not None else 0.0
        return max(jittered, retry_after)

    def parse_retry_after(self, header: str | None) -> float | None:
        """Reads a ``Retry-After`` header (delay-seconds or an HTTP-date) as seconds from now;
        ``None`` when absent or unreadable."""
        value = (header or "").strip()
        if not value:
            return None
        if re.fullmatch(r"\d+", value):
            return float(value)
        try:
            at = parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        if at.tzinfo is None:
            return None
        seconds = at.timestamp() - self.now()
        return max(0.0, seconds) if math.isfinite(seconds) else None


def reason_of(error: ProblemError | NetworkError) -> str:
    """The one line ``on_retry`` is told: ``<status> <code> (<cause>): <detail>``, or the network error."""
    if isinstance(error, ProblemError):
        cause = f" ({error.cause})" if error.cause else ""
        return f"{error.status} {error.code}{cause}: {error.detail}"
    return str(error)
