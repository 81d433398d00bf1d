"""Mapping versions 3 (packed vectors) and 2 of the OpenSearch store on a real node
(memgate.sinks.opensearch_mapping); written for the lead to run, marker integration:

* a version-3 index keeps no vector array in the stored ``_source``, only the packed
  ``binary`` fields, and gives back facts equal to those written (vectors bit-identical);
  ``nearest`` and ``search`` (k-NN and BM25) find them; a superseded rewrite (the fact read
  back, its status changed, written again) keeps its k-NN vector;
* an index created with the version-2 mapping (an older memgate's) is used as it is: the
  store writes version-2 documents there (vector arrays in ``_source``) and reads them.

Needs only OpenSearch (``MEMGATE_OPENSEARCH_URL``, default http://127.0.0.1:19200); each
test uses its own index and deletes it.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from datetime import timedelta

import numpy as np
import pytest
from opensearchpy import OpenSearch  # type: ignore[import-untyped,unused-ignore]

from memgate.core.events import FactStatus
from memgate.core.stores import SearchQuery
from memgate.sinks.opensearch import OpenSearchStore
from memgate.sinks.opensearch_mapping import index_body, unpack_vector
from tests.contracts.retrieval import DIM, T0, RetrievalStoreContract

pytestmark = pytest.mark.integration

URL = os.environ.get("MEMGATE_OPENSEARCH_URL", "http://127.0.0.1:19200")
helper = RetrievalStoreContract()


@pytest.fixture(scope="module")
def os_client() -> Iterator[OpenSearch]:
    client = OpenSearch(hosts=[URL], max_retries=0, retry_on_timeout=False, timeout=30)
    try:
        client.info()
    except Exception as exc:
        client.close()
        pytest.fail(f"OpenSearch is not reachable at {URL} ({type(exc).__name__}: {exc})",
                    pytrace=False)  # fmt: skip
    yield client
    client.close()


@pytest.fixture
def name(os_client: OpenSearch) -> Iterator[str]:
    name = f"memgate-test-{uuid.uuid4().hex[:12]}"
    yield name
    for index in (f"{name}*", f"usage.{name}"):
        os_client.indices.delete(index=index, params={"ignore_unavailable": "true"})
    os_client.indices.delete_index_template(name=f"{name}-template", params={"ignore": 404})


def _facts() -> list:  # type: ignore[type-arg]
    return [
        helper.make_fact("vim", predicate="editor", context="we took the canoe out",
                         search_embedding=helper.embed("canoe trip lake")),
        helper.make_fact("paris", predicate="city"),
        helper.make_fact("python", predicate="language", context="at work",
                         search_embedding=helper.embed("python work backend")),
    ]  # fmt: skip


def _round_trip(store: OpenSearchStore) -> None:
    facts = _facts()
    store.upsert(facts, wait=True)
    got = {f.fact_id: f for f in store.list_facts("acme", "u1")}
    assert got == {f.fact_id: f for f in facts}  # vectors included, bit for bit
    light = store.by_subject("acme", "u1", "user", vectors=False)
    assert sorted(f.fact_id for f in light) == sorted(got)
    assert all(f.embedding is None and f.search_embedding is None for f in light)
    vim = facts[0]
    (best, score), *_ = store.nearest("acme", "u1", helper.vector("user editor vim"), k=3)
    assert best == vim and score > 0.99
    hits = store.search(SearchQuery(tenant_id="acme", user_id="u1", text="canoe"),
                        helper.vector("canoe trip lake"))  # fmt: skip
    assert hits[0].fact == vim and (hits[0].bm25_rank, hits[0].vector_rank) == (1, 1)
    # superseded: the fact read back (with its vectors), closed and written again
    old = store.get("acme", "u1", vim.fact_id)
    assert old is not None
    closed = old.model_copy(update={"status": FactStatus.SUPERSEDED,
                                    "superseded_at": T0 + timedelta(days=1),
                                    "valid_to": T0 + timedelta(days=1)})  # fmt: skip
    store.upsert([closed], wait=True)
    near = store.nearest("acme", "u1", helper.vector("user editor vim"), k=3,
                         statuses=(FactStatus.SUPERSEDED,))  # fmt: skip
    assert [(f, round(s, 4)) for f, s in near] == [(closed, 1.0)]
    assert store.get("acme", "u1", vim.fact_id) == closed


def test_a_v3_index_keeps_packed_vectors_only_and_round_trips(
    os_client: OpenSearch, name: str
) -> None:
    store = OpenSearchStore(os_client, name, DIM, backoff_s=0.01)
    store.ensure_index()
    assert store.mapping_version == 3
    _round_trip(store)
    vim = _facts()[0]
    raw = os_client.get(index=name, id=vim.fact_id)["_source"]
    assert not {"embedding", "search_embedding", "retrieval_embedding"} & set(raw)
    assert unpack_vector(raw["embedding_f32"], DIM) == vim.embedding
    assert unpack_vector(raw["search_embedding_f32"], DIM) == vim.search_embedding
    assert np.asarray(vim.embedding, dtype=np.float32).tolist() == vim.embedding


def test_a_v2_index_of_an_older_memgate_still_reads_and_writes(
    os_client: OpenSearch, name: str
) -> None:
    os_client.indices.create(index=name, body=index_body(DIM, version=2))
    store = OpenSearchStore(os_client, name, DIM, backoff_s=0.01)
    store.ensure_index()  # puts the version-3 template (new indices); this one stays 2
    meta = os_client.indices.get_mapping(index=name)[name]["mappings"]["_meta"]
    assert meta == {"memgate_mapping_version": 2} and store.mapping_version == 2
    _round_trip(store)
    vim = _facts()[0]
    raw = os_client.get(index=name, id=vim.fact_id)["_source"]
    assert raw["embedding"] == vim.embedding and raw["search_embedding"] == vim.search_embedding
    assert "embedding_f32" not in raw
    fresh = OpenSearchStore(os_client, name, DIM)  # a store that never ran ensure_index
    fresh.upsert([helper.make_fact("rust", predicate="language_2")], wait=True)
    assert (
        fresh.mapping_version == 2
        and len(fresh.list_facts("acme", "u1", include_inactive=True)) == 4
    )
