"""Hostile tenants at the store: no read, write or delete ever crosses an owner.

Subclass :class:`IsolationContract` with a ``store`` fixture yielding an empty
:class:`~memgate.core.stores.RetrievalStore` that is also a
:class:`~memgate.core.stores.UsageStore` (dimension :data:`DIM`), and override
:meth:`IsolationContract.refresh` for an eventually consistent store. The
embedded index runs it in the unit tier, OpenSearch in the integration tier.

The owners are drawn from :data:`OWNERS`: ids that differ only in case, that
are a prefix of another (``acme`` and ``acme1``, ``u1`` and ``u10``), that
carry the separators ids admit (``acme.``, ``acme:u1``, ``u1@acme``), a user
id equal to a tenant id, and the same user id under several tenants. For
random populations of facts (same values, same text, even the same subject
for every owner, so that every owner's fact is the best match of every
query) each read names one owner and must return that owner's facts only;
a delete or forget of one owner leaves every other owner's facts as they were.
Ids the rule refuses (a ``/``, a control character, a look-alike letter) can
build neither a fact nor a query (:func:`check_refused_ids`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from memgate.core.events import FactStatus, StoredFact
from memgate.core.stores import FactUsage, RetrievalStore, SearchQuery, UsageStore

from .retrieval import DIM, T0, RetrievalStoreContract

__all__ = ["DIM", "OWNERS", "REFUSED_IDS", "IsolationContract", "check_refused_ids"]

TENANTS = ("acme", "Acme", "ACME", "acme1", "acme.", "acme:u1", "u1")
USERS = ("u1", "U1", "u10", "u1.", "u1@acme", "acme", "alice")
#: Every (tenant, user) pair a population may use: the same user under every tenant.
OWNERS = tuple((t, u) for t in TENANTS for u in USERS)

#: Ids the id rule refuses, with what they imitate: a key separator, a prefix
#: trick, control characters, look-alikes from other scripts, full-width letters.
REFUSED_IDS = (
    "acme/u1",
    "acme/",
    "../acme",
    "acme\x00",
    "acme\n",
    "acme\x1b[31m",
    "acme\u202e",
    "\u0430cme",  # Cyrillic a
    "\uff41cme",  # full-width a
    "acme\u200b",  # zero-width space
    "ac me",
    "",
    "a" * 201,
    ".acme",
)

VALUES = ("vim", "emacs", "neovim", "helix")
SUBJECTS = ("user", "acme", "u1", "acme u1")
helper = RetrievalStoreContract()

population = st.lists(
    st.tuples(st.sampled_from(OWNERS), st.sampled_from(SUBJECTS), st.sampled_from(VALUES)),
    min_size=2,
    max_size=10,
    unique=True,
)


def _facts(drawn: Sequence[tuple[tuple[str, str], str, str]]) -> list[StoredFact]:
    # one statement text for all: every owner's fact is as good a match as any other's
    return [
        helper.make_fact(value, subject=subject, tenant_id=t, user_id=u, text=f"editor {value}")
        for (t, u), subject, value in drawn
    ]


def _owned(facts: Sequence[StoredFact], owner: tuple[str, str]) -> set[str]:
    return {f.fact_id for f in facts if (f.tenant_id, f.user_id) == owner}


def check_refused_ids() -> None:
    """No fact and no query can be built for an id the rule refuses."""
    for bad in REFUSED_IDS:
        for field in ("tenant_id", "user_id"):
            with pytest.raises(ValidationError):
                helper.make_fact("vim", **{field: bad})  # type: ignore[arg-type]
            with pytest.raises(ValidationError):
                helper.query("editor", **{field: bad})


class IsolationContract:
    """Reads, deletes and erasure scoped to one owner, for any population of owners."""

    DIM = DIM

    @pytest.fixture
    def store(self) -> Iterator[RetrievalStore]:
        raise NotImplementedError("subclasses provide a `store` fixture yielding an empty store")

    def refresh(self, store: RetrievalStore) -> None:
        """Make the latest writes and deletes visible; a no-op for consistent stores."""

    def _put(self, store: RetrievalStore, facts: list[StoredFact]) -> None:
        store.upsert(facts, wait=True)
        self.refresh(store)

    def _clear(self, store: RetrievalStore, facts: Sequence[StoredFact]) -> None:
        for owner in {(f.tenant_id, f.user_id) for f in facts}:
            store.forget(*owner)
        self.refresh(store)

    def _reads_see_only(
        self, store: RetrievalStore, facts: Sequence[StoredFact], owner: tuple[str, str]
    ) -> None:
        t, u = owner
        mine = _owned(facts, owner)
        vec = np.asarray(helper.embed("editor vim"), dtype=np.float32)
        q = SearchQuery(tenant_id=t, user_id=u, text="editor vim emacs neovim helix", k=100)
        got = {h.fact.fact_id for h in store.search(q, vec)}
        assert got <= mine, f"search for {owner} served {got - mine}"
        listed = store.list_facts(t, u, include_inactive=True)
        assert {f.fact_id for f in listed} == mine
        assert all((f.tenant_id, f.user_id) == owner for f in listed)
        assert {f.fact_id for f, _ in store.nearest(t, u, vec, k=100)} == mine
        for f in facts:
            if f.fact_id not in mine:
                assert store.get(t, u, f.fact_id) is None, f"{owner} read {f.fact_id}"
                assert store.by_key(t, u, f.key) == []
        for subject in SUBJECTS:
            for qualified in (False, True):
                seen = store.by_subject(t, u, subject, qualified=qualified)
                assert {f.fact_id for f in seen} <= mine
        if isinstance(store, UsageStore):
            usage = store.usage(t, u, [f.fact_id for f in facts])
            assert set(usage) == mine
            assert all(x.served_count == 1 for x in usage.values()), usage

    @settings(
        max_examples=25,
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )
    @given(drawn=population, reader=st.sampled_from(OWNERS))
    def test_reads_never_cross_owners(
        self,
        store: RetrievalStore,
        drawn: list[tuple[tuple[str, str], str, str]],
        reader: tuple[str, str],
    ) -> None:
        facts = _facts(drawn)
        self._put(store, facts)
        try:
            if isinstance(store, UsageStore):
                # each fact served once to its owner; the reader claims every fact 100 times
                store.record_usage(
                    [FactUsage(tenant_id=f.tenant_id, user_id=f.user_id, fact_id=f.fact_id,
                               served_count=1, last_served=T0) for f in facts]
                    + [FactUsage(tenant_id=reader[0], user_id=reader[1], fact_id=f.fact_id,
                                 served_count=100, last_served=T0)
                       for f in facts if (f.tenant_id, f.user_id) != reader]
                )  # fmt: skip
                self.refresh(store)
            owners = {(f.tenant_id, f.user_id) for f in facts} | {reader}
            for owner in owners:
                self._reads_see_only(store, facts, owner)
        finally:
            self._clear(store, facts)

    @settings(
        max_examples=20,
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )
    @given(drawn=population, victim=st.integers(0, 9), hostile=st.sampled_from(OWNERS))
    def test_delete_and_forget_touch_only_their_owner(
        self,
        store: RetrievalStore,
        drawn: list[tuple[tuple[str, str], str, str]],
        victim: int,
        hostile: tuple[str, str],
    ) -> None:
        assert isinstance(store, UsageStore)
        facts = _facts(drawn)
        target = facts[victim % len(facts)]
        self._put(store, facts)
        try:
            before = {f.fact_id: f for f in facts}
            owner = (target.tenant_id, target.user_id)
            if hostile != owner:
                # another owner (even one whose id differs in case or by a suffix) can
                # neither delete the fact nor erase it with a forget of its own
                assert store.delete_fact(*hostile, target.fact_id) is None
                store.forget(*hostile)
                self.refresh(store)
                assert store.get(*owner, target.fact_id) is not None
                gone = _owned(facts, hostile)
            else:
                gone = set()
            deleted = store.delete_fact(*owner, target.fact_id)
            assert deleted is not None and deleted.fact_id == target.fact_id
            self.refresh(store)
            gone.add(target.fact_id)
            for fid, f in before.items():
                got = store.get(f.tenant_id, f.user_id, fid)
                assert (got is None) == (fid in gone), fid
            n = store.forget(*owner)
            self.refresh(store)
            assert n == len(_owned(facts, owner) - gone)
            for fid, f in before.items():
                still = store.get(f.tenant_id, f.user_id, fid) is not None
                assert still == (fid not in gone and (f.tenant_id, f.user_id) != owner), fid
        finally:
            self._clear(store, facts)

    def test_a_fact_id_of_another_owner_is_never_overwritten(self, store: RetrievalStore) -> None:
        mine = helper.make_fact("vim", tenant_id="acme", user_id="u1")
        self._put(store, [mine])
        for t, u in (("Acme", "u1"), ("acme", "U1"), ("acme1", "u1"), ("acme", "u10")):
            theirs = helper.make_fact(
                "emacs", tenant_id=t, user_id=u, fact_id=mine.fact_id, status=FactStatus.ACTIVE
            )
            with pytest.raises(Exception, match="another tenant or user"):
                store.upsert([theirs], wait=True)
            self.refresh(store)
            assert store.get(t, u, mine.fact_id) is None
        got = store.get("acme", "u1", mine.fact_id)
        assert got is not None and got.value == "vim"

    def test_ids_the_rule_refuses_build_no_fact_and_no_query(self) -> None:
        check_refused_ids()
