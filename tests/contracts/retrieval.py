"""The contract every :class:`memgate.core.stores.RetrievalStore` must honour.

Subclass :class:`RetrievalStoreContract` in a test module (its name must start
with ``Test``) and supply a ``store`` fixture that yields an empty store of
dimension :attr:`RetrievalStoreContract.DIM` and closes it afterwards::

    class TestEmbeddedIndex(RetrievalStoreContract):
        @pytest.fixture
        def store(self, tmp_path):
            with EmbeddedIndex(tmp_path / "facts.db", dim=self.DIM) as s:
                yield s

A store that is only eventually consistent overrides :meth:`refresh`, which
the contract calls after every write and delete (writes also pass
``wait=True``). The store never embeds: facts carry embeddings made by
:func:`embed`, a tiny deterministic bag of hashed words where a few synonyms
share a concept, so that "semantic" neighbours exist without any lexical
overlap.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from memgate.core.events import FactStatus, FactType, StoredFact, normalise, stable_id
from memgate.core.stores import FactUsage, RetrievalStore, SearchHit, SearchQuery, UsageStore
from memgate.sinks.base import RRF_K

__all__ = ["DIM", "T0", "RetrievalStoreContract", "UsageStoreContract", "embed"]

DIM = 64
T0 = datetime(2024, 1, 1, tzinfo=UTC)
DAY = timedelta(days=1)

# Words that embed to the same concept: the vector side finds them, BM25 cannot.
_CONCEPTS = {
    "automobile": "car",
    "auto": "car",
    "vehicle": "car",
    "canoe": "kayak",
    "oar": "paddle",
    "physician": "doctor",
    "sofa": "couch",
}
_WORD_RE = re.compile(r"\w+")


def embed(text: str, dim: int = DIM) -> list[float]:
    """A unit vector of hashed (concept-mapped) lowercase words; float32-exact values."""
    vec = np.zeros(dim, dtype=np.float64)
    for word in _WORD_RE.findall(text.lower()):
        concept = _CONCEPTS.get(word, word)
        h = int.from_bytes(hashlib.blake2b(concept.encode(), digest_size=8).digest(), "little")
        vec[h % dim] += 1.0 if (h >> 63) & 1 == 0 else -1.0
    norm = float(np.linalg.norm(vec))
    if norm == 0.0:
        vec[0], norm = 1.0, 1.0
    values: list[float] = (vec / norm).astype(np.float32).astype(np.float64).tolist()
    return values


def _ids(hits: Sequence[SearchHit]) -> list[str]:
    return [h.fact.fact_id for h in hits]


class RetrievalStoreContract:
    """Behaviour shared by every retrieval store; subclasses supply ``store``."""

    DIM = DIM

    @pytest.fixture
    def store(self) -> Iterator[RetrievalStore]:
        raise NotImplementedError("subclasses provide a `store` fixture yielding an empty store")

    # -- hooks and helpers ------------------------------------------------------

    def refresh(self, store: RetrievalStore) -> None:
        """Make the latest writes and deletes visible; a no-op for consistent stores."""

    def embed(self, text: str) -> list[float]:
        return embed(text, self.DIM)

    def vector(self, text: str) -> np.ndarray:
        return np.asarray(self.embed(text), dtype=np.float32)

    def make_fact(
        self,
        value: str = "vim",
        *,
        subject: str = "user",
        predicate: str = "editor",
        tenant_id: str = "acme",
        user_id: str = "u1",
        type: FactType = FactType.PREFERENCE,
        status: FactStatus = FactStatus.ACTIVE,
        valid_from: datetime = T0,
        valid_to: datetime | None = None,
        recorded_at: datetime | None = None,
        superseded_at: datetime | None = None,
        superseded_by: str | None = None,
        supersedes: str | None = None,
        confidence: float = 0.9,
        text: str | None = None,
        fact_id: str | None = None,
        embedding: list[float] | None = None,
        context: str = "",
        search_embedding: list[float] | None = None,
    ) -> StoredFact:
        """A valid :class:`StoredFact`; text and embedding derive from subject, predicate, value."""
        key = f"{tenant_id}/{user_id}/{normalise(subject)}/{normalise(predicate)}"
        text = text if text is not None else f"{subject} {predicate.replace('_', ' ')} {value}"
        recorded = recorded_at if recorded_at is not None else valid_from
        return StoredFact(
            fact_id=fact_id or stable_id(tenant_id, user_id, key, value, status.value),
            tenant_id=tenant_id,
            user_id=user_id,
            key=key,
            type=type,
            subject=subject,
            predicate=predicate,
            value=value,
            text=text,
            status=status,
            confidence=confidence,
            valid_from=valid_from,
            valid_to=valid_to,
            recorded_at=recorded,
            superseded_at=superseded_at,
            superseded_by=superseded_by,
            supersedes=supersedes,
            session_ids=["s1"],
            first_seen=recorded,
            last_seen=recorded,
            source_turn_ids=["t1"],
            extractor="rules",
            extractor_version="1",
            policy_version="balanced-1",
            context=context,
            embedding=embedding if embedding is not None else self.embed(text),
            search_embedding=search_embedding,
        )

    def put(self, store: RetrievalStore, *facts: StoredFact) -> None:
        store.upsert(list(facts), wait=True)
        self.refresh(store)

    def query(self, text: str, **kw: object) -> SearchQuery:
        params: dict[str, object] = {"tenant_id": "acme", "user_id": "u1", "text": text}
        params.update(kw)
        return SearchQuery.model_validate(params)

    def search(
        self, store: RetrievalStore, text: str, vector_text: str | None = None, **kw: object
    ) -> list[SearchHit]:
        return store.search(self.query(text, **kw), self.vector(vector_text or text))

    def assert_same(self, got: StoredFact | None, want: StoredFact) -> None:
        assert got is not None
        vectors = {"embedding", "search_embedding"}
        assert got.model_dump(exclude=vectors) == want.model_dump(exclude=vectors)
        assert got.embedding is not None
        assert want.embedding is not None
        np.testing.assert_allclose(got.embedding, want.embedding, rtol=1e-6, atol=1e-7)
        if want.search_embedding is None:
            assert got.search_embedding is None
        else:
            assert got.search_embedding is not None
            np.testing.assert_allclose(
                got.search_embedding, want.search_embedding, rtol=1e-6, atol=1e-7
            )

    # -- writes and reads ----------------------------------------------------------

    def test_satisfies_the_protocol(self, store: RetrievalStore) -> None:
        assert isinstance(store, RetrievalStore)

    def test_empty_store(self, store: RetrievalStore) -> None:
        assert self.search(store, "editor") == []
        assert store.get("acme", "u1", "nope") is None
        assert store.by_key("acme", "u1", "acme/u1/user/editor") == []
        assert store.nearest("acme", "u1", self.vector("editor")) == []
        assert store.list_facts("acme", "u1", include_inactive=True) == []
        assert store.forget("acme", "u1") == 0
        stats = store.stats()
        assert all(stats.get(s.value, 0) == 0 for s in FactStatus)

    def test_upsert_then_get_roundtrips(self, store: RetrievalStore) -> None:
        fact = self.make_fact(
            valid_to=T0 + DAY, superseded_by="f2", supersedes="f0", confidence=0.55
        )
        self.put(store, fact)
        self.assert_same(store.get("acme", "u1", fact.fact_id), fact)
        assert store.get("acme", "u1", "unknown") is None
        assert store.get("acme", "u2", fact.fact_id) is None
        assert store.get("other", "u1", fact.fact_id) is None

    def test_upsert_empty_batch_is_a_no_op(self, store: RetrievalStore) -> None:
        store.upsert([], wait=True)
        assert store.list_facts("acme", "u1", include_inactive=True) == []

    def test_upsert_is_idempotent_and_a_rewrite_replaces(self, store: RetrievalStore) -> None:
        fact = self.make_fact("emacs")
        self.put(store, fact)
        self.put(store, fact)
        self.put(store, fact, fact)
        assert [f.fact_id for f in store.list_facts("acme", "u1")] == [fact.fact_id]
        assert store.stats()[FactStatus.ACTIVE.value] == 1

        rewritten = fact.model_copy(
            update={
                "value": "helix",
                "text": "user editor helix",
                "occurrences": 3,
                "embedding": self.embed("user editor helix"),
            }
        )
        self.put(store, rewritten)
        self.assert_same(store.get("acme", "u1", fact.fact_id), rewritten)
        assert store.stats()[FactStatus.ACTIVE.value] == 1
        # the old text is no longer indexed; the new one is
        assert all(h.bm25_rank is None for h in self.search(store, "emacs"))
        hits = self.search(store, "helix")
        assert _ids(hits) == [fact.fact_id]
        assert hits[0].bm25_rank == 1

    def test_by_key_returns_every_status_oldest_recorded_first(self, store: RetrievalStore) -> None:
        v1 = self.make_fact("emacs", status=FactStatus.SUPERSEDED, valid_to=T0 + DAY)
        v2 = self.make_fact(
            "nano", status=FactStatus.SUPERSEDED, valid_from=T0 + DAY, valid_to=T0 + 2 * DAY
        )
        v3 = self.make_fact("vim", valid_from=T0 + 2 * DAY)
        pending = self.make_fact("helix", status=FactStatus.PENDING, valid_from=T0 + 3 * DAY)
        other_key = self.make_fact("python", predicate="language")
        other_user = self.make_fact("vim", user_id="u2")
        self.put(store, pending, v3, other_key, v1, other_user, v2)
        got = store.by_key("acme", "u1", v1.key)
        assert [f.value for f in got] == ["emacs", "nano", "vim", "helix"]
        assert store.by_key("acme", "u1", "acme/u1/no/such-key") == []

    def test_by_subject_is_scoped_by_owner_subject_and_status(self, store: RetrievalStore) -> None:
        mine = self.make_fact("vim")
        later = self.make_fact("berlin", predicate="lives_in", valid_from=T0 + DAY)
        closed = self.make_fact("emacs", status=FactStatus.SUPERSEDED, valid_to=T0 + DAY)
        dog = self.make_fact("rex", subject="user's dog", predicate="name_is")
        team = self.make_fact("jenkins", subject="team", predicate="deploys_with")
        # a subject that only starts like "user": not the user's, not the user's things
        usher = self.make_fact("x", subject="usera", predicate="likes")
        other_user = self.make_fact("vim", user_id="u2")
        other_tenant = self.make_fact("vim", tenant_id="globex")
        self.put(store, later, mine, closed, dog, team, usher, other_user, other_tenant)
        got = store.by_subject("acme", "u1", "User")
        assert [f.value for f in got] == ["vim", "berlin"]
        with_things = store.by_subject("acme", "u1", "user", qualified=True)
        assert {f.value for f in with_things} == {"vim", "berlin", "rex"}
        superseded = store.by_subject("acme", "u1", "user", statuses=(FactStatus.SUPERSEDED,))
        assert [f.value for f in superseded] == ["emacs"]
        assert [f.value for f in store.by_subject("acme", "u1", "team")] == ["jenkins"]
        assert [f.value for f in store.by_subject("acme", "u1", "user", limit=1)] == ["berlin"]
        assert store.by_subject("acme", "u1", "user", statuses=()) == []
        assert store.by_subject("acme", "u3", "user") == []

    def test_list_facts_active_unless_inactive_included(self, store: RetrievalStore) -> None:
        old = self.make_fact("emacs", status=FactStatus.SUPERSEDED, valid_to=T0 + DAY)
        new = self.make_fact("vim", valid_from=T0 + DAY)
        pending = self.make_fact("tabs", predicate="indent", status=FactStatus.PENDING)
        self.put(store, old, new, pending)
        assert [f.fact_id for f in store.list_facts("acme", "u1")] == [new.fact_id]
        every = store.list_facts("acme", "u1", include_inactive=True)
        assert {f.fact_id for f in every} == {old.fact_id, new.fact_id, pending.fact_id}

    # -- retrieval -------------------------------------------------------------------

    def test_bm25_finds_a_lexical_match(self, store: RetrievalStore) -> None:
        vim = self.make_fact("vim")
        python = self.make_fact("python", predicate="language")
        paris = self.make_fact("paris", predicate="city")
        self.put(store, vim, python, paris)
        # the vector points at paris; only BM25 can find the editor
        hits = self.search(store, "which editor?", vector_text="user city paris")
        by_id = {h.fact.fact_id: h for h in hits}
        assert by_id[vim.fact_id].bm25_rank == 1
        assert by_id[paris.fact_id].vector_rank == 1
        assert by_id[paris.fact_id].bm25_rank is None
        assert python.fact_id not in by_id or by_id[python.fact_id].bm25_rank is None

    def test_context_is_searched_and_kept(self, store: RetrievalStore) -> None:
        ctx = "I went to a support group yesterday. It met in the community library."
        group = self.make_fact(
            "went to a support group",
            predicate="event",
            type=FactType.EVENT,
            context=ctx,
            search_embedding=self.embed("user event went to a support group " + ctx),
        )
        vim = self.make_fact("vim")
        self.put(store, group, vim)
        # only the context holds "library"; the query vector points at the editor
        hits = self.search(store, "library", vector_text="user editor vim")
        by_id = {h.fact.fact_id: h for h in hits}
        assert by_id[group.fact_id].bm25_rank == 1
        assert by_id[vim.fact_id].bm25_rank is None
        self.assert_same(by_id[group.fact_id].fact, group)
        self.assert_same(store.get("acme", "u1", group.fact_id), group)

    def test_search_compares_the_retrieval_vector_nearest_the_statement(
        self, store: RetrievalStore
    ) -> None:
        # the statement is about an editor, its context about a canoe trip
        fact = self.make_fact(
            "vim", context="we took the canoe out", search_embedding=self.embed("canoe trip")
        )
        plain = self.make_fact("python", predicate="language")  # no context: its own vector
        self.put(store, fact, plain)
        hits = self.search(store, "zzz", vector_text="canoe trip")
        assert hits[0].fact.fact_id == fact.fact_id
        assert hits[0].vector_rank == 1
        hits = self.search(store, "zzz", vector_text="user language python")
        assert hits[0].fact.fact_id == plain.fact_id
        near = store.nearest("acme", "u1", self.vector("user editor vim"), k=1)
        assert near[0][0].fact_id == fact.fact_id
        assert near[0][1] == pytest.approx(1.0, abs=1e-5)
        near = store.nearest("acme", "u1", self.vector("canoe trip"), k=2)
        assert all(sim < 0.5 for _, sim in near)

    def test_vector_finds_a_semantic_neighbour(self, store: RetrievalStore) -> None:
        car = self.make_fact("car", predicate="drives")
        vim = self.make_fact("vim")
        self.put(store, car, vim)
        hits = self.search(store, "automobile")  # no word in common with the car fact
        assert hits[0].fact.fact_id == car.fact_id
        assert hits[0].vector_rank == 1
        assert hits[0].bm25_rank is None
        assert all(h.bm25_rank is None for h in hits)

    def test_rrf_ranks_a_fact_found_by_both_retrievers_first(self, store: RetrievalStore) -> None:
        both = self.make_fact("kayak paddle", predicate="owns", text="kayak paddle")
        lexical = self.make_fact(
            "kayak storage", predicate="rents", text="kayak storage garage rental fees monthly"
        )
        dense = self.make_fact("canoe oar", predicate="borrows", text="canoe oar")
        filler = [
            self.make_fact(f"thing {i}", predicate=f"p{i}", text=f"unrelated words number {i}")
            for i in range(4)
        ]
        self.put(store, lexical, dense, both, *filler)
        hits = self.search(store, "kayak paddle", candidates=2)
        by_id = {h.fact.fact_id: h for h in hits}
        assert hits[0].fact.fact_id == both.fact_id
        assert hits[0].bm25_rank is not None
        assert hits[0].vector_rank is not None
        assert by_id[lexical.fact_id].vector_rank is None
        assert by_id[lexical.fact_id].bm25_rank is not None
        assert by_id[dense.fact_id].bm25_rank is None
        assert by_id[dense.fact_id].vector_rank is not None
        assert set(by_id) == {both.fact_id, lexical.fact_id, dense.fact_id}
        for h in hits:
            ranks = [r for r in (h.bm25_rank, h.vector_rank) if r is not None]
            assert h.score == pytest.approx(sum(1.0 / (RRF_K + r) for r in ranks))
        assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)

    def test_k_bounds_the_hits(self, store: RetrievalStore) -> None:
        facts = [self.make_fact(f"value {i}", predicate=f"p{i}") for i in range(6)]
        self.put(store, *facts)
        hits = self.search(store, "user value", k=2)
        assert len(hits) == 2
        assert hits[0].score >= hits[1].score
        assert len(self.search(store, "user value", k=100)) == 6

    # -- scoping ---------------------------------------------------------------------

    def test_tenant_and_user_isolation(self, store: RetrievalStore) -> None:
        mine = self.make_fact("vim")
        text = "user editor vim vim editor vim"  # a better match, on purpose
        other_tenant = self.make_fact("vim", tenant_id="globex", text=text)
        other_user = self.make_fact("vim", user_id="u2", text=text)
        self.put(store, other_tenant, mine, other_user)

        hits = self.search(store, "editor vim", vector_text=text)
        assert _ids(hits) == [mine.fact_id]
        nearest = store.nearest("acme", "u1", self.vector(text), k=10)
        assert [f.fact_id for f, _ in nearest] == [mine.fact_id]
        assert [f.fact_id for f in store.by_key("acme", "u1", mine.key)] == [mine.fact_id]
        assert [f.fact_id for f in store.list_facts("acme", "u1", include_inactive=True)] == [
            mine.fact_id
        ]
        assert store.get("acme", "u1", other_tenant.fact_id) is None
        assert store.get("acme", "u1", other_user.fact_id) is None

        theirs = self.search(store, "editor vim", tenant_id="globex")
        assert _ids(theirs) == [other_tenant.fact_id]
        assert all(h.fact.tenant_id == "globex" for h in theirs)
        assert _ids(self.search(store, "editor vim", user_id="u2")) == [other_user.fact_id]
        assert self.search(store, "editor vim", tenant_id="initech") == []

    # -- status and time -----------------------------------------------------------

    def test_superseded_facts_are_excluded_by_default(self, store: RetrievalStore) -> None:
        old = self.make_fact(
            "emacs",
            status=FactStatus.SUPERSEDED,
            valid_to=T0 + DAY,
            superseded_at=T0 + DAY,
            superseded_by="new",
        )
        new = self.make_fact("vim", valid_from=T0 + DAY, recorded_at=T0 + DAY, supersedes="old")
        self.put(store, old, new)
        hits = self.search(store, "editor emacs")  # matches the old value better
        assert _ids(hits) == [new.fact_id]
        assert [f.fact_id for f, _ in store.nearest("acme", "u1", self.vector("editor emacs"))] == [
            new.fact_id
        ]

    def test_as_of_returns_the_past_value_not_the_current_one(self, store: RetrievalStore) -> None:
        t1 = T0 + 30 * DAY
        old = self.make_fact("emacs", status=FactStatus.SUPERSEDED, valid_to=t1, superseded_at=t1)
        new = self.make_fact("vim", valid_from=t1, recorded_at=t1)
        self.put(store, old, new)

        then = self.search(store, "which editor", as_of=T0 + 10 * DAY)
        assert _ids(then) == [old.fact_id]
        now = self.search(store, "which editor", as_of=t1 + DAY)
        assert _ids(now) == [new.fact_id]
        # valid_to is exclusive, valid_from inclusive
        assert _ids(self.search(store, "which editor", as_of=t1)) == [new.fact_id]
        assert _ids(self.search(store, "which editor", as_of=T0)) == [old.fact_id]
        assert self.search(store, "which editor", as_of=T0 - DAY) == []
        # without as_of: only the current value
        assert _ids(self.search(store, "which editor emacs")) == [new.fact_id]

    def test_pending_facts_are_never_served(self, store: RetrievalStore) -> None:
        pending = self.make_fact("helix", status=FactStatus.PENDING)
        active = self.make_fact("python", predicate="language")
        self.put(store, pending, active)
        assert pending.fact_id not in _ids(self.search(store, "editor helix"))
        assert pending.fact_id not in _ids(self.search(store, "editor helix", as_of=T0 + DAY))
        # ...but the dedupe stage sees them through nearest()
        near = store.nearest("acme", "u1", self.vector("user editor helix"))
        assert near[0][0].fact_id == pending.fact_id
        assert near[0][1] == pytest.approx(1.0, abs=1e-5)
        only_active = store.nearest(
            "acme", "u1", self.vector("user editor helix"), statuses=[FactStatus.ACTIVE]
        )
        assert [f.fact_id for f, _ in only_active] == [active.fact_id]

    def test_types_filter(self, store: RetrievalStore) -> None:
        pref = self.make_fact("vim")
        rule = self.make_fact(
            "always answer in french", predicate="instruction", type=FactType.INSTRUCTION
        )
        self.put(store, pref, rule)
        hits = self.search(store, "user editor vim", types=(FactType.INSTRUCTION,))
        assert _ids(hits) == [rule.fact_id]
        both = self.search(store, "user", types=(FactType.INSTRUCTION, FactType.PREFERENCE))
        assert set(_ids(both)) == {pref.fact_id, rule.fact_id}
        assert self.search(store, "user", types=(FactType.EVENT,)) == []

    # -- nearest ---------------------------------------------------------------------

    def test_nearest_is_best_first_and_filters_by_predicate(self, store: RetrievalStore) -> None:
        exact = self.make_fact("vim")
        close = self.make_fact("vim please", predicate="editor_choice")
        far = self.make_fact("paris", predicate="city")
        self.put(store, far, close, exact)
        got = store.nearest("acme", "u1", self.vector("user editor vim"), k=3)
        assert got[0][0].fact_id == exact.fact_id
        assert got[0][1] == pytest.approx(1.0, abs=1e-5)
        sims = [s for _, s in got]
        assert sims == sorted(sims, reverse=True)
        assert len(store.nearest("acme", "u1", self.vector("user editor vim"), k=1)) == 1
        by_predicate = store.nearest("acme", "u1", self.vector("user editor vim"), predicate="city")
        assert [f.fact_id for f, _ in by_predicate] == [far.fact_id]

    # -- deletion and accounting -------------------------------------------------

    def test_forget_removes_only_that_users_facts(self, store: RetrievalStore) -> None:
        mine = [
            self.make_fact("vim"),
            self.make_fact("emacs", status=FactStatus.SUPERSEDED, valid_to=T0 + DAY),
            self.make_fact("tabs", predicate="indent", status=FactStatus.PENDING),
        ]
        colleague = self.make_fact("vim", user_id="u2")
        other_tenant = self.make_fact("vim", tenant_id="globex")
        self.put(store, *mine, colleague, other_tenant)

        assert store.forget("acme", "u1") == 3
        self.refresh(store)
        assert store.list_facts("acme", "u1", include_inactive=True) == []
        assert self.search(store, "user editor vim") == []
        assert store.nearest("acme", "u1", self.vector("user editor vim")) == []
        assert all(store.get("acme", "u1", f.fact_id) is None for f in mine)
        assert _ids(self.search(store, "editor vim", user_id="u2")) == [colleague.fact_id]
        assert _ids(self.search(store, "editor vim", tenant_id="globex")) == [other_tenant.fact_id]
        assert store.forget("acme", "u1") == 0

    @pytest.mark.parametrize(
        "text",
        [
            '"',
            "*",
            "NEAR(",
            "-",
            ":",
            "OR",
            "AND",
            "NOT",
            "editor:vim",
            "vim*",
            '"vim',
            "(editor",
            "editor)",
            "^vim",
            "-vim",
            "NEAR(editor vim, 2)",
            "' OR 1=1 --",
            "{}[]\\",
            "text:vim OR tenant_id:globex",
            "\x00",
            "✓ 東京 😀",
        ],
    )
    def test_fts_syntax_in_the_query_text_is_harmless(
        self, store: RetrievalStore, text: str
    ) -> None:
        mine = self.make_fact("vim")
        theirs = self.make_fact("vim", tenant_id="globex")
        self.put(store, mine, theirs)
        hits = self.search(store, text, vector_text="user editor vim")
        assert _ids(hits) == [mine.fact_id]

    def test_stats_count_by_status(self, store: RetrievalStore) -> None:
        self.put(
            store,
            self.make_fact("vim"),
            self.make_fact("python", predicate="language"),
            self.make_fact("emacs", status=FactStatus.SUPERSEDED, valid_to=T0 + DAY),
            self.make_fact("tabs", predicate="indent", status=FactStatus.PENDING),
            self.make_fact("vim", tenant_id="globex"),
        )
        stats = store.stats()
        assert stats[FactStatus.ACTIVE.value] == 3
        assert stats[FactStatus.SUPERSEDED.value] == 1
        assert stats[FactStatus.PENDING.value] == 1


# -- UsageStore: batched usage counts, deleting one fact of one owner, the dense cosine --

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
