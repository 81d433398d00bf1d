"""The OpenSearch store's read-ahead (memgate.sinks.opensearch_reads) against a recording
client (no server: tests/integration/test_opensearch_read_ahead_int.py runs it on one):
one ``_msearch`` sends the very bodies the single reads send, each scoped to its owner,
and a scan that may have a second page is left to the paged single read."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from memgate.core.events import FactStatus
from memgate.core.read_ahead import ByKey, BySubject, Nearest, Prefetched, ReadPlan
from memgate.sinks.opensearch import OpenSearchStore
from memgate.sinks.opensearch_mapping import PAGE_SIZE
from memgate.sinks.opensearch_queries import owner_filters
from tests.contracts.retrieval import DIM, RetrievalStoreContract, embed

_C = RetrievalStoreContract()
Json = dict[str, Any]


def _hit(value: str, n: int, score: float = 1.0) -> Json:
    f = _C.make_fact(value, fact_id=f"f{n}")
    return {"_id": f.fact_id, "_score": score, "_source": f.model_dump(mode="json"), "sort": [n]}


class Recording:
    """A client that records every request and answers ``hits(body)`` to each body."""

    def __init__(self, hits: Any) -> None:
        self.hits = hits
        self.calls: list[tuple[str, list[Json]]] = []

    def _answer(self, body: Json) -> Json:
        return {"took": 1, "_shards": {"failed": 0}, "hits": {"hits": self.hits(body)}}

    def search(self, index: str, body: Json) -> Json:
        self.calls.append(("search", [body]))
        return self._answer(body)

    def msearch(self, index: str, body: list[Json]) -> Json:
        bodies = body[1::2]
        assert body[0::2] == [{}] * len(bodies)  # no header sends another index
        self.calls.append(("msearch", bodies))
        return {"responses": [self._answer(b) for b in bodies]}


def _store(hits: Any) -> tuple[OpenSearchStore, Recording]:
    client = Recording(hits)
    return OpenSearchStore(client, "memgate-test", DIM, max_retries=0), client  # type: ignore[arg-type]


VEC = np.asarray(embed("user editor vim"), dtype=np.float32)
PLAN = ReadPlan((
    ByKey("acme", "u1", "acme/u1/user/editor"),
    Nearest.of("acme", "u1", VEC, k=10, statuses=(FactStatus.ACTIVE, FactStatus.SUPERSEDED)),
    BySubject.of("acme", "u1", "user", statuses=(FactStatus.ACTIVE,), qualified=True,
                 vectors=False),
    ByKey("other", "u2", "other/u2/user/editor"),
))  # fmt: skip


def _single(store: OpenSearchStore) -> list[object]:
    return [
        store.by_key("acme", "u1", "acme/u1/user/editor"),
        store.nearest("acme", "u1", VEC, k=10, statuses=(FactStatus.ACTIVE, FactStatus.SUPERSEDED)),
        store.by_subject("acme", "u1", "user", statuses=(FactStatus.ACTIVE,), qualified=True,
                         vectors=False),
        store.by_key("other", "u2", "other/u2/user/editor"),
    ]  # fmt: skip


def _two_hits(body: Json) -> list[Json]:
    return [_hit("vim", 1, 0.9), _hit("emacs", 2, 0.7)]


def test_one_msearch_sends_the_single_reads_bodies_each_scoped_to_its_owner() -> None:
    store, client = _store(_two_hits)
    want = _single(store)
    singles = [b for _, [b] in client.calls]
    client.calls.clear()
    view = store.read_ahead(PLAN)
    [(kind, bodies)] = client.calls
    assert kind == "msearch" and bodies == singles
    for body, (tenant, user) in zip(bodies, [("acme", "u1")] * 3 + [("other", "u2")], strict=True):
        q = body["query"]
        filters = q["knn"]["embedding"]["filter"]["bool"]["filter"] if "knn" in q else (
            q["bool"]["filter"])  # fmt: skip
        assert filters[:2] == owner_filters(tenant, user)
    assert _single(view) == want  # type: ignore[arg-type]
    assert len(client.calls) == 1  # every read served from the one round trip
    assert want[1] == [(want[0][0], pytest.approx(0.8)), (want[0][1], pytest.approx(0.4))]  # type: ignore[index]


def test_a_scan_with_a_full_first_page_is_left_to_the_paged_read() -> None:
    def hits(body: Json) -> list[Json]:
        if "knn" in body["query"] or body.get("search_after"):
            return [_hit("last", PAGE_SIZE + 1)]
        return [_hit(f"v{i}", i) for i in range(PAGE_SIZE)]  # a full page: maybe more

    store, client = _store(hits)
    view = store.read_ahead(PLAN)
    assert isinstance(view, Prefetched) and len(view) == 1  # the nearest alone
    client.calls.clear()
    facts = view.by_key("acme", "u1", "acme/u1/user/editor")
    assert len(facts) == PAGE_SIZE + 1  # the second page read
    assert [k for k, _ in client.calls] == ["search", "search"]
    assert "search_after" in client.calls[1][1][0]


def test_what_cannot_match_is_not_asked_and_a_bad_vector_still_raises() -> None:
    store, client = _store(_two_hits)
    plan = ReadPlan((
        BySubject.of("acme", "u1", "user", statuses=()),
        BySubject.of("acme", "u1", "user", limit=0),
        Nearest.of("acme", "u1", np.zeros(DIM, dtype=np.float32)),
        Nearest.of("acme", "u1", np.ones(DIM + 1, dtype=np.float32)),
    ))  # fmt: skip
    view = store.read_ahead(plan)
    assert client.calls == []
    assert view.by_subject("acme", "u1", "user", statuses=()) == []
    assert view.by_subject("acme", "u1", "user", limit=0) == []
    assert view.nearest("acme", "u1", np.zeros(DIM, dtype=np.float32)) == []
    with pytest.raises(ValueError, match="dim"):
        view.nearest("acme", "u1", np.ones(DIM + 1, dtype=np.float32))
    assert client.calls == []


def test_a_subject_answer_keeps_the_limits_most_recent() -> None:
    store, _ = _store(lambda body: [_hit(f"v{i}", i) for i in range(5)])
    r = BySubject.of("acme", "u1", "user", limit=2)
    view = store.read_ahead(ReadPlan((r,)))
    want = store.by_subject("acme", "u1", "user", limit=2)
    assert [f.fact_id for f in want] == ["f3", "f4"]
    assert view.by_subject("acme", "u1", "user", limit=2) == want
