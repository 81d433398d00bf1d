"""Against the real services (written for the lead to run; marker integration):

* the dedupe agent on OpenSearch with the read-your-writes cache: the same statement twice
  in a row is folded into one fact although neither write waited for a refresh, a
  restarted worker (empty cache) finds the first write, and no write used wait_for;
* ``CommittedLag`` (what ``memgate_consumer_lag`` reports) agrees with Kafka's own
  answer: the admin API's committed offsets of the group and the log end offsets.
"""

from __future__ import annotations

import asyncio
import uuid
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import pytest
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition
from aiokafka.admin import AIOKafkaAdminClient, NewTopic

from memgate.backends import build_pipeline
from memgate.core.embedding import HashingEmbedder
from memgate.core.settings import load_settings
from memgate.sinks.audit import ClickHouseAudit
from memgate.sinks.opensearch import OpenSearchStore
from memgate.streams.app import Origin, Worker
from memgate.streams.lag import CommittedLag, Partition
from memgate.streams.metrics import Metrics
from memgate.streams.topology import AUDIT_TOPIC, ROUTES
from tests.integration.conftest import KAFKA, OPENSEARCH
from tests.unit.streams.conftest import KEY, turn

pytestmark = pytest.mark.integration
HIKES = "I like long hikes in the mountains near the lake."


class Recording(OpenSearchStore):
    """The real store, noting whether each write asked to wait for a refresh."""

    waits: list[bool]

    def upsert(self, facts, *, wait=False):  # type: ignore[no-untyped-def]
        self.waits.append(wait)
        super().upsert(facts, wait=wait)


@pytest.fixture
def store(services: dict[str, str], tmp_path: Path) -> Iterator[Recording]:
    s = load_settings(opensearch_url=OPENSEARCH, opensearch_index=f"it-{uuid.uuid4().hex[:8]}")
    st = Recording.from_settings(s, HashingEmbedder().dim)
    st.waits = []
    st.ensure_index()
    # as OpenSearch does by default when nobody searches: no refresh for a while
    st.client.indices.put_settings(index=st.index, body={"index": {"refresh_interval": "30s"}})
    yield st
    st.client.indices.delete(index=st.index, params={"ignore_unavailable": "true"})
    st.close()


def _worker(store: Recording, tmp_path: Path, name: str) -> Worker:
    s = load_settings(data_dir=tmp_path / name, embedder="hashing", hmac_key=KEY)
    s.data_dir.mkdir(parents=True, exist_ok=True)
    audit = ClickHouseAudit.embedded(s.audit_path)
    return Worker(s, build_pipeline(s, HashingEmbedder()), store, audit, Metrics())


def _say(worker: Worker, t_id: str, text: str, minutes: int) -> None:
    queues: dict[str, list[tuple[bytes, bytes]]] = defaultdict(list)

    async def send(name: str, key: str, payload: bytes) -> None:
        queues[name].append((key.encode(), payload))

    async def run() -> None:
        t = turn(t_id, text, minutes=minutes)
        await send("turns", t.partition_key, t.model_dump_json().encode())
        while any(queues[r.source] for r in ROUTES):
            for route in ROUTES:
                while queues[route.source]:
                    key, raw = queues[route.source].pop(0)
                    await worker.handle(route, raw, Origin(route.source, 0, 0, key), send)
        queues[AUDIT_TOPIC].clear()

    asyncio.run(run())


def test_dedupe_reads_its_own_unrefreshed_writes_and_after_a_restart(
    store: Recording, tmp_path: Path
) -> None:
    first = _worker(store, tmp_path, "a")
    _say(first, "t1", HIKES, 0)
    _say(first, "t2", HIKES, 1)  # before any refresh (refresh_interval 30 s)
    first.audit.close()  # the worker stops ...
    again = _worker(store, tmp_path, "a")  # ... and restarts on its data dir: an empty cache
    try:
        _say(again, "t3", HIKES, 2)
    finally:
        # chDB hosts one path per process: left open, it fails every later test of this
        # process that opens an audit store elsewhere (when garbage collection is late)
        again.audit.close()
    assert store.waits and not any(store.waits)
    store.refresh()
    [fact] = store.list_facts("acme", "alice")
    assert fact.occurrences == 3


def test_committed_lag_agrees_with_kafkas_admin_api(
    services: dict[str, str], tmp_path: Path
) -> None:
    async def run() -> tuple[dict[Partition, int], int]:
        topic = f"it-lag-{uuid.uuid4().hex[:8]}"
        group = f"{topic}.g"
        admin = AIOKafkaAdminClient(bootstrap_servers=KAFKA)
        await admin.start()
        await admin.create_topics([NewTopic(topic, 1, 1)])
        producer = AIOKafkaProducer(bootstrap_servers=KAFKA, acks="all")
        await producer.start()
        for i in range(1200):
            await producer.send(topic, f"m{i}".encode())
        await producer.flush()
        await producer.stop()
        # a consumer that reads everything but commits only 100: its read position is
        # at the end, the committed lag is 1,100
        c = AIOKafkaConsumer(topic, bootstrap_servers=KAFKA, group_id=group,
                             enable_auto_commit=False, auto_offset_reset="earliest")
        await c.start()
        read = 0
        while read < 1200:
            batch = await c.getmany(timeout_ms=1000)
            read += sum(len(v) for v in batch.values())
        tp = TopicPartition(topic, 0)
        await c.commit({tp: 100})
        lag = CommittedLag(load_settings(data_dir=tmp_path, kafka_bootstrap=KAFKA), group)
        ours = await lag.read([(topic, 0)])
        await lag.close()
        committed = (await admin.list_consumer_group_offsets(group))[tp].offset
        end = (await c.end_offsets([tp]))[tp]
        await c.stop()
        await admin.delete_topics([topic])
        await admin.close()
        return ours, end - committed

    ours, kafka = asyncio.run(run())
    assert list(ours.values()) == [kafka] == [1100]
