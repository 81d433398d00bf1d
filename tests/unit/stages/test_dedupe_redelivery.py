"""A candidate delivered again changes no fact, whichever fact absorbed it the first time.

The first delivery of a candidate folds it into a fact: a new one, the fact of
its key with the same value or a near-duplicate value, or a near-duplicate
fact under another key. Each of those facts then cites the candidate's turn;
a redelivery finds that fact and writes nothing (``redelivered``), even after
later turns superseded or retracted it. A retraction closes only what was said
before it, so that a redelivered retraction cannot close a later statement.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from memgate.core.embedding import HashingEmbedder
from memgate.core.events import FactStatus, RedactedCandidate
from memgate.sinks.embedded import EmbeddedIndex
from memgate.stages.dedupe import Resolver
from memgate.stages.policy import preset
from tests.unit.stages import resolver_kit as sem
from tests.unit.stages.test_dedupe import CLOCK, EMB, apply, cand

# seven words and one more: near-duplicates for the hashing embedder (cosine >= 0.92)
HIKES = "long hikes in the mountains near the lake"
HIKES_WITH_FRIENDS = HIKES + " with friends"


@pytest.fixture
def store(tmp_path: Path) -> EmbeddedIndex:
    return EmbeddedIndex(tmp_path / "r.sqlite3", dim=EMB.dim)


def _facts(store: EmbeddedIndex) -> list[dict[str, object]]:
    return [f.model_dump() for f in store.list_facts("acme", "u1", include_inactive=True)]


def _retraction(obj: str, n: int, *, predicate: str, multi: bool = False) -> RedactedCandidate:
    item = cand(obj, predicate=predicate, n=n, multi=multi)
    c = item.candidate.model_copy(update={"retracts": True})
    return item.model_copy(update={"candidate": c})


def test_the_hashing_embedder_makes_the_two_statements_near_duplicates() -> None:
    a, b = HashingEmbedder().embed([f"user likes {HIKES}", f"user likes {HIKES_WITH_FRIENDS}"])
    assert float(a @ b) >= preset("balanced").near_duplicate


def test_a_near_duplicate_under_another_key_is_counted_once_however_often_it_comes(
    store: EmbeddedIndex,
) -> None:
    """The issue's case: one delivery and two redeliveries gave occurrences 2, 3, 4."""
    r = Resolver(preset("balanced"), EMB, clock=CLOCK)
    apply(r, store, cand(HIKES, predicate="likes", multi=True))
    second = cand(HIKES_WITH_FRIENDS, predicate="likes", multi=True, n=1)
    first = apply(r, store, second)
    assert (first.action.value, first.reason) == ("DUPLICATE", "near_duplicate")
    once = _facts(store)
    seen = []
    for _ in range(2):
        again = apply(r, store, second)
        assert (again.action.value, again.reason, again.writes) == ("DUPLICATE", "redelivered", [])
        seen.append([f["occurrences"] for f in _facts(store)])
    assert seen == [[2], [2]]
    assert _facts(store) == once


def test_a_near_duplicate_under_its_own_key_is_counted_once(store: EmbeddedIndex) -> None:
    r = Resolver(preset("balanced"), EMB, clock=CLOCK)
    apply(r, store, cand(HIKES, predicate="prefers:weekend"))
    second = cand(HIKES_WITH_FRIENDS, predicate="prefers:weekend", n=1)
    assert apply(r, store, second).reason == "near_duplicate_same_key"
    once = _facts(store)
    assert apply(r, store, second).reason == "redelivered"
    assert _facts(store) == once


def test_a_redelivery_after_its_fact_was_superseded_revives_nothing(
    store: EmbeddedIndex,
) -> None:
    r = Resolver(preset("balanced"), EMB, clock=CLOCK)
    apply(r, store, cand(HIKES, predicate="prefers:weekend"))
    said_again = cand(HIKES_WITH_FRIENDS, predicate="prefers:weekend", n=1)
    apply(r, store, said_again)
    apply(r, store, cand("board games at home", predicate="prefers:weekend", n=2, days=3))
    once = _facts(store)
    assert apply(r, store, said_again).reason == "redelivered"
    assert _facts(store) == once
    assert [f.value for f in store.list_facts("acme", "u1")] == ["board games at home"]


def test_a_redelivery_after_the_other_key_fact_was_retracted_adds_nothing(
    store: EmbeddedIndex,
) -> None:
    r = Resolver(preset("balanced"), EMB, clock=CLOCK)
    apply(r, store, cand(HIKES, predicate="likes", multi=True))
    folded = cand(HIKES_WITH_FRIENDS, predicate="likes", multi=True, n=1)
    apply(r, store, folded)
    closed = apply(r, store, _retraction(HIKES, 2, predicate="likes", multi=True))
    assert closed.reason == "retracted"
    once = _facts(store)
    assert apply(r, store, folded).reason == "redelivered"
    assert _facts(store) == once


def test_a_redelivered_retraction_does_not_close_what_was_said_after_it(
    store: EmbeddedIndex,
) -> None:
    r = Resolver(preset("balanced"), EMB, clock=CLOCK)
    retraction = _retraction("Bamboo", 1, predicate="deploys_with")
    assert apply(r, store, retraction).reason == "nothing_to_retract"
    apply(r, store, cand("Bamboo", predicate="deploys_with", n=2))
    once = _facts(store)
    again = apply(r, store, retraction)
    assert (again.action.value, again.reason) == ("REJECT", "nothing_to_retract")
    assert _facts(store) == once
    assert [f.status for f in store.list_facts("acme", "u1")] == [FactStatus.ACTIVE]


def test_a_retraction_and_a_statement_of_the_same_instant_give_one_outcome_in_any_order(
    store: EmbeddedIndex, tmp_path: Path
) -> None:
    """Simultaneous, their order cannot be told (nor can a redelivery's): the statement
    stands, whichever comes first and however often the retraction comes."""
    r = Resolver(preset("balanced"), EMB, clock=CLOCK)
    statement = cand("Bamboo", predicate="deploys_with", n=1)
    retraction = _retraction("Bamboo", 1, predicate="deploys_with")
    retraction = retraction.model_copy(
        update={
            "candidate": retraction.candidate.model_copy(
                update={"candidate_id": "r1", "source_turn_ids": ["t-retract"]}
            )
        }
    )
    assert statement.candidate.turn_ts == retraction.candidate.turn_ts
    apply(r, store, retraction)
    apply(r, store, statement)
    apply(r, store, retraction)  # delivered again
    other = EmbeddedIndex(tmp_path / "other.sqlite3", dim=EMB.dim)
    apply(r, other, statement)
    apply(r, other, retraction)
    for s in (store, other):
        facts = s.list_facts("acme", "u1", include_inactive=True)
        assert [(f.value, f.status) for f in facts] == [("Bamboo", FactStatus.ACTIVE)]


# -------------------------------------- folds below the near-duplicate line (rules only)


@pytest.mark.parametrize(
    ("first", "second", "reason"),
    [
        (("Airbus", "works_at", "user"), "Mon employeur, c'est Airbus", "same_clause"),
        (
            ("Ich trinke meinen Kaffee schwarz", "statement", "user"),
            "Meinen Kaffee trinke ich immer schwarz",
            "same_clause",
        ),
        (("Rocco", "name_is", "user's dog"), "Rocco es el nombre de mi perro", "paraphrase"),
    ],
)
def test_a_paraphrase_folded_in_is_counted_once_however_often_it_comes(
    store: EmbeddedIndex, first: tuple[str, str, str], second: str, reason: str
) -> None:
    """The report: a restatement the rules fold into a fact in other words (``same_clause``,
    ``paraphrase``: too far in meaning for step 4's near-duplicate) was counted again
    at each redelivery (occurrences 2, 3, 4), the fact already citing its turn."""
    value, predicate, subject = first
    sem.apply(store, sem.cand(value, predicate, days=0, subject=subject,
                              multi=predicate == "statement"))  # fmt: skip
    b = sem.cand(second, "statement", days=30, multi=True)
    res, dec = sem.apply(store, b)
    assert (res.action.value, res.reason) == ("DUPLICATE", reason)
    once = _facts(store)
    assert [(f["value"], f["occurrences"], f["source_turn_ids"]) for f in once] == [
        (value, 2, ["t0", "t30"])
    ]
    for _ in range(2):
        again, note = sem.apply(store, b)
        assert (again.action.value, again.reason, again.writes) == ("DUPLICATE", "redelivered", [])
        assert note.details["of"] == dec.details["of"] and note.event_id != dec.event_id
    assert _facts(store) == once  # whole records: seen count, sources, last seen, times


@pytest.mark.parametrize(
    ("first", "second", "then"),
    [
        (("Airbus", "works_at", "user"), "Mon employeur, c'est Airbus", "Boeing"),
        (("Rocco", "name_is", "user's dog"), "Rocco es el nombre de mi perro", "Bruno"),
    ],
)
def test_a_paraphrase_folded_into_a_fact_closed_since_revives_nothing(
    store: EmbeddedIndex, first: tuple[str, str, str], second: str, then: str
) -> None:
    """The fold paths read active facts only: once a later value superseded the fact a
    paraphrase was folded into, the paraphrase delivered again found no target and was
    added as a new active fact, the old value back in other words."""
    value, predicate, subject = first
    sem.apply(store, sem.cand(value, predicate, days=0, subject=subject))
    b = sem.cand(second, "statement", days=30, multi=True)
    assert sem.apply(store, b)[0].action.value == "DUPLICATE"
    res, _ = sem.apply(store, sem.cand(then, predicate, days=40, subject=subject))
    assert res.action.value == "SUPERSEDE"
    once = _facts(store)
    again, note = sem.apply(store, b)
    assert (again.action.value, again.reason, again.writes) == ("DUPLICATE", "redelivered", [])
    assert note.details["of"] == next(f["fact_id"] for f in once if f["value"] == value)
    assert _facts(store) == once


@pytest.mark.parametrize(
    ("first", "second"),
    [
        (("Airbus", "works_at", "user"), "Mon employeur, c'est Airbus"),
        (("Rocco", "name_is", "user's dog"), "Rocco es el nombre de mi perro"),
    ],
)
def test_a_paraphrase_folded_into_a_fact_seen_again_since_is_still_a_replay(
    store: EmbeddedIndex, first: tuple[str, str, str], second: str
) -> None:
    """Found by the replay property (FOLDS): the fold paths skip a fact seen after the
    candidate; once a later turn said the value again (last seen moved past the
    paraphrase's turn), the paraphrase delivered again found no target and was added as
    a second active fact. A fact that cites the candidate's turn is its target still."""
    value, predicate, subject = first
    sem.apply(store, sem.cand(value, predicate, days=0, subject=subject))
    b = sem.cand(second, "statement", days=30, multi=True)
    assert sem.apply(store, b)[0].action.value == "DUPLICATE"
    res, _ = sem.apply(store, sem.cand(value, predicate, days=40, subject=subject))
    assert (res.action.value, res.reason) == ("DUPLICATE", "same_value")
    once = _facts(store)
    assert [f["source_turn_ids"] for f in once] == [["t0", "t30", "t40"]]
    again, note = sem.apply(store, b)
    assert (again.action.value, again.reason, again.writes) == ("DUPLICATE", "redelivered", [])
    assert note.details["of"] == once[0]["fact_id"]
    assert _facts(store) == once
