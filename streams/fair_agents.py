"""The Faust wiring of the input stage with per-user fairness: the input agent, the
deferred agent, and the rebuild of the backlog markers when partitions are assigned.

The bodies are :meth:`memgate.streams.app.Worker.take_turn` and
:meth:`~memgate.streams.app.Worker.take_deferred` (they run without a broker in the
unit tests); this module only connects them to the topics. What the gate does is
:mod:`memgate.streams.fairness`.

* **Input agent** (reads ``turns``): the turns waiting, several at a time
  (:mod:`memgate.streams.triage_batch`): a turn the gate lets through is triaged and
  acknowledged once what it sent is; a turn it defers is handed to the producer, and
  its message is acknowledged only when the broker acknowledged its copy on
  ``deferred``. Faust commits an offset only when every message before it is
  acknowledged, so a copy that never made it leaves its turn uncommitted; the agent
  then stops with the broker's error and the turn comes again. (One turn at a time,
  the same body is :meth:`memgate.streams.app.Worker.take_turn`.)
* **Deferred agent** (reads ``deferred``): one message at a time, in order; the body
  waits for the user's token.
* **Markers after a restart or a rebalance**: before the input partitions go on, the
  deferred partitions are read from the group's committed offset to their end
  (:func:`pending_deferred`), and every key found there gets its marker.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any

import faust

from memgate.core.retry import Backoff, retry_async
from memgate.core.settings import Settings
from memgate.streams.fairness import FairGate
from memgate.streams.topology import DEFERRED_TOPIC
from memgate.streams.triage_batch import wire_triage

log = logging.getLogger("memgate.worker")

__all__ = ["pending_deferred", "start_from", "wire_input"]

#: how long the rebuild waits for one fetch before it asks again
_FETCH_MS = 1000


def start_from(committed: int | None, start: int) -> int:
    """Where the deferred agent resumes a partition: the group's committed offset, or the
    log start when there is none (or retention deleted it).

    >>> start_from(None, 5), start_from(-1, 5), start_from(3, 5), start_from(9, 5)
    (5, 5, 5, 9)
    """
    if committed is None or committed < 0:
        return start
    return max(committed, start)


async def pending_deferred(
    settings: Settings, group: str, topic: str, partitions: Iterable[int]
) -> dict[int, list[tuple[str, int]]]:
    """The ``(key, offset)`` of every message of the given partitions of ``topic`` that
    the group has not committed yet (committed offset to log end): what the deferred
    agent will read (again)."""
    from aiokafka import AIOKafkaConsumer
    from aiokafka.admin import AIOKafkaAdminClient
    from aiokafka.structs import TopicPartition

    tps = [TopicPartition(topic, p) for p in partitions]
    out: dict[int, list[tuple[str, int]]] = {tp.partition: [] for tp in tps}
    if not tps:
        return out
    from memgate.streams.kafka_client import kafka_client_kwargs, start_client

    admin = AIOKafkaAdminClient(**kafka_client_kwargs(settings))
    consumer = AIOKafkaConsumer(
        **kafka_client_kwargs(settings), group_id=None, enable_auto_commit=False
    )
    await start_client(admin.start, admin.close, settings)
    try:
        await start_client(consumer.start, consumer.stop, settings)
    except BaseException:
        await admin.close()
        raise
    try:
        committed = await admin.list_consumer_group_offsets(group, partitions=tps)
        ends: Mapping[Any, int] = await consumer.end_offsets(tps)
        starts: Mapping[Any, int] = await consumer.beginning_offsets(tps)
        consumer.assign(tps)
        todo: dict[Any, int] = {}
        for tp in tps:
            om = committed.get(tp)
            at = start_from(None if om is None else int(om.offset), int(starts[tp]))
            if at < ends[tp]:
                consumer.seek(tp, at)
                todo[tp] = int(ends[tp])
        while todo:
            got = await consumer.getmany(*todo, timeout_ms=_FETCH_MS)
            for tp, msgs in got.items():
                end = todo.get(tp)
                for msg in msgs:
                    if end is not None and msg.offset < end and msg.key is not None:
                        out[tp.partition].append((msg.key.decode("utf-8", "replace"), msg.offset))
            for tp in list(todo):
                if await consumer.position(tp) >= todo[tp]:
                    del todo[tp]
        return out
    finally:
        await consumer.stop()
        await admin.close()


def _origin_of(event: faust.EventT[bytes]) -> Any:
    from memgate.streams.app import Origin

    msg = event.message
    return Origin(msg.topic, msg.partition, msg.offset, msg.key)


def wire_input(
    app: faust.App,
    worker: Any,
    topics: Mapping[str, faust.TopicT],
    send: Callable[[str, str, bytes], Awaitable[None]],
) -> None:
    """The input agent, the deferred agent and the marker rebuild of ``worker`` on ``app``."""
    s = worker.settings
    gate: FairGate = worker.gate
    deferred_topic = topics[DEFERRED_TOPIC].get_topic_name()

    async def enqueue(name: str, key: str, payload: bytes) -> Awaitable[int]:
        fut = await topics[name].send(key=key.encode(), value=payload)

        async def offset() -> int:
            return int((await fut).offset)

        return offset()

    # the input agent: several waiting turns at a time (memgate.streams.triage_batch)
    wire_triage(app, worker, topics, send, enqueue)

    @app.agent(topics[DEFERRED_TOPIC], name=f"{s.topic_prefix}.{DEFERRED_TOPIC}")
    async def deferred_agent(stream: faust.StreamT[bytes]) -> None:
        async for event in stream.events():
            event.message.incref()
            await worker.take_deferred(event.value, _origin_of(event), send)
            event.ack()

    @app.on_partitions_assigned.connect
    async def rebuild_markers(sender: Any, /, *args: Any, signal: Any, **kwargs: Any) -> None:
        assigned = args[0] if args else kwargs.get("assigned", ())
        parts = sorted(tp.partition for tp in assigned if tp.topic == deferred_topic)
        gate.assigned(parts)

        def note(failures: int, exc: BaseException, wait: float) -> None:
            log.warning(
                "event=deferred_markers_unreadable attempt=%d wait_s=%.2f error=%r "
                "hint='the input partitions wait until the deferred topic can be read'",
                failures, wait, exc,
            )  # fmt: skip

        found = await retry_async(
            lambda: pending_deferred(s, s.worker_id, deferred_topic, parts),
            backoff=Backoff(base=s.retry_base_delay_s, cap=30.0),
            retryable=lambda exc: isinstance(exc, Exception),
            on_retry=note,
        )
        for p in parts:
            gate.rebuild(p, found.get(p, []))
        worker.metrics.deferred_users.set(gate.users_waiting)
        log.info(
            "event=deferred_markers_rebuilt partitions=%s users=%d waiting=%d",
            parts, gate.users_waiting, sum(len(v) for v in found.values()),
        )  # fmt: skip
