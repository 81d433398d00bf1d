"""A stage agent's batches: a window only when there is a backlog to fill it.

Faust's ``Stream.take_events(max_, within)`` yields a batch when ``max_`` messages are
buffered or when its timer of ``within`` seconds fires: a timer that runs on its own, so
that on a quiet stream a lone message waited for it (half the window on average, the
whole window at worst) at every stage it crossed, and a message that came while the
agent's body ran waited for the body and then again for the timer. On a busy stream the
batches filled up anyway.

:func:`take_waiting` waits for a window only when a backlog fills it. When no message
came while the agent's body handled the last batch (a quiet stream), it yields as soon as
one message is there, with every message already in the buffer: no timer. When messages
came while the body ran (a backlog: they waited in the stream for the body), it waits at
most ``window`` seconds after the first of them for the batch to fill up to ``max_``, as
``take_events`` did: the backlog is then taken in batches as large as before (the batch
is what saves the work: one ledger query, one thread call, one store round trip each),
and a message waits for the window only behind others.

The acknowledgement contract is that of ``take_events``: a batch's events are
acknowledged by the stream after the agent's body returns for it (the agents take one
more reference on each event, given back once its work is done), and no message is
added to the buffer while the body runs.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from typing import Any

__all__ = ["take_waiting"]

log = logging.getLogger(__name__)

# what take_waiting uses of a faust.Stream beyond its public batching API (as of
# faust-streaming 0.15): a Faust that no longer has one of them gets take_events instead
_STREAM_INTERNALS = (
    "_enable_passive",
    "add_processor",
    "current_event",
    "channel",
    "wait_for_stopped",
    "wait",
    "crash",
    "ack",
)


async def take_waiting(stream: Any, max_: int, window: float) -> AsyncIterator[list[Any]]:
    """The events of ``stream`` (a ``faust.Stream``) in batches of at least one and at most
    ``max_``: what is waiting at once on a quiet stream, what came within ``window``
    seconds behind a backlog (module docstring)."""
    from mode.utils.aiter import aiter
    from mode.utils.futures import notify

    if max_ < 1:
        raise ValueError(f"max_ must be at least 1, not {max_}")
    missing = [name for name in _STREAM_INTERNALS if not hasattr(stream, name)]
    if missing:
        # another Faust than the one this was written against: its own batching (a lone
        # message then waits for the window at each stage), never a broken agent
        log.warning(
            "this Faust's streams have no %s: the stage agents batch with take_events "
            "(a quiet stream's messages wait up to %.0f ms at each stage); install the "
            "faust-streaming version of memgate's kafka extra to take them at once",
            ", ".join(missing),
            window * 1000,
        )
        async for batch in stream.take_events(max_, within=window):
            yield batch
        return
    events: list[Any] = []
    waiting = asyncio.Event()  # at least one event in the buffer
    full = asyncio.Event()
    consumed = asyncio.Event()
    consuming: asyncio.Future[None] | None = None
    backlog = False  # a message came while the body handled the last batch
    channel_it = aiter(stream.channel)

    async def add_to_buffer(value: Any) -> Any:
        # the stream's processor: it runs in the stream's passive consumer, one message
        # at a time, and holds the next message back while a batch is being consumed
        nonlocal consuming, backlog
        try:
            if consuming is not None:
                backlog = backlog or not consuming.done()
                try:
                    await consuming
                finally:
                    consuming = None
            event = stream.current_event
            if event is None:
                raise RuntimeError("take_waiting found no current event")
            events.append(event)
            waiting.set()
            if len(events) >= max_:
                full.set()
                consumed.clear()
                await stream.wait(consumed)  # never more than max_ in a batch
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            stream.log.exception("Error adding to the batch buffer: %r", exc)
            await stream.crash(exc)
        return value

    stream.enable_acks = False  # the events are acknowledged below, after the body
    stream.add_processor(add_to_buffer)
    stream._enable_passive(channel_it)
    while not stream.should_stop:
        await stream.wait_for_stopped(waiting)
        if backlog and not full.is_set():  # fill the batch behind the backlog
            await stream.wait_for_stopped(full, timeout=window)
        elif not full.is_set():  # a quiet stream: one turn of the loop, no timer
            await asyncio.sleep(0)
        if not events:
            continue
        backlog = False
        consuming = stream.loop.create_future()
        try:
            yield list(events)
        finally:
            done = list(events)
            events.clear()
            waiting.clear()
            for event in done:
                await stream.ack(event)
            notify(consuming)
            full.clear()
            consumed.set()
