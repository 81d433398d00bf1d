"""A fact's id is a keyed digest: no one holding the retrieval store can confirm a guess of
its value with it, an erased fact's included (issue 9, the older leak).

Ids were the unkeyed ``stable_id("fact", key, value, first turn)``: the tombstone a
deletion request leaves keeps its fact's id, the audit's decisions name the turn, so a
guess of the erased value (and of its key: owner, subject and predicate) was confirmed by
recomputing that hash. Ids are now an HMAC-SHA256 under the deployment's key
(``Resolver.erasure_key``, the key naming tombstones), the same on every worker and in
every replay under that key. Facts stored with the unkeyed ids keep them and are found as
before: by key and turn, never by recomputing an id.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from memgate.core.events import FactStatus, normalise, stable_id
from memgate.core.tenant_policy import RetentionPolicy
from memgate.sinks.embedded import EmbeddedIndex
from memgate.stages.consolidate import LIFECYCLE, plan_lifecycle
from memgate.stages.dedupe import DELETED_VALUE, Resolver
from memgate.stages.fact_keys import fact_id_for, fact_key, legacy_fact_id
from memgate.stages.policy import preset
from tests.unit.stages.test_consolidate_recheck import DAY, T0, episode
from tests.unit.stages.test_dedupe import CLOCK, EMB, apply
from tests.unit.stages.test_dedupe_deletion_replay import JAZZ, KEY, _delete, _said

GUESSES = [JAZZ, "Jazz, especially Coltrane!", "jazz especially coltrane", "jazz", "hiking"]


@pytest.fixture
def store(tmp_path: Path) -> Iterator[EmbeddedIndex]:
    s = EmbeddedIndex(tmp_path / "r.sqlite3", dim=EMB.dim)
    yield s
    s.close()


def _keyed(key: bytes = KEY) -> Resolver:
    return Resolver(preset("balanced"), EMB, clock=CLOCK, erasure_key=key)


def _unkeyed_ids(guess: str, turns: list[str]) -> set[str]:
    """Every id anyone can compute from a guess and the turn ids, without the key."""
    out: set[str] = set()
    for multi in (True, False):
        key = fact_key("acme", "u1", "user", "likes", guess if multi else None)
        for turn in turns:
            out.add(legacy_fact_id(key, guess, turn))
            out.add(stable_id("fact", key, normalise(guess), turn))
            out.add(stable_id("fact", key, guess, turn))
    return out


def test_a_tombstone_id_confirms_no_guess_of_the_erased_value(store: EmbeddedIndex) -> None:
    r = _keyed()
    assert apply(r, store, _said(0)).reason == "new_key"
    assert apply(r, store, _said(1)).reason == "same_value"
    assert apply(r, store, _delete(days=1)).reason == "deletion_requested"
    rows = store.list_facts("acme", "u1", include_inactive=True)  # its tombstone, its turn's
    assert {(f.value, f.status) for f in rows} == {(DELETED_VALUE, FactStatus.SUPERSEDED)}
    turns = ["t0-0", "t1-0", "t0-1"]  # the turns the audit names: the fact's and the request's
    for guess in GUESSES:
        for f in rows:
            assert f.fact_id not in _unkeyed_ids(guess, turns), guess
    (gone,) = [f for f in rows if f.occurrences == 2]
    # the id is the keyed digest, which the key alone makes
    key = fact_key("acme", "u1", "user", "likes", JAZZ)
    assert gone.fact_id == fact_id_for(key, JAZZ, "t0-0", KEY)


def test_ids_are_the_same_under_one_key_on_every_store_and_other_under_another(
    tmp_path: Path,
) -> None:
    ids: list[list[str]] = []
    for i, key in enumerate([KEY, KEY, b"k" * 32]):
        s = EmbeddedIndex(tmp_path / f"{i}.sqlite3", dim=EMB.dim)
        try:
            r = _keyed(key)
            apply(r, s, _said(0))
            assert apply(r, s, _said(0)).reason == "redelivered"
            ids.append([f.fact_id for f in s.list_facts("acme", "u1", include_inactive=True)])
        finally:
            s.close()
    assert len(ids[0]) == 1 and ids[0] == ids[1]
    assert ids[2] != ids[0]


def test_without_a_key_ids_are_the_unkeyed_legacy_ones(store: EmbeddedIndex) -> None:
    """The documented fallback of a resolver built without the deployment's key."""
    r = Resolver(preset("balanced"), EMB, clock=CLOCK)
    made = apply(r, store, _said(0)).writes[0]
    key = fact_key("acme", "u1", "user", "likes", JAZZ)
    assert (
        made.fact_id
        == legacy_fact_id(key, JAZZ, "t0-0")
        == stable_id("fact", key, normalise(JAZZ), "t0-0")
    )


def test_a_fact_stored_with_a_legacy_id_is_still_found_and_deleted_for_good(
    store: EmbeddedIndex,
) -> None:
    """A store written before ids were keyed: its facts keep their ids; redeliveries,
    repeats, the deletion and redeliveries after it find them by key and turn."""
    old = apply(Resolver(preset("balanced"), EMB, clock=CLOCK), store, _said(0)).writes[0]
    key = fact_key("acme", "u1", "user", "likes", JAZZ)
    assert old.fact_id == legacy_fact_id(key, JAZZ, "t0-0")
    r = _keyed()
    again = apply(r, store, _said(0))
    assert (again.action.value, again.reason, again.writes) == ("DUPLICATE", "redelivered", [])
    repeat = apply(r, store, _said(1))
    assert (repeat.reason, [f.fact_id for f in repeat.writes]) == ("same_value", [old.fact_id])
    assert apply(r, store, _said(1)).reason == "redelivered"
    assert apply(r, store, _delete(days=1)).reason == "deletion_requested"
    rows = store.list_facts("acme", "u1", include_inactive=True)
    assert old.fact_id in {f.fact_id for f in rows} and {f.value for f in rows} == {DELETED_VALUE}
    for n in (1, 0):
        assert apply(r, store, _said(n)).reason == "redelivered"
    assert store.list_facts("acme", "u1", include_inactive=True) == rows


def test_a_fact_folded_from_episodes_has_a_keyed_id() -> None:
    said = ["I played tennis with Marco", "I played tennis with Ana", "I played tennis again"]
    eps = [episode(i, v) for i, v in enumerate(said)]

    def folded(id_key: bytes) -> str:
        plan = plan_lifecycle(
            eps, preset("balanced"), RetentionPolicy(), now=T0 + 4 * DAY,
            policy_version="lifecycle-1+balanced-1", id_key=id_key,
        )  # fmt: skip
        (habit,) = [f for f in plan.writes if f.extractor == LIFECYCLE]
        return habit.fact_id

    mine, theirs, unkeyed = folded(KEY), folded(b"k" * 32), folded(b"")
    assert mine == folded(KEY) and mine != theirs
    key = f"acme/u1/user/habit/{normalise(said[0])}"
    assert unkeyed == legacy_fact_id(key, said[0], "t0")
    assert mine == fact_id_for(key, said[0], "t0", KEY) != unkeyed
