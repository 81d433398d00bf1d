"""The extract, redact and persist agents on several waiting messages at a time
(memgate.streams.stage_batch): the same messages on each topic, in the same order, as one
message at a time (a message that does not parse dead-lettered in place); the batch's
messages acknowledged only once the broker acknowledged all they sent; a step that fails
on something to wait out tried again alone, the others not run twice."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from memgate.core.errors import TransientError
from memgate.core.events import Stage
from memgate.sinks.embedded import EmbeddedIndex
from memgate.streams.app import Origin, Worker
from memgate.streams.metrics import Metrics
from memgate.streams.stage_batch import handle_stage_batch
from memgate.streams.topology import DLQ_TOPIC, ROUTES, route_of
from tests.unit.streams.conftest import Gate, turn
from tests.unit.streams.replay_harness import Clock, HeldAcks, Topics, pipeline

USERS = [("acme", "alice"), ("acme", "bob"), ("globex", "alice")]
SAID = [
    "I like long hikes in the mountains near the lake.",
    "I prefer green tea in the morning.",
    "My manager is Ana.",
    "ok thanks",
    "I now prefer black coffee in the morning.",
    "My new boss is Tom.",
    "My dog is called Rex.",
    "Our team uses Python for the backend.",
    "What time is it?",
    "We moved from Python to Rust for the backend.",
    "I love jazz, especially Coltrane.",
    "I moved to Paris last month.",
]
BATCHED = (Stage.EXTRACT, Stage.REDACT, Stage.PERSIST)


@dataclass
class LoggedTopics(Topics):
    """The in-memory topics with every message sent, in the order sent."""

    log: list[tuple[str, bytes, bytes]] = field(default_factory=list)

    async def send(self, name: str, key: str, payload: bytes) -> None:
        self.log.append((name, key.encode(), payload))
        await super().send(name, key, payload)


def _worker(gate: Gate, tmp_path: Path, name: str) -> Worker:
    store = EmbeddedIndex(tmp_path / f"{name}.db", dim=gate.embedder.dim)
    p = pipeline(gate.settings, Clock())
    return Worker(gate.settings, p, store, gate.audit, Metrics())


async def _agent(worker: Worker, topics: Topics, stage: Stage, batch: int) -> None:
    """The agent of ``stage`` reads its topic to the end, ``batch`` at a time (0: one at
    a time, :meth:`Worker.handle`); every message acknowledged."""
    route = route_of(stage)
    while topics.queues[route.source]:
        if batch and stage in BATCHED:
            msgs = topics.take(route.source, batch)
            acked: list[int] = []
            later = await handle_stage_batch(
                worker, route, msgs, topics.send, topics.enqueue, acked.append
            )
            if later is not None:
                await later
            assert sorted(acked) == list(range(len(msgs)))
        else:
            ((raw, origin),) = topics.take(route.source, 1)
            later = await worker.handle(route, raw, origin, topics.send, topics.enqueue)
            if later is not None:
                await later


def _run(gate: Gate, tmp_path: Path, batch: int) -> dict[str, list[tuple[bytes, bytes]]]:
    worker = _worker(gate, tmp_path, f"b{batch}")
    topics = LoggedTopics("memgate")

    async def go() -> None:
        for i, text in enumerate(SAID):
            tenant, user = USERS[i % len(USERS)]
            t = turn(f"t{i}", text, user=user, tenant_id=tenant, minutes=i)
            await topics.send("turns", t.partition_key, t.model_dump_json().encode())
        for n, route in enumerate(ROUTES):
            if route.stage is Stage.REDACT:  # a message that does not parse, among them
                queue = topics.queues[route.source]
                queue.insert(len(queue) // 2, (b"acme/bob", b'{"candidate": 1}', 99))
            await _agent(worker, topics, route.stage, batch)
            assert n == 0 or topics.queues[route.source] == []

    asyncio.run(go())
    out: dict[str, list[tuple[bytes, bytes]]] = {}  # each topic: what was sent, in order
    for name, key, raw in topics.log:
        if name == DLQ_TOPIC:
            d = json.loads(raw)
            d.pop("failed_at")
            raw = json.dumps(d, sort_keys=True).encode()
        out.setdefault(name, []).append((key, raw))
    return out


def test_batches_send_exactly_what_one_message_at_a_time_sends(gate: Gate, tmp_path: Path) -> None:
    want = _run(gate, tmp_path, 0)
    assert len(want["resolved"]) >= 6 and len(want["audit"]) > len(SAID)
    assert [json.loads(raw)["source_topic"] for _, raw in want[DLQ_TOPIC]] == ["memgate.extracted"]
    assert set(want) >= {"triaged", "extracted", "redacted", "resolved", "audit"}
    for size in (3, 32):
        assert _run(gate, tmp_path, size) == want, size


def _extracted(gate: Gate, tmp_path: Path) -> tuple[Worker, list[tuple[bytes, Origin]]]:
    """A worker and the messages of its extract topic (six turns triaged)."""
    worker = _worker(gate, tmp_path, "x")
    topics = Topics("memgate")

    async def go() -> None:
        for i, text in enumerate(SAID[:6]):
            t = turn(f"t{i}", text, minutes=i)
            await topics.send("turns", t.partition_key, t.model_dump_json().encode())
        await _agent(worker, topics, Stage.TRIAGE, 0)

    asyncio.run(go())
    return worker, topics.take("triaged", 100)


def test_acknowledged_only_once_the_broker_acknowledged_all_the_batch_sent(
    gate: Gate, tmp_path: Path
) -> None:
    worker, msgs = _extracted(gate, tmp_path)
    route = route_of(Stage.EXTRACT)

    async def go(failure: BaseException | None) -> list[int]:
        topics = HeldAcks("memgate")
        acked: list[int] = []
        later = await handle_stage_batch(
            worker, route, msgs, topics.send, topics.enqueue, acked.append
        )
        assert later is not None and topics.acks and acked == []
        topics.release(failure)
        try:
            await later
        except ConnectionError:
            assert failure is not None
        return acked

    assert sorted(asyncio.run(go(None))) == list(range(len(msgs)))
    assert asyncio.run(go(ConnectionError("broker gone"))) == []


def test_a_step_to_wait_out_is_tried_again_alone(gate: Gate, tmp_path: Path) -> None:
    worker, msgs = _extracted(gate, tmp_path)
    route = route_of(Stage.EXTRACT)
    extract = worker.pipeline.extract
    calls: list[str] = []

    def flaky(item: Any) -> Any:
        calls.append(item.turn.turn_id)
        if item.turn.turn_id == "t1" and calls.count("t1") == 1:
            raise TransientError("extractor throttled")
        return extract(item)

    worker.pipeline = replace(worker.pipeline, extract=flaky)  # type: ignore[arg-type]
    worker.settings = worker.settings.model_copy(update={"retry_base_delay_s": 0.001})
    topics = Topics("memgate")
    acked: list[int] = []

    async def go() -> None:
        later = await handle_stage_batch(
            worker, route, msgs, topics.send, topics.enqueue, acked.append
        )
        assert later is not None
        await later

    asyncio.run(go())
    ids = [json.loads(raw)["turn"]["turn_id"] for raw, _ in msgs]
    assert "t1" in ids
    assert calls == [*ids, "t1"]  # each step once, the throttled one once more
    assert sorted(acked) == list(range(len(msgs))) and topics.queues[DLQ_TOPIC] == []
