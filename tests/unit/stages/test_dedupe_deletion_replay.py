"""A fact the user asked to delete stays deleted whichever of its turns comes again.

A deletion request erases the facts it points at and leaves each a tombstone
(ids and times, no content, no link to its turns). The tombstone is named by a
keyed digest of the fact's owner, key and value (``Resolver.erasure_key``, the
deployment's key), so every candidate that went into the fact, delivered again,
finds it: not only the one from the turn that made the fact (whose id names the
fact), as before (the known bug of tests/unit/streams/test_replay_after_deletion.py).
A statement of the same thing made after the request is a new fact. A turn folded into
the fact under another key (a near-duplicate in other words) finds the tombstone the
fact leaves for each of its other turns, named by a keyed digest of the turn
(:func:`memgate.stages.resolve_forget.turn_tombstones`).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from memgate.core.events import FactStatus, FactType, RedactedCandidate, StoredFact
from memgate.sinks.embedded import EmbeddedIndex
from memgate.stages.dedupe import DELETED_VALUE, Resolver, fact_id_for, fact_key
from memgate.stages.fact_keys import legacy_fact_id
from memgate.stages.policy import preset
from memgate.stages.references import REFERENCE_PREDICATE
from memgate.stages.resolve_forget import erasure_mark, turn_mark
from tests.unit.stages.test_dedupe import CLOCK, EMB, apply, cand
from tests.unit.streams.near_real_time import NearRealTimeReadAhead

KEY = b"0123456789abcdef0123456789abcdef"
JAZZ = "jazz, especially Coltrane"


@pytest.fixture
def store(tmp_path: Path) -> Iterator[EmbeddedIndex]:
    s = EmbeddedIndex(tmp_path / "r.sqlite3", dim=EMB.dim)
    yield s
    s.close()


def _facts(store: EmbeddedIndex) -> list[dict[str, object]]:
    return [f.model_dump() for f in store.list_facts("acme", "u1", include_inactive=True)]


def _said(n: int, *, days: int = 0, session: str = "s1") -> RedactedCandidate:
    return cand(JAZZ, predicate="likes", multi=True, n=n, days=days, session=session)


def _delete(days: int) -> RedactedCandidate:
    item = cand("jazz", predicate=REFERENCE_PREDICATE, days=days, type_=FactType.CORRECTION)
    c = item.candidate.model_copy(update={"retracts": True, "rationale": "reference:delete"})
    return item.model_copy(update={"candidate": c})


def _tombstone(store: EmbeddedIndex) -> StoredFact:
    """The tombstone of the fact ``_said_twice_then_deleted`` erases (the other row, the
    tombstone of its second turn, has its times and no content either)."""
    rows = store.list_facts("acme", "u1", include_inactive=True)
    assert {f.value for f in rows} == {DELETED_VALUE} and len(rows) == 2
    (gone,) = [f for f in rows if f.occurrences == 2]
    return gone


def _said_twice_then_deleted(r: Resolver, store: EmbeddedIndex) -> None:
    assert apply(r, store, _said(0)).reason == "new_key"
    assert apply(r, store, _said(1)).reason == "same_value"
    assert apply(r, store, _delete(days=1)).reason == "deletion_requested"


def test_every_turn_of_a_deleted_fact_finds_its_tombstone(store: EmbeddedIndex) -> None:
    r = Resolver(preset("balanced"), EMB, clock=CLOCK, erasure_key=KEY)
    _said_twice_then_deleted(r, store)
    once = _facts(store)
    gone = _tombstone(store)
    for n in (1, 0, 1):  # the second turn first: it is the one the fact id does not name
        again = apply(r, store, _said(n))
        assert (again.action.value, again.reason, again.writes) == ("DUPLICATE", "redelivered", [])
    assert _facts(store) == once
    assert (gone.value, gone.status) == (DELETED_VALUE, FactStatus.SUPERSEDED)
    assert "Coltrane" not in str(_facts(store))


def test_without_a_key_only_the_first_turn_finds_it(store: EmbeddedIndex) -> None:
    """The behaviour a resolver built without the deployment's key keeps (and the bug):
    the tombstone is named by the fact's id, which only the first turn makes."""
    r = Resolver(preset("balanced"), EMB, clock=CLOCK)
    _said_twice_then_deleted(r, store)
    assert apply(r, store, _said(0)).reason == "redelivered"
    assert apply(r, store, _said(1)).reason == "new_key"


def test_the_same_thing_said_after_the_request_is_a_new_fact(store: EmbeddedIndex) -> None:
    r = Resolver(preset("balanced"), EMB, clock=CLOCK, erasure_key=KEY)
    _said_twice_then_deleted(r, store)
    later = apply(r, store, _said(5, days=2))
    assert (later.action.value, later.reason) == ("ADD", "new_key")
    assert [f.value for f in store.list_facts("acme", "u1")] == [JAZZ]


def test_a_turn_of_another_session_is_not_taken_for_one_of_the_fact(
    store: EmbeddedIndex,
) -> None:
    """Told apart by what the tombstone keeps of its turns: their sessions and last time."""
    r = Resolver(preset("balanced"), EMB, clock=CLOCK, erasure_key=KEY)
    _said_twice_then_deleted(r, store)
    assert apply(r, store, _said(7, session="s9")).reason == "new_key"


def test_the_tombstone_is_named_by_a_keyed_digest_not_by_the_content_or_the_fact_id(
    store: EmbeddedIndex, tmp_path: Path
) -> None:
    r = Resolver(preset("balanced"), EMB, clock=CLOCK, erasure_key=KEY)
    _said_twice_then_deleted(r, store)
    gone = _tombstone(store)
    key = fact_key("acme", "u1", "user", "likes", JAZZ)
    assert gone.fact_id == fact_id_for(key, JAZZ, "t0-0", KEY)  # keyed too (test_fact_ids.py)
    assert gone.fact_id != legacy_fact_id(key, JAZZ, "t0-0")
    assert gone.key == f"acme/u1/user/deleted/{erasure_mark(KEY, 'acme', 'u1', key, JAZZ)}"
    assert gone.fact_id not in gone.key and "jazz" not in gone.key
    # the second turn's tombstone: named by a keyed digest of the turn, which it names not
    (turn,) = [f for f in store.list_facts("acme", "u1", include_inactive=True) if f != gone]
    assert turn.key == f"acme/u1/user/deleted/{turn_mark(KEY, 'acme', 'u1', 't1-0')}"
    assert "t1-0" not in str(turn.model_dump()) and "t0-0" not in str(gone.model_dump())
    # under another deployment key, another name: nothing anyone can compute without it
    other = EmbeddedIndex(tmp_path / "other.sqlite3", dim=EMB.dim)
    _said_twice_then_deleted(
        Resolver(preset("balanced"), EMB, clock=CLOCK, erasure_key=b"k" * 32), other
    )
    gone_there = _tombstone(other)
    other.close()
    assert gone_there.fact_id != gone.fact_id and gone_there.key != gone.key


def test_a_tombstone_left_without_a_key_is_still_found_from_its_first_turn(
    store: EmbeddedIndex,
) -> None:
    """Tombstones written before the keyed names (named by fact id) keep their guard."""
    _said_twice_then_deleted(Resolver(preset("balanced"), EMB, clock=CLOCK), store)
    r = Resolver(preset("balanced"), EMB, clock=CLOCK, erasure_key=KEY)
    assert apply(r, store, _said(0)).reason == "redelivered"


# seven words and one more: near-duplicates for the hashing embedder (cosine >= 0.92)
HIKES = "long hikes in the mountains near the lake"


def test_a_turn_folded_in_under_another_key_finds_the_tombstone(store: EmbeddedIndex) -> None:
    r = Resolver(preset("balanced"), EMB, clock=CLOCK, erasure_key=KEY)
    apply(r, store, cand(HIKES, predicate="likes", multi=True))
    folded = cand(HIKES + " with friends", predicate="likes", multi=True, n=1)
    assert apply(r, store, folded).reason == "near_duplicate"
    delete = _delete(days=1)
    c = delete.candidate.model_copy(update={"object": "hikes"})
    assert apply(r, store, delete.model_copy(update={"candidate": c})).reason == (
        "deletion_requested"
    )
    once = _facts(store)
    assert apply(r, store, folded).reason == "redelivered"
    assert _facts(store) == once


def test_the_turn_tombstone_is_found_in_the_one_read_ahead(store: EmbeddedIndex) -> None:
    """On a store that reads ahead (OpenSearch: one ``_msearch``), the redelivered turn
    finds its tombstone among the planned reads: no other round trip."""
    r = Resolver(preset("balanced"), EMB, clock=CLOCK, erasure_key=KEY)
    apply(r, store, cand(HIKES, predicate="likes", multi=True))
    folded = cand(HIKES + " with friends", predicate="likes", multi=True, n=1)
    apply(r, store, folded)
    delete = _delete(days=1)
    c = delete.candidate.model_copy(update={"object": "hikes"})
    apply(r, store, delete.model_copy(update={"candidate": c}))
    remote = NearRealTimeReadAhead(store)
    out = r(folded, remote)
    assert [e.reason for e in out] == ["redelivered", "redelivered"]
    assert remote.trips == 1  # the read-ahead alone
