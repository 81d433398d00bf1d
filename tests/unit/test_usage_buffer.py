"""The usage buffer writes served counts in the background (issue 14): a search never
writes them itself, a blocked or failing store write neither blocks a search nor loses
a count, and ``pending()`` counts what is being written. On the embedded store."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from memgate import Memory
from memgate.core.errors import StoreError, TransientError
from memgate.core.stores import UsageStore
from memgate.usage_buffer import UsageBuffer
from tests.contracts.usage_gate import WAIT, Gate

DEMO = Path(__file__).resolve().parents[2] / "memgate" / "data" / "demo.jsonl"
AT = datetime(2026, 1, 1, tzinfo=UTC)


def demo_turns() -> list[dict[str, object]]:
    return [json.loads(line) for line in DEMO.read_text().splitlines() if line.strip()]


def wait_until(done: Callable[[], bool], timeout: float = WAIT) -> bool:
    deadline = time.monotonic() + timeout
    while not done():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.005)
    return True


@pytest.fixture
def mem(tmp_path: Path) -> Iterator[Memory]:
    with Memory(data_dir=tmp_path, embedder="hashing", usage_flush_facts=2) as m:
        m.add(demo_turns())
        yield m


def served(
    store: UsageStore, ids: list[str], tenant: str = "acme", user: str = "alice"
) -> dict[str, int]:
    return {f: u.served_count for f, u in store.usage(tenant, user, ids).items()}


def fact_ids(m: Memory, tenant: str = "acme", user: str = "alice") -> list[str]:
    return [f.fact_id for f in m.get_all(tenant, user)]


# -- off the search path ---------------------------------------------------------------


def test_the_search_that_fills_the_buffer_does_not_write_it(mem: Memory) -> None:
    store = mem.recall.store
    usage = mem.recall.usage
    assert isinstance(store, UsageStore) and usage is not None
    gate = Gate(store, hold=True)
    t = time.monotonic()
    hits = mem.search("deploy", "acme", "alice", min_score=-1, k=2).hits
    took = time.monotonic() - t
    ids = [h.fact.fact_id for h in hits]
    assert len(ids) == 2
    assert gate.entered.wait(WAIT), "the full buffer was never written"
    assert gate.threads[0] != threading.get_ident()  # the flusher's thread wrote it
    assert took < WAIT / 2  # the search did not wait for the held write
    # a search while the write is held returns too
    other: list[list[str]] = []
    s = threading.Thread(
        target=lambda: other.append(
            [h.fact.fact_id for h in mem.search("editor", "acme", "alice", min_score=-1, k=1).hits]
        )
    )
    s.start()
    s.join(WAIT / 2)
    assert not s.is_alive() and len(other) == 1 and len(other[0]) == 1
    # the held write's facts are counted as pending until the store has them; the second
    # search's hit is buffered, and counts once more if it is one of them (ties between
    # facts of one score are ordered by their keyed ids, which change with each data dir)
    assert [(usage.pending("acme", "alice", f) or (0,))[0] for f in ids] == [
        1 + other[0].count(f) for f in ids
    ]
    assert served(store, ids) == {}
    gate.open()
    mem.flush()  # waits for the write in flight
    assert all(usage.pending("acme", "alice", f) is None for f in ids)
    assert served(store, ids) == {f: 1 + other[0].count(f) for f in ids}


def test_pending_counts_the_entries_being_written(tmp_path: Path) -> None:
    with Memory(data_dir=tmp_path, embedder="hashing") as m:
        m.add(demo_turns())
        store = m.recall.store
        assert isinstance(store, UsageStore)
        ids = fact_ids(m)[:2]
        buf = UsageBuffer(store, max_facts=2)
        gate = Gate(store, hold=True)
        buf.add("acme", "alice", ids, AT)
        assert gate.entered.wait(WAIT)
        # in flight: counted; and a serving meanwhile adds to it
        assert buf.pending("acme", "alice", ids[0]) == (1, AT)
        buf.add("acme", "alice", ids[:1], AT)
        assert buf.pending("acme", "alice", ids[0]) == (2, AT)
        assert len(buf) == 2
        gate.open()
        buf.flush()
        assert len(buf) == 0 and buf.pending("acme", "alice", ids[0]) is None
        assert served(store, ids) == {ids[0]: 2, ids[1]: 1}
        assert buf.flushes == 2


# -- never lost ------------------------------------------------------------------------


def test_nothing_is_lost_on_close_with_a_write_in_flight(tmp_path: Path) -> None:
    total = 0
    with Memory(data_dir=tmp_path, embedder="hashing", usage_flush_facts=2) as m:
        m.add(demo_turns())
        store = m.recall.store
        assert isinstance(store, UsageStore)
        gate = Gate(store, hold=True)
        total += len(m.search("deploy", "acme", "alice", min_score=-1, k=2).hits)
        assert gate.entered.wait(WAIT)
        for q in ("editor", "deploy", "language"):  # served while the write is held
            total += len(m.search(q, "acme", "alice", min_score=-1, k=1).hits)
        threading.Timer(0.2, gate.open).start()
    # close waited for the held write, then wrote the rest
    with Memory(data_dir=tmp_path, embedder="hashing") as m2:
        counts = [f.usage.served_count for f in m2.get_all("acme", "alice")]
    assert total == 5 and sum(counts) == total


def test_a_failed_write_is_retried_and_written_once(tmp_path: Path) -> None:
    with Memory(data_dir=tmp_path, embedder="hashing") as m:
        m.add(demo_turns())
        store = m.recall.store
        assert isinstance(store, UsageStore)
        ids = fact_ids(m)[:3]
        gate = Gate(store, fail=2)
        buf = UsageBuffer(store, max_facts=3, retry_s=0.05)
        buf.add("acme", "alice", ids, AT)
        assert wait_until(lambda: gate.calls >= 1)
        buf.add("acme", "alice", ids[:1], AT)  # served between the attempts: merged
        assert wait_until(lambda: buf.flushes >= 1), "the failed write was never retried"
        assert buf.failures == 2 and gate.calls == 3
        assert all(t != threading.get_ident() for t in gate.threads)
        buf.flush()
        assert served(store, ids) == {ids[0]: 2, ids[1]: 1, ids[2]: 1}
        assert len(buf) == 0


def test_flush_raises_the_store_error_and_keeps_the_counts(tmp_path: Path) -> None:
    with Memory(data_dir=tmp_path, embedder="hashing") as m:
        m.add(demo_turns())
        store = m.recall.store
        assert isinstance(store, UsageStore)
        ids = fact_ids(m)[:2]
        gate = Gate(store, fail=1)
        buf = UsageBuffer(store, max_facts=100)  # below the size, before the interval
        buf.add("acme", "alice", ids, AT)
        with pytest.raises(TransientError):
            buf.flush()
        assert buf.pending("acme", "alice", ids[0]) == (1, AT) and served(store, ids) == {}
        buf.flush()
        assert served(store, ids) == dict.fromkeys(ids, 1) and gate.calls == 2


def test_close_says_what_it_could_not_write(tmp_path: Path) -> None:
    with Memory(data_dir=tmp_path, embedder="hashing") as m:
        m.add(demo_turns())
        store = m.recall.store
        assert isinstance(store, UsageStore)
        ids = fact_ids(m)[:2]
        Gate(store, fail=100)
        buf = UsageBuffer(store, max_facts=100, retry_s=0.01)
        buf.add("acme", "alice", ids, AT)
        with pytest.raises(StoreError, match="usage counts of 2 served facts could not"):
            buf.close()
        assert len(buf) == 2  # still held, never dropped


def test_the_interval_flushes_a_buffer_that_is_not_full(tmp_path: Path) -> None:
    with Memory(data_dir=tmp_path, embedder="hashing") as m:
        m.add(demo_turns())
        store = m.recall.store
        assert isinstance(store, UsageStore)
        ids = fact_ids(m)[:1]
        buf = UsageBuffer(store, max_facts=1000, interval_s=0.3)
        before = set(threading.enumerate())
        buf.add("acme", "alice", ids, AT)
        flusher = [t for t in set(threading.enumerate()) - before]
        assert [t.name for t in flusher] == ["memgate-usage-flush"]
        assert wait_until(lambda: buf.flushes == 1)
        assert served(store, ids) == {ids[0]: 1}
        for t in flusher:  # idle, the flusher ends: no thread held by an idle buffer
            t.join(WAIT)
            assert not t.is_alive()


def test_a_full_buffer_slows_the_search_and_drops_nothing(tmp_path: Path) -> None:
    with Memory(data_dir=tmp_path, embedder="hashing") as m:
        m.add(demo_turns())
        store = m.recall.store
        assert isinstance(store, UsageStore)
        ids = fact_ids(m)[:3]
        gate = Gate(store, hold=True)
        buf = UsageBuffer(store, max_facts=1, max_pending=1, full_wait_s=0.2)
        buf.add("acme", "alice", ids[:1], AT)
        assert gate.entered.wait(WAIT)  # ids[0] in flight, held
        buf.add("acme", "alice", ids[1:2], AT)  # pending: 1, the bound
        t = time.monotonic()
        buf.add("acme", "alice", ids[2:], AT)  # waits for room, then keeps it anyway
        assert time.monotonic() - t >= 0.15
        assert len(buf) == 3
        gate.open()
        buf.close()
        assert served(store, ids) == dict.fromkeys(ids, 1)


# -- per owner and erasure ---------------------------------------------------------------


def test_each_owner_keeps_its_own_counts(mem: Memory) -> None:
    store = mem.recall.store
    assert isinstance(store, UsageStore)
    a = fact_ids(mem, "acme", "alice")[:1]
    b = fact_ids(mem, "globex", "bob")[:1]
    buf = UsageBuffer(store, max_facts=100)
    buf.add("acme", "alice", a, AT)
    buf.add("globex", "bob", b, AT)
    buf.add("globex", "bob", a, AT)  # bob claims alice's fact: counted for bob only
    assert buf.pending("acme", "alice", a[0]) == (1, AT)
    assert buf.pending("globex", "bob", a[0]) == (1, AT)
    buf.flush()
    assert served(store, a) == {a[0]: 1}
    assert served(store, b, "globex", "bob") == {b[0]: 1}
    assert served(store, a, "globex", "bob") == {}


def test_drop_waits_for_the_write_in_flight(tmp_path: Path) -> None:
    with Memory(data_dir=tmp_path, embedder="hashing") as m:
        m.add(demo_turns())
        store = m.recall.store
        assert isinstance(store, UsageStore)
        ids = fact_ids(m)[:2]
        gate = Gate(store, hold=True)
        buf = UsageBuffer(store, max_facts=1)
        buf.add("acme", "alice", ids[:1], AT)
        assert gate.entered.wait(WAIT)
        buf.add("acme", "alice", ids[1:], AT)
        dropper = threading.Thread(target=buf.drop, args=("acme", "alice"))
        dropper.start()
        dropper.join(0.1)
        assert dropper.is_alive()  # the erasure that follows must see the write done
        gate.open()
        dropper.join(WAIT)
        assert not dropper.is_alive()
        assert buf.pending("acme", "alice", ids[1]) is None
        assert served(store, ids[:1]) == {ids[0]: 1}  # the write in flight finished first


# -- read through ----------------------------------------------------------------------


def test_get_all_counts_each_serving_once_before_during_and_after_the_write(
    tmp_path: Path,
) -> None:
    with Memory(data_dir=tmp_path, embedder="hashing", usage_flush_facts=1000) as m:
        m.add(demo_turns())
        store = m.recall.store
        assert isinstance(store, UsageStore)

        def counts() -> dict[str, int]:
            return {f.fact_id: f.usage.served_count for f in m.get_all("acme", "alice")}

        hits = m.search("deploy", "acme", "alice", min_score=-1, k=2).hits
        ids = [h.fact.fact_id for h in hits]
        before = counts()  # buffered only: not in the store yet
        assert served(store, ids) == {} and all(before[f] == 1 for f in ids)
        gate = Gate(store, hold=True)
        w = threading.Thread(target=m.flush)
        w.start()
        assert gate.entered.wait(WAIT)
        # a read while the write is in flight waits for it, then counts it once
        got: list[dict[str, int]] = []
        r = threading.Thread(target=lambda: got.append(counts()))
        r.start()
        r.join(0.2)
        assert r.is_alive()  # held behind the write
        gate.open()
        w.join(WAIT)
        r.join(WAIT)
        assert got == [before]
        assert served(store, ids) == dict.fromkeys(ids, 1)
        assert counts() == before  # written: the same answer


def test_read_through_adds_what_is_buffered_to_what_is_stored(tmp_path: Path) -> None:
    with Memory(data_dir=tmp_path, embedder="hashing") as m:
        m.add(demo_turns())
        store = m.recall.store
        assert isinstance(store, UsageStore)
        ids = fact_ids(m)[:2]
        buf = UsageBuffer(store, max_facts=100, interval_s=60)
        buf.add("acme", "alice", ids, AT)
        buf.flush()
        later = datetime(2026, 2, 1, tzinfo=UTC)
        buf.add("acme", "alice", ids[:1], later)
        buf.add("acme", "bob", ids[:1], later)  # another owner's count is not added
        got = buf.read_through("acme", "alice", ids, lambda: store.usage("acme", "alice", ids))
        assert {f: (u.served_count, u.last_served) for f, u in got.items()} == {
            ids[0]: (2, later),
            ids[1]: (1, AT),
        }
        buf.close()
