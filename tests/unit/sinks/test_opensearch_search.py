"""The requests of the OpenSearch store's search and how their answers are read (no
server: what the requests say; tests/integration/test_opensearch_store_int.py runs them)."""

from __future__ import annotations

import numpy as np

from memgate.core.stores import SearchQuery
from memgate.sinks.opensearch_mapping import VECTOR_FIELDS
from memgate.sinks.opensearch_queries import scope_filters
from memgate.sinks.opensearch_search import fetch_bodies, read_retrievers, retriever_bodies

FILTERS = scope_filters(SearchQuery(tenant_id="acme", user_id="u1", text="x")) or []
ORDER = [{"_score": "desc"}, {"fact_id": "asc"}]


def ids_of(body: dict[str, object]) -> list[str]:
    return body["query"]["bool"]["filter"][0]["ids"]["values"]  # type: ignore[index,no-any-return]


def test_the_retrievers_ask_ids_only_in_the_users_scope() -> None:
    vec = np.array([0.5, -0.25], dtype=np.float32)
    lexical, dense = retriever_bodies("which editor", vec, 50, FILTERS)
    assert lexical == {
        "size": 50, "_source": False, "track_total_hits": False, "sort": ORDER,
        "query": {"bool": {"must": [{"match": {"search_text": {"query": "which editor"}}}],
                           "filter": FILTERS}},
    }  # fmt: skip
    assert dense == {
        "size": 50, "_source": False, "track_total_hits": False, "sort": ORDER,
        "query": {"knn": {"retrieval_embedding": {
            "vector": [0.5, -0.25], "k": 50, "filter": {"bool": {"filter": FILTERS}}}}},
    }  # fmt: skip
    [only] = retriever_bodies(None, vec, 5, FILTERS)
    assert only["size"] == only["query"]["knn"]["retrieval_embedding"]["k"] == 5
    assert retriever_bodies(None, None, 5, FILTERS) == []


def test_the_answers_give_ranks_cosines_and_the_servers_took_in_seconds() -> None:
    lex = {"took": 3, "hits": {"hits": [{"_id": "a"}, {"_id": "b"}]}}
    knn = {"took": 12, "hits": {"hits": [{"_id": "b", "_score": 0.9}, {"_id": "c", "_score": 0.5}]}}
    ids, sims, took = read_retrievers([lex, knn], lexical=True, dense=True)
    assert ids == ["a", "b"]
    assert sims == {"b": 0.8, "c": 0.0} and list(sims) == ["b", "c"]
    assert took == {"lexical": 0.003, "dense": 0.012}
    ids, sims, took = read_retrievers([knn], lexical=False, dense=True)
    assert (ids, list(sims), list(took)) == ([], ["b", "c"], ["dense"])
    ids, sims, took = read_retrievers([lex], lexical=True, dense=False)
    assert (ids, sims, took) == (["a", "b"], {}, {"lexical": 0.003})


def test_with_vectors_the_fetch_is_the_one_whole_request_it_always_was() -> None:
    [body] = fetch_bodies(["c", "a", "b"], {"a"}, FILTERS, vectors=True)
    assert body == {
        "size": 3,
        "query": {"bool": {"filter": [{"ids": {"values": ["c", "a", "b"]}}, *FILTERS]}},
    }


def test_without_vectors_the_scored_hits_come_light_and_only_the_others_whole() -> None:
    light, whole = fetch_bodies(["c", "a", "b", "d"], {"a", "d"}, FILTERS, vectors=False)
    assert ids_of(light) == ["a", "d"] and light["size"] == 2
    assert light["_source"] == {"excludes": list(VECTOR_FIELDS)}
    assert set(VECTOR_FIELDS) == {
        "embedding",
        "search_embedding",
        "embedding_f32",
        "search_embedding_f32",
    }
    assert ids_of(whole) == ["c", "b"] and whole["size"] == 2 and "_source" not in whole
    assert light["query"]["bool"]["filter"][1:] == FILTERS == whole["query"]["bool"]["filter"][1:]


def test_without_vectors_a_kind_with_no_hit_sends_no_body() -> None:
    [light] = fetch_bodies(["a", "b"], {"a", "b", "z"}, FILTERS, vectors=False)
    assert ids_of(light) == ["a", "b"] and "_source" in light
    [whole] = fetch_bodies(["a", "b"], set(), FILTERS, vectors=False)
    assert ids_of(whole) == ["a", "b"] and "_source" not in whole
