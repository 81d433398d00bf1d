"""A name is written as a name: where the writer uses capitals, a lower-case word after
'call me' is no name ("call me every Friday")."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memgate.core.events import TurnEvent
from memgate.stages.extract import RuleExtractor
from memgate.stages.statements import HybridExtractor


def _names(text: str) -> list[str]:
    t = TurnEvent(
        tenant_id="a", user_id="u", session_id="s", turn_id="t", role="user",
        content=text, ts=datetime(2024, 1, 1, tzinfo=UTC),
    )  # fmt: skip
    return [f.object for f in HybridExtractor().extract(t) if f.predicate == "name_is"]


@pytest.mark.parametrize(
    "text", ["Please call me every Friday about the order.", "Call me after 5 on Mondays."]
)
def test_a_lower_case_word_after_call_me_is_no_name(text: str) -> None:
    assert _names(text) == []


@pytest.mark.parametrize(
    ("text", "name"), [("Please call me Jon.", "Jon"), ("my name is jon", "jon")]
)
def test_a_name_is_still_read(text: str, name: str) -> None:
    assert _names(text) == [name]


def _predicates(text: str) -> list[str]:
    t = TurnEvent(
        tenant_id="a", user_id="u", session_id="s", turn_id="t", role="user",
        content=text, ts=datetime(2024, 1, 1, tzinfo=UTC),
    )  # fmt: skip
    return [f.predicate for f in HybridExtractor().extract(t)]


@pytest.mark.parametrize(
    "text",
    [
        "Seit März arbeite ich bei Bosch.",  # German verb-second: the subject follows the verb
        "I joined Shopify last month.",  # a joining names an employer when a name follows
        "J'ai rejoint Peugeot en janvier.",
    ],
)
def test_an_employer_said_in_another_order_or_by_joining_is_the_employer(text: str) -> None:
    assert "works_at" in _predicates(text)


@pytest.mark.parametrize("text", ["I joined a gym last month.", "We joined the call late."])
def test_joining_something_unnamed_is_no_employer(text: str) -> None:
    assert "works_at" not in _predicates(text)


def _contacts(text: str) -> dict[str, str]:
    t = TurnEvent(
        tenant_id="a", user_id="u", session_id="s", turn_id="t", role="user",
        content=text, ts=datetime(2024, 1, 1, tzinfo=UTC),
    )  # fmt: skip
    found = HybridExtractor().extract(t)
    return {f.predicate: f.object for f in found if f.predicate.startswith("contact:")}


@pytest.mark.parametrize(
    ("text", "role", "name"),
    [
        ("My dentist is Dr. Okafor.", "contact:dentist", "Dr. Okafor"),
        ("My doctor is Dr. Patel.", "contact:doctor", "Dr. Patel"),
        ("Our accountant is Mrs. Lena Ortiz.", "contact:accountant", "Mrs. Lena Ortiz"),
    ],
)
def test_a_person_named_with_a_title_keeps_the_name_after_the_title(
    text: str, role: str, name: str
) -> None:
    """The full stop of a title (memgate/data/abbreviations.json) cuts no name: the
    contact is "Dr. Okafor", not "Dr" (which no later mention of Okafor could match)."""
    assert _contacts(text).get(role) == name


def test_a_contact_without_a_title_is_read_as_before() -> None:
    assert _contacts("Our account admin is Lena Ortiz.") == {"contact:account_admin": "Lena Ortiz"}


def _rule_names(text: str) -> list[tuple[str, str]]:
    t = TurnEvent(
        tenant_id="a", user_id="u", session_id="s", turn_id="t", role="user",
        content=text, ts=datetime(2024, 1, 1, tzinfo=UTC),
    )  # fmt: skip
    return [(f.subject, f.object) for f in RuleExtractor().extract(t) if f.predicate == "name_is"]


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("My name is Tomás Ribeiro and I work in Braga.", "Tomás Ribeiro"),
        ("Please call me Seán O'Neill.", "Seán O'Neill"),
        ("I'm called Jean-Luc Martin, by the way.", "Jean-Luc Martin"),
        ("Ich heiße Hannelore Schmidt-Berg und arbeite in Ulm.", "Hannelore Schmidt-Berg"),
        ("Mein Name ist Karl von Weizsäcker.", "Karl von Weizsäcker"),
        ("Je m'appelle Amélie Poulain et j'habite à Paris.", "Amélie Poulain"),
        ("Je m'appelle Valéry Giscard d'Estaing.", "Valéry Giscard d'Estaing"),
        ("Me llamo Rocío de la Vega y trabajo en Málaga.", "Rocío de la Vega"),
        ("Mi nombre es Juan Carlos Pérez Ortega.", "Juan Carlos Pérez Ortega"),
        ("Me chamo Joana dos Reis e moro no Porto.", "Joana dos Reis"),
        ("Meu nome é Beatriz da Costa.", "Beatriz da Costa"),
        ("Mi chiamo Giulia Bianchi e abito a Torino.", "Giulia Bianchi"),
        ("Il mio nome è Piero della Francesca.", "Piero della Francesca"),
    ],
)
def test_a_stated_name_keeps_every_word_of_the_name(text: str, name: str) -> None:
    assert _names(text) == [name]
    assert _rule_names(text) == [("user", name)]


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("My brother is called Mateus Oliveira.", "Mateus Oliveira"),
        ("Meine Schwester heißt Greta van Dijk.", "Greta van Dijk"),
        ("Mi hermana se llama Carmen Ruiz.", "Carmen Ruiz"),
    ],
)
def test_a_relatives_name_keeps_every_word_of_the_name(text: str, name: str) -> None:
    assert [n for _, n in _rule_names(text)] == [name]


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Call me Ana tomorrow.", "Ana"),  # a lowercase word ends the name
        ("My name is Ana and this is my friend Bob.", "Ana"),  # a conjunction
        ("My name is Rui, and Pedro is my colleague.", "Rui"),  # punctuation
        ("Mein Name ist Jana Montag passt mir.", "Jana"),  # a weekday is no surname
        ("Je m'appelle Paul Mardi je suis libre.", "Paul"),
        ("Me llamo Ana y Pedro es mi hermano.", "Ana"),  # "y" joins two people
        ("My name is Ana de", "Ana"),  # a particle with no name after it
        ("my name is ines carvalho", "ines"),  # uncased text: the first word, as before
        ("MY NAME IS INES CARVALHO AND I LIVE IN LISBON", "INES"),
    ],
)
def test_a_name_stops_where_the_name_ends(text: str, name: str) -> None:
    assert _names(text) == [name]


@pytest.mark.parametrize("text", ["Call me Monday.", "call me Friday about the invoice"])
def test_a_weekday_after_call_me_is_no_name(text: str) -> None:
    assert _rule_names(text) == []
    assert not {"Monday", "Friday"} & set(_names(text))
