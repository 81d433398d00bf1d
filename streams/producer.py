"""Sending turns to the input topic (``<prefix>.turns``), keyed by tenant/user."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager

from memgate.core.errors import MissingExtra
from memgate.core.events import TurnEvent
from memgate.core.settings import Settings
from memgate.streams.kafka_client import kafka_client_kwargs, start_client

try:
    from aiokafka import AIOKafkaProducer
except ImportError as exc:
    raise MissingExtra("kafka", "sending turns to Kafka", exc.name) from exc


@asynccontextmanager
async def _turns_producer(settings: Settings) -> AsyncIterator[tuple[AIOKafkaProducer, str]]:
    """A started producer and the input topic (created if missing); stopped on exit."""
    from memgate.streams.app import ensure_topics

    await ensure_topics(settings)
    producer = AIOKafkaProducer(
        **kafka_client_kwargs(settings),
        acks="all",
        enable_idempotence=True,
        linger_ms=5,
    )
    await start_client(producer.start, producer.stop, settings)
    try:
        yield producer, f"{settings.topic_prefix}.turns"
    finally:
        await producer.stop()


async def produce_turns(settings: Settings, turns: Iterable[TurnEvent]) -> int:
    n = 0
    async with _turns_producer(settings) as (producer, topic):
        futures = []
        for t in turns:
            futures.append(
                await producer.send(
                    topic, key=t.partition_key.encode(), value=t.model_dump_json().encode()
                )
            )
            n += 1
        for f in futures:
            await f
    return n


async def produce_lines(settings: Settings, lines: Iterable[str]) -> int:
    """Send raw lines as they are (for replays and for testing the dead-letter path)."""
    n = 0
    async with _turns_producer(settings) as (producer, topic):
        for line in lines:
            if not line.strip():
                continue
            try:
                d = json.loads(line)
                key = f"{d.get('tenant_id', 'unknown')}/{d.get('user_id', 'unknown')}"
            except (json.JSONDecodeError, AttributeError):
                key = "unknown/unknown"
            await producer.send_and_wait(topic, key=key.encode(), value=line.encode())
            n += 1
    return n
