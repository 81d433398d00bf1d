"""Consumer lag from the group's committed offsets and the log end (what Kafka's own
consumer-group tool shows), for ``memgate_consumer_lag``.

The consumer's read position runs ahead of what is committed (a message is read long
before its work is done and acknowledged), so a lag computed from it reads 0 while
thousands of messages wait to be committed; after a crash everything since the last
commit comes again. The committed offset is what counts.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from memgate.core.settings import Settings

__all__ = ["CommittedLag", "Partition", "lag_of"]


class Partition(NamedTuple):
    topic: str
    partition: int


def lag_of(
    committed: Mapping[Partition, int | None],
    ends: Mapping[Partition, int],
    starts: Mapping[Partition, int] | None = None,
) -> dict[Partition, int]:
    """Messages of each partition not committed yet: log end minus committed offset.

    A partition with no committed offset (``None`` or negative, as Kafka answers) lags
    by everything from the log start (``starts``, else 0) on.
    """
    out: dict[Partition, int] = {}
    for tp, end in ends.items():
        done = committed.get(tp)
        if done is None or done < 0:
            done = (starts or {}).get(tp, 0)
        out[tp] = max(0, end - done)
    return out


class CommittedLag:
    """Reads a group's committed offsets (admin API) and the log ends (a consumer outside
    any group) of the partitions asked for, connected as ``settings`` say
    (:mod:`memgate.streams.kafka_client`). Started lazily; :meth:`close` when done."""

    def __init__(self, settings: Settings, group_id: str) -> None:
        self.settings = settings
        self.group_id = group_id
        self._admin: Any = None
        self._consumer: Any = None

    async def _start(self) -> None:
        from aiokafka import AIOKafkaConsumer
        from aiokafka.admin import AIOKafkaAdminClient

        from memgate.streams.kafka_client import kafka_client_kwargs, start_client

        if self._admin is None:
            admin = AIOKafkaAdminClient(**kafka_client_kwargs(self.settings))
            await start_client(admin.start, admin.close, self.settings)
            self._admin = admin
        if self._consumer is None:
            consumer = AIOKafkaConsumer(**kafka_client_kwargs(self.settings), group_id=None)
            await start_client(consumer.start, consumer.stop, self.settings)
            self._consumer = consumer

    async def read(self, partitions: Iterable[tuple[str, int]]) -> dict[Partition, int]:
        from aiokafka.structs import TopicPartition

        tps = [TopicPartition(t, p) for t, p in partitions]
        if not tps:
            return {}
        await self._start()
        answer = await self._admin.list_consumer_group_offsets(self.group_id, partitions=tps)
        committed = {Partition(tp.topic, tp.partition): int(om.offset) for tp, om in answer.items()}
        ends = await self._consumer.end_offsets(tps)
        starts = await self._consumer.beginning_offsets(tps)
        return lag_of(
            committed,
            {Partition(tp.topic, tp.partition): int(o) for tp, o in ends.items()},
            {Partition(tp.topic, tp.partition): int(o) for tp, o in starts.items()},
        )

    async def close(self) -> None:
        if self._consumer is not None:
            await self._consumer.stop()
        if self._admin is not None:
            await self._admin.close()
        self._admin = self._consumer = None
