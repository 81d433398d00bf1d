"""One retry policy for every store and API call: capped exponential backoff.

A call that fails with a retryable error is tried again after a wait that
doubles from ``base`` with each failure, is at least the ``retry_after`` the
error carries (a 429's ``retry-after``), and at most ``cap``; with ``jitter``
each wait is drawn from the upper half of that (so that workers retrying
together spread out). :func:`retry_call` retries a blocking call a bounded
number of times; :func:`retry_async` retries an awaitable, by default for as
long as the failure lasts (a streaming partition waits, nothing is dropped).

What is retryable is the caller's predicate (usually
:func:`memgate.core.errors.is_transient`); any other error is raised at once.

>>> b = Backoff(base=1.0, cap=5.0)
>>> [b.delay(n) for n in (1, 2, 3, 4)]
[1.0, 2.0, 4.0, 5.0]
>>> b.delay(1, retry_after=3.0), b.delay(1, retry_after=3600.0)
(3.0, 5.0)
>>> sleeps = []
>>> calls = iter([TimeoutError("slow"), TimeoutError("slow"), "ok"])
>>> def flaky():
...     item = next(calls)
...     if isinstance(item, Exception):
...         raise item
...     return item
>>> retry_call(flaky, attempts=3, backoff=b, retryable=lambda e: isinstance(e, TimeoutError),
...            sleep=sleeps.append)
'ok'
>>> sleeps
[1.0, 2.0]
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

__all__ = ["Backoff", "retry_async", "retry_call"]

T = TypeVar("T")

#: ``on_retry(failures, error, wait_s)``: called before each wait (logs, metrics).
OnRetry = Callable[[int, BaseException, float], None]


@dataclass(frozen=True)
class Backoff:
    """Waits between attempts: doubling from ``base``, at least ``retry_after``, at most ``cap``."""

    base: float = 0.2
    cap: float = 30.0
    jitter: bool = False

    def __post_init__(self) -> None:
        if not 0 <= self.base <= self.cap:
            raise ValueError(f"backoff needs 0 <= base <= cap, got base={self.base} cap={self.cap}")

    def delay(self, failures: int, retry_after: float | None = None) -> float:
        """Seconds to wait after ``failures`` consecutive failures (1 for the first)."""
        wait = self.base * 2.0 ** (max(failures, 1) - 1)
        if retry_after is not None:
            wait = max(wait, retry_after)
        wait = min(wait, self.cap)
        return wait * random.uniform(0.5, 1.0) if self.jitter else wait


def _retry_after(exc: BaseException) -> float | None:
    value = getattr(exc, "retry_after", None)
    return float(value) if isinstance(value, int | float) and value > 0 else None


def retry_call(
    fn: Callable[[], T],
    *,
    attempts: int,
    backoff: Backoff,
    retryable: Callable[[BaseException], bool],
    on_retry: OnRetry | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> T:
    """``fn()``, tried up to ``attempts`` times while it fails retryably; the last error raised."""
    if attempts < 1:
        raise ValueError(f"attempts must be at least 1, got {attempts}")
    failures = 0
    while True:
        try:
            return fn()
        except Exception as exc:
            failures += 1
            if failures >= attempts or not retryable(exc):
                raise
            wait = backoff.delay(failures, _retry_after(exc))
            if on_retry is not None:
                on_retry(failures, exc, wait)
            sleep(wait)


async def retry_async(
    fn: Callable[[], Awaitable[T]],
    *,
    backoff: Backoff,
    retryable: Callable[[BaseException], bool],
    on_retry: OnRetry | None = None,
    attempts: int | None = None,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
) -> T:
    """``await fn()``, retried while it fails retryably: ``attempts`` times, or forever (None)."""
    if attempts is not None and attempts < 1:
        raise ValueError(f"attempts must be at least 1, got {attempts}")
    failures = 0
    while True:
        try:
            return await fn()
        except Exception as exc:
            failures += 1
            if (attempts is not None and failures >= attempts) or not retryable(exc):
                raise
            wait = backoff.delay(failures, _retry_after(exc))
            if on_retry is not None:
                on_retry(failures, exc, wait)
            await sleep(wait)
