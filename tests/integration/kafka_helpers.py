"""Small real-Kafka helpers for the integration tests (aiokafka against the local broker)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition
from aiokafka.admin import AIOKafkaAdminClient
from aiokafka.errors import KafkaError

from memgate.streams.app import ensure_topics

STAGE_TOPICS = ("turns", "triaged", "extracted", "redacted", "resolved", "audit", "deferred")


async def _lag(bootstrap: str, group: str, topics: list[str]) -> int:
    per_topic = await _lag_by_topic(bootstrap, group, topics)
    return -1 if per_topic is None else sum(per_topic.values())


async def _lag_by_topic(bootstrap: str, group: str, topics: list[str]) -> dict[str, int] | None:
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False)
    await consumer.start()
    try:
        existing = set(await consumer.topics())
        tps = [
            TopicPartition(t, p)
            for t in topics
            if t in existing
            for p in (consumer.partitions_for_topic(t) or {0})
        ]
        if not tps:
            return None
        ends = await consumer.end_offsets(tps)
        committed = await admin.list_consumer_group_offsets(group)
        lag: dict[str, int] = {}
        for tp in tps:
            meta = committed.get(tp)
            done = meta.offset if meta is not None and meta.offset >= 0 else 0
            lag[tp.topic] = lag.get(tp.topic, 0) + max(0, ends[tp] - done)
        return lag
    finally:
        await consumer.stop()
        await admin.close()


def wait_drained(
    bootstrap: str,
    group: str,
    prefix: str,
    *,
    timeout: float = 300,
    settle: float = 3.0,
    describe: Callable[[], str] | None = None,
    stall: float | None = None,
) -> None:
    """Wait until the group has committed every message of every stage topic.

    ``stall``: fail as soon as the lag has not gone down for that many seconds (the
    pipeline stalled), whatever ``timeout`` is left; ``timeout`` then only bounds a
    pipeline that keeps moving. On failure the error names the lag of each topic and,
    when ``describe`` is given (a worker's log tail, say), what it returns.
    """
    topics = [f"{prefix}.{t}" for t in STAGE_TOPICS]
    deadline = time.monotonic() + timeout
    zero_since: float | None = None
    last = None
    lowest, moved_at = None, time.monotonic()
    while time.monotonic() < deadline:
        if stall is not None and time.monotonic() - moved_at > stall:
            _not_drained(bootstrap, group, topics, f"no progress for {stall:.0f}s", last, describe)
        try:
            last = asyncio.run(_lag(bootstrap, group, topics))
        except KafkaError as exc:
            # A freshly formatted broker answers GroupCoordinatorNotAvailable (and
            # similar retriable errors) until its __consumer_offsets topic is ready.
            if not getattr(exc, "retriable", False):
                raise
            last, zero_since = None, None
            time.sleep(0.5)
            continue
        if last is not None and last >= 0 and (lowest is None or last < lowest):
            lowest, moved_at = last, time.monotonic()
        if last == 0:
            zero_since = zero_since or time.monotonic()
            if time.monotonic() - zero_since >= settle:
                return
        else:
            zero_since = None
        time.sleep(0.5)
    _not_drained(bootstrap, group, topics, f"after {timeout:.0f}s", last, describe)


def _not_drained(
    bootstrap: str,
    group: str,
    topics: list[str],
    why: str,
    last: int | None,
    describe: Callable[[], str] | None,
) -> NoReturn:
    detail = ""
    try:
        detail = f"; lag by topic: {asyncio.run(_lag_by_topic(bootstrap, group, topics))}"
    except KafkaError as exc:
        detail = f"; lag by topic unavailable ({exc!r})"
    if describe is not None:
        detail += "\n" + describe()
    raise AssertionError(f"pipeline not drained: {why} (lag={last}){detail}")


async def _read_all(
    bootstrap: str, topic: str, timeout_ms: int
) -> list[tuple[bytes | None, bytes]]:
    consumer = AIOKafkaConsumer(
        topic, bootstrap_servers=bootstrap, auto_offset_reset="earliest", enable_auto_commit=False
    )
    await consumer.start()
    out: list[tuple[bytes | None, bytes]] = []
    try:
        batch = await consumer.getmany(timeout_ms=timeout_ms)
        while batch:
            for msgs in batch.values():
                out.extend((m.key, m.value) for m in msgs)
            batch = await consumer.getmany(timeout_ms=1000)
    finally:
        await consumer.stop()
    return out


def read_topic(
    bootstrap: str, topic: str, timeout_ms: int = 5000
) -> list[tuple[bytes | None, bytes]]:
    return asyncio.run(_read_all(bootstrap, topic, timeout_ms))


async def produce_raw(
    settings: Any, messages: Sequence[tuple[bytes, bytes]], *, max_request_size: int = 1_048_576
) -> None:
    """Send raw (key, value) pairs to the input topic, in order, acknowledged by all
    replicas before this returns; the topics are created first."""
    await ensure_topics(settings)
    p = AIOKafkaProducer(bootstrap_servers=settings.kafka_bootstrap, acks="all",
                         max_request_size=max_request_size)  # fmt: skip
    await p.start()
    try:
        topic = f"{settings.topic_prefix}.turns"
        for key, value in messages:
            await p.send(topic, key=key, value=value)
        await p.flush()
    finally:
        await p.stop()
