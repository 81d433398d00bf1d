"""A stage agent's batches (:func:`memgate.streams.batching.take_waiting`) on a Faust
stream without a broker: on a quiet stream a lone message is taken at once, not after a
window; the messages that come while a batch is handled (a backlog) are the next batch,
filled within the window up to the most; a batch's events are acknowledged after the
body returns for it."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import faust
import pytest

from memgate.core.events import Stage
from memgate.streams.app import Worker, create_app
from memgate.streams.batching import take_waiting
from memgate.streams.dedupe_batch import DEDUPE_BATCH
from memgate.streams.metrics import Metrics
from memgate.streams.stage_batch import STAGE_BATCH
from memgate.streams.triage_batch import TRIAGE_BATCH
from tests.unit.streams.conftest import Gate

Body = Callable[[list[bytes]], Awaitable[None]]


async def _idle() -> None:
    """Turns of the event loop, no wall-clock time waited (a 20 ms window would not end)."""
    for _ in range(50):
        await asyncio.sleep(0)


class _Agent:
    """A channel and an agent consuming it through ``take`` (``take_waiting`` unless
    given), noting each batch's values and the events acknowledged before each body."""

    def __init__(self, max_: int, body: Body | None = None, take: Any = None) -> None:
        self.app = faust.App(
            "batching-test",
            broker="kafka://127.0.0.1:1",  # never connected: the app is not started
            store="memory://",
            web_enabled=False,
            loop=asyncio.get_running_loop(),
        )
        self.app.flow_control.resume()  # as a started app does
        self.channel = self.app.channel(value_type=bytes, maxsize=1000)
        self.batches: list[list[bytes]] = []
        self.max_ = max_
        self.body = body
        self.take = take or (lambda stream, n: take_waiting(stream, n, 10.0))
        self.unacked_at_body: list[int] = []
        self.events: list[Any] = []
        self.task: asyncio.Future[None] | None = None

    async def _run(self) -> None:
        stream = self.channel.stream()
        async for events in self.take(stream, self.max_):
            values = [e.value for e in events]
            self.batches.append(values)
            self.unacked_at_body.append(sum(1 for e in events if not e.message.acked))
            self.events.extend(events)
            if self.body is not None:
                await self.body(values)

    async def start(self) -> None:
        self.task = asyncio.ensure_future(self._run())
        await _idle()

    async def put(self, *values: bytes) -> None:
        for v in values:
            await self.channel.send(value=v)

    async def stop(self) -> None:
        assert self.task is not None
        if self.task.done():
            self.task.result()  # its failure, if it failed
        self.task.cancel()
        # acknowledging made the app's consumer, whose thread's loop never ran: closed
        consumer = getattr(self.app, "_consumer", None)
        if consumer is not None:
            consumer._thread.thread_loop.close()


def _run(coro: Awaitable[None]) -> None:
    asyncio.run(asyncio.wait_for(coro, 30))  # type: ignore[arg-type]


def test_a_lone_message_is_taken_without_waiting_for_a_window() -> None:
    async def go() -> None:
        agent = _Agent(32)
        await agent.start()
        await agent.put(b"a")
        await _idle()
        assert agent.batches == [[b"a"]]
        await agent.stop()

    _run(go())


def test_faust_take_events_held_a_lone_message_for_its_window() -> None:
    """What the agents did before: the same message waited for the timer (here 10 s)."""

    async def go() -> None:
        agent = _Agent(32, take=lambda stream, n: stream.take_events(n, within=10.0))
        await agent.start()
        await agent.put(b"a")
        await _idle()
        assert agent.batches == []
        await agent.stop()

    _run(go())


def test_the_messages_waiting_are_taken_together_never_more_than_the_most() -> None:
    release = asyncio.Event()

    async def body(values: list[bytes]) -> None:
        if values == [b"first"]:
            await release.wait()

    async def go() -> None:
        agent = _Agent(4, body)
        await agent.start()
        await agent.put(b"first")
        await _idle()
        await agent.put(*(b"%d" % i for i in range(10)))  # waiting while the body runs
        release.set()
        await _idle()
        assert agent.batches == [
            [b"first"],
            [b"0", b"1", b"2", b"3"],
            [b"4", b"5", b"6", b"7"],
            [b"8", b"9"],
        ]
        await agent.stop()

    _run(go())


def test_what_comes_while_a_batch_is_handled_is_the_next_batch() -> None:
    release = asyncio.Event()

    async def body(values: list[bytes]) -> None:
        if values == [b"first"]:
            await release.wait()

    async def go() -> None:
        agent = _Agent(4, body)  # a window of 10 s
        await agent.start()
        await agent.put(b"first")
        await _idle()
        await agent.put(b"x", b"y", b"z")  # while the body of the first batch runs
        await _idle()
        assert agent.batches == [[b"first"]]  # nothing added while the body runs
        release.set()
        await _idle()
        assert agent.batches == [[b"first"]]  # a backlog: the batch fills in the window
        await agent.put(b"w")
        await _idle()
        assert agent.batches == [[b"first"], [b"x", b"y", b"z", b"w"]]  # full: at once
        await agent.put(b"after")  # the stream is quiet again: no window
        await _idle()
        assert agent.batches[-1] == [b"after"]
        await agent.stop()

    _run(go())


def test_a_batch_is_acknowledged_only_after_its_body_returned() -> None:
    async def go() -> None:
        agent = _Agent(32)
        await agent.start()
        await agent.put(b"a")
        await _idle()
        await agent.put(b"b", b"c")
        await _idle()
        assert agent.batches == [[b"a"], [b"b", b"c"]]
        assert agent.unacked_at_body == [1, 2]  # none acknowledged when its body ran
        assert all(e.message.acked for e in agent.events)  # all of them once it returned
        await agent.stop()

    _run(go())


def test_a_batch_of_none_is_refused() -> None:
    async def go() -> None:
        with pytest.raises(ValueError, match="at least 1"):
            await take_waiting(object(), 0, 0.02).__anext__()

    _run(go())


def test_the_stage_agents_take_the_messages_waiting_without_a_window(
    gate: Gate, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The input, extract, redact, dedupe and persist agents batch through
    ``take_waiting`` (they used Faust's ``take_events`` and its 20 ms timer)."""
    from memgate.streams import batching

    taken: list[int] = []

    async def recorded(stream: Any, max_: int, window: float) -> AsyncIterator[list[Any]]:
        taken.append(max_)
        assert window == 0.02
        return
        yield  # an async generator that yields nothing

    class _NoWindow:
        def take_events(self, *args: Any, **kwargs: Any) -> Any:
            raise AssertionError("a batch waited for a timed window")

    monkeypatch.setattr(batching, "take_waiting", recorded)
    app = create_app(Worker(gate.settings, gate.pipeline(), gate.retrieval, gate.audit, Metrics()))
    prefix = gate.settings.topic_prefix
    stages = [s.value for s in (Stage.TRIAGE, Stage.EXTRACT, Stage.REDACT, Stage.DEDUPE)]
    for stage in [*stages, Stage.PERSIST.value]:
        asyncio.run(app.agents[f"{prefix}.{stage}"].fun(_NoWindow()))
    assert taken == [TRIAGE_BATCH, STAGE_BATCH, STAGE_BATCH, DEDUPE_BATCH, STAGE_BATCH]


class _OtherFaustStream:
    """A stream of a Faust without the internals ``take_waiting`` uses: everything but
    ``_enable_passive`` is the real stream's."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def __getattr__(self, name: str) -> Any:
        if name == "_enable_passive":
            raise AttributeError(name)
        return getattr(self._stream, name)


def test_a_faust_without_the_internals_used_batches_with_take_events(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def go() -> None:
        agent = _Agent(32, take=lambda stream, n: take_waiting(_OtherFaustStream(stream), n, 0.01))
        await agent.start()
        await agent.put(b"a", b"b")
        for _ in range(100):
            if agent.batches:
                break
            await asyncio.sleep(0.01)
        assert [v for batch in agent.batches for v in batch] == [b"a", b"b"]
        await agent.stop()

    _run(go())
    assert "take_events" in caplog.text and "_enable_passive" in caplog.text
