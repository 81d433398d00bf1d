"""A fact confirmed with a word of continuing (issue 9, confirmation, dedupe27): under its
own key, "Still living in Porto, nothing new there" after ``lives_in Porto`` is the fact
said again (one more occurrence, one active fact), not a new value that supersedes it.
The words are data in six languages (``memgate/data/continuity.json``). A real change
still supersedes, as does a confirmation that also says a move, another value that only
contains the stored one, or the other polarity."""

from __future__ import annotations

import pytest

from memgate.core.events import CandidateFact, FactStatus, StoredFact
from memgate.sinks.embedded import EmbeddedIndex
from memgate.stages.resolution_lexicon import LEXICON
from memgate.stages.resolve_confirm import still_holds
from tests.unit.stages.resolver_kit import apply, cand, facts


def _active(store: EmbeddedIndex) -> list[str]:
    return sorted(v for v, f in facts(store).items() if f.status is FactStatus.ACTIVE)


def test_a_confirmation_with_a_word_of_continuing_counts_the_fact(store: EmbeddedIndex) -> None:
    apply(store, cand("Porto", "lives_in", days=0))
    res, _ = apply(store, cand("Still living in Porto, nothing new there", "lives_in", days=14))
    assert (res.action.value, res.reason) == ("DUPLICATE", "same_value")
    assert _active(store) == ["Porto"]
    assert facts(store)["Porto"].occurrences == 2


def test_a_move_after_it_still_supersedes(store: EmbeddedIndex) -> None:
    apply(store, cand("Paris", "lives_in", days=0))
    res, _ = apply(store, cand("Lyon", "lives_in", days=14))  # "I moved to Lyon"
    assert res.action.value == "SUPERSEDE"
    assert _active(store) == ["Lyon"]


@pytest.mark.parametrize(
    ("stored", "said"),
    [
        ("Porto", "Still living in Porto, nothing new there"),
        ("Bosch", "Nichts hat sich geändert, ich arbeite immer noch bei Bosch"),
        ("Airbus", "Rien n'a changé, je travaille toujours chez Airbus"),
        ("vegana", "Sí, sigo siendo vegana, eso no ha cambiado"),
        ("Sonae", "Nada mudou, ainda trabalho na Sonae"),
        ("华为", "没什么变化，我还在华为上班"),
    ],
)
def test_six_languages(stored: str, said: str) -> None:
    f = StoredFact.model_construct(value=stored)
    assert still_holds(f, CandidateFact.model_construct(object=said, context=""))


@pytest.mark.parametrize(
    ("stored", "said"),
    [
        ("Porto", "I still love Porto, but I moved to Lyon"),  # a change cue besides
        ("Porto", "Still in Porto Alegre"),  # another value containing the stored one
        ("vegetarian", "I'm still not vegetarian"),  # the other polarity
        ("Porto", "I live in Porto with my family"),  # no word of continuing
        ("Porto", "Still Lisbon, not Porto"),  # the value said as the one denied
    ],
)
def test_not_a_confirmation(stored: str, said: str) -> None:
    f = StoredFact.model_construct(value=stored)
    assert not still_holds(f, CandidateFact.model_construct(object=said, context=""))


def test_the_turns_change_cue_is_read_too() -> None:
    f = StoredFact.model_construct(value="Porto")
    c = CandidateFact.model_construct(object="still Porto", context="Now I moved, still Porto")
    assert not still_holds(f, c)


@pytest.mark.parametrize(
    "said",
    [
        "Nothing has changed, I still play the saxophone",
        "Nichts hat sich geändert, ich spiele immer noch Saxophon",
        "Rien n'a changé, je joue toujours du saxophone",
        "Nada ha cambiado, sigo tocando el saxofón",
        "Nada mudou, ainda toco saxofone",
        "没什么变化，我还在吹萨克斯",
    ],
)
def test_a_phrase_of_no_change_is_neither_a_change_nor_a_denial(said: str) -> None:
    assert not LEXICON.has_change_cue(said)
    assert not LEXICON.has_negation(said)


@pytest.mark.parametrize(
    ("said", "change", "negation"),
    [
        ("I changed jobs", True, False),
        ("Je ne joue plus du saxophone", True, True),
        ("Ich spiele jetzt Trompete", True, False),
        ("I don't play the saxophone", False, True),
    ],
)
def test_a_change_or_a_denial_is_still_read(said: str, change: bool, negation: bool) -> None:
    assert (LEXICON.has_change_cue(said), LEXICON.has_negation(said)) == (change, negation)


def test_a_restatement_saying_nothing_changed_folds(store: EmbeddedIndex) -> None:
    apply(store, cand("I play the saxophone in a brass band", days=0, multi=True))
    again = "Nothing has changed, I still play the saxophone in a brass band"
    res, _ = apply(store, cand(again, days=14, multi=True))
    assert res.action.value == "DUPLICATE"
    assert _active(store) == ["I play the saxophone in a brass band"]
