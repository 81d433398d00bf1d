"""Operations on the real services (the integration tier): ``/ready`` of ``memgate serve``
probes the real Kafka; an erasure on OpenSearch merges the deleted documents out of the
segments and lists the merge in its receipt; a real ``memgate worker`` runs its
consolidation timer. Each test names its own index, topics and group (``it-<run id>``)
and uses one partition."""

from __future__ import annotations

import asyncio
import time
import urllib.request
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from opensearchpy import OpenSearch  # type: ignore[import-untyped,unused-ignore]

from memgate import Memory
from memgate.apikeys import KeyStore
from memgate.core.embedding import HashingEmbedder
from memgate.core.events import FactType, TurnEvent
from memgate.core.settings import load_settings
from memgate.service import BackgroundServer, create_app
from memgate.sinks.opensearch import OpenSearchStore
from memgate.sinks.opensearch_erasure import EXPUNGE_ACTION
from memgate.streams.kafka_probe import probe_kafka
from memgate.streams.producer import produce_turns
from tests.integration.conftest import (
    KAFKA,
    OPENSEARCH,
    WORKER_METRICS_PORT,
    WorkerProcess,
    worker_env,
)
from tests.integration.kafka_helpers import wait_drained

pytestmark = pytest.mark.integration

T0 = datetime(2024, 3, 1, 9, 0, tzinfo=UTC)
EPISODES = [
    "Yesterday I went to the dentist for a checkup.",
    "Last week I ran a marathon in Berlin.",
    "On Saturday I attended a jazz concert downtown.",
    "I visited my grandmother in Ohio last month.",
]


def test_ready_probes_the_real_kafka(services: dict[str, str], tmp_path: Path) -> None:
    assert probe_kafka(KAFKA, 5.0) >= 1
    memory = Memory(data_dir=tmp_path / "data", embedder="hashing", write_mode="kafka",
                    kafka_bootstrap=KAFKA, kafka_ready_timeout_s=5)  # fmt: skip
    with memory, BackgroundServer(create_app(memory, KeyStore(tmp_path / "k.json"))) as server:
        r = httpx.get(server.url + "/ready", timeout=30)
    assert r.status_code == 200, r.text
    assert r.json()["checks"] == {"retrieval": "ok", "audit": "ok", "kafka": "ok"}


# ---------------------------------------------------------------------- erasure


@pytest.fixture
def os_memory(services: dict[str, str], run_id: str, tmp_path: Path) -> Iterator[Memory]:
    index = f"memgate-{run_id}"
    memory = Memory(data_dir=tmp_path / "data", embedder="hashing", min_relevance=0,
                    retrieval_backend="opensearch", opensearch_url=OPENSEARCH,
                    opensearch_index=index)  # fmt: skip
    try:
        with memory:
            yield memory
    finally:
        client = OpenSearch(hosts=[OPENSEARCH])
        client.indices.delete(index=f"{index}*", params={"ignore_unavailable": "true"})
        client.indices.delete(index=f"usage.{index}", params={"ignore_unavailable": "true"})
        client.close()


def _deleted_docs(client: OpenSearch, index: str) -> int:
    client.indices.refresh(index=index)
    stats: dict[str, Any] = client.indices.stats(index=index, metric="docs")
    return int(stats["_all"]["primaries"]["docs"]["deleted"])


def test_erasure_merges_the_deleted_documents_out_of_the_segments(os_memory: Memory) -> None:
    m = os_memory
    for user in ("alice", "bob"):
        for i, text in enumerate(["I use Neovim as my editor.", "I live in Berlin.",
                                  "I prefer tea over coffee."]):  # fmt: skip
            m.add([{"role": "user", "content": text}], tenant="acme", user=user, session=f"s{i}")
    deadline = time.monotonic() + 30
    while not m.search("editor", "acme", "alice").hits and time.monotonic() < deadline:
        time.sleep(0.5)
    m.flush()  # the usage of the served facts: the usage index has alice's documents too
    s = m.settings
    client = OpenSearch(hosts=[OPENSEARCH])
    indices = [s.opensearch_index, f"usage.{s.opensearch_index}"]
    client.indices.refresh(index=s.opensearch_index)  # every write listed, not only some

    bobs, alices = m.get_all("acme", "bob"), m.get_all("acme", "alice")
    assert bobs and alices
    one = bobs[0]
    receipt = m.erase(one.fact_id, "acme", "bob")
    assert [(c["index"], c["action"], c["outcome"]) for c in receipt.compaction] == [
        (i, EXPUNGE_ACTION, "done") for i in indices
    ]
    assert _deleted_docs(client, s.opensearch_index) == 0  # one fact in a segment of six

    done = m.forget("acme", "alice")
    assert done.facts == len(alices) and done.receipt is not None
    assert [c["outcome"] for c in done.receipt.compaction] == ["done", "done"]
    for index in indices:
        assert _deleted_docs(client, index) == 0, index
    assert len(m.get_all("acme", "bob")) == len(bobs) - 1
    client.close()


# ------------------------------------------------------------ consolidation timer


def _metric(name: str, labels: str) -> float:
    url = f"http://127.0.0.1:{WORKER_METRICS_PORT}/metrics"
    with urllib.request.urlopen(url, timeout=5) as r:
        text = r.read().decode()
    for line in text.splitlines():
        if line.startswith(f"{name}{{{labels}}} "):
            return float(line.rsplit(" ", 1)[1])
    return 0.0


@pytest.fixture
def timed_worker(services: dict[str, str], run_id: str, tmp_path: Path) -> Iterator[WorkerProcess]:
    env = worker_env(
        run_id, tmp_path / "data", MEMGATE_EMBEDDER="hashing",
        MEMGATE_CONSOLIDATE_EVERY_MINUTES="0.05", MEMGATE_RETENTION='{"episodic_max": 1}',
    )  # fmt: skip
    w = WorkerProcess(env, tmp_path / "worker.log")
    w.start()
    yield w
    w.stop()
    client = OpenSearch(hosts=[OPENSEARCH])
    index = env["MEMGATE_OPENSEARCH_INDEX"]
    client.indices.delete(index=f"{index}*", params={"ignore_unavailable": "true"})
    client.indices.delete(index=f"usage.{index}", params={"ignore_unavailable": "true"})
    client.close()


def test_the_worker_consolidates_the_users_it_read_on_its_timer(
    timed_worker: WorkerProcess,
) -> None:
    env = timed_worker.env
    s = load_settings(
        data_dir=env["MEMGATE_DATA_DIR"], retrieval_backend="opensearch",
        opensearch_url=OPENSEARCH, opensearch_index=env["MEMGATE_OPENSEARCH_INDEX"],
        kafka_bootstrap=KAFKA, topic_prefix=env["MEMGATE_TOPIC_PREFIX"],
        worker_id=env["MEMGATE_WORKER_ID"], embedder="hashing",
    )  # fmt: skip
    turns = [
        TurnEvent(tenant_id="acme", user_id="alice", session_id=f"s{i}", turn_id=f"ep-{i}",
                  role="user", content=text, ts=T0 + timedelta(days=i))
        for i, text in enumerate(EPISODES)
    ]  # fmt: skip
    assert asyncio.run(produce_turns(s, turns)) == len(turns)
    wait_drained(KAFKA, s.worker_id, s.topic_prefix)
    deadline = time.monotonic() + 90  # the timer fires every 3 s
    retired = 0.0
    while time.monotonic() < deadline:
        retired = _metric("memgate_consolidation_changes_total", 'verdict="retire"')
        if retired >= 3:
            break
        time.sleep(1)
    assert retired == 3, timed_worker.log()
    assert _metric("memgate_consolidation_runs_total", 'outcome="ok"') >= 1
    assert _metric("memgate_consolidation_runs_total", 'outcome="failed"') == 0
    store = OpenSearchStore.from_settings(s, dim=HashingEmbedder().dim)
    facts = store.list_facts("acme", "alice")
    store.close()
    assert len([f for f in facts if f.type is FactType.EVENT]) == 1
    assert [f.predicate for f in facts if f.type is not FactType.EVENT] == ["episode_digest"]
