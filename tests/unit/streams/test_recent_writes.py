"""Dedupe at stream speed: on a store whose searches see a write only after a refresh
(OpenSearch), the worker writes without waiting for the refresh and still reads its
own writes, before and after a restart (memgate.streams.recent)."""

from __future__ import annotations

import asyncio

import pytest

from memgate.core.events import StoredFact
from memgate.sinks.embedded import EmbeddedIndex
from memgate.streams.app import Worker
from memgate.streams.metrics import Metrics
from memgate.streams.recent import RecentFacts
from memgate.streams.runner import InProcessRunner
from tests.unit.streams.conftest import Gate, turn
from tests.unit.streams.near_real_time import NearRealTimeIndex
from tests.unit.streams.replay_harness import Topics, drain_stages

HIKES = "I like long hikes in the mountains near the lake."
TEA = "I prefer green tea in the morning."


def _worker(gate: Gate, store: NearRealTimeIndex) -> Worker:
    return Worker(gate.settings, gate.pipeline(), store, gate.audit, Metrics())  # type: ignore[arg-type]


def _say(worker: Worker, topics: Topics, t_id: str, text: str, minutes: int) -> None:
    async def run() -> None:
        t = turn(t_id, text, minutes=minutes)
        await topics.send("turns", t.partition_key, t.model_dump_json().encode())
        await drain_stages(worker, topics)

    asyncio.run(run())


def _all(store: NearRealTimeIndex) -> list[StoredFact]:
    store.refresh()
    return store.list_facts("acme", "alice", include_inactive=True)


def test_the_dedupe_agent_writes_without_waiting_and_reads_its_own_writes(gate: Gate) -> None:
    store = NearRealTimeIndex(gate.retrieval)
    worker = _worker(gate, store)
    topics = Topics("memgate")
    _say(worker, topics, "t1", HIKES, 0)
    assert store.unrefreshed  # written durably, not searchable yet
    _say(worker, topics, "t2", HIKES, 1)  # the same statement again, before any refresh
    assert store.waits and not any(store.waits)  # no write waited for a refresh
    [fact] = _all(store)
    assert fact.occurrences == 2  # folded into the first, not a second fact


def test_the_store_alone_misses_an_unrefreshed_write_the_view_sees(gate: Gate) -> None:
    store = NearRealTimeIndex(gate.retrieval)
    worker = _worker(gate, store)
    _say(worker, Topics("memgate"), "t1", HIKES, 0)
    [fact] = store.unrefreshed.values()
    assert store.by_key("acme", "alice", fact.key) == []  # what the dedupe step read before
    assert [f.fact_id for f in worker.view.by_key("acme", "alice", fact.key)] == [fact.fact_id]


def test_dedupe_wait_for_refresh_keeps_the_old_path(gate: Gate) -> None:
    store = NearRealTimeIndex(gate.retrieval)
    s = gate.settings.model_copy(update={"dedupe_wait_for_refresh": True})
    worker = Worker(s, gate.pipeline(), store, gate.audit, Metrics())  # type: ignore[arg-type]
    assert worker.recent is None
    _say(worker, Topics("memgate"), "t1", HIKES, 0)
    assert store.waits == [True] and not store.unrefreshed


def test_a_restarted_worker_refreshes_before_its_first_read_and_finds_its_writes(
    gate: Gate,
) -> None:
    store = NearRealTimeIndex(gate.retrieval)
    topics = Topics("memgate")
    _say(_worker(gate, store), topics, "t1", HIKES, 0)
    assert store.unrefreshed
    # the worker crashes: its memory is gone, the write is durable but not searchable;
    # the candidate is delivered again to a new worker
    again = _worker(gate, store)
    _say(again, topics, "t2", HIKES, 1)
    [fact] = _all(store)
    assert fact.occurrences == 2
    assert again.recent is not None and again.recent.refreshes >= 1


def test_a_rebalance_empties_the_cache_and_the_next_read_refreshes(gate: Gate) -> None:
    store = NearRealTimeIndex(gate.retrieval)
    worker = _worker(gate, store)
    topics = Topics("memgate")
    _say(worker, topics, "t1", HIKES, 0)
    assert worker.recent is not None and len(worker.recent) == 1
    worker.recent.reset()
    assert len(worker.recent) == 0
    before = store.refreshes
    _say(worker, topics, "t2", TEA, 1)
    assert store.refreshes == before + 1


def test_a_young_entry_is_dropped_only_after_a_refresh(gate: Gate) -> None:
    store = NearRealTimeIndex(gate.retrieval)
    now = [0.0]
    recent = RecentFacts(store, store.refresh, per_user=1, ttl_s=5.0, clock=lambda: now[0])
    worker = _worker(gate, store)
    worker.recent = recent
    topics = Topics("memgate")
    _say(worker, topics, "t1", HIKES, 0)
    refreshed = store.refreshes
    [first] = store.unrefreshed
    _say(worker, topics, "t2", TEA, 1)  # a second fact of alice: the first must go
    assert store.refreshes > refreshed and first not in store.unrefreshed
    assert len(recent) == 1
    # an entry older than ttl_s is dropped on read without a refresh
    now[0] += 10.0
    count = store.refreshes
    assert recent.by_key("acme", "alice", "acme/alice/none") == []
    assert store.refreshes == count and len(recent) == 0


@pytest.mark.parametrize("near_real_time", [False, True])
def test_the_in_process_runner_on_a_near_real_time_store_writes_what_the_embedded_one_does(
    gate: Gate, near_real_time: bool
) -> None:
    turns = [
        turn(f"t{i}", text, minutes=i)
        for i, text in enumerate([HIKES, TEA, HIKES, "I now prefer black tea in the morning.", TEA])
    ]
    other = EmbeddedIndex(gate.settings.data_dir / "other.sqlite", dim=gate.embedder.dim)
    store = NearRealTimeIndex(other) if near_real_time else other
    InProcessRunner(gate.pipeline(), gate.retrieval, gate.audit).run(turns)
    gate.audit.forget("acme", "alice")  # the second run journals the same turns afresh
    InProcessRunner(gate.pipeline(), store, gate.audit).run(turns)  # type: ignore[arg-type]
    if isinstance(store, NearRealTimeIndex):
        store.refresh()

    def shape(facts: list[StoredFact]) -> list[tuple[str, str, int]]:
        return sorted((f.text, f.status.value, f.occurrences) for f in facts)

    want = shape(gate.retrieval.list_facts("acme", "alice", include_inactive=True))
    got = shape(other.list_facts("acme", "alice", include_inactive=True))
    assert got == want and len(want) >= 2
    other.close()
