"""The contract of :class:`memgate.core.stores.UsageStore`: batched usage counts, deleting one
fact of one owner, and the dense cosine on search hits. Mixed into each store's test class
(with :class:`tests.contracts.retrieval.RetrievalStoreContract`, whose helpers it uses)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np

from memgate.core.stores import FactUsage, UsageStore
from tests.contracts.retrieval import RetrievalStoreContract

T1 = datetime(2024, 6, 1, tzinfo=UTC)


def usage(fact_id: str, n: int, at: datetime, tenant: str = "acme", user: str = "u1") -> FactUsage:
    return FactUsage(
        tenant_id=tenant, user_id=user, fact_id=fact_id, served_count=n, last_served=at
    )


class UsageStoreContract(RetrievalStoreContract):
    def test_satisfies_the_usage_protocol(self, store: UsageStore) -> None:
        assert isinstance(store, UsageStore)

    def test_batches_add_up_and_keep_the_latest_time(self, store: UsageStore) -> None:
        a, b = self.make_fact("vim"), self.make_fact("helm", predicate="deploy_tool")
        self.put(store, a, b)  # type: ignore[arg-type]
        assert store.usage("acme", "u1", [a.fact_id]) == {}
        store.record_usage([usage(a.fact_id, 2, T1), usage(b.fact_id, 1, T1)])
        store.record_usage([usage(a.fact_id, 3, T1 - timedelta(days=1))])
        got = store.usage("acme", "u1", [a.fact_id, b.fact_id])
        assert (got[a.fact_id].served_count, got[a.fact_id].last_served) == (5, T1)
        assert got[b.fact_id].served_count == 1
        assert store.usage("globex", "u1", [a.fact_id]) == {}  # scoped by owner

    def test_usage_survives_a_rewrite_and_goes_with_forget(self, store: UsageStore) -> None:
        a = self.make_fact("vim")
        self.put(store, a)  # type: ignore[arg-type]
        store.record_usage([usage(a.fact_id, 1, T1)])
        self.put(store, a.model_copy(update={"occurrences": 2}))  # type: ignore[arg-type]
        assert store.usage("acme", "u1", [a.fact_id])[a.fact_id].served_count == 1
        store.forget("acme", "u1")  # type: ignore[attr-defined]
        self.refresh(store)  # type: ignore[arg-type]
        assert store.usage("acme", "u1", [a.fact_id]) == {}

    def test_delete_fact_is_scoped_to_its_owner(self, store: UsageStore) -> None:
        a = self.make_fact("vim")
        other = self.make_fact("vim", tenant_id="globex")
        self.put(store, a, other)  # type: ignore[arg-type]
        store.record_usage([usage(a.fact_id, 1, T1)])
        assert store.delete_fact("globex", "u1", a.fact_id) is None
        assert store.delete_fact("acme", "u2", a.fact_id) is None
        deleted = store.delete_fact("acme", "u1", a.fact_id)
        assert deleted is not None and deleted.fact_id == a.fact_id
        self.refresh(store)  # type: ignore[arg-type]
        assert store.get("acme", "u1", a.fact_id) is None  # type: ignore[attr-defined]
        assert store.usage("acme", "u1", [a.fact_id]) == {}
        assert store.get("globex", "u1", other.fact_id) is not None  # type: ignore[attr-defined]
        assert self.search(store, "editor vim") == []  # type: ignore[arg-type]

    def test_search_hits_carry_the_dense_cosine(self, store: UsageStore) -> None:
        a = self.make_fact("vim")
        self.put(store, a)  # type: ignore[arg-type]
        (hit,) = self.search(store, "user editor vim")  # type: ignore[arg-type]
        want = float(np.dot(self.vector("user editor vim"), np.asarray(a.embedding)))
        assert hit.vector_rank == 1
        assert hit.vector_score is not None and abs(hit.vector_score - want) < 1e-3
