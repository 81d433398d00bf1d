"""The one retry policy (memgate.core.retry) that the stores, the worker and the extractor use."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from memgate.core.errors import TransientError, is_transient
from memgate.core.retry import Backoff, retry_async, retry_call


def _failing(errors: list[BaseException], result: str = "ok") -> Callable[[], str]:
    left = list(errors)

    def fn() -> str:
        if left:
            raise left.pop(0)
        return result

    return fn


@pytest.mark.parametrize(
    ("failures", "retry_after", "wait"),
    [
        (1, None, 0.5),
        (2, None, 1.0),
        (3, None, 2.0),
        (5, None, 4.0),  # capped
        (1, 3.0, 3.0),  # at least the server's retry-after
        (1, 3600.0, 4.0),  # never past the cap
        (0, None, 0.5),  # the first wait whatever the count says
    ],
)
def test_delay(failures: int, retry_after: float | None, wait: float) -> None:
    assert Backoff(base=0.5, cap=4.0).delay(failures, retry_after) == wait


def test_jitter_draws_from_the_upper_half() -> None:
    b = Backoff(base=2.0, cap=8.0, jitter=True)
    waits = [b.delay(2) for _ in range(200)]
    assert all(2.0 <= w <= 4.0 for w in waits)
    assert len(set(waits)) > 1


def test_backoff_refuses_a_base_above_the_cap() -> None:
    with pytest.raises(ValueError, match="base"):
        Backoff(base=5.0, cap=1.0)


def test_retry_call_retries_then_returns() -> None:
    sleeps: list[float] = []
    seen: list[tuple[int, str, float]] = []
    fn = _failing([TransientError("busy", retry_after=1.5), ConnectionError("reset")])
    out = retry_call(
        fn,
        attempts=3,
        backoff=Backoff(base=1.0, cap=10.0),
        retryable=is_transient,
        on_retry=lambda n, exc, wait: seen.append((n, str(exc), wait)),
        sleep=sleeps.append,
    )
    assert out == "ok"
    assert sleeps == [1.5, 2.0]
    assert seen == [(1, "busy", 1.5), (2, "reset", 2.0)]


def test_retry_call_raises_the_last_error_after_the_last_attempt() -> None:
    sleeps: list[float] = []
    fn = _failing([TimeoutError("1"), TimeoutError("2"), TimeoutError("3")])
    with pytest.raises(TimeoutError, match="3"):
        retry_call(
            fn, attempts=3, backoff=Backoff(base=1.0), retryable=is_transient, sleep=sleeps.append
        )
    assert sleeps == [1.0, 2.0]


def test_retry_call_raises_a_permanent_error_at_once() -> None:
    sleeps: list[float] = []
    with pytest.raises(ValueError, match="bad"):
        retry_call(
            _failing([ValueError("bad")]),
            attempts=5,
            backoff=Backoff(),
            retryable=is_transient,
            sleep=sleeps.append,
        )
    assert sleeps == []


def test_retry_call_needs_an_attempt() -> None:
    with pytest.raises(ValueError, match="attempts"):
        retry_call(lambda: 1, attempts=0, backoff=Backoff(), retryable=is_transient)


def test_retry_async_retries_for_as_long_as_it_takes() -> None:
    sleeps: list[float] = []

    async def record(wait: float) -> None:
        sleeps.append(wait)

    fn = _failing([TransientError("down")] * 7)

    async def call() -> str:
        return fn()

    out = asyncio.run(
        retry_async(call, backoff=Backoff(base=1.0, cap=8.0), retryable=is_transient, sleep=record)
    )
    assert out == "ok"
    assert sleeps == [1.0, 2.0, 4.0, 8.0, 8.0, 8.0, 8.0]


def test_retry_async_with_attempts_and_a_permanent_error() -> None:
    async def record(wait: float) -> None:
        pass

    fn = _failing([TransientError("a"), TransientError("b")])

    async def call() -> str:
        return fn()

    with pytest.raises(TransientError, match="b"):
        asyncio.run(
            retry_async(call, backoff=Backoff(), retryable=is_transient, attempts=2, sleep=record)
        )

    async def bad() -> str:
        raise KeyError("no")

    with pytest.raises(KeyError):
        asyncio.run(retry_async(bad, backoff=Backoff(), retryable=is_transient, sleep=record))
