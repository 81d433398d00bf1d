"""A store with OpenSearch's near-real-time reads, made of the embedded index: a write is
durable when ``upsert`` returns, but searches (``by_key``, ``nearest``, ``by_subject``,
``list_facts``) see it only after :meth:`refresh` (or at once with ``wait=True``, as
``refresh=wait_for`` does); :class:`NearRealTimeReadAhead` also reads ahead, as
OpenSearch does."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from memgate.core.events import FactStatus, StoredFact
from memgate.core.read_ahead import Answer, ByKey, BySubject, Prefetched, ReadPlan, ReadRequest
from memgate.core.stores import SUBJECT_SCAN_LIMIT, FactView, SearchHit, SearchQuery
from memgate.sinks.embedded import EmbeddedIndex


class NearRealTimeIndex:
    """Writes are held (durably, in :attr:`unrefreshed`) until the next refresh."""

    def __init__(self, index: EmbeddedIndex) -> None:
        self.index = index
        self.unrefreshed: dict[str, StoredFact] = {}
        self.waits: list[bool] = []
        self.refreshes = 0

    def upsert(self, facts: Sequence[StoredFact], *, wait: bool = False) -> None:
        self.waits.append(wait)
        for f in facts:
            self.unrefreshed[f.fact_id] = f
        if wait:
            self.refresh()

    def refresh(self) -> None:
        self.refreshes += 1
        if self.unrefreshed:
            self.index.upsert(list(self.unrefreshed.values()))
            self.unrefreshed.clear()

    def by_key(self, tenant_id: str, user_id: str, key: str) -> list[StoredFact]:
        return self.index.by_key(tenant_id, user_id, key)

    def nearest(
        self,
        tenant_id: str,
        user_id: str,
        vector: np.ndarray,
        *,
        k: int = 5,
        statuses: Sequence[FactStatus] = (FactStatus.ACTIVE, FactStatus.PENDING),
        predicate: str | None = None,
    ) -> list[tuple[StoredFact, float]]:
        return self.index.nearest(
            tenant_id, user_id, vector, k=k, statuses=statuses, predicate=predicate
        )

    def by_subject(
        self,
        tenant_id: str,
        user_id: str,
        subject: str,
        *,
        statuses: Sequence[FactStatus] = (FactStatus.ACTIVE, FactStatus.PENDING),
        qualified: bool = False,
        limit: int = SUBJECT_SCAN_LIMIT,
        vectors: bool = True,
    ) -> list[StoredFact]:
        found = self.index.by_subject(
            tenant_id, user_id, subject, statuses=statuses, qualified=qualified, limit=limit
        )
        if vectors:
            return found
        # as OpenSearch answers: the text without the vectors
        return [f.model_copy(update={"embedding": None, "search_embedding": None}) for f in found]

    def get(self, tenant_id: str, user_id: str, fact_id: str) -> StoredFact | None:
        return self.index.get(tenant_id, user_id, fact_id)

    def search(self, query: SearchQuery, vector: np.ndarray) -> list[SearchHit]:
        return self.index.search(query, vector)

    def list_facts(
        self, tenant_id: str, user_id: str, *, include_inactive: bool = False
    ) -> list[StoredFact]:
        return self.index.list_facts(tenant_id, user_id, include_inactive=include_inactive)

    def forget(self, tenant_id: str, user_id: str) -> int:
        return self.index.forget(tenant_id, user_id)

    def stats(self) -> dict[str, int]:
        return self.index.stats()

    def close(self) -> None:
        self.index.close()


class CountingIndex(NearRealTimeIndex):
    """:class:`NearRealTimeIndex` counting its reads as a remote store's round trips."""

    def __init__(self, index: EmbeddedIndex) -> None:
        super().__init__(index)
        self.trips = 0

    def by_key(self, tenant_id: str, user_id: str, key: str) -> list[StoredFact]:
        self.trips += 1
        return super().by_key(tenant_id, user_id, key)

    def nearest(
        self,
        tenant_id: str,
        user_id: str,
        vector: np.ndarray,
        *,
        k: int = 5,
        statuses: Sequence[FactStatus] = (FactStatus.ACTIVE, FactStatus.PENDING),
        predicate: str | None = None,
    ) -> list[tuple[StoredFact, float]]:
        self.trips += 1
        return super().nearest(
            tenant_id, user_id, vector, k=k, statuses=statuses, predicate=predicate
        )

    def by_subject(
        self,
        tenant_id: str,
        user_id: str,
        subject: str,
        *,
        statuses: Sequence[FactStatus] = (FactStatus.ACTIVE, FactStatus.PENDING),
        qualified: bool = False,
        limit: int = SUBJECT_SCAN_LIMIT,
        vectors: bool = True,
    ) -> list[StoredFact]:
        self.trips += 1
        return super().by_subject(
            tenant_id, user_id, subject, statuses=statuses, qualified=qualified, limit=limit,
            vectors=vectors,
        )  # fmt: skip


class NearRealTimeReadAhead(CountingIndex):
    """:class:`CountingIndex` that reads ahead (:mod:`memgate.core.read_ahead`) in one round
    trip, whatever the plan's length (the planned reads answered by the single reads)."""

    def __init__(self, index: EmbeddedIndex) -> None:
        super().__init__(index)
        self.plans: list[ReadPlan] = []
        #: the facts the k-nearest reads of the read-aheads returned, in all
        self.nearest_hits = 0

    def read_ahead(self, plan: ReadPlan) -> FactView:
        self.trips += 1
        self.plans.append(plan)
        answers: dict[ReadRequest, Answer] = {}
        for r in plan.reads:
            if isinstance(r, ByKey):
                answers[r] = tuple(NearRealTimeIndex.by_key(self, r.tenant_id, r.user_id, r.key))
            elif isinstance(r, BySubject):
                answers[r] = tuple(NearRealTimeIndex.by_subject(
                    self, r.tenant_id, r.user_id, r.subject, statuses=r.statuses,
                    qualified=r.qualified, limit=r.limit, vectors=r.vectors,
                ))  # fmt: skip
            else:
                found = NearRealTimeIndex.nearest(
                    self, r.tenant_id, r.user_id, r.vector, k=r.k + len(r.exclude),
                    statuses=r.statuses, predicate=r.predicate,
                )  # fmt: skip
                answers[r] = tuple([(f, x) for f, x in found if f.fact_id not in r.exclude][: r.k])
                self.nearest_hits += len(answers[r])
        return Prefetched(self, answers)


class ExcludingReadAhead(NearRealTimeReadAhead):
    """:class:`NearRealTimeReadAhead` that leaves ids out of a k-nearest read in the query,
    as OpenSearch does (``nearest_excluding``): ``k`` hits come back."""

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
        self.trips += 1
        found = NearRealTimeIndex.nearest(
            self, tenant_id, user_id, vector, k=k + len(exclude), statuses=statuses,
            predicate=predicate,
        )  # fmt: skip
        out = [(f, x) for f, x in found if f.fact_id not in exclude][:k]
        self.nearest_hits += len(out)
        return out
