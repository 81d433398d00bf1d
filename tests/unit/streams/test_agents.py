"""The Faust agents' bodies, without a broker: a message is acknowledged only once what
it caused is stored or dead-lettered, and a redelivered message changes nothing."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable

import pytest

from memgate.core.events import (
    AuditEvent,
    DeadLetter,
    DecisionRecord,
    JournalRecord,
    RedactedCandidate,
    Stage,
)
from memgate.streams.app import Origin, Worker
from memgate.streams.metrics import Metrics
from memgate.streams.topology import AUDIT_TOPIC, DLQ_TOPIC, encode_audit, route_of
from tests.unit.streams.conftest import Gate, turn
from tests.unit.streams.replay_harness import Topics, drain_stages

HIKES = "I like long hikes in the mountains near the lake."


def _worker(gate: Gate) -> Worker:
    return Worker(gate.settings, gate.pipeline(), gate.retrieval, gate.audit, Metrics())


def _rows(gate: Gate, n: int) -> list[AuditEvent]:
    p = gate.pipeline()
    return [
        e
        for i in range(n)
        for e in p.triage(turn(f"t{i}", f"I prefer tool number {i} for scripting.", minutes=i))
        if isinstance(e, JournalRecord | DecisionRecord)
    ]


def _batch(payloads: list[bytes]) -> list[tuple[bytes, Origin]]:
    return [(raw, Origin("memgate.audit", 0, i, b"acme/alice")) for i, raw in enumerate(payloads)]


def _stored(gate: Gate) -> set[str]:
    return {
        r[0]
        for table in ("journal", "decisions", "fact_history")
        for r in gate.rows(f"SELECT event_id FROM {table} FINAL")
    }


def _dead(topics: Topics) -> list[tuple[int, DeadLetter]]:
    queue = topics.queues[DLQ_TOPIC]
    return [(i, DeadLetter.model_validate_json(raw)) for i, (_, raw, _) in enumerate(queue)]


def _write(
    worker: Worker, topics: Topics, batch: list[tuple[bytes, Origin]], ack: Callable[[int], None]
) -> None:
    asyncio.run(worker.write_audit(batch, topics.send, ack))


def test_an_audit_batch_is_acknowledged_only_after_its_rows_are_stored(gate: Gate) -> None:
    rows = _rows(gate, 3)
    topics = Topics("memgate")
    acked: list[int] = []

    def ack(i: int) -> None:
        assert rows[i].event_id in _stored(gate), "acknowledged before it was written"
        acked.append(i)

    _write(_worker(gate), topics, _batch([encode_audit(r) for r in rows]), ack)
    assert sorted(acked) == list(range(len(rows)))
    assert _stored(gate) == {r.event_id for r in rows}
    assert topics.queues[DLQ_TOPIC] == []


def test_a_row_the_store_refuses_is_dead_lettered_before_its_ack_and_the_rest_is_written(
    gate: Gate,
) -> None:
    rows = _rows(gate, 2)  # four rows: a journal row and a decision per turn
    # a row the audit store cannot hold (a lone surrogate cannot be encoded): refused for
    # good, retrying it would hold the audit partition forever
    poison = json.loads(encode_audit(rows[1]))
    poison["reason"] = "bad \ud800"
    payloads = [encode_audit(r) for r in rows]
    payloads[1] = json.dumps(poison).encode()
    payloads.append(b"{not json")
    refused = {1, len(rows)}
    topics = Topics("memgate")
    acked: list[int] = []

    def ack(i: int) -> None:
        if i in refused:
            assert i in {d.offset for _, d in _dead(topics)}, "acknowledged before dead-lettered"
        else:
            assert rows[i].event_id in _stored(gate), "acknowledged before it was written"
        acked.append(i)

    _write(_worker(gate), topics, _batch(payloads), ack)
    assert sorted(acked) == list(range(len(payloads)))  # nothing dropped or left unacknowledged
    assert _stored(gate) == {r.event_id for i, r in enumerate(rows) if i not in refused}
    dead = {d.offset: d for _, d in _dead(topics)}
    assert set(dead) == refused
    assert dead[1].reason.startswith("audit write failed: audit store: inserting 1 rows")
    assert dead[1].source_topic == "memgate.audit" and dead[1].key == "acme/alice"
    assert dead[len(rows)].reason.startswith("invalid row:")


def test_when_the_store_refuses_every_write_each_message_is_dead_lettered_then_acknowledged(
    gate: Gate,
) -> None:
    rows = _rows(gate, 2)
    worker = _worker(gate)
    gate.audit.close()  # every write now fails: "the audit store is closed"
    topics = Topics("memgate")
    acked: list[int] = []

    def ack(i: int) -> None:
        assert i in {d.offset for _, d in _dead(topics)}
        acked.append(i)

    _write(worker, topics, _batch([encode_audit(r) for r in rows]), ack)
    assert sorted(acked) == list(range(len(rows)))
    assert all("the audit store is closed" in d.reason for _, d in _dead(topics))


def test_a_broker_that_cannot_take_the_dead_letter_leaves_the_message_unacknowledged(
    gate: Gate,
) -> None:
    rows = _rows(gate, 1)
    worker = _worker(gate)
    gate.audit.close()

    async def broker_down(name: str, key: str, payload: bytes) -> None:
        raise ConnectionError(f"{name}: broker unavailable")

    acked: list[int] = []
    with pytest.raises(ConnectionError):
        asyncio.run(worker.write_audit(_batch([encode_audit(rows[0])]), broker_down, acked.append))
    assert acked == []  # it comes again


def test_a_redelivered_candidate_bumps_no_fact_through_the_dedupe_agent(gate: Gate) -> None:
    """The issue's case through the agents: a candidate folded into a fact under another
    key, delivered again twice to the dedupe agent, left occurrences 2, 3, 4."""
    worker = _worker(gate)
    topics = Topics("memgate")

    async def say(t_id: str, text: str, minutes: int) -> None:
        t = turn(t_id, text, minutes=minutes)
        await topics.send("turns", t.partition_key, t.model_dump_json().encode())
        await drain_stages(worker, topics)

    async def run() -> list[int]:
        await say("t1", HIKES, 0)
        # the second turn up to the dedupe agent: keep what the redact agent sends it
        t = turn("t2", HIKES.replace(".", " with friends."), minutes=1)
        await topics.send("turns", t.partition_key, t.model_dump_json().encode())
        for stage in (Stage.TRIAGE, Stage.EXTRACT, Stage.REDACT):
            route = route_of(stage)
            while topics.queues[route.source]:
                ((raw, origin),) = topics.take(route.source, 1)
                await worker.handle(route, raw, origin, topics.send)
        ((key, candidate, _),) = topics.queues["redacted"]
        topics.queues["redacted"] = []
        assert RedactedCandidate.model_validate_json(candidate).candidate.object.endswith("friends")
        seen = []
        for _ in range(3):  # one delivery, two redeliveries
            await topics.send("redacted", key.decode(), candidate)
            await drain_stages(worker, topics)
            [fact] = gate.retrieval.list_facts("acme", "alice")
            seen.append(fact.occurrences)
        return seen

    assert asyncio.run(run()) == [2, 2, 2]
    assert topics.queues[AUDIT_TOPIC] and not topics.queues[DLQ_TOPIC]
