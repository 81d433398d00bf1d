"""OpenSearchStore.search against a real node: the light fetch (``SearchQuery.vectors``
False) serves the same hits and relevance as the whole one, and a recorded search
notes its phases and the server's took.

Start the node with ``bash deploy/local/services.sh up opensearch``; the URL comes
from ``MEMGATE_OPENSEARCH_URL`` (default http://127.0.0.1:19200). When the node is
unreachable every test here fails (never skips) and says so.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import pytest
from opensearchpy import OpenSearch  # type: ignore[import-untyped,unused-ignore]

from memgate.core.embedding import HashingEmbedder
from memgate.core.stores import SearchHit, SearchQuery
from memgate.core.timings import recording
from memgate.recall import Recall
from memgate.sinks.opensearch import OpenSearchStore
from tests.contracts.retrieval import DIM, RetrievalStoreContract

pytestmark = pytest.mark.integration

URL = os.environ.get("MEMGATE_OPENSEARCH_URL", "http://127.0.0.1:19200")
VECTORS = {"embedding", "search_embedding"}

helper = RetrievalStoreContract()


@pytest.fixture(scope="module")
def os_client() -> Iterator[OpenSearch]:
    client = OpenSearch(hosts=[URL], max_retries=0, retry_on_timeout=False, timeout=30)
    try:
        client.info()
    except Exception as exc:
        client.close()
        pytest.fail(
            f"OpenSearch is not reachable at {URL} ({type(exc).__name__}: {exc}). "
            "Start it with `bash deploy/local/services.sh up opensearch` or point "
            "MEMGATE_OPENSEARCH_URL at a running node.",
            pytrace=False,
        )
    yield client
    client.close()


@pytest.fixture
def store(os_client: OpenSearch) -> Iterator[OpenSearchStore]:
    name = f"memgate-test-{uuid.uuid4().hex[:12]}"
    s = OpenSearchStore(os_client, name, DIM, backoff_s=0.01)
    s.ensure_index()
    yield s
    s.close()
    for index in (f"{name}*", f"usage.{name}"):
        os_client.indices.delete(index=index, params={"ignore_unavailable": "true"})
    os_client.indices.delete_index_template(name=f"{name}-template", params={"ignore": 404})


@pytest.fixture
def seeded(store: OpenSearchStore) -> OpenSearchStore:
    """Editors (BM25 finds them for "editor") and facts nearer the query vector
    "user city paris" (k-NN ranks them), some with a context and its own vector."""
    facts = [helper.make_fact(v, predicate=f"editor_{i}") for i, v in enumerate(
        ["vim", "emacs", "helix", "nano", "kate"])]  # fmt: skip
    facts += [
        helper.make_fact("paris", predicate="city"),
        helper.make_fact("lyon", predicate="city_2", context="we moved to lyon for work",
                         search_embedding=helper.embed("user city lyon moved work")),
        helper.make_fact("python", predicate="language"),
    ]  # fmt: skip
    store.upsert(facts, wait=True)
    return store


def query(**kw: object) -> SearchQuery:
    params: dict[str, object] = {"tenant_id": "acme", "user_id": "u1", "text": "which editor"}
    return SearchQuery.model_validate(params | kw)


def same_but_vectors(light: list[SearchHit], whole: list[SearchHit]) -> None:
    assert [h.fact.fact_id for h in light] == [h.fact.fact_id for h in whole]
    for a, b in zip(light, whole, strict=True):
        assert a.model_dump(exclude={"fact"}) == b.model_dump(exclude={"fact"})
        assert a.fact.model_dump(exclude=VECTORS) == b.fact.model_dump(exclude=VECTORS)


@pytest.mark.parametrize("candidates", [2, 50])
def test_without_vectors_the_same_hits_and_only_the_bm25_only_ones_carry_vectors(
    seeded: OpenSearchStore, candidates: int
) -> None:
    vec = helper.vector("user city paris")
    whole = seeded.search(query(candidates=candidates), vec)
    light = seeded.search(query(candidates=candidates, vectors=False), vec)
    same_but_vectors(light, whole)
    assert any(h.vector_score is not None for h in light)
    if candidates == 2:  # k-NN scored two: the BM25-only editors come whole
        assert any(h.vector_score is None for h in light)
    for a, b in zip(light, whole, strict=True):
        assert b.fact.embedding is not None
        if a.vector_score is None:
            assert (a.fact.embedding, a.fact.search_embedding) == (
                b.fact.embedding, b.fact.search_embedding)  # fmt: skip
        else:
            assert a.fact.embedding is None and a.fact.search_embedding is None


def test_the_read_path_ranks_the_same_with_the_light_fetch(seeded: OpenSearchStore) -> None:
    recall = Recall(seeded, HashingEmbedder(dim=DIM), decay=None)
    for text in ("which editor", "paris lyon", "python vim"):
        whole = recall.rank(query(text=text, candidates=2))
        light = recall.rank(query(text=text, candidates=2, vectors=False))
        assert [(r.hit.fact.fact_id, r.relevance, r.final) for r in light] == [
            (r.hit.fact.fact_id, r.relevance, r.final) for r in whole
        ]
        assert all(r.relevance is not None for r in light)


def test_a_recorded_search_notes_its_phases_and_the_servers_took(
    seeded: OpenSearchStore,
) -> None:
    with recording() as t:
        hits = seeded.search(query(vectors=False), helper.vector("user editor vim"))
    assert hits
    assert set(t.phases) == {"retrieve", "fusion", "fetch"}
    assert set(t.server) == {"lexical", "dense"}
    assert sum(t.phases.values()) <= t.total
    # the server's took is inside the round trip (millisecond resolution)
    assert max(t.server.values()) <= t.phases["retrieve"] + 0.001
