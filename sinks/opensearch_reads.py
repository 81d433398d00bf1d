"""The lookups of the OpenSearch store (``by_key``, ``by_subject``, ``nearest``): their
request bodies, and a resolution's planned reads in one ``_msearch``
(:class:`OpenSearchReads`, a mixin of :class:`memgate.sinks.opensearch.OpenSearchStore`).

A single lookup and the same lookup in a read-ahead send the same body (built here, for
both), so they answer alike. Every body's filters start with the owner's (tenant and
user) ``term`` filters (:mod:`memgate.sinks.opensearch_queries`).

A read-ahead (:meth:`OpenSearchReads.read_ahead`, :mod:`memgate.core.read_ahead`) sends
the first page of every planned lookup in one ``_msearch``; a scan whose first page is
full (it may have more) is left out of the answers, and its read then pages as usual.

>>> scan_body([{"term": {"key": "k"}}], vectors=False)["_source"]
{'excludes': ['embedding', 'search_embedding', 'embedding_f32', 'search_embedding_f32']}
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from memgate.core.events import FactStatus, StoredFact
from memgate.core.read_ahead import (
    Answer,
    ByKey,
    BySubject,
    Nearest,
    Prefetched,
    ReadPlan,
    ReadRequest,
)
from memgate.core.stores import FactView
from memgate.sinks.opensearch_mapping import MAX_WINDOW, PAGE_SIZE, VECTOR_FIELDS, FloatVector, Json
from memgate.sinks.opensearch_queries import knn_query, owner_filters, subject_filters

__all__ = ["OpenSearchReads", "key_filters", "nearest_body", "scan_body", "scores"]


def scan_body(filters: list[Json], *, vectors: bool = True, after: list[Any] | None = None) -> Json:
    """One page of the facts matching ``filters``, oldest recorded first (after the sort
    values ``after`` of the previous page's last hit); without their vectors unless
    ``vectors``."""
    body: Json = {
        "size": PAGE_SIZE,
        "track_total_hits": False,
        "query": {"bool": {"filter": filters}},
        "sort": [{"recorded_at": "asc"}, {"fact_id": "asc"}],
    }
    if not vectors:
        body["_source"] = {"excludes": list(VECTOR_FIELDS)}
    if after is not None:
        body["search_after"] = after
    return body


def key_filters(tenant_id: str, user_id: str, key: str) -> list[Json]:
    return [*owner_filters(tenant_id, user_id), {"term": {"key": key}}]


def nearest_body(
    tenant_id: str,
    user_id: str,
    q: FloatVector,
    k: int,
    wanted: list[str],
    predicate: str | None,
    exclude: Collection[str] = (),
) -> Json:
    """The k-NN lookup of the ``k`` nearest facts of that user with a status in ``wanted``
    (and ``predicate``, when given; none of the ids in ``exclude``), filtered while Lucene
    walks the graph."""
    k = min(k, MAX_WINDOW)
    filters = [*owner_filters(tenant_id, user_id), {"terms": {"status": wanted}}]
    if predicate is not None:
        filters.append({"term": {"predicate": predicate}})
    if exclude:
        filters.append({"bool": {"must_not": [{"ids": {"values": sorted(exclude)}}]}})
    return {
        "size": k,
        "query": knn_query(q, k, filters),
        "sort": [{"_score": "desc"}, {"fact_id": "asc"}],
    }


def scores(hits: Sequence[Json]) -> list[float]:
    """The cosine of each k-NN hit (Lucene's cosinesimil score is (1 + cos) / 2)."""
    return [max(-1.0, min(1.0, 2.0 * h["_score"] - 1.0)) for h in hits]


def _ordered(facts: list[StoredFact]) -> list[StoredFact]:
    return sorted(facts, key=lambda f: (f.recorded_at, f.fact_id))


class OpenSearchReads:
    """:meth:`read_ahead` of the OpenSearch store (a mixin; the store provides the rest)."""

    def _vector(self, vector: npt.ArrayLike) -> FloatVector:  # provided by the store
        raise NotImplementedError

    def _msearch(self, bodies: Sequence[Json], what: str) -> list[Json]:
        raise NotImplementedError

    def _fact(self, hit: Json) -> StoredFact:
        raise NotImplementedError

    def _search(self, body: Json, what: str) -> Json:
        raise NotImplementedError

    def nearest_excluding(
        self,
        tenant_id: str,
        user_id: str,
        vector: np.ndarray,
        *,
        k: int,
        statuses: Sequence[FactStatus] = (FactStatus.ACTIVE, FactStatus.PENDING),
        predicate: str | None = None,
        exclude: frozenset[str] = frozenset(),
    ) -> list[tuple[StoredFact, float]]:
        """``nearest`` of every fact but the ids in ``exclude`` (left out in the query:
        ``k`` hits come back, not ``k`` more per id left out;
        :func:`memgate.core.read_ahead.nearest_excluding`)."""
        q = self._vector(vector)
        wanted = sorted({FactStatus(s).value for s in statuses})
        if not wanted or k <= 0 or not np.any(q):
            return []
        body = nearest_body(tenant_id, user_id, q, k, wanted, predicate, exclude)
        hits = self._search(body, "nearest")["hits"]["hits"]
        return list(zip([self._fact(h) for h in hits], scores(hits), strict=True))

    def read_ahead(self, plan: ReadPlan) -> FactView:
        """A view for one resolution: the plan's lookups answered by one ``_msearch``
        now, every other read (and a scan longer than a page) by this store."""
        store: FactView = self  # type: ignore[assignment]
        answers: dict[ReadRequest, Answer] = {}
        sent: list[tuple[ReadRequest, Json]] = []
        for r in plan.reads:
            asked, body = self._plan_body(r)
            if body is not None:
                sent.append((r, body))
            elif asked:
                answers[r] = ()  # nothing can match: answered without asking
        responses = self._msearch([b for _, b in sent], "read_ahead") if sent else []
        for (r, _), resp in zip(sent, responses, strict=True):
            got = self._answer(r, resp["hits"]["hits"])
            if got is not None:
                answers[r] = got
        return Prefetched(store, answers)

    def _plan_body(self, r: ReadRequest) -> tuple[bool, Json | None]:
        """Whether a planned lookup is answered ahead, and its body (None: its answer is
        empty without asking). A vector the store refuses is left to the single read,
        which raises as it always did."""
        if isinstance(r, ByKey):
            return True, scan_body(key_filters(r.tenant_id, r.user_id, r.key))
        if isinstance(r, BySubject):
            wanted = sorted({FactStatus(s).value for s in r.statuses})
            if not wanted or r.limit <= 0:
                return True, None
            filters = subject_filters(
                r.tenant_id, r.user_id, r.subject, wanted, qualified=r.qualified
            )
            return True, scan_body(filters, vectors=r.vectors)
        try:
            q = self._vector(r.vector)
        except ValueError:
            return False, None
        wanted = sorted({FactStatus(s).value for s in r.statuses})
        if not wanted or r.k <= 0 or not np.any(q):
            return True, None
        return True, nearest_body(r.tenant_id, r.user_id, q, r.k, wanted, r.predicate, r.exclude)

    def _answer(self, r: ReadRequest, hits: list[Json]) -> Answer | None:
        if isinstance(r, Nearest):
            return tuple(zip([self._fact(h) for h in hits], scores(hits), strict=True))
        if len(hits) >= PAGE_SIZE:
            return None  # there may be another page: the single read pages
        facts = _ordered([self._fact(h) for h in hits])
        if isinstance(r, BySubject):
            facts = facts[-r.limit :]
        return tuple(facts)
