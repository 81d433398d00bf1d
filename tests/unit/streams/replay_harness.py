"""Run turns through either path on fresh embedded stores, and read back what they hold.

* :func:`in_process`: the :class:`InProcessRunner`, as ``memgate ingest`` runs it.
* :func:`through_agents`: the Faust agents' bodies (:meth:`Worker.handle`,
  :meth:`Worker.write_audit`) with a :class:`Topics` in memory in place of the
  broker: one partition per topic, read in order, as a worker reads them.

Both use the rule extractor, the hashing embedder and one deterministic
clock (each reading 1 ms after the previous one), so that a row written again
at a later time shows in its system-time columns.
"""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import Awaitable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from memgate.backends import build_pipeline
from memgate.core.embedding import HashingEmbedder
from memgate.core.events import TurnEvent
from memgate.core.settings import Settings
from memgate.sinks.audit import TABLES, ClickHouseAudit
from memgate.sinks.embedded import EmbeddedIndex
from memgate.streams.app import AUDIT_BATCH, Origin, Worker
from memgate.streams.metrics import Metrics
from memgate.streams.pipeline import Pipeline
from memgate.streams.runner import InProcessRunner
from memgate.streams.topology import AUDIT_TOPIC, ROUTES, TOPIC_NAMES

EMBEDDER = HashingEmbedder()
#: per audit table, the column stamped with the clock when the row is made
INGEST_TIME = {
    "journal": "ingested_at",
    "decisions": "decided_at",
    "fact_history": "at",
    "disagreements": "decided_at",
}


class Clock:
    """A clock that moves 1 ms at every reading."""

    def __init__(self) -> None:
        self.now = datetime(2026, 1, 1, tzinfo=UTC)

    def __call__(self) -> datetime:
        self.now += timedelta(milliseconds=1)
        return self.now


def pipeline(settings: Settings, clock: Clock) -> Pipeline:
    """The pipeline ``memgate`` builds from ``settings``, every stage reading ``clock``."""
    p = build_pipeline(settings, EMBEDDER)
    return Pipeline(
        triage=replace(p.triage, clock=clock),
        extract=replace(p.extract, clock=clock),
        redact=replace(p.redact, clock=clock),
        resolve=replace(p.resolve, clock=clock),
    )


@dataclass(frozen=True)
class Held:
    """What the stores hold: every fact (whole records) and every audit row read FINAL."""

    facts: list[dict[str, Any]]
    audit: dict[str, list[dict[str, Any]]]

    def without_clock(self) -> Held:
        """The same, without the columns stamped with the clock (for comparing two paths
        that read the clock in another order)."""
        facts = [
            {k: v for k, v in f.items() if k not in ("recorded_at", "superseded_at")}
            for f in self.facts
        ]
        audit = {
            t: [{k: v for k, v in r.items() if k != INGEST_TIME[t]} for r in rows]
            for t, rows in self.audit.items()
        }
        return Held(facts, audit)


@contextmanager
def stores(audit_path: Path, name: str) -> Iterator[tuple[EmbeddedIndex, ClickHouseAudit]]:
    """A fresh retrieval index and a fresh audit database (in the chDB engine at
    ``audit_path``), dropped afterwards."""
    with tempfile.TemporaryDirectory() as d:
        retrieval = EmbeddedIndex(Path(d) / "retrieval.sqlite3", dim=EMBEDDER.dim)
        audit = ClickHouseAudit.embedded(audit_path, database=name)
        try:
            yield retrieval, audit
        finally:
            retrieval.close()
            audit.client.command(f"DROP DATABASE IF EXISTS `{name}` SYNC")
            audit.close()


def held(retrieval: EmbeddedIndex, audit: ClickHouseAudit, turns: Sequence[TurnEvent]) -> Held:
    owners = sorted({(t.tenant_id, t.user_id) for t in turns})
    facts = [
        f.model_dump(mode="json")
        for tenant, user in owners
        for f in retrieval.list_facts(tenant, user, include_inactive=True)
    ]
    rows: dict[str, list[dict[str, Any]]] = {}
    for table in TABLES:
        cols, got = audit.query(f"SELECT * FROM {table.name} FINAL ORDER BY event_id")
        rows[table.name] = [dict(zip(cols, r, strict=True)) for r in got]
    return Held(sorted(facts, key=lambda f: f["fact_id"]), rows)


def in_process(
    settings: Settings,
    audit_path: Path,
    name: str,
    runs: Sequence[Sequence[TurnEvent]],
) -> Held:
    """Each of ``runs`` ingested by one :class:`InProcessRunner` run, in order."""
    with stores(audit_path, name) as (retrieval, audit):
        runner = InProcessRunner(pipeline(settings, Clock()), retrieval, audit)
        for turns in runs:
            runner.run(turns)
        assert not runner.dead_letters, runner.dead_letters
        return held(retrieval, audit, [t for turns in runs for t in turns])


@dataclass
class Topics:
    """The broker, in memory: one partition per topic, read in order, offsets kept."""

    prefix: str
    queues: dict[str, list[tuple[bytes, bytes, int]]] = field(
        default_factory=lambda: {n: [] for n in TOPIC_NAMES}
    )
    written: dict[str, int] = field(default_factory=lambda: dict.fromkeys(TOPIC_NAMES, 0))

    async def send(self, name: str, key: str, payload: bytes) -> None:
        self.queues[name].append((key.encode(), payload, self.written[name]))
        self.written[name] += 1

    async def enqueue(self, name: str, key: str, payload: bytes) -> Awaitable[int]:
        """:meth:`send`, returning what completes with the message's offset (the broker's
        acknowledgement, already there in memory)."""
        offset = self.written[name]
        await self.send(name, key, payload)

        async def acked() -> int:
            return offset

        return acked()

    def take(self, name: str, n: int) -> list[tuple[bytes, Origin]]:
        batch, self.queues[name] = self.queues[name][:n], self.queues[name][n:]
        return [(raw, Origin(f"{self.prefix}.{name}", 0, off, key)) for key, raw, off in batch]


@dataclass
class HeldAcks(Topics):
    """The in-memory topics, with the broker's acknowledgements held until released."""

    acks: list[asyncio.Future[int]] = field(default_factory=list)

    async def enqueue(self, name: str, key: str, payload: bytes) -> asyncio.Future[int]:
        await self.send(name, key, payload)
        ack: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self.acks.append(ack)
        return ack

    def release(self, failure: BaseException | None = None) -> None:
        """Acknowledge every message still waiting (the first with ``failure``, if any)."""
        for i, ack in enumerate(self.acks):
            if not ack.done():
                if failure is not None and i == 0:
                    ack.set_exception(failure)
                else:
                    ack.set_result(i)


async def drain_stages(worker: Worker, topics: Topics) -> None:
    """Every stage agent reads its topic until no stage topic holds a message."""
    while any(topics.queues[r.source] for r in ROUTES):
        for route in ROUTES:
            while topics.queues[route.source]:
                ((raw, origin),) = topics.take(route.source, 1)
                await worker.handle(route, raw, origin, topics.send)


async def drain_audit(worker: Worker, topics: Topics) -> None:
    """The audit agent reads its topic to the end, a batch at a time; each message is
    acknowledged."""
    while topics.queues[AUDIT_TOPIC]:
        batch = topics.take(AUDIT_TOPIC, AUDIT_BATCH)
        acked: list[int] = []
        await worker.write_audit(batch, topics.send, acked.append)
        assert sorted(acked) == list(range(len(batch)))


def through_agents(
    settings: Settings,
    audit_path: Path,
    name: str,
    runs: Sequence[Sequence[TurnEvent]],
    *,
    audit_lag: bool = False,
) -> Held:
    """Each turn of ``runs`` sent to the turns topic and carried through the agents.

    The audit agent catches up after each turn, or (``audit_lag``) only at the
    end: then no turn is journaled when its replay comes.
    """
    with stores(audit_path, name) as (retrieval, audit):
        worker = Worker(
            settings=settings,
            pipeline=pipeline(settings, Clock()),
            retrieval=retrieval,
            audit=audit,
            metrics=Metrics(),
        )
        topics = Topics(settings.topic_prefix)

        async def deliver() -> None:
            for turns in runs:
                for t in turns:
                    await topics.send("turns", t.partition_key, t.model_dump_json().encode())
                    await drain_stages(worker, topics)
                    if not audit_lag:
                        await drain_audit(worker, topics)
            await drain_audit(worker, topics)

        asyncio.run(deliver())
        assert topics.queues["dlq"] == [], topics.queues["dlq"]
        return held(retrieval, audit, [t for turns in runs for t in turns])
