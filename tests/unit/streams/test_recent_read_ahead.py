"""Read-ahead under the read-your-writes cache (memgate.streams.recent, memgate.core.read_ahead):
the dedupe stage asks its first reads of a candidate in one round trip, the cache's merge
applies over those answers as over single reads, and every decision is the one the
plain reads make."""

from __future__ import annotations

import asyncio
from pathlib import Path

import numpy as np

from memgate.core.events import FactStatus, StoredFact
from memgate.core.read_ahead import ByKey, BySubject, Nearest, Prefetched, ReadPlan, read_ahead
from memgate.sinks.embedded import EmbeddedIndex
from memgate.streams.app import Worker
from memgate.streams.metrics import Metrics
from memgate.streams.recent import RecentFacts
from memgate.streams.topology import AUDIT_TOPIC
from tests.contracts.retrieval import DIM, RetrievalStoreContract, embed
from tests.unit.streams.conftest import Gate, turn
from tests.unit.streams.near_real_time import CountingIndex, NearRealTimeReadAhead
from tests.unit.streams.replay_harness import Clock, Topics, drain_stages, pipeline

_C = RetrievalStoreContract()

SAID = [
    "I like long hikes in the mountains near the lake.",
    "I like long hikes in the mountains near the lake.",
    "I prefer green tea in the morning.",
    "I now prefer black coffee in the morning.",
    "My manager is Ana.",
    "My new boss is Tom.",
    "My dog is called Rex.",
    "Our team uses Python for the backend.",
    "We moved from Python to Rust for the backend.",
    "I love jazz, especially Coltrane.",
    "Forget that I like jazz.",
    "I live in Berlin.",
    "I moved to Paris last month.",
    "Please delete what you know about my manager.",
    "I prefer black coffee in the morning.",
]


def _run(gate: Gate, store: CountingIndex) -> tuple[list[bytes], list[StoredFact]]:
    """The turns of ``SAID`` through the agents on ``store`` (the read-your-writes cache
    on): every audit message (decisions included) and every fact stored."""
    worker = Worker(gate.settings, pipeline(gate.settings, Clock()), store, gate.audit, Metrics())  # type: ignore[arg-type]
    assert worker.recent is not None
    topics = Topics("memgate")

    async def go() -> None:
        for i, text in enumerate(SAID):
            t = turn(f"t{i}", text, minutes=i, session_id=f"s{i // 4}")
            await topics.send("turns", t.partition_key, t.model_dump_json().encode())
            await drain_stages(worker, topics)

    asyncio.run(go())
    audit = [raw for _, raw, _ in topics.queues[AUDIT_TOPIC]]
    store.refresh()
    return audit, store.list_facts("acme", "alice", include_inactive=True)


def test_every_decision_and_fact_is_the_one_single_reads_make_in_fewer_round_trips(
    gate: Gate, tmp_path: Path
) -> None:
    plain = CountingIndex(gate.retrieval)
    ahead = NearRealTimeReadAhead(EmbeddedIndex(tmp_path / "ahead.db", dim=gate.embedder.dim))
    try:
        want = _run(gate, plain)
        got = _run(gate, ahead)
    finally:
        ahead.index.close()
    assert got == want
    assert len(want[1]) >= 8 and any(f.status is FactStatus.SUPERSEDED for f in want[1])
    assert ahead.plans  # the dedupe stage read ahead
    assert ahead.trips < plain.trips * 0.6, (ahead.trips, plain.trips)


def _fact(value: str, status: FactStatus = FactStatus.ACTIVE, **kw: object) -> StoredFact:
    return _C.make_fact(value, status=status, **kw)  # type: ignore[arg-type]


def test_the_cache_merges_over_answers_read_ahead(tmp_path: Path) -> None:
    store = NearRealTimeReadAhead(EmbeddedIndex(tmp_path / "f.db", dim=DIM))
    old = _fact("vim")
    store.upsert([old, _fact("jazz", predicate="likes")], wait=True)
    recent = RecentFacts(store, store.refresh)
    # this worker closed "vim" and wrote "emacs": durable, not searchable yet
    closed = old.model_copy(update={"status": FactStatus.SUPERSEDED})
    new = _fact("emacs")
    store.upsert([closed, new])
    recent.remember([closed, new])
    vec = np.asarray(embed("user editor vim"), dtype=np.float32)
    reads = (
        ByKey("acme", "u1", old.key),
        BySubject.of("acme", "u1", "user", statuses=(FactStatus.ACTIVE,), qualified=True),
        Nearest.of("acme", "u1", vec, k=1, statuses=(FactStatus.ACTIVE,)),
    )
    want = (
        recent.by_key("acme", "u1", old.key),
        recent.by_subject("acme", "u1", "user", statuses=(FactStatus.ACTIVE,), qualified=True),
        recent.nearest("acme", "u1", vec, k=1, statuses=(FactStatus.ACTIVE,)),
    )
    assert [f.fact_id for f in want[0]] == [old.fact_id, new.fact_id]
    assert want[0][0].status is FactStatus.SUPERSEDED  # the cached copy, not the store's
    assert new.fact_id in {f.fact_id for f in want[1]} and old.fact_id not in {
        f.fact_id for f in want[1]
    }
    trips = store.trips
    view = read_ahead(recent, ReadPlan(reads))
    got = (
        view.by_key("acme", "u1", old.key),
        view.by_subject("acme", "u1", "user", statuses=(FactStatus.ACTIVE,), qualified=True),
        view.nearest("acme", "u1", vec.copy(), k=1, statuses=(FactStatus.ACTIVE,)),
    )
    assert got == want
    assert store.trips == trips + 1  # one round trip for all three
    # the nearest read asked the store for as many more as the cache holds
    [plan] = store.plans
    assert [r.k for r in plan.reads if isinstance(r, Nearest)] == [1 + len(recent)]


def test_the_first_read_ahead_after_a_start_or_a_reset_refreshes_first(tmp_path: Path) -> None:
    store = NearRealTimeReadAhead(EmbeddedIndex(tmp_path / "f.db", dim=DIM))
    f = _fact("vim")
    store.upsert([f])  # written by a worker that crashed: durable, not searchable
    recent = RecentFacts(store, store.refresh)
    view = read_ahead(recent, ReadPlan((ByKey("acme", "u1", f.key),)))
    assert view.by_key("acme", "u1", f.key) == [f]
    assert recent.refreshes == 1
    # a rebalance after the read-ahead: the view reads the store again, refreshed first
    g = _fact("emacs")
    store.upsert([g])
    view = read_ahead(recent, ReadPlan((ByKey("acme", "u1", f.key),)))
    recent.reset()
    trips = store.trips
    assert [x.fact_id for x in view.by_key("acme", "u1", f.key)] == [f.fact_id, g.fact_id]
    assert recent.refreshes == 2 and store.trips == trips + 1


def test_without_a_store_that_reads_ahead_the_cache_is_read_as_it_is(tmp_path: Path) -> None:
    store = CountingIndex(EmbeddedIndex(tmp_path / "f.db", dim=DIM))
    recent = RecentFacts(store, store.refresh)
    assert read_ahead(recent, ReadPlan((ByKey("acme", "u1", "k"),))) is recent
    ra = RecentFacts(NearRealTimeReadAhead(store.index), store.refresh)
    assert isinstance(read_ahead(ra, ReadPlan((ByKey("acme", "u1", "k"),))).ahead, Prefetched)  # type: ignore[attr-defined]


def test_an_entry_expiring_during_the_resolution_is_still_merged(tmp_path: Path) -> None:
    store = NearRealTimeReadAhead(EmbeddedIndex(tmp_path / "f.db", dim=DIM))
    now = [0.0]
    recent = RecentFacts(store, store.refresh, ttl_s=5.0, clock=lambda: now[0])
    recent.by_key("acme", "u1", "k")  # the cold refresh
    f = _fact("vim")
    store.upsert([f])  # durable, not searchable yet: the cache has it
    recent.remember([f])
    view = read_ahead(recent, ReadPlan((ByKey("acme", "u1", f.key),)))
    # a slow resolution: the entry expires meanwhile; the answer read ahead predates
    # the store's refresh, so the entry held then is merged over it, as it was then
    now[0] += 10.0
    trips = store.trips
    assert view.by_key("acme", "u1", f.key) == [f]
    assert view.by_key("acme", "u1", "acme/u1/user/city") == []  # outside the plan: the store
    assert store.trips == trips + 1
    # a read of the cache itself now drops the entry (the store has it by then)
    store.refresh()
    assert recent.by_key("acme", "u1", f.key) == [f] and len(recent) == 0
