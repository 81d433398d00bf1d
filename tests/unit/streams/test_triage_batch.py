"""The input agent on several waiting turns at a time (memgate.streams.triage_batch):
the same messages on each topic, in the same order, as one turn at a time (replays
skipped, a reused turn id and a line that does not parse dead-lettered, the fairness
gate's deferrals in place), with one ledger query per tenant instead of one per turn;
every message acknowledged only once the broker acknowledged what it sent."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from dataclasses import dataclass, field

import pytest

from memgate.core.events import TurnEvent
from memgate.streams.app import Origin, Worker
from memgate.streams.fairness import FairGate
from memgate.streams.metrics import Metrics
from memgate.streams.topology import DEFERRED_TOPIC, DLQ_TOPIC
from memgate.streams.triage_batch import handle_turn_batch
from memgate.streams.turns import Seen, TurnLedger
from tests.unit.streams.conftest import Gate, turn
from tests.unit.streams.replay_harness import Clock, HeldAcks, Topics, drain_audit, pipeline

USERS = [("acme", "alice"), ("acme", "bob"), ("globex", "alice")]  # one user id, two tenants
SAID = [
    "I live in Berlin.",
    "ok thanks",
    "I prefer green tea in the morning.",
    "My manager is Ana.",
    "What time is it?",
    "My dog is called Rex.",
    "We moved from Python to Rust for the backend.",
    "I love jazz, especially Coltrane.",
    "I moved to Paris last month.",
]


@dataclass
class LoggedTopics(Topics):
    """The in-memory topics with every message sent, in the order sent."""

    log: list[tuple[str, str, bytes]] = field(default_factory=list)

    async def send(self, name: str, key: str, payload: bytes) -> None:
        self.log.append((name, key, payload))
        await super().send(name, key, payload)


def _worker(gate: Gate) -> Worker:
    # three turns a user at once, none after: later turns of a user go to the deferred topic
    fair = FairGate(rate=1.0, burst=3, clock=lambda: 0.0)
    p = pipeline(gate.settings, Clock())
    return Worker(gate.settings, p, gate.retrieval, gate.audit, Metrics(), gate=fair)


def _turns(prefix: str, n: int) -> list[TurnEvent]:
    out = []
    for i in range(n):
        tenant, user = USERS[i % len(USERS)]
        text = SAID[i % len(SAID)]
        out.append(turn(f"{prefix}{i}", text, user=user, tenant_id=tenant, minutes=i))
    return out


def _journal(gate: Gate, turns: Sequence[TurnEvent]) -> None:
    """``turns`` triaged and their journal rows stored (what the ledger will know)."""
    worker = _worker(gate)
    topics = Topics("memgate")

    async def go() -> None:
        batch = [(t.model_dump_json().encode(), Origin("memgate.turns", 0, n))
                 for n, t in enumerate(turns)]  # fmt: skip
        await handle_turn_batch(worker, batch, topics.send, topics.enqueue, lambda i: None)
        await drain_audit(worker, topics)

    asyncio.run(go())


def _input(gate: Gate) -> list[bytes]:
    """New turns of three users, a replay of two journaled turns, a journaled turn id
    reused for another text, and a line that does not parse, mixed."""
    earlier = _turns("old", 3)
    _journal(gate, earlier)
    new = [t.model_dump_json().encode() for t in _turns("t", 14)]
    replays = [t.model_dump_json().encode() for t in earlier[:2]]
    reused = earlier[2].model_copy(update={"content": "I moved to Oslo."})
    # each user's first three turns go on, the later ones are deferred (the gate's burst)
    return [
        *new[:3], replays[0], b'{"tenant_id": "acme", "user_id"',
        reused.model_dump_json().encode(), replays[1], *new[3:],
    ]  # fmt: skip


def _run(gate: Gate, lines: list[bytes], batch: int) -> tuple[list[tuple[str, str, bytes]], int]:
    """``lines`` through the input agent, ``batch`` at a time (0: one at a time,
    :meth:`Worker.take_turn`): every message sent, in the order sent (a dead letter's
    clock left out), and how many ledger queries were made."""
    worker = _worker(gate)
    topics = LoggedTopics("memgate")
    queries = _Counted(worker.ledger)
    worker.ledger = queries
    for line in lines:
        asyncio.run(topics.send("turns", "k", line))
    topics.log.clear()

    async def go() -> None:
        while topics.queues["turns"]:
            if batch:
                msgs = topics.take("turns", batch)
                acked: list[int] = []
                await handle_turn_batch(worker, msgs, topics.send, topics.enqueue, acked.append)
                assert sorted(acked) == list(range(len(msgs)))
            else:
                ((raw, origin),) = topics.take("turns", 1)
                later = await worker.take_turn(raw, origin, topics.send, topics.enqueue)
                if later is not None:
                    await later

    asyncio.run(go())
    out = []
    for name, key, payload in topics.log:
        if name == DLQ_TOPIC:
            d = json.loads(payload)
            d.pop("failed_at")
            payload = json.dumps(d, sort_keys=True).encode()
        out.append((name, key, payload))
    return out, queries.calls


def _on(log: list[tuple[str, str, bytes]], topics: set[str]) -> list[tuple[str, str, bytes]]:
    return [m for m in log if m[0] in topics]


@dataclass
class _Counted:
    ledger: TurnLedger
    calls: int = 0

    def seen_turns(self, tenant_id: str, turn_ids: Sequence[str]) -> dict[str, Seen]:
        self.calls += 1
        return self.ledger.seen_turns(tenant_id, turn_ids)


def test_batches_send_exactly_what_one_turn_at_a_time_sends_in_the_same_order(
    gate: Gate,
) -> None:
    lines = _input(gate)
    want, one_by_one = _run(gate, lines, 0)
    names = [name for name, _, _ in want]
    assert {"triaged", "audit", "deferred", DLQ_TOPIC} <= set(names)
    reasons = [json.loads(p)["reason"] for n, _, p in want if n == DLQ_TOPIC]
    assert reasons[0].startswith("invalid event") and reasons[1] == "turn_id_conflict"
    journaled = [json.loads(p)["turn_id"] for n, _, p in want
                 if n == "audit" and json.loads(p)["_kind"] == "journal"]  # fmt: skip
    assert "old0" not in journaled and "old1" not in journaled  # replays skipped
    assert one_by_one == len(lines) - 1 - names.count("deferred")  # one query a turn
    for size in (4, 32):
        got, queries = _run(gate, lines, size)
        for topic in set(names):  # each topic: the same messages in the same order
            assert _on(got, {topic}) == _on(want, {topic}), (size, topic)
        # and a user's turns leave in their order, whichever path they take
        assert _on(got, {"triaged", "deferred"}) == _on(want, {"triaged", "deferred"})
        assert queries < one_by_one
    _, queries = _run(gate, lines, 32)
    # one per tenant of each run of turns the gate let through (a deferral ends a run)
    assert queries <= 2 * (1 + names.count("deferred"))


def test_a_turn_is_acknowledged_only_once_the_broker_acknowledged_what_it_sent(
    gate: Gate,
) -> None:
    worker = _worker(gate)
    lines = [t.model_dump_json().encode() for t in _turns("t", 6)]
    acked: list[int] = []

    async def go(failure: BaseException | None) -> None:
        topics = HeldAcks("memgate")
        batch = [(raw, Origin("memgate.turns", 0, i)) for i, raw in enumerate(lines)]
        body = asyncio.ensure_future(
            handle_turn_batch(worker, batch, topics.send, topics.enqueue, acked.append)
        )
        while not topics.acks:
            await asyncio.sleep(0)
        await asyncio.sleep(0.01)
        assert acked == [] and not body.done()  # sent, not yet acknowledged by the broker
        assert {n for n, q in topics.queues.items() if q} == {"triaged", "audit"}
        topics.release(failure)
        await body

    asyncio.run(go(None))
    assert sorted(acked) == list(range(len(lines)))
    acked.clear()
    worker = _worker(gate)  # the same turns again, new to this worker's gate
    with pytest.raises(ConnectionError):
        asyncio.run(go(ConnectionError("broker gone")))
    assert acked == []  # the run's outputs were not all acknowledged: none of its turns is


@dataclass
class _TriagedRefused(HeldAcks):
    """The broker refuses what the triage step sends and holds the deferred copies."""

    async def enqueue(self, name: str, key: str, payload: bytes) -> asyncio.Future[int]:
        if name == DEFERRED_TOPIC:
            return await super().enqueue(name, key, payload)
        await self.send(name, key, payload)
        refused: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        refused.set_exception(ConnectionError("broker gone"))
        return refused


def test_a_broker_failure_stops_the_batch_at_once_and_a_copy_that_made_it_is_acked(
    gate: Gate,
) -> None:
    worker = _worker(gate)
    assert worker.gate is not None
    worker.gate.deferring("acme/alice")  # alice has a deferred backlog: her turns wait
    worker.gate.deferred("acme/alice", 0)
    alice, bob = _turns("t", 2)  # alice's turn, then bob's
    batch = [(t.model_dump_json().encode(), Origin("memgate.turns", 0, i))
             for i, t in enumerate((alice, bob))]  # fmt: skip
    acked: list[int] = []

    async def go() -> None:
        topics = _TriagedRefused("memgate")
        body = handle_turn_batch(worker, batch, topics.send, topics.enqueue, acked.append)
        with pytest.raises(ConnectionError):  # bob's outputs refused: not waiting for alice's
            await asyncio.wait_for(body, timeout=2)
        assert acked == [] and len(topics.acks) == 1
        topics.release()  # alice's copy on the deferred topic made it after all
        for _ in range(3):
            await asyncio.sleep(0)
        assert acked == [0]  # bob's turn stays unacknowledged: it comes again

    asyncio.run(go())
