"""A k-nearest read under the read-your-writes cache leaves the cached ids out in the query
where the store can (OpenSearch: ``must_not ids``), instead of asking for one more fact
per cached id: the same answers and decisions, with ``k`` hits per read."""

from __future__ import annotations

import asyncio
from pathlib import Path

import numpy as np

from memgate.core.events import FactStatus, StoredFact
from memgate.core.read_ahead import Nearest, Prefetched, ReadPlan, nearest_excluding, read_ahead
from memgate.sinks.embedded import EmbeddedIndex
from memgate.sinks.opensearch_reads import nearest_body
from memgate.streams.app import Worker
from memgate.streams.metrics import Metrics
from memgate.streams.recent import RecentFacts
from memgate.streams.topology import AUDIT_TOPIC
from tests.contracts.retrieval import DIM, RetrievalStoreContract, embed
from tests.unit.streams.conftest import Gate, turn
from tests.unit.streams.near_real_time import ExcludingReadAhead, NearRealTimeReadAhead
from tests.unit.streams.replay_harness import Clock, Topics, drain_stages, pipeline
from tests.unit.streams.test_recent_read_ahead import SAID

_C = RetrievalStoreContract()


def _run(gate: Gate, store: NearRealTimeReadAhead) -> tuple[list[bytes], list[StoredFact]]:
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


def test_leaving_cached_ids_out_decides_the_same_with_k_hits_a_read(
    gate: Gate, tmp_path: Path
) -> None:
    dim = gate.embedder.dim
    wide = NearRealTimeReadAhead(EmbeddedIndex(tmp_path / "wide.db", dim=dim))
    out = ExcludingReadAhead(EmbeddedIndex(tmp_path / "out.db", dim=dim))
    want = _run(gate, wide)
    got = _run(gate, out)
    assert got == want
    planned = [r for p in out.plans for r in p.reads if isinstance(r, Nearest)]
    assert any(r.exclude for r in planned)  # the cache held facts: their ids left out
    assert all(r.k in (3, 10) for r in planned)  # ... and k not widened
    widened = [r for p in wide.plans for r in p.reads if isinstance(r, Nearest)]
    assert any(r.k > 10 for r in widened) and not any(r.exclude for r in widened)
    # the most facts the store returns (here the index is empty until its refresh; on
    # OpenSearch every read returns up to k whole facts with their vectors)
    assert sum(r.k for r in planned) < 0.7 * sum(r.k for r in widened)


def _facts() -> list[StoredFact]:
    return [
        _C.make_fact(v, predicate=p)  # type: ignore[arg-type]
        for v, p in (
            ("vim", "prefers"),
            ("vim editor daily", "uses"),
            ("jazz", "likes"),
            ("tea daily", "prefers"),
        )
    ]  # distinct cosines to the query below (no ties: the order does not depend on k)


def test_nearest_excluding_is_the_wider_read_without_the_ids(tmp_path: Path) -> None:
    store = NearRealTimeReadAhead(EmbeddedIndex(tmp_path / "f.db", dim=DIM))
    facts = _facts()
    store.upsert(facts, wait=True)
    vec = np.asarray(embed("user editor vim"), dtype=np.float32)
    every = store.nearest("acme", "u1", vec, k=4)
    for gone in ({every[0][0].fact_id}, {every[0][0].fact_id, every[2][0].fact_id}, set()):
        want = [(f, s) for f, s in every if f.fact_id not in gone][:2]
        got = nearest_excluding(store, "acme", "u1", vec, k=2, exclude=frozenset(gone))
        assert got == want
        out = ExcludingReadAhead(store.index)
        assert nearest_excluding(out, "acme", "u1", vec, k=2, exclude=frozenset(gone)) == want
        # planned: served from the read-ahead, in either form
        for form in (Nearest.of("acme", "u1", vec, k=2, exclude=gone),
                     Nearest.of("acme", "u1", vec, k=2 + len(gone))):  # fmt: skip
            view = read_ahead(out, ReadPlan((form,)))
            assert isinstance(view, Prefetched)
            got = view.nearest_excluding("acme", "u1", vec.copy(), k=2, exclude=frozenset(gone))
            assert got == want and view.served == 1 and view.passed == 0
    # another tenant's facts never come back, with or without ids left out
    assert nearest_excluding(store, "other", "u1", vec, k=2, exclude=frozenset({"x"})) == []


def test_the_cache_leaves_its_ids_out_of_a_read_ahead_only_where_the_store_can(
    tmp_path: Path,
) -> None:
    vec = np.asarray(embed("user editor vim"), dtype=np.float32)
    for store in (
        ExcludingReadAhead(EmbeddedIndex(tmp_path / "a.db", dim=DIM)),
        NearRealTimeReadAhead(EmbeddedIndex(tmp_path / "b.db", dim=DIM)),
    ):
        old, *rest = _facts()
        store.upsert([old, *rest], wait=True)
        recent = RecentFacts(store, store.refresh)
        new = old.model_copy(update={"status": FactStatus.SUPERSEDED})
        store.upsert([new])  # durable, not searchable: the store's copy is stale
        recent.remember([new])
        want = recent.nearest("acme", "u1", vec, k=2, statuses=(FactStatus.ACTIVE,))
        assert old.fact_id not in {f.fact_id for f, _ in want} and len(want) == 2
        planned = Nearest.of("acme", "u1", vec, k=2, statuses=(FactStatus.ACTIVE,))
        view = read_ahead(recent, ReadPlan((planned,)))
        trips = store.trips
        assert view.nearest("acme", "u1", vec, k=2, statuses=(FactStatus.ACTIVE,)) == want
        assert store.trips == trips  # served by the read-ahead
        [r] = store.plans[-1].reads
        assert isinstance(r, Nearest)
        if isinstance(store, ExcludingReadAhead):
            assert (r.k, r.exclude) == (2, frozenset({old.fact_id}))
        else:
            assert (r.k, r.exclude) == (3, frozenset())


def test_the_opensearch_body_leaves_the_ids_out_after_the_owner_filters() -> None:
    q = np.ones(4, dtype=np.float32)
    body = nearest_body("acme", "u1", q, 3, ["active"], None, frozenset({"b", "a"}))
    filters = body["query"]["knn"]["embedding"]["filter"]["bool"]["filter"]
    assert filters[:2] == [{"term": {"tenant_id": "acme"}}, {"term": {"user_id": "u1"}}]
    assert filters[-1] == {"bool": {"must_not": [{"ids": {"values": ["a", "b"]}}]}}
    assert body["size"] == 3
    plain = nearest_body("acme", "u1", q, 3, ["active"], None)
    assert "must_not" not in str(plain)
