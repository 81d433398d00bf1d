"""Hybrid search on the OpenSearch store (:class:`OpenSearchSearch`, a mixin of
:class:`memgate.sinks.opensearch.OpenSearchStore`), and the requests it sends.

Two round trips: one ``_msearch`` runs both retrievers (BM25 on
``search_text``, k-NN on the retrieval vector, each returning
``query.candidates`` ids and no ``_source``), the client fuses their rankings
(:func:`memgate.sinks.base.rrf_fuse`, k=60), then one request fetches the best
``query.k`` documents with a query that repeats the same scope.

The fetch is most of what a search moves: a fact's two 384-float vectors are
most of its document. With ``query.vectors`` (the default) every hit carries
them. Without (the read path of :meth:`memgate.Memory.search`, which serves no
vector), the facts the k-NN side scored come without their vectors (their
relevance is that score) and only the others, found by BM25 alone, come whole
(the read path computes their relevance from the retrieval vector): both in
one ``_msearch`` when both kinds are among the hits.

With a recorder (:mod:`memgate.core.timings`) a search marks ``retrieve``
(the ``_msearch`` round trip), ``fusion`` and ``fetch``, and notes the
server's ``took`` of the BM25 and k-NN responses as ``lexical`` and ``dense``.
"""

from __future__ import annotations

from collections.abc import Container, Sequence

import numpy as np
import numpy.typing as npt

from memgate.core.events import StoredFact
from memgate.core.stores import SearchHit, SearchQuery
from memgate.core.timings import phase, server_time
from memgate.sinks.base import RRF_K, fused_hits, rrf_fuse
from memgate.sinks.opensearch_mapping import (
    MAX_WINDOW,
    RETRIEVAL_VECTOR_FIELD,
    SEARCH_TEXT_FIELD,
    VECTOR_FIELDS,
    FloatVector,
    Json,
    match_text,
)
from memgate.sinks.opensearch_queries import knn_query, scope_filters

__all__ = ["OpenSearchSearch", "fetch_bodies", "read_retrievers", "retriever_bodies"]

_ORDER: list[Json] = [{"_score": "desc"}, {"fact_id": "asc"}]


def retriever_bodies(
    text: str | None, vector: FloatVector | None, n: int, filters: list[Json]
) -> list[Json]:
    """The ``_msearch`` bodies of BM25 (when ``text`` has a word) and k-NN (when
    ``vector`` is given): ids only, ``n`` each, in the scope of ``filters``.

    >>> [list(b["query"]) for b in retriever_bodies("vim", np.ones(2, np.float32), 5, [])]
    [['bool'], ['knn']]
    """
    bodies: list[Json] = []
    if text is not None:
        match = {"match": {SEARCH_TEXT_FIELD: {"query": text}}}
        bodies.append(
            {
                "size": n,
                "_source": False,
                "track_total_hits": False,
                "query": {"bool": {"must": [match], "filter": filters}},
                "sort": _ORDER,
            }
        )
    if vector is not None:
        bodies.append(
            {
                "size": n,
                "_source": False,
                "track_total_hits": False,
                "query": knn_query(vector, n, filters, RETRIEVAL_VECTOR_FIELD),
                "sort": _ORDER,
            }
        )
    return bodies


def read_retrievers(
    responses: Sequence[Json], *, lexical: bool, dense: bool
) -> tuple[list[str], dict[str, float], dict[str, float]]:
    """The BM25 ids, best first; the k-NN ids with their cosine, best first; and the
    seconds the server took for each response (``lexical``, ``dense``)."""
    it = iter(responses)
    ids: list[str] = []
    sims: dict[str, float] = {}
    took: dict[str, float] = {}
    if lexical:
        r = next(it)
        ids = [h["_id"] for h in r["hits"]["hits"]]
        took["lexical"] = float(r.get("took", 0)) / 1000
    if dense:
        r = next(it)
        # Lucene's cosinesimil score is (1 + cos) / 2
        sims = {h["_id"]: 2.0 * h["_score"] - 1.0 for h in r["hits"]["hits"]}
        took["dense"] = float(r.get("took", 0)) / 1000
    return ids, sims, took


def fetch_bodies(
    ids: Sequence[str], scored: Container[str], filters: list[Json], *, vectors: bool
) -> list[Json]:
    """The bodies fetching the fused ``ids`` in the scope of ``filters``: one with every
    document whole when ``vectors``; otherwise the ``scored`` ids (k-NN gave their
    cosine) without the vectors and the others whole, each body only if it has ids.

    >>> [(b["query"]["bool"]["filter"][0]["ids"]["values"], "_source" in b)
    ...  for b in fetch_bodies(["a", "b", "c"], {"a", "c"}, [], vectors=False)]
    [(['a', 'c'], True), (['b'], False)]
    >>> len(fetch_bodies(["a", "b"], {"a"}, [], vectors=True))
    1
    """
    groups: list[tuple[list[str], bool]]
    if vectors:
        groups = [(list(ids), True)]
    else:
        groups = [
            ([i for i in ids if i in scored], False),
            ([i for i in ids if i not in scored], True),
        ]
    bodies: list[Json] = []
    for group, whole in groups:
        if not group:
            continue
        body: Json = {
            "size": len(group),
            "query": {"bool": {"filter": [{"ids": {"values": group}}, *filters]}},
        }
        if not whole:
            body["_source"] = {"excludes": list(VECTOR_FIELDS)}
        bodies.append(body)
    return bodies


class OpenSearchSearch:
    """:meth:`search` of the OpenSearch store (a mixin; the store provides the rest)."""

    def _vector(self, vector: npt.ArrayLike) -> FloatVector:  # provided by the store
        raise NotImplementedError

    def _search(self, body: Json, what: str) -> Json:
        raise NotImplementedError

    def _msearch(self, bodies: Sequence[Json], what: str) -> list[Json]:
        raise NotImplementedError

    def _fact(self, hit: Json) -> StoredFact:
        raise NotImplementedError

    def search(self, query: SearchQuery, vector: np.ndarray) -> list[SearchHit]:
        """BM25 and k-NN in one ``_msearch``, each filtered in the query, fused with RRF (k=60).

        Default: active facts only. With ``query.as_of``: facts whose valid
        time contains that instant, active or superseded (never pending).
        Without ``query.vectors``, the hits k-NN scored carry no vectors.
        """
        q = self._vector(vector)
        filters = scope_filters(query)
        if filters is None:
            return []
        text = match_text(query.text)
        dense = bool(np.any(q))
        bodies = retriever_bodies(
            text, q if dense else None, min(query.candidates, MAX_WINDOW), filters
        )
        if not bodies:
            return []
        with phase("retrieve"):
            responses = self._msearch(bodies, "search")
        lexical, sims, took = read_retrievers(responses, lexical=text is not None, dense=dense)
        for name, seconds in took.items():
            server_time(name, seconds)
        with phase("fusion"):
            fused = rrf_fuse([lexical, list(sims)], k=RRF_K)[: query.k]
        if not fused:
            return []
        with phase("fetch"):
            ids = [fid for fid, _, _ in fused]
            fetch = fetch_bodies(ids, sims, filters, vectors=query.vectors)
            if len(fetch) == 1:
                found = [self._search(fetch[0], "search")]
            else:
                found = self._msearch(fetch, "search")
            facts = {h["_id"]: self._fact(h) for r in found for h in r["hits"]["hits"]}
            return fused_hits(fused, facts, sims)
