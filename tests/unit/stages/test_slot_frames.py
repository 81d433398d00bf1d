"""A value stated in a slot frame is kept whatever its case (stages/slot_frames.py).

The keep classifier reads a capital inside a sentence as a sign of a name; a user who
types the value in lower case ("mein tarif ist der basistarif") or says a change with
a verb of moving ("we switched to pnpm") must be kept the same. Sentences are this
file's own.
"""

from __future__ import annotations

import pytest

from memgate.stages.keep_model import KeepModel
from memgate.stages.slot_frames import copula_slot, frame_probability, says_change
from memgate.stages.statement_text import subject_of
from memgate.stages.statements import HybridExtractor, kept_statements
from tests.unit.stages.test_statements import turn


@pytest.mark.parametrize(
    "sentence",
    ["Mon opérateur est free.", "Mi seguro es el básico.", "Mein Stromanbieter ist eon."],
)
def test_a_lower_case_value_after_a_copula_is_kept(sentence: str) -> None:
    assert copula_slot(sentence) is not None
    facts = HybridExtractor().extract(turn(sentence))
    assert facts, sentence
    assert max(p for p, _ in kept_statements(sentence, KeepModel.load())) >= 0.9


@pytest.mark.parametrize(
    "sentence",
    [
        "Me cambié al plan familiar hace poco.",
        "We switched to pnpm last week.",
        "Nos pasamos a la fibra óptica.",
    ],
)
def test_a_first_person_change_to_another_value_is_kept(sentence: str) -> None:
    assert says_change(sentence)
    facts = HybridExtractor().extract(turn(sentence))
    assert facts, sentence


@pytest.mark.parametrize(
    "sentence",
    ["My plan is to sleep early tonight.", "My knee is hurting again."],
)
def test_an_intention_or_a_passing_state_is_no_slot_value(sentence: str) -> None:
    assert copula_slot(sentence) is None
    assert frame_probability(sentence, 0.3) == 0.3


def test_a_spanish_pronoun_before_a_verb_is_no_possessive() -> None:
    assert subject_of("Nos mudamos a Oviedo en marzo") == "team"
    assert subject_of("Nos apuntamos a un gimnasio nuevo") == "team"
    assert subject_of("Nos enfants sont à Nantes") == "team's enfants"
