"""The phase breakdown of a search (memgate.core.timings) on the embedded store."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from memgate import Memory
from memgate.core.events import FactStatus, FactType, StoredFact, stable_id
from memgate.core.stores import SearchQuery
from memgate.core.timings import active, phase, recording, server_time

T0 = datetime(2024, 1, 1, tzinfo=UTC)
STORE_PHASES = {"lexical", "dense", "fusion", "fetch"}
READ_PATH_PHASES = {"embedding", "usage", "packing", "usage_record"}


def fact(i: int, value: str, topic: str) -> StoredFact:
    key = f"acme/u1/user/{topic}_{i}"
    at = T0 + timedelta(minutes=i)
    return StoredFact(
        fact_id=stable_id("acme", "u1", key, value), tenant_id="acme", user_id="u1", key=key,
        type=FactType.PREFERENCE, subject="user", predicate=f"{topic}_{i}", value=value,
        text=f"user uses {value} for {topic}", status=FactStatus.ACTIVE, confidence=0.9,
        valid_from=at, recorded_at=at, first_seen=at, last_seen=at, source_turn_ids=[f"t{i}"],
        extractor="test", extractor_version="1", policy_version="test",
    )  # fmt: skip


@pytest.fixture
def mem(tmp_path: Path) -> Iterator[Memory]:
    with Memory(data_dir=tmp_path, embedder="hashing") as m:
        store, embedder = m.recall.store, m.recall.embedder
        facts = [fact(i, v, t) for i, (v, t) in enumerate(
            [("vim", "editor"), ("postgres", "database"), ("helm", "deploy"),
             ("fish", "shell"), ("rust", "language")] * 8
        )]  # fmt: skip
        vectors = embedder.embed([f.text for f in facts])
        store.upsert(
            [
                f.model_copy(update={"embedding": v.tolist()})
                for f, v in zip(facts, vectors, strict=True)
            ],
            wait=True,
        )
        yield m


def test_a_recorded_search_has_every_phase_and_they_add_up_to_at_most_the_total(
    mem: Memory,
) -> None:
    with recording() as t:
        res = mem.search("which editor do I use", "acme", "u1", min_score=-1)
    assert res.hits
    assert set(t.phases) == STORE_PHASES | READ_PATH_PHASES
    assert all(s > 0 for s in t.phases.values())
    assert sum(t.phases.values()) <= t.total
    assert t.server == {}  # the embedded store has no server
    assert active() is None  # the recorder is gone with its block


def test_each_search_gets_its_own_recorder_and_a_store_search_records_its_phases(
    mem: Memory,
) -> None:
    q = SearchQuery(tenant_id="acme", user_id="u1", text="postgres database", k=5)
    vec = mem.recall.embedder.embed([q.text])[0]
    with recording() as first:
        mem.recall.store.search(q, vec)
    with recording() as second:
        mem.recall.store.search(q, vec)
    assert set(first.phases) == set(second.phases) == STORE_PHASES
    assert first is not second
    assert sum(first.phases.values()) <= first.total


def test_a_query_without_a_word_runs_no_lexical_phase(mem: Memory) -> None:
    with recording() as t:
        mem.search("?!", "acme", "u1", min_score=-1)
    assert "lexical" not in t.phases
    assert {"embedding", "dense", "fusion", "fetch"} <= set(t.phases)


def test_without_a_recorder_nothing_is_recorded_anywhere(mem: Memory) -> None:
    mem.search("which editor do I use", "acme", "u1", min_score=-1)
    with phase("fusion"):
        server_time("lexical", 0.001)
    assert active() is None


def test_a_phase_run_twice_adds_up_and_server_times_stay_apart() -> None:
    with recording() as t:
        for _ in range(2):
            with phase("fetch"):
                time.sleep(0.002)
        server_time("lexical", 0.003)
        server_time("lexical", 0.001)
    assert t.phases["fetch"] >= 0.004
    assert t.server == {"lexical": pytest.approx(0.004)}
    assert "lexical" not in t.phases
    assert t.total >= t.phases["fetch"]
