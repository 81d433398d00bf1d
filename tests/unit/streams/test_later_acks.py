"""A stage body hands what it sends to the producer in order and waits for the broker's
acknowledgements together; a message that writes no fact is acknowledged later, once
they all came, while the agent goes on; facts are written only after the events and
audit rows that explain them were acknowledged."""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

import pytest

from memgate.streams.acks import LaterAcks
from memgate.streams.app import Worker
from memgate.streams.metrics import Metrics
from memgate.streams.topology import AUDIT_TOPIC, ROUTES
from tests.unit.streams.conftest import Gate, turn
from tests.unit.streams.replay_harness import HeldAcks, Topics

HIKES = "I like long hikes in the mountains near the lake."


def _through(worker: Worker, topics: Topics, upto: int) -> None:
    """The turn through the stages before ``ROUTES[upto]``, every send acknowledged at once."""

    async def run() -> None:
        for route in ROUTES[:upto]:
            while topics.queues[route.source]:
                ((raw, origin),) = topics.take(route.source, 1)
                assert await worker.handle(route, raw, origin, topics.send) is None

    asyncio.run(run())


def _worker(gate: Gate) -> Worker:
    return Worker(gate.settings, gate.pipeline(), gate.retrieval, gate.audit, Metrics())


def test_a_message_without_facts_is_acknowledged_once_all_it_sent_is(gate: Gate) -> None:
    worker = _worker(gate)
    topics = HeldAcks(gate.settings.topic_prefix)
    t = turn("t1", HIKES)
    asyncio.run(topics.send("turns", t.partition_key, t.model_dump_json().encode()))
    _through(worker, topics, 1)  # triaged
    route = ROUTES[1]  # extract: candidates forwarded, a decision audited, no fact

    async def run(failure: BaseException | None) -> None:
        ((raw, origin),) = topics.take(route.source, 1)
        later = await worker.handle(route, raw, origin, topics.send, topics.enqueue)
        assert later is not None  # returned while the broker has acknowledged nothing
        sent = len(topics.acks)
        assert sent >= 2 and topics.queues[route.forward_to or ""]  # all handed over, in order
        assert len(topics.queues[AUDIT_TOPIC]) >= 1
        waiting = asyncio.ensure_future(later)
        await asyncio.sleep(0)
        assert not waiting.done()
        topics.release(failure)
        await waiting  # raises the broker's error: the message stays unacknowledged

    asyncio.run(run(None))
    topics.acks.clear()
    # another turn: one acknowledgement refused
    t2 = turn("t2", "I prefer green tea over coffee in the morning.", minutes=1)
    asyncio.run(topics.send("turns", t2.partition_key, t2.model_dump_json().encode()))
    _through(worker, topics, 1)
    with pytest.raises(ConnectionError):
        asyncio.run(run(ConnectionError("broker gone")))


def test_facts_are_written_only_after_what_explains_them_was_acknowledged(
    gate: Gate, monkeypatch: pytest.MonkeyPatch
) -> None:
    worker = _worker(gate)
    topics = HeldAcks(gate.settings.topic_prefix)
    t = turn("t1", HIKES)
    asyncio.run(topics.send("turns", t.partition_key, t.model_dump_json().encode()))
    _through(worker, topics, 3)  # up to the redacted candidate
    route = ROUTES[3]
    assert route.source == "redacted" and topics.queues["redacted"]
    writes: list[int] = []
    real = gate.retrieval.upsert

    def upsert(facts: Any, **kw: Any) -> None:
        writes.append(sum(a.done() for a in topics.acks))
        real(facts, **kw)

    monkeypatch.setattr(gate.retrieval, "upsert", upsert)

    async def run() -> None:
        ((raw, origin),) = topics.take(route.source, 1)
        body = asyncio.ensure_future(worker.handle(route, raw, origin, topics.send, topics.enqueue))
        for _ in range(50):
            await asyncio.sleep(0.01)
            if topics.acks:
                break
        await asyncio.sleep(0.05)
        assert topics.acks and not writes and not body.done()  # waits for the broker
        topics.release()
        assert await body is None  # done, facts written: the message may be acknowledged
        assert writes == [len(topics.acks)]

    asyncio.run(run())


def test_later_acks_acknowledge_on_success_and_stop_the_agent_on_failure() -> None:
    async def run() -> None:
        acks = LaterAcks()
        done: list[str] = []
        ok: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        bad: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        acks.ack_when(ok, lambda: done.append("ok"))
        acks.ack_when(bad, lambda: done.append("bad"))
        acks.check()
        ok.set_result(None)
        bad.set_exception(ConnectionError("gone"))
        await asyncio.sleep(0.01)
        assert done == ["ok"] and not acks.waiting
        with pytest.raises(ConnectionError):
            acks.check()

    asyncio.run(run())


def test_warm_loads_the_embedding_model_before_the_first_candidate(gate: Gate) -> None:
    from memgate.core.embedding import MiniLMEmbedder

    embedder = MiniLMEmbedder()
    pipeline = gate.pipeline()
    resolve = dataclasses.replace(pipeline.resolve, embedder=embedder)
    worker = Worker(
        gate.settings,
        dataclasses.replace(pipeline, resolve=resolve),
        gate.retrieval,
        gate.audit,
        Metrics(),
    )
    assert not embedder.loaded
    worker.warm()
    assert embedder.loaded
    _worker(gate).warm()  # an embedder without a model to load: nothing to do
