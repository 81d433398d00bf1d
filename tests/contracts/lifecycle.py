"""The memory-over-months contract: decay, consolidation, retention, erasure of one
fact and replay under a new policy, on any retrieval store that is also a
:class:`~memgate.core.stores.UsageStore`.

Subclass :class:`LifecycleContract` (it extends the usage and retrieval contracts:
same ``store`` fixture, same ``refresh`` hook). The unit tier runs it on the
embedded index (``tests/unit/sinks/test_embedded.py``), the integration tier on
OpenSearch (``tests/integration/test_opensearch_store_int.py``). The jobs are
run store-side only (:func:`memgate.lifecycle.consolidate_user` with no audit
store); the audit rows they write are tested in ``tests/unit/test_lifecycle.py``.
The replay reads its journal from an audit store in process (chDB, under the
test's ``tmp_path``) and writes its diff to the store under test.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from pathlib import Path

import numpy as np
import pytest

from memgate.backends import build_pipeline
from memgate.core.events import FactStatus, FactType, Role, StoredFact, TurnEvent
from memgate.core.settings import Settings
from memgate.core.stores import ErasableRetrieval, FactUsage, SearchQuery, UsageStore
from memgate.core.tenant_policy import DecayOverride, RetentionPolicy, TenantPolicy
from memgate.lifecycle import consolidate_user
from memgate.recall import DecayPolicy, Recall
from memgate.receipts import erase_user_facts
from memgate.replay import replay
from memgate.sinks.audit import ClickHouseAudit
from memgate.stages import consolidate
from memgate.stages.activity import Activity
from memgate.stages.consolidate import LIFECYCLE, LifecyclePlan
from memgate.streams.runner import InProcessRunner
from memgate.usage_buffer import UsageBuffer

from .retrieval import DIM, T0, UsageStoreContract, embed

DAY = timedelta(days=1)


class ContractEmbedder:
    """The contract's deterministic embedder (:func:`tests.contracts.retrieval.embed`)."""

    name = "contract"
    dim = DIM

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return np.asarray([embed(t, DIM) for t in texts], dtype=np.float32)


def settings(**kw: object) -> Settings:
    return Settings(data_dir=Path("/nonexistent/memgate-contract"), **kw)  # type: ignore[arg-type]


class LifecycleContract(UsageStoreContract):
    """The usage contract plus the lifecycle: one suite for every store."""

    # -- helpers -------------------------------------------------------------------------

    def recall(self, store: UsageStore, now: datetime, **kw: object) -> Recall:
        return Recall(store, ContractEmbedder(), clock=lambda: now, **kw)  # type: ignore[arg-type]

    def order(self, recall: Recall, text: str, now: datetime) -> list[str]:
        q = SearchQuery(tenant_id="acme", user_id="u1", text=text)
        return [r.hit.fact.predicate for r in recall.rank(q, now=now)]

    def run(self, store: UsageStore, now: datetime, **kw: object) -> LifecyclePlan:
        plan = consolidate_user(
            store, ContractEmbedder(), settings(**kw), "acme", "u1", now=now, audit=None
        )  # type: ignore[arg-type]
        self.refresh(store)  # type: ignore[arg-type]
        return plan

    def fact(self, value: str, *, turn: str, session: str = "s1", **kw: object) -> StoredFact:
        f = self.make_fact(value, **kw)  # type: ignore[arg-type]
        return f.model_copy(update={"source_turn_ids": [turn], "session_ids": [session]})

    def rotation_and_name(self, store: UsageStore) -> None:
        self.put(
            store,  # type: ignore[arg-type]
            self.make_fact(
                "alice rotation", predicate="on_call", text="user on call alice rotation"
            ),
            self.make_fact("alice", predicate="name_is", text="user name is alice"),
        )

    # -- decay ---------------------------------------------------------------------------

    def test_decay_orders_by_age_per_predicate(self, store: UsageStore) -> None:
        self.rotation_and_name(store)
        r = self.recall(store, T0)
        q = "on call alice rotation"
        assert self.order(r, q, T0) == ["on_call", "name_is"]
        # an on-call rotation ages in days (half-life 3), a name never: a month later
        # the name outranks the stale rotation
        assert self.order(r, q, T0 + 30 * DAY) == ["name_is", "on_call"]
        ranked = r.rank(SearchQuery(tenant_id="acme", user_id="u1", text=q), now=T0 + 30 * DAY)
        decay = {x.hit.fact.predicate: x.decay for x in ranked}
        assert decay == {"name_is": 1.0, "on_call": DecayPolicy.default().floor}

    def test_a_served_fact_regains_its_rank(self, store: UsageStore) -> None:
        self.rotation_and_name(store)
        later = T0 + 30 * DAY
        buffer = UsageBuffer(store)
        r = self.recall(store, later, usage=buffer)
        q = SearchQuery(tenant_id="acme", user_id="u1", text="on call alice rotation", k=1)
        # served at `later` (the top hit without decay: as_of ranks at T0), usage flushed
        served = r.serve(q.model_copy(update={"k": 10}), now=T0, min_relevance=-1)
        assert served.hits[0].hit.fact.predicate == "on_call"
        buffer.flush()
        self.refresh(store)  # type: ignore[arg-type]
        assert self.order(r, "on call alice rotation", later) == ["on_call", "name_is"]
        # and it ages again from when it was served
        assert self.order(r, "on call alice rotation", later + 30 * DAY) == ["name_is", "on_call"]

    def test_a_tenant_overrides_the_half_life(self, store: UsageStore) -> None:
        self.rotation_and_name(store)
        base = DecayPolicy.default()
        mine = base.overridden(DecayOverride(by_predicate={"on_call": None}))
        r = self.recall(store, T0, tenant_decay={"acme": mine})
        assert self.order(r, "on call alice rotation", T0 + 30 * DAY) == ["on_call", "name_is"]
        other = self.recall(store, T0, tenant_decay={"globex": mine})
        assert self.order(other, "on call alice rotation", T0 + 30 * DAY) == [
            "name_is",
            "on_call",
        ]

    # -- consolidation -------------------------------------------------------------------

    def test_near_duplicates_merge_once(self, store: UsageStore) -> None:
        a = self.fact("neovim", turn="t1", predicate="editor", text="user editor neovim")
        b = self.fact(
            "neovim", turn="t2", session="s2", predicate="text_editor", text="user editor neovim",
            valid_from=T0 + DAY,
        )  # fmt: skip
        self.put(store, a, b)  # type: ignore[arg-type]
        plan = self.run(store, T0 + 2 * DAY)
        assert plan.counts() == {"merge": 1}
        kept = store.get("acme", "u1", a.fact_id)  # type: ignore[attr-defined]
        gone = store.get("acme", "u1", b.fact_id)  # type: ignore[attr-defined]
        assert kept.status is FactStatus.ACTIVE and kept.occurrences == 2
        assert kept.source_turn_ids == ["t1", "t2"] and kept.session_ids == ["s1", "s2"]
        assert gone.status is FactStatus.SUPERSEDED and gone.superseded_by == a.fact_id
        assert [h.fact.fact_id for h in self.search(store, "editor neovim")] == [a.fact_id]
        assert self.run(store, T0 + 3 * DAY).empty  # idempotent

    def test_pending_facts_settle_once_evidence_arrived(self, store: UsageStore) -> None:
        text = "user prefers dark mode"
        p1 = self.fact("dark", turn="t1", predicate="theme", text=text, status=FactStatus.PENDING)
        p2 = self.fact(
            "dark", turn="t2", session="s2", predicate="ui_theme", text=text,
            status=FactStatus.PENDING, valid_from=T0 + DAY,
        )  # fmt: skip
        lone = self.fact(
            "tabs", turn="t3", predicate="indent", text="user indents with tabs",
            status=FactStatus.PENDING,
        )  # fmt: skip
        self.put(store, p1, p2, lone)  # type: ignore[arg-type]
        assert self.search(store, "dark mode") == []  # pending: never served
        plan = self.run(store, T0 + 2 * DAY)
        assert plan.counts() == {"settle": 1}
        settled = store.get("acme", "u1", p1.fact_id)  # type: ignore[attr-defined]
        assert settled.status is FactStatus.ACTIVE and settled.source_turn_ids == ["t1", "t2"]
        assert store.get("acme", "u1", p2.fact_id).superseded_by == p1.fact_id  # type: ignore[attr-defined]
        assert store.get("acme", "u1", lone.fact_id).status is FactStatus.PENDING  # type: ignore[attr-defined]
        assert [h.fact.fact_id for h in self.search(store, "dark mode")] == [p1.fact_id]
        assert self.run(store, T0 + 3 * DAY).empty

    def test_episodes_fold_into_one_semantic_fact(self, store: UsageStore) -> None:
        episodes = [
            self.fact(
                f"went hiking in the alps {i}", turn=f"t{i}", session=f"s{i}", type=FactType.EVENT,
                predicate="event", text=f"user went hiking in the alps {i}",
                valid_from=T0 + i * DAY,
            )
            for i in range(3)
        ]  # fmt: skip
        self.put(store, *episodes)  # type: ignore[arg-type]
        plan = self.run(store, T0 + 5 * DAY)
        assert plan.counts() == {"fold": 3}
        # every change has its history row (the audit store's), under the lifecycle version
        assert sorted(h.action for h in plan.history) == ["fold"] + ["superseded"] * 3
        assert {d.policy_version for d in plan.decisions} == {"lifecycle-1+balanced-1"}
        (semantic,) = [f for f in plan.writes if f.extractor == LIFECYCLE]
        got = store.get("acme", "u1", semantic.fact_id)  # type: ignore[attr-defined]
        assert got.type is FactType.FACT and got.status is FactStatus.ACTIVE
        assert got.source_turn_ids == ["t0", "t1", "t2"] and got.occurrences == 3
        for e in episodes:
            old = store.get("acme", "u1", e.fact_id)  # type: ignore[attr-defined]
            assert old.status is FactStatus.SUPERSEDED and old.superseded_by == got.fact_id
        assert self.run(store, T0 + 6 * DAY).empty
        # a later alike episode folds into the same semantic fact
        late = self.fact(
            "went hiking in the alps 9", turn="t9", session="s9", type=FactType.EVENT,
            predicate="event", text="user went hiking in the alps 9", valid_from=T0 + 9 * DAY,
        )  # fmt: skip
        self.put(store, late)  # type: ignore[arg-type]
        assert self.run(store, T0 + 10 * DAY).counts() == {"fold": 1}
        got = store.get("acme", "u1", semantic.fact_id)  # type: ignore[attr-defined]
        assert got.source_turn_ids == ["t0", "t1", "t2", "t9"]

    def test_only_episodes_of_one_activity_fold(self, store: UsageStore) -> None:
        # squash and cards with Ana share five words of six: alike to the contract's
        # embedder (cosine 0.83), as "played tennis" and "played chess" are to MiniLM; the
        # activity (stages/activity.py: play + squash, play + cards) keeps them apart
        said = [
            ("t0", "played squash with ana on saturday"),
            ("t1", "played cards with ana on saturday"),
            ("t2", "played squash with ana on sunday"),
            ("t3", "played cards with ana on sunday"),
            ("t4", "played squash with ana on a saturday"),
        ]
        episodes = [
            self.fact(
                v, turn=t, session=f"s{i}", type=FactType.EVENT, predicate="event",
                text=f"user event {v}", valid_from=T0 + i * DAY,
            )
            for i, (t, v) in enumerate(said)
        ]  # fmt: skip
        self.put(store, *episodes)  # type: ignore[arg-type]
        plan = self.run(store, T0 + 6 * DAY)
        assert plan.counts() == {"fold": 3}
        (squash,) = [f for f in plan.writes if f.extractor == LIFECYCLE]
        got = store.get("acme", "u1", squash.fact_id)  # type: ignore[attr-defined]
        assert got.predicate == "habit" and got.source_turn_ids == ["t0", "t2", "t4"]
        for e in episodes:
            now = store.get("acme", "u1", e.fact_id)  # type: ignore[attr-defined]
            folded = "squash" in e.value
            assert now.status is (FactStatus.SUPERSEDED if folded else FactStatus.ACTIVE)
        assert self.run(store, T0 + 7 * DAY).empty  # idempotent
        # a third game of cards: a habit of its own, never folded into the squash habit
        late = self.fact(
            "played cards with ana on monday", turn="t9", session="s9", type=FactType.EVENT,
            predicate="event", text="user event played cards with ana on monday",
            valid_from=T0 + 9 * DAY,
        )  # fmt: skip
        self.put(store, late)  # type: ignore[arg-type]
        plan = self.run(store, T0 + 10 * DAY)
        assert plan.counts() == {"fold": 3}
        (cards,) = [f for f in plan.writes if f.extractor == LIFECYCLE]
        assert cards.fact_id != squash.fact_id
        assert cards.source_turn_ids == ["t1", "t3", "t9"]
        got = store.get("acme", "u1", squash.fact_id)  # type: ignore[attr-defined]
        assert got.source_turn_ids == ["t0", "t2", "t4"]
        assert self.run(store, T0 + 11 * DAY).empty

    def test_one_activity_in_other_words_folds_and_an_unknown_one_does_not(
        self, store: UsageStore
    ) -> None:
        # the activity decides; the cosine bar (0.5, memgate/data/lifecycle.json) only keeps
        # apart episodes of one activity said in unlike terms: "bouldered" and "climbed"
        # are 0.62 alike to "went bouldering ..." (below the former 0.72), "went bouldering
        # with my brother" 0.43; three passport renewals (0.80 to 0.95) say no activity the
        # word lists know, and an unknown activity folds with none
        said = [
            ("t0", "went bouldering at the quarry with sam on monday"),
            ("t1", "bouldered at the quarry on thursday"),
            ("t2", "went bouldering with my brother"),
            ("t3", "climbed at the quarry on friday"),
            ("p0", "renewed my passport at the town hall"),
            ("p1", "renewed my passport at the town hall again"),
            ("p2", "renewed my passport at the town hall on monday"),
        ]
        episodes = [
            self.fact(
                v, turn=t, session=f"s{i}", type=FactType.EVENT, predicate="event",
                text=f"user event {v}", valid_from=T0 + i * DAY,
            )
            for i, (t, v) in enumerate(said)
        ]  # fmt: skip
        self.put(store, *episodes)  # type: ignore[arg-type]
        plan = self.run(store, T0 + 8 * DAY)
        assert plan.counts() == {"fold": 3}
        (habit,) = [f for f in plan.writes if f.extractor == LIFECYCLE]
        assert habit.source_turn_ids == ["t0", "t1", "t3"]
        left = store.list_facts("acme", "u1")  # type: ignore[attr-defined]
        assert sorted(f.source_turn_ids[0] for f in left if f.type is FactType.EVENT) == [
            "p0", "p1", "p2", "t2",
        ]  # fmt: skip
        assert self.run(store, T0 + 9 * DAY).empty  # idempotent

    def test_a_fold_of_a_former_rule_is_read_again(
        self, store: UsageStore, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        # a former rule folded by cosine alone (simulated: every episode read as one
        # activity): squash and cards with Ana in one habit. The current rule takes the
        # cards back out as episodes (unfold), the habit keeps the three squash games and
        # their provenance only, and a second run changes nothing
        said = [
            ("t0", "played squash with ana on saturday"),
            ("t1", "played cards with ana on saturday"),
            ("t2", "played squash with ana on sunday"),
            ("t3", "played cards with ana on sunday"),
            ("t4", "played squash with ana on a saturday"),
        ]
        episodes = [
            self.fact(
                v, turn=t, session=f"s{i}", type=FactType.EVENT, predicate="event",
                text=f"user event {v}", valid_from=T0 + i * DAY,
            )
            for i, (t, v) in enumerate(said)
        ]  # fmt: skip
        self.put(store, *episodes)  # type: ignore[arg-type]
        with monkeypatch.context() as m:
            m.setattr(consolidate, "read_activity", lambda _text: Activity("play", ""))
            assert self.run(store, T0 + 6 * DAY).counts() == {"fold": 5}
        plan = self.run(store, T0 + 7 * DAY)
        assert plan.counts() == {"unfold": 2}
        (habit,) = [f for f in plan.writes if f.extractor == LIFECYCLE]
        got = store.get("acme", "u1", habit.fact_id)  # type: ignore[attr-defined]
        assert got.status is FactStatus.ACTIVE and got.occurrences == 3
        assert got.source_turn_ids == ["t0", "t2", "t4"]
        for e in episodes:
            now = store.get("acme", "u1", e.fact_id)  # type: ignore[attr-defined]
            if "cards" in e.value:
                assert now.status is FactStatus.ACTIVE and now.superseded_by is None
            else:
                assert now.superseded_by == habit.fact_id
        assert self.run(store, T0 + 8 * DAY).empty  # idempotent

    # -- retention -----------------------------------------------------------------------

    def test_retention_folds_what_falls_out_into_a_digest(self, store: UsageStore) -> None:
        words = ["dentist", "concert", "marathon", "wedding", "interview"]
        episodes = [
            self.fact(
                w, turn=f"t{i}", session=f"s{i}", type=FactType.EVENT, predicate="event",
                text=f"user event {w}", valid_from=T0 + i * DAY,
            )
            for i, w in enumerate(words)
        ]  # fmt: skip
        old = self.fact(
            "graduation", turn="t-old", type=FactType.EVENT, predicate="event",
            text="user event graduation", valid_from=T0 - 90 * DAY,
        )  # fmt: skip
        self.put(store, *episodes, old)  # type: ignore[arg-type]
        keep = RetentionPolicy(episodic_ttl_days=30, episodic_max=2)
        now = T0 + 5 * DAY
        plan = self.run(store, now, retention=keep)
        reasons = sorted(d.reason for d in plan.decisions)
        assert reasons == ["over_cap"] * 3 + ["ttl_expired"]
        left = store.list_facts("acme", "u1")  # type: ignore[attr-defined]
        events = sorted(f.value for f in left if f.type is FactType.EVENT)
        assert events == ["interview", "wedding"]  # the two most recent
        (digest,) = [f for f in left if f.predicate == "episode_digest"]
        assert sorted(digest.source_turn_ids) == ["t-old", "t0", "t1", "t2"]
        for w in ["graduation", "dentist", "concert", "marathon"]:
            assert w in digest.value
        assert digest.value.startswith("4 earlier episodes")
        for e in [old, *episodes[:3]]:
            assert store.get("acme", "u1", e.fact_id) is None  # type: ignore[attr-defined]
        assert self.run(store, now, retention=keep).empty  # idempotent
        # a month later (the injected clock) the rest expire into the same digest
        plan = self.run(store, now + 40 * DAY, retention=keep)
        assert plan.counts() == {"retire": 2}
        digest = store.get("acme", "u1", digest.fact_id)  # type: ignore[attr-defined]
        assert digest.value.startswith("6 earlier episodes") and len(digest.source_turn_ids) == 6

    def test_retention_counts_from_the_last_time_an_episode_was_served(
        self, store: UsageStore
    ) -> None:
        """A fact served recently is not evicted: the TTL and the most-recent-N cap count
        from the later of when it was written (last seen) and when it was last served."""
        episodes = [
            self.fact(
                w, turn=f"t{i}", session=f"s{i}", type=FactType.EVENT, predicate="event",
                text=f"user event {w}", valid_from=T0 + i * DAY,
            )
            for i, w in enumerate(["dentist", "concert", "marathon"])
        ]  # fmt: skip
        old = self.fact(
            "graduation", turn="t-old", type=FactType.EVENT, predicate="event",
            text="user event graduation", valid_from=T0 - 90 * DAY,
        )  # fmt: skip
        self.put(store, *episodes, old)  # type: ignore[arg-type]
        now = T0 + 5 * DAY
        # the old episode was served yesterday; "concert" was served before its last mention
        store.record_usage([
            FactUsage(tenant_id="acme", user_id="u1", fact_id=old.fact_id, served_count=2,
                      last_served=now - DAY),
            FactUsage(tenant_id="acme", user_id="u1", fact_id=episodes[1].fact_id,
                      served_count=1, last_served=T0 - 10 * DAY),
        ])  # fmt: skip
        self.refresh(store)  # type: ignore[arg-type]
        keep = RetentionPolicy(episodic_ttl_days=30, episodic_max=2)
        plan = self.run(store, now, retention=keep)
        retired = sorted((d.reason, "last_served" in d.details) for d in plan.decisions)
        # kept: graduation (served yesterday) and marathon (the latest written); without the
        # usage, graduation would have expired (90 days) and concert stayed within the cap
        assert retired == [("over_cap", False), ("over_cap", True)]
        left = sorted(f.value for f in store.list_facts("acme", "u1") if f.type is FactType.EVENT)
        assert left == ["graduation", "marathon"]
        assert self.run(store, now, retention=keep).empty  # idempotent
        # 31 days after it was last served, the old episode expires after all
        plan = self.run(store, now + 30 * DAY, retention=keep)
        assert ("ttl_expired", old.fact_id) in [(d.reason, d.fact_id) for d in plan.decisions]

    def test_retention_is_per_tenant(self, store: UsageStore) -> None:
        e = self.fact("dentist", turn="t1", type=FactType.EVENT, predicate="event")
        self.put(store, e)  # type: ignore[arg-type]
        strict = {"globex": TenantPolicy(retention=RetentionPolicy(episodic_ttl_days=1))}
        assert self.run(store, T0 + 10 * DAY, tenant_policies=strict).empty  # acme: no TTL
        mine = {"acme": TenantPolicy(retention=RetentionPolicy(episodic_ttl_days=1))}
        assert self.run(store, T0 + 10 * DAY, tenant_policies=mine).counts() == {"retire": 1}

    # -- erasure -------------------------------------------------------------------------

    def test_erasing_a_user_counts_what_went(self, store: UsageStore) -> None:
        a, b = self.make_fact("vim"), self.make_fact("helm", predicate="deploy_tool")
        other = self.make_fact("vim", user_id="u2")
        self.put(store, a, b, other)  # type: ignore[arg-type]
        counts = erase_user_facts(store, "acme", "u1")  # type: ignore[arg-type]
        self.refresh(store)  # type: ignore[arg-type]
        assert next(iter(counts.values())) == 2  # facts (embedded) or documents
        assert store.list_facts("acme", "u1", include_inactive=True) == []  # type: ignore[attr-defined]
        assert len(store.list_facts("acme", "u2")) == 1  # type: ignore[attr-defined]

    def test_erasing_one_fact_is_scoped_and_complete(self, store: UsageStore) -> None:
        a, b = self.make_fact("vim"), self.make_fact("helm", predicate="deploy_tool")
        self.put(store, a, b)  # type: ignore[arg-type]
        if not isinstance(store, ErasableRetrieval):  # OpenSearch: through delete_fact
            assert store.delete_fact("acme", "u1", a.fact_id) is not None
        else:
            assert store.erase_fact("acme", "u2", a.fact_id) is None
            done = store.erase_fact("acme", "u1", a.fact_id)
            assert done is not None and done[0].fact_id == a.fact_id
            assert done[1]["facts"] == 1 and done[1]["fts_rows"] == 1
        self.refresh(store)  # type: ignore[arg-type]
        hits = self.search(store, "editor vim")  # type: ignore[arg-type]
        assert a.fact_id not in [h.fact.fact_id for h in hits]
        assert [f.fact_id for f in store.list_facts("acme", "u1")] == [b.fact_id]  # type: ignore[attr-defined]

    # -- replay --------------------------------------------------------------------------

    def test_replay_reports_a_policy_change_then_applies_it(
        self, store: UsageStore, tmp_path: Path
    ) -> None:
        """The journal of turns stored under ``balanced``, replayed under ``conservative``
        (which holds a new instruction and a tool change for confirmation): the shadow run
        reports the diff and writes nothing, the apply closes the old facts with the old
        and the new versions recorded, and a second apply changes nothing."""
        texts = [
            ("s1", "I use vim as my editor.", T0),
            ("s1", "From now on, please answer in French.", T0 + DAY),
            ("s2", "I switched from vim to neovim.", T0 + 2 * DAY),
        ]
        turns = [
            TurnEvent(tenant_id="acme", user_id="u1", session_id=sid, turn_id=f"r{i}",
                      role=Role.USER, content=text, ts=ts)
            for i, (sid, text, ts) in enumerate(texts)
        ]  # fmt: skip
        emb = ContractEmbedder()
        base = Settings(data_dir=tmp_path / "data")
        strict = base.model_copy(update={"policy": "conservative"})
        audit = ClickHouseAudit.embedded(tmp_path / "audit")
        try:
            runner = InProcessRunner(build_pipeline(base, emb), store, audit)  # type: ignore[arg-type]
            try:
                runner.run(turns)
            finally:
                runner.close()
            self.refresh(store)  # type: ignore[arg-type]
            before = store.list_facts("acme", "u1", include_inactive=True)  # type: ignore[attr-defined]
            assert {f.value for f in before if f.status is FactStatus.ACTIVE} >= {"neovim"}

            same = replay(store, audit, emb, base, tenant="acme")  # type: ignore[arg-type]
            assert same.counts == {} and same.turns == 3
            shadow = replay(store, audit, emb, strict, tenant="acme", now=T0 + 9 * DAY)  # type: ignore[arg-type]
            assert shadow.counts == {"dropped": 1, "superseded": 1}, shadow.by_reason
            assert not shadow.applied and shadow.by_tenant == {"acme": shadow.counts}
            self.refresh(store)  # type: ignore[arg-type]
            assert store.list_facts("acme", "u1", include_inactive=True) == before  # type: ignore[attr-defined]

            done = replay(store, audit, emb, strict, tenant="acme", apply=True, now=T0 + 9 * DAY)  # type: ignore[arg-type]
            assert done.applied and done.counts == shadow.counts
            self.refresh(store)  # type: ignore[arg-type]
            for c in done.changes:
                old = store.get("acme", "u1", c.old_fact_id)  # type: ignore[attr-defined]
                assert old.status is FactStatus.SUPERSEDED
                assert (c.old_version or "").startswith("balanced-1/")
                if c.change == "superseded":
                    new = store.get("acme", "u1", c.new_fact_id)  # type: ignore[attr-defined]
                    assert old.superseded_by == new.fact_id and new.supersedes == old.fact_id
                    assert (c.new_version or "").startswith("conservative-1/")
            again = replay(store, audit, emb, strict, tenant="acme", apply=True, now=T0 + 9 * DAY)  # type: ignore[arg-type]
            assert again.counts == {}
        finally:
            audit.close()

    def test_replay_through_another_extractor_at_a_given_now(
        self, store: UsageStore, tmp_path: Path
    ) -> None:
        """The journal stored by the rule extractor, replayed through the hybrid one at a
        given ``now``: the Portuguese episode only the hybrid reads is added, recorded at
        that ``now`` with the new extractor's version; a second apply changes nothing."""
        texts = [
            ("s1", "I use vim as my editor.", T0),
            ("s2", "Nadei no rio com o meu primo no sábado.", T0 + DAY),
        ]
        turns = [
            TurnEvent(tenant_id="acme", user_id="u1", session_id=sid, turn_id=f"x{i}",
                      role=Role.USER, content=text, ts=ts)
            for i, (sid, text, ts) in enumerate(texts)
        ]  # fmt: skip
        emb = ContractEmbedder()
        rules = Settings(data_dir=tmp_path / "data", extractor="rules")
        at = T0 + 9 * DAY
        audit = ClickHouseAudit.embedded(tmp_path / "audit")
        try:
            runner = InProcessRunner(build_pipeline(rules, emb), store, audit)  # type: ignore[arg-type]
            try:
                runner.run(turns)
            finally:
                runner.close()
            self.refresh(store)  # type: ignore[arg-type]
            same = replay(store, audit, emb, rules, tenant="acme", now=at)  # type: ignore[arg-type]
            assert same.counts == {}
            shadow = replay(store, audit, emb, rules, tenant="acme", now=at, extractor="hybrid")  # type: ignore[arg-type]
            assert shadow.counts == {"added": 1}, shadow.by_reason
            done = replay(
                store,
                audit,
                emb,
                rules,
                tenant="acme",
                apply=True,
                now=at,
                extractor="hybrid",  # type: ignore[arg-type]
            )
            assert done.counts == shadow.counts
            (c,) = done.changes
            assert "/hybrid-" in (c.new_version or "")
            self.refresh(store)  # type: ignore[arg-type]
            new = store.get("acme", "u1", c.new_fact_id)  # type: ignore[attr-defined]
            assert new.status is FactStatus.ACTIVE and new.type is FactType.EVENT
            assert new.extractor == "hybrid" and new.recorded_at == at
            again = replay(
                store,
                audit,
                emb,
                rules,
                tenant="acme",
                apply=True,
                now=at,
                extractor="hybrid",  # type: ignore[arg-type]
            )
            assert again.counts == {}
        finally:
            audit.close()
