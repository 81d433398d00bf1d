"""A typed value keeps the name and the place that follow it in its sentence (issue 9,
session 45: "values cut short").

Before, the rules cut the value where their pattern ended: ``has_pet: un perro`` from
"Tengo un perro, un galgo que se llama Trufa", ``works_at: a design studio`` from "I work
at a design studio in Lisbon"; the name and the city were in no fact.
"""

from __future__ import annotations

import pytest

from memgate.core.events import TurnEvent
from memgate.stages.extract import RuleExtractor
from memgate.stages.value_tails import extend


def _values(text: str, predicate: str) -> list[str]:
    turn = TurnEvent(tenant_id="t", user_id="u", session_id="s", turn_id="1", role="user",
                     content=text, ts="2024-05-01T10:00:00Z")  # fmt: skip
    return [f.object for f in RuleExtractor().extract(turn) if f.predicate == predicate]


@pytest.mark.parametrize(
    ("text", "name"),
    [("I have a dog, a beagle named Rocky.", "Rocky"),
     ("Tengo un perro, un galgo que se llama Trufa.", "Trufa"),
     ("J'ai un chien, un border collie qui s'appelle Filou.", "Filou"),
     ("Ich habe einen Hund, einen Labrador, der Bruno heißt.", "Bruno"),
     ("Ich habe eine Katze namens Mia, sie ist schon zwölf.", "Mia")],
)  # fmt: skip
def test_a_pet_keeps_its_name(text: str, name: str) -> None:
    values = _values(text, "has_pet")
    assert values and name in values[0], values


@pytest.mark.parametrize(
    ("text", "place"),
    [("I work at a design studio in Lisbon.", "Lisbon"),
     ("Je travaille chez Doctolib, à Paris.", "Paris")],
)  # fmt: skip
def test_an_employer_keeps_its_city(text: str, place: str) -> None:
    values = _values(text, "works_at")
    assert values and place in values[0], values


@pytest.mark.parametrize(
    ("predicate", "value", "rest"),
    [("works_at", "Google", " in March."),  # a time, no place
     ("works_at", "Google", " in the data team."),  # no capitalised place
     ("has_pet", "a dog", ", and a cat."),  # another thing, not the dog's name
     ("has_pet", "a dog", ", a beagle."),  # an apposition with no name after it
     ("has_pet", "a dog", " named after my grandfather."),  # no capitalised name
     ("lives_in", "Leeds", " in West Yorkshire.")],  # a predicate that takes no tail
)  # fmt: skip
def test_nothing_is_added_that_is_not_the_values(predicate: str, value: str, rest: str) -> None:
    assert extend(predicate, value, rest) == value


def test_a_tail_stops_at_the_clause_end() -> None:
    got = extend("has_pet", "a cat", " called Miso and she hates the vet.")
    assert got == "a cat called Miso"
