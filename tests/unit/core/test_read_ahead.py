"""Read-ahead (memgate.core.read_ahead): the view a read-ahead returns answers every read
exactly as the view it reads ahead of, serves the planned reads from one round trip, and
sends every other read to the store."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memgate.core.events import FactStatus, StoredFact
from memgate.core.read_ahead import (
    ByKey,
    BySubject,
    Nearest,
    Prefetched,
    ReadPlan,
    ReadRequest,
    read_ahead,
)
from memgate.sinks.embedded import EmbeddedIndex
from tests.contracts.retrieval import DIM, T0, RetrievalStoreContract, embed
from tests.unit.streams.near_real_time import NearRealTimeReadAhead

_C = RetrievalStoreContract()
OWNERS = [("acme", "u1"), ("acme", "u2"), ("other", "u1")]
SUBJECTS = ["user", "team", "user's dog", "teams", "bob"]
PREDICATES = ["editor", "likes", "city"]
VALUES = ["vim", "emacs", "jazz", "hiking", "berlin", "paris"]
STATUSES = [
    (FactStatus.ACTIVE,),
    (FactStatus.ACTIVE, FactStatus.PENDING),
    (FactStatus.ACTIVE, FactStatus.SUPERSEDED),
    (FactStatus.SUPERSEDED,),
    (),
]


def _facts() -> list[StoredFact]:
    out = []
    for n, (t, u) in enumerate(OWNERS):
        for i, s in enumerate(SUBJECTS):
            for j, p in enumerate(PREDICATES):
                v = VALUES[(i + j + n) % len(VALUES)]
                status = list(FactStatus)[(i * 3 + j + n) % len(FactStatus)]
                out.append(
                    _C.make_fact(
                        v, subject=s, predicate=p, tenant_id=t, user_id=u, status=status,
                        recorded_at=T0 + timedelta(minutes=i * 7 + j * 3 + n),
                    )
                )  # fmt: skip
    return out


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[NearRealTimeReadAhead]:
    index = EmbeddedIndex(Path(tmp_path_factory.mktemp("ra")) / "facts.db", dim=DIM)
    s = NearRealTimeReadAhead(index)
    s.upsert(_facts(), wait=True)
    yield s
    index.close()


def _vec(text: str) -> np.ndarray:
    return np.asarray(embed(text), dtype=np.float32)


owners = st.sampled_from(OWNERS)
requests: st.SearchStrategy[ReadRequest] = st.one_of(
    st.builds(
        lambda o, s, p: ByKey(o[0], o[1], f"{o[0]}/{o[1]}/{s}/{p}"),
        owners, st.sampled_from(SUBJECTS), st.sampled_from(PREDICATES),
    ),
    st.builds(
        lambda o, s, st_, q, lim, v: BySubject.of(
            o[0], o[1], s, statuses=st_, qualified=q, limit=lim, vectors=v
        ),
        owners, st.sampled_from(SUBJECTS), st.sampled_from(STATUSES), st.booleans(),
        st.sampled_from([500, 3, 0]), st.booleans(),
    ),
    st.builds(
        lambda o, w, k, st_, p: Nearest.of(
            o[0], o[1], _vec(w), k=k, statuses=st_, predicate=p
        ),
        owners, st.sampled_from(VALUES), st.sampled_from([1, 3, 10]),
        st.sampled_from(STATUSES), st.sampled_from([None, "likes"]),
    ),
)  # fmt: skip


def _read(view: object, r: ReadRequest) -> list[object]:
    """``r`` as the call a resolution makes (a fresh vector array: equal by value only)."""
    if isinstance(r, ByKey):
        return list(view.by_key(r.tenant_id, r.user_id, r.key))  # type: ignore[attr-defined]
    if isinstance(r, BySubject):
        return list(view.by_subject(  # type: ignore[attr-defined]
            r.tenant_id, r.user_id, r.subject, statuses=r.statuses, qualified=r.qualified,
            limit=r.limit, vectors=r.vectors,
        ))  # fmt: skip
    return list(view.nearest(  # type: ignore[attr-defined]
        r.tenant_id, r.user_id, r.vector.copy(), k=r.k, statuses=r.statuses,
        predicate=r.predicate,
    ))  # fmt: skip


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(plan=st.lists(requests, max_size=6), reads=st.lists(requests, min_size=1, max_size=8))
def test_every_read_answers_as_the_plain_view_and_only_planned_reads_skip_the_store(
    store: NearRealTimeReadAhead, plan: list[ReadRequest], reads: list[ReadRequest]
) -> None:
    p = ReadPlan(tuple(plan))
    reads = [*plan, *reads]  # the planned reads, then any others (some planned again)
    want = [_read(store, r) for r in reads]  # the plain view, read by read
    before = store.trips
    view = read_ahead(store, p)
    got = [_read(view, r) for r in reads]
    assert got == want
    # a read outside the plan goes to the store once: asked again, its answer is kept
    # (without a plan the store itself is read, every read)
    outside_reads = [r for r in reads if r not in set(p.reads)]
    outside = len(set(outside_reads)) if p.reads else len(outside_reads)
    assert store.trips - before == (1 if p.reads else 0) + outside
    if p.reads:
        assert isinstance(view, Prefetched) and view.passed == outside
        assert view.served == len(reads) - outside


def test_a_nearest_is_served_only_for_the_same_vector_value_for_value(
    store: NearRealTimeReadAhead,
) -> None:
    vec = _vec("vim")
    view = read_ahead(store, ReadPlan((Nearest.of("acme", "u1", vec, k=3),)))
    assert isinstance(view, Prefetched)
    view.nearest("acme", "u1", vec.copy(), k=3)
    assert (view.served, view.passed) == (1, 0)
    other = vec.copy()
    other[0] += 1e-3
    view.nearest("acme", "u1", other, k=3)  # another vector
    view.nearest("acme", "u1", vec.astype(np.float64), k=3)  # another dtype
    view.nearest("acme", "u1", vec, k=4)  # another k
    view.nearest("acme", "u2", vec, k=3)  # another user: its own read, in its own scope
    assert (view.served, view.passed) == (1, 4)


def test_a_read_outside_the_plan_asked_again_is_answered_as_the_first_time(
    store: NearRealTimeReadAhead,
) -> None:
    vec = _vec("vim")
    view = read_ahead(store, ReadPlan((Nearest.of("acme", "u1", vec, k=3),)))
    assert isinstance(view, Prefetched)
    trips = store.trips
    first = view.by_subject("acme", "u1", "user", statuses=(FactStatus.ACTIVE,), qualified=True)
    again = view.by_subject("acme", "u1", "user", statuses=(FactStatus.ACTIVE,), qualified=True)
    assert again == first and store.trips == trips + 1
    assert (view.served, view.passed) == (1, 1)
    # another read (another user, other statuses): the store
    view.by_subject("acme", "u2", "user", statuses=(FactStatus.ACTIVE,), qualified=True)
    view.by_subject("acme", "u1", "user", qualified=True)
    assert store.trips == trips + 3 and len(view) == 1


def test_a_planned_vector_changed_by_the_caller_afterwards_changes_nothing(
    store: NearRealTimeReadAhead,
) -> None:
    vec = _vec("jazz")
    want = store.index.nearest("acme", "u1", vec, k=3)
    plan = ReadPlan((Nearest.of("acme", "u1", vec, k=3),))
    vec[:] = 0.0
    view = read_ahead(store, plan)
    assert view.nearest("acme", "u1", _vec("jazz"), k=3) == want


def test_an_answer_is_a_copy_the_caller_may_change(store: NearRealTimeReadAhead) -> None:
    r = ByKey("acme", "u1", "acme/u1/user/editor")
    view = read_ahead(store, ReadPlan((r,)))
    first = view.by_key(r.tenant_id, r.user_id, r.key)
    assert first
    first.clear()
    assert view.by_key(r.tenant_id, r.user_id, r.key) == store.index.by_key("acme", "u1", r.key)


def test_a_plan_asks_each_read_once_and_a_view_without_read_ahead_is_read_directly(
    store: NearRealTimeReadAhead,
) -> None:
    r = ByKey("acme", "u1", "acme/u1/user/editor")
    vec = _vec("vim")
    plan = ReadPlan((r, Nearest.of("acme", "u1", vec), ByKey("acme", "u1", r.key),
                     Nearest.of("acme", "u1", vec.copy())))  # fmt: skip
    assert len(plan) == 2
    assert read_ahead(store.index, plan) is store.index  # the embedded index: no round trips
    assert read_ahead(store, ReadPlan()) is store  # nothing planned: nothing asked
