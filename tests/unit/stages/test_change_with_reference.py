"""A change said together with a stop of the old value (issue 9, dev6): the new value is
kept, not dropped as part of the reference ("Me pasé a Digi, ya no estoy con Movistar")."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memgate.core.events import TurnEvent
from memgate.stages.references import REFERENCE_PREDICATE, with_references
from memgate.stages.statements import HybridExtractor


def _turn(text: str) -> TurnEvent:
    return TurnEvent(
        tenant_id="t", user_id="u", session_id="s", turn_id="x1", role="user", content=text,
        ts=datetime(2024, 1, 1, tzinfo=UTC),
    )  # fmt: skip


@pytest.mark.parametrize(
    ("said", "new"),
    [
        ("Me pasé a Digi, ya no estoy con Movistar.", "Digi"),
        ("Je suis passé chez Free, je ne suis plus chez Orange.", "Free"),
        ("I switched to Fastmail, I no longer use Gmail.", "Fastmail"),
    ],
)
def test_the_new_value_beside_a_stop_is_kept(said: str, new: str) -> None:
    turn = _turn(said)
    got = with_references(turn, HybridExtractor().extract(turn))  # as the extract step does
    refs = [c for c in got if c.predicate == REFERENCE_PREDICATE]
    values = [c for c in got if not c.retracts]
    assert refs, "the stop of the old value is still read"
    assert any(new in c.object for c in values), [c.object for c in got]


def test_a_stop_said_alone_keeps_no_statement() -> None:
    turn = _turn("Ya no estoy con Movistar.")
    got = with_references(turn, HybridExtractor().extract(turn))
    assert all(c.retracts for c in got)


@pytest.mark.parametrize(
    "said",
    [
        "Never mind what I said about the marathon, that was my flatmate.",
        "Vergiss das mit dem Vegetarier, das war mein Bruder.",
        "I don't drive a Honda Civic anymore, I sold it.",
        "Oublie ce que je t'ai dit sur mon magasin de retrait, s'il te plaît.",
    ],
)
def test_a_reference_with_words_besides_but_no_new_value_keeps_no_statement(said: str) -> None:
    """Words beside the reference that state no change of their own ("that was my
    flatmate", "I sold it", "s'il te plaît") make no statement to store."""
    turn = _turn(said)
    got = with_references(turn, HybridExtractor().extract(turn))
    assert all(c.retracts for c in got), [c.object for c in got if not c.retracts]


def test_the_change_beside_a_stop_is_stored_without_the_stopped_value() -> None:
    turn = _turn("We moved off Bitbucket, everything lives in GitLab now.")
    got = with_references(turn, HybridExtractor().extract(turn))
    assert not any("Bitbucket" in c.object for c in got if not c.retracts)


@pytest.mark.parametrize(
    ("said", "new", "old"),
    [
        (
            "We dropped Bitbucket, every repository sits in Codeberg these days.",
            "Codeberg",
            "Bitbucket",
        ),
        ("Ya no uso Eclipse, me pasé a IntelliJ en verano.", "IntelliJ", "Eclipse"),
        ("I stopped using Trello, we plan everything in Notion now.", "Notion", "Trello"),
    ],
)
def test_the_change_beside_a_stop_the_extractor_read_as_the_old_value_is_kept(
    said: str, new: str, old: str
) -> None:
    """The extractor read only the stopped value from the sentence (as a retraction, or
    as a use the reference clause holds), so the sentence was said by that value: the
    change beside the reference clause is added as a statement of its own (before: the new
    value was lost and only the stop remained)."""
    turn = _turn(said)
    got = with_references(turn, HybridExtractor().extract(turn))
    values = [c for c in got if not c.retracts]
    assert any(new in c.object for c in values), [c.object for c in got]
    assert not any(old in c.object for c in values), [c.object for c in got]
    assert any(c.predicate == REFERENCE_PREDICATE for c in got)


@pytest.mark.parametrize(
    ("said", "topic"),
    [
        ("Bugzilla is gone, every bug goes into YouTrack now.", "Bugzilla"),
        ("Jenkins ist Geschichte, wir bauen jetzt mit Drone.", "Jenkins"),
        ("Heroku ya es historia, todo corre en Fly.io.", "Heroku"),
    ],
)
def test_a_thing_said_to_be_no_more_is_a_stop_of_it(said: str, topic: str) -> None:
    """The stop's topic as the clause's subject ("X is gone", "X ist Geschichte")."""
    from memgate.stages.references import find_references

    refs = find_references(said)
    assert [(r.op, r.topic) for r in refs] == [("stop", topic)]


def test_a_person_who_retired_is_no_stop() -> None:
    from memgate.stages.references import find_references

    assert find_references("My dad is retired and loves fishing.") == []
