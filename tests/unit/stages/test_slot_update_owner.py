"""A change said of another person's slot is not the speaker's change (super32).

The slot resolver (:func:`memgate.stages.resolve_slots.slot_update_target`) read "le
médecin de ma mère, c'est maintenant ..." as a new value of the user's own doctor: the
extractor left the sentence's subject as the user's, and the sentence names the slot
("médecin") with a change cue. The guards slotmask and the change resolver read (a person
one side names and the other does not) now hold here too. A subject whose first link is a
person ("user's friend's company") is another person's, though "friend" is a word of the
additive family of people, and a stop said in that sentence ("moved from Jira to Linear")
stops nothing of the speaker's.
"""

from __future__ import annotations

import pytest

from memgate.core.events import FactStatus
from memgate.sinks.embedded import EmbeddedIndex
from memgate.stages.references import REFERENCE_PREDICATE, another_persons, with_references
from memgate.stages.statements import HybridExtractor
from tests.unit.stages.resolver_kit import apply, cand, facts, user_turn


@pytest.mark.parametrize(
    ("subject", "old", "said", "action", "status"),
    [
        # another person's slot changed: the speaker's fact stays
        (
            "user's médecin traitant",
            "Mon médecin traitant est le docteur Lefèvre",
            "Le médecin de ma mère, c'est maintenant le docteur Garnier",
            "ADD",
            FactStatus.ACTIVE,
        ),
        ("user's 牙医", "我的牙医是陈医生", "我老婆的牙医换成了刘医生", "ADD", FactStatus.ACTIVE),
        (
            "user's médico",
            "Mi médico es el doctor Ruiz",
            "El médico de mi padre ahora es el doctor Gil",
            "ADD",
            FactStatus.ACTIVE,
        ),
        # the speaker's own slot changed: it still supersedes
        (
            "user's médecin traitant",
            "Mon médecin traitant est le docteur Lefèvre",
            "Mon médecin traitant, c'est maintenant le docteur Garnier",
            "SUPERSEDE",
            FactStatus.SUPERSEDED,
        ),
        (
            "user's 牙医",
            "我的牙医是陈医生",
            "我的牙医换成了刘医生",
            "SUPERSEDE",
            FactStatus.SUPERSEDED,
        ),
    ],
)
def test_only_the_speakers_own_slot_changed_supersedes(
    store: EmbeddedIndex, subject: str, old: str, said: str, action: str, status: FactStatus
) -> None:
    apply(store, cand(old, "statement", days=0, subject=subject, multi=True))
    res, _ = apply(store, cand(said, "statement", days=20, multi=True))
    assert res.action.value == action
    assert facts(store)[old].status is status


def test_a_boss_is_a_slot_of_the_speaker_not_another_person(store: EmbeddedIndex) -> None:
    """Hard negative of the guard: a role of a single-valued family ("my new boss") is the
    speaker's slot, not another person's fact."""
    apply(
        store,
        cand(
            "My manager is Tom Fletcher", "statement", days=0, subject="user's manager", multi=True
        ),
    )
    res, _ = apply(
        store,
        cand(
            "My boss is now Ana Whitlock", "statement", days=20, subject="user's boss", multi=True
        ),
    )
    assert res.action.value == "SUPERSEDE"


def test_a_role_named_by_the_predicate_is_the_same_person_as_the_new_boss(
    store: EmbeddedIndex,
) -> None:
    """Hard negative of the guard: the stored manager names no person noun in its words
    (``contact:manager Priya``); the new boss is a role of that family, not another
    person the stored fact does not name. (The extractor read "moved to" as ``lives_in``,
    so only the slot resolver meets the two.)"""
    apply(store, cand("Priya", "contact:manager", days=0))
    said = "My new boss is Daniel, Priya moved to another team"
    res, _ = apply(store, cand(said, "lives_in", days=20, subject="user's new boss"))
    assert (res.action.value, res.reason) == ("SUPERSEDE", "slot_update")
    assert facts(store)["Priya"].status is FactStatus.SUPERSEDED


def test_a_subjects_first_link_says_whose_it_is() -> None:
    assert another_persons("user's friend's company")
    assert another_persons("user's sister")
    assert not another_persons("user's new boss")
    assert not another_persons("team's backend")
    assert not another_persons("user")


def _stops(text: str) -> list[str]:
    turn = user_turn(text)
    out = with_references(turn, HybridExtractor().extract(turn))
    return [c.object for c in out if c.predicate == REFERENCE_PREDICATE]


def test_another_persons_move_off_a_tool_stops_nothing_of_the_speaker() -> None:
    assert _stops("My friend's company moved from Jira to Linear last month.") == []


def test_the_speakers_own_move_off_a_tool_still_stops_it() -> None:
    assert _stops("We moved from Jira to Linear last month.") == ["Jira"]
