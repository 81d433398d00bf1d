"""A probe is embedded only when a stored fact is in its reach; a resolution reads each
read of a local store once (issue 14, session 39).

A probe (a turn that yielded no fact, :mod:`memgate.stages.resolve_probe`) folds into a
stored fact only if that fact is active, of its speaker, not an event, and more than half
of its content words are said again. On the LoCoMo dev file 1,052 of 1,071 probes had no
such fact, yet each was embedded (a quarter of the chain's forward passes) and read by its
vector. Now a view that lists a speaker's active facts (the embedded index) is read first,
and the probe is embedded only when one is in reach; the decisions are the same.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np

from memgate.core.events import FactStatus, RedactedCandidate, StoredFact
from memgate.sinks.embedded import EmbeddedIndex
from memgate.stages.dedupe import Resolver
from memgate.stages.policy import preset
from memgate.stages.resolve_probe import PROBE_EXTRACTOR, may_restate
from tests.unit.stages.resolver_kit import CLOCK, EMB, apply, cand, statement


class CountingEmbedder:
    """:data:`EMB`, counting the texts it is asked to embed."""

    def __init__(self) -> None:
        self.texts: list[str] = []
        self.dim = EMB.dim
        self.name = EMB.name

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.texts += list(texts)
        return EMB.embed(texts)


class CountingView:
    """A view of ``store`` that counts each read by its arguments; it lists active facts
    only when ``lists`` (else it is no :class:`ListsActive`)."""

    def __init__(self, store: EmbeddedIndex) -> None:
        self.store = store
        self.reads: Counter[tuple[Any, ...]] = Counter()

    def by_key(self, tenant_id: str, user_id: str, key: str) -> list[StoredFact]:
        self.reads[("by_key", tenant_id, user_id, key)] += 1
        return self.store.by_key(tenant_id, user_id, key)

    def nearest(self, tenant_id: str, user_id: str, vector: np.ndarray, **kw: Any) -> Any:
        self.reads[("nearest", tenant_id, user_id, vector.tobytes(), repr(sorted(kw.items())))] += 1
        return self.store.nearest(tenant_id, user_id, vector, **kw)

    def by_subject(self, tenant_id: str, user_id: str, subject: str, **kw: Any) -> Any:
        self.reads[("by_subject", tenant_id, user_id, subject, repr(sorted(kw.items())))] += 1
        return self.store.by_subject(tenant_id, user_id, subject, **kw)


class ListingView(CountingView):
    def active_facts(self, tenant_id: str, user_id: str) -> list[StoredFact]:
        self.reads[("active_facts", tenant_id, user_id)] += 1
        return self.store.active_facts(tenant_id, user_id)


def _probe(text: str, *, days: int, user: str = "u1") -> RedactedCandidate:
    item = cand(text, days=days, user=user)
    c = item.candidate.model_copy(
        update={"probe": True, "extractor": PROBE_EXTRACTOR, "confidence": 0.0}
    )
    return item.model_copy(update={"candidate": c})


def _resolver(emb: CountingEmbedder) -> Resolver:
    return Resolver(preset("balanced"), emb, clock=CLOCK)  # type: ignore[arg-type]


def test_a_probe_with_no_fact_in_reach_is_neither_embedded_nor_read_by_its_vector(
    store: EmbeddedIndex,
) -> None:
    apply(store, statement("I am allergic to penicillin", days=1))
    emb, view = CountingEmbedder(), ListingView(store)
    assert _resolver(emb)(_probe("What a lovely sunny day at the beach", days=5), view) == []
    assert emb.texts == []
    assert [r[0] for r in view.reads] == ["active_facts"]


def _read_by_its_vector(store: EmbeddedIndex, view: CountingView, said: str) -> list[Any]:
    """Resolve a probe saying ``said`` against ``view`` (a penicillin allergy stored):
    the probe was embedded once and read by its vector; what the resolution returned."""
    apply(store, statement("I am allergic to penicillin", days=1))
    emb, probe = CountingEmbedder(), _probe(said, days=5)
    out = _resolver(emb)(probe, view)
    assert emb.texts == [probe.candidate.text()]
    assert any(r[0] == "nearest" for r in view.reads)
    return out


def test_a_probe_with_a_fact_in_reach_is_embedded_when_it_is_resolved(
    store: EmbeddedIndex,
) -> None:
    _read_by_its_vector(store, ListingView(store), "Penicillin, I am allergic to it, remember?")


def test_a_view_that_cannot_list_active_facts_reads_every_probe_by_its_vector(
    store: EmbeddedIndex,
) -> None:
    said = "What a lovely sunny day at the beach"
    assert _read_by_its_vector(store, CountingView(store), said) == []


def test_may_restate_reads_only_the_speakers_active_facts_in_reach(store: EmbeddedIndex) -> None:
    apply(store, statement("I am allergic to penicillin", days=1))
    apply(store, statement("My sister lives in Glasgow", days=2))
    apply(store, cand("I am allergic to penicillin", days=1, user="u2"))
    c = _probe("Penicillin allergy here, as I said", days=5).candidate
    assert may_restate(c, store)
    # another user's fact is out of reach, and so is a fact recorded after the probe
    assert not may_restate(c.model_copy(update={"user_id": "u3"}), store)
    early = _probe("Penicillin allergy here, as I said", days=0).candidate
    assert not may_restate(early, store)
    # a change cue: restated_target reads no restatement in it whatever is stored
    moved = _probe("I am no longer allergic to penicillin", days=5).candidate
    assert not may_restate(moved, store)


def test_active_facts_are_the_users_active_ones_without_vectors(store: EmbeddedIndex) -> None:
    apply(store, statement("I live in Leeds", days=1, predicate="lives_in"))
    apply(store, statement("I live in Glasgow now", days=2, predicate="lives_in"))
    apply(store, cand("I live in Oslo", days=1, user="u2"))
    got = store.active_facts("acme", "u1")
    assert got and all(f.status is FactStatus.ACTIVE for f in got)
    assert all(f.user_id == "u1" and f.tenant_id == "acme" for f in got)
    assert all(f.embedding is None and f.search_embedding is None for f in got)
    everything = store.list_facts("acme", "u1", include_inactive=True)
    assert {f.fact_id for f in got} == {
        f.fact_id for f in everything if f.status is FactStatus.ACTIVE
    }
    assert len(everything) > len(got)  # Leeds was superseded: not listed
    assert store.active_facts("other", "u1") == []


def test_the_read_ahead_embeds_no_probe_of_a_view_that_lists_active_facts(
    store: EmbeddedIndex,
) -> None:
    r = _resolver(CountingEmbedder())
    probe, fact = _probe("Penicillin, remember?", days=5), statement("I drive a Volvo", days=5)
    assert r.embed_calls(probe, store) == []
    assert r.embed_calls(probe) == [[probe.candidate.text()]]
    assert r.embed_calls(probe, CountingView(store)) == [[probe.candidate.text()]]
    assert r.embed_calls(fact, store) == r.embed_calls(fact) != []


def test_a_resolution_reads_each_read_of_a_local_store_once(store: EmbeddedIndex) -> None:
    for n, said in enumerate(
        ["I live in Leeds", "My sister lives in Glasgow", "I work at Stripe as an engineer"]
    ):
        apply(store, statement(said, days=n + 1))
    view = ListingView(store)
    _resolver(CountingEmbedder())(statement("I now work at Monzo as an engineer", days=9), view)
    assert view.reads  # the resolution read the store
    assert max(view.reads.values()) == 1, [r[:4] for r, n in view.reads.items() if n > 1]
