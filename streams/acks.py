"""Acknowledging a message once what it sent is acknowledged by the broker.

A stage body hands its outputs to the producer in order and waits for their
acknowledgements together (:func:`all_acked`), one broker round trip per message
instead of one per output. A body that writes no fact returns at once with what
completes then, and the agent acknowledges the message only when it completes
(:class:`LaterAcks`), going on with the next message meanwhile.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence

__all__ = ["LaterAcks", "all_acked"]


async def all_acked(acks: Sequence[Awaitable[int]]) -> None:
    """Wait for every acknowledgement; raises the first failure (after all settled)."""
    results = await asyncio.gather(*acks, return_exceptions=True)
    for r in results:
        if isinstance(r, BaseException):
            raise r


class LaterAcks:
    """A stage agent's messages acknowledged once what they sent is acknowledged, while the
    agent goes on. A failure leaves its message unacknowledged (Faust commits an offset
    only when every message before it is acknowledged, so it comes again) and stops the
    agent at its next message with the broker's error."""

    def __init__(self) -> None:
        self.failed: list[BaseException] = []
        self.waiting: set[asyncio.Task[None]] = set()

    def check(self) -> None:
        if self.failed:
            raise self.failed[0]

    def ack_when(self, done: Awaitable[None], ack: Callable[[], object]) -> None:
        async def wait() -> None:
            try:
                await done
            except BaseException as exc:  # left unacknowledged: it comes again
                self.failed.append(exc)
                return
            ack()

        task = asyncio.ensure_future(wait())
        self.waiting.add(task)
        task.add_done_callback(self.waiting.discard)
