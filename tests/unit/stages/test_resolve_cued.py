"""A change said in words no rule reads: a change cue and the one fact clearly nearest in
meaning (stages/resolve_cued.py, data ``cued`` of memgate/data/change.json; issue 9,
item 3).

Written before reading any scored file's sentences for this step: the pairs below are the
test's own. The encoders are the real ones (MiniLM for the store's cosine, usem for
meaning) and the relation model is the shipped one, so a change of model or bars that
stops reading these pairs fails here.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import pytest

from memgate.core.events import FactStatus, FactType, StoredFact
from memgate.stages.relation_model import RelationModel
from memgate.stages.resolve_cued import CUED, CuedBars, cued_target
from tests.unit.stages.resolver_kit import T0, USEM, minilm, statement


def _fact(value: str, *, days: int = 0, predicate: str = "statement", n: int = 0) -> StoredFact:
    ts = T0 + timedelta(days=days)
    return StoredFact(
        fact_id=f"f{n}",
        key=f"k{n}",
        tenant_id="acme",
        user_id="u1",
        type=FactType.FACT,
        subject="user",
        predicate=predicate,
        value=value,
        text=f"user {predicate} {value}",
        status=FactStatus.ACTIVE,
        confidence=0.9,
        valid_from=ts,
        recorded_at=ts,
        first_seen=ts,
        last_seen=ts,
        source_turn_ids=[f"t{days}-{n}"],
        extractor="test",
        extractor_version="1",
        policy_version="1",
    )


def _near(said: str, stored: list[StoredFact]) -> list[tuple[StoredFact, float]]:
    emb = minilm()
    new = emb.embed([said])[0]
    out = []
    for f in stored:
        old = emb.embed([f.value])[0]
        out.append((f, float(sum(a * b for a, b in zip(new, old, strict=True)))))
    return out


def _target(said: str, stored: list[StoredFact], bars: CuedBars = CUED) -> StoredFact | None:
    c = statement(said, days=30).candidate
    hit = cued_target(c, "new-key", _near(said, stored), USEM, RelationModel.load(), bars=bars)
    return None if hit is None else hit.fact


OTHER = "I play the cello in a community orchestra"


@pytest.mark.parametrize(
    ("stored", "said"),
    [
        ("Our crash reports go to Bugsnag", "For crash reports we have switched to Sentry now"),
        (
            "Mein Fitnessstudio ist das Kraftwerk am Hauptbahnhof",
            "Ich trainiere jetzt im Urban Gym, das ist näher an der Arbeit",
        ),
        ("我用的浏览器是火狐", "我现在改用 Chrome 了，火狐太慢"),
        (
            "Je fais mes courses au Carrefour du quartier",
            "Maintenant je fais mes courses au Lidl, c'est moins cher",
        ),
    ],
)
def test_a_change_cue_supersedes_the_one_fact_nearest_in_meaning(stored: str, said: str) -> None:
    old = _fact(stored, n=1)
    other = _fact(OTHER, days=1, n=2)
    assert _target(said, [old, other]) == old


@pytest.mark.parametrize(
    ("stored", "said"),
    [
        # no change cue: a second statement of the kind stands beside the first
        ("Our crash reports go to Bugsnag", "Our uptime checks run in Pingdom"),
        # a value added, not replaced
        ("I speak Portuguese at home", "I now also speak some Japanese"),
        # another person's change
        ("My dentist is Dr. Mbeki on Park Road", "My husband's dentist is now Dr. Lund"),
        # the same value said again with a cue: no change of it
        ("Our crash reports go to Bugsnag", "Crash reports still go to Bugsnag now"),
    ],
)
def test_no_cue_an_added_value_another_person_or_the_same_value_supersede_nothing(
    stored: str, said: str
) -> None:
    assert _target(said, [_fact(stored, n=1), _fact(OTHER, days=1, n=2)]) is None


def test_a_fact_of_another_topic_is_below_the_floor() -> None:
    assert _target("These days I cycle to work", [_fact("My sister is called Ines", n=1)]) is None


def test_a_change_of_another_familys_slot_replaces_nothing() -> None:
    """The home and the employer are two slots: a new job in another city is no move."""
    home = _fact("Bristol", predicate="lives_in", n=1)
    assert _target("Now I work at Airbus in Filton", [home]) is None


def test_a_change_names_its_new_value() -> None:
    """An English or other Latin-script statement that names no value the old fact does not
    (no name, no number) replaces nothing: "we raised money for new kennels" is no new
    value of "I adopted a retriever from the shelter"."""
    stored = [_fact("My gym is the Kraftwerk near the station", n=1)]
    assert _target("I train at a new gym now, closer to work", stored) is None
    assert _target("I train at Urban Gym now, closer to work", stored) == stored[0]


def test_two_facts_read_as_replaced_leave_both_standing() -> None:
    """Not clearly one: with the bars lowered so both stored facts read as replaced, the
    step names neither."""
    stored = [
        _fact("I commute to the office on the 42 bus", n=1),
        _fact("I usually get to work on the M2 tram", days=1, n=2),
    ]
    said = "Now I ride my Brompton to the office every day"
    assert _target(said, stored[:1], replace(CUED, floor=-1.0, update=0.0)) == stored[0]
    assert _target(said, stored[1:], replace(CUED, floor=-1.0, update=0.0)) == stored[1]
    assert _target(said, stored, replace(CUED, floor=-1.0, update=0.0)) is None


def test_a_fact_said_later_or_by_another_user_is_never_read() -> None:
    said = "For crash reports we have switched to Sentry now"
    later = _fact("Our crash reports go to Bugsnag", days=40, n=1)
    assert _target(said, [later]) is None
    theirs = _fact("Our crash reports go to Bugsnag", n=2).model_copy(update={"user_id": "u2"})
    assert _target(said, [theirs]) is None
