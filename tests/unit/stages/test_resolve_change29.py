"""A change said as "Y instead of X", "left X and joined Y", "opened Y and closed X"
(stages/resolve_change.py, memgate/data/change.json, issue 9, supersede29).

The old value of the structure pins the owner's one fact that names it, an elided article
("l'", "d'") a word of its own. Hard negatives: another person's change, an old value no
fact of the owner names, a second value added ("also").
"""

from __future__ import annotations

import time

import pytest

from memgate.core.events import FactStatus
from memgate.sinks.embedded import EmbeddedIndex
from memgate.stages.resolve_change import replaced_value
from tests.unit.stages.resolver_kit import apply_change, changed, statement, status


@pytest.mark.parametrize(
    ("stored", "said"),
    [
        ("I bank with Barclays", "I opened an account at Monzo and closed the one with Barclays"),
        ("I'm a member of the Riverside tennis club", "I left Riverside and joined Oakwood"),
        (
            "Ich nehme Ibuprofen gegen Rückenschmerzen",
            "Der Arzt hat mir Diclofenac statt Ibuprofen verschrieben",
        ),
        (
            "Je prends du Doliprane pour mes migraines",
            "Mon médecin m'a prescrit de l'ibuprofène à la place du Doliprane",
        ),
        (
            "Je prends de l'oméprazole le matin",
            "Le gastro m'a mis sous pantoprazole au lieu de l'oméprazole",
        ),
        (
            "Tomo ibuprofeno para la espalda",
            "El traumatólogo me recetó naproxeno en lugar del ibuprofeno",
        ),
        ("Minha operadora é a Vivo", "Cancelei a Vivo e contratei a Claro"),
        ("我用的输入法是搜狗", "我用微信输入法代替了搜狗"),
    ],
)
def test_an_instead_of_or_a_left_and_joined_structure_supersedes(
    store: EmbeddedIndex, stored: str, said: str
) -> None:
    changed(store, stored, said)


def test_the_structures_are_read_and_stay_linear() -> None:
    assert replaced_value("I left Google and joined Meta") == ("Google", "Meta")
    assert replaced_value("Abri conta no Inter e fechei a do Bradesco") == (
        "Bradesco",
        "conta no Inter",
    )
    assert replaced_value("Dejé el gimnasio y me apunté a natación") == ("gimnasio", "natación")
    assert replaced_value("We use Linear instead of Jira for tickets") == ("Jira", "We use Linear")
    assert replaced_value("I also started climbing") is None
    # English says these of a moment too: there the old value is a name
    assert replaced_value("I had tea instead of coffee this morning") is None
    assert replaced_value("We left the party and started walking home") is None
    assert replaced_value("I quit Deutsche Bank to join Revolut") == ("Deutsche Bank", "Revolut")
    # bounded runs on both sides of the verb: a long text without punctuation stays linear
    started = time.perf_counter()
    for word in ("left ", "joined ", "quitter ", "abri ", "dejé ", "ab instead of "):
        replaced_value(word * 4000)
    assert time.perf_counter() - started < 3.0


@pytest.mark.parametrize(
    ("subject", "stored", "said"),
    [
        ("user's frère", "Je travaille chez Renault", "Mon frère a quitté Renault pour Stellantis"),
        ("user's sister", "I bank with Lloyds", "My sister left Lloyds and joined Starling"),
    ],
)
def test_another_persons_change_supersedes_nothing(
    store: EmbeddedIndex, subject: str, stored: str, said: str
) -> None:
    apply_change(store, statement(stored, days=0))
    res, _ = apply_change(store, statement(said, days=14, subject=subject))
    assert res.action.value == "ADD"
    assert status(store, stored) is FactStatus.ACTIVE


def test_an_old_value_no_fact_names_or_an_added_value_supersede_nothing(
    store: EmbeddedIndex,
) -> None:
    apply_change(store, statement("I drive a Skoda Octavia", days=0))
    res, _ = apply_change(store, statement("I take the train instead of driving", days=14))
    assert res.action.value == "ADD"
    assert status(store, "I drive a Skoda Octavia") is FactStatus.ACTIVE
    apply_change(store, statement("Je joue du piano", days=15))
    res, _ = apply_change(
        store, statement("J'ai aussi commencé la guitare au lieu du piano", days=20)
    )
    assert res.action.value == "ADD"
    assert status(store, "Je joue du piano") is FactStatus.ACTIVE


def test_a_person_a_family_holds_as_the_speakers_slot_still_changes(
    store: EmbeddedIndex,
) -> None:
    """ "user's new boss" names a person, but the manager family's slot of the speaker."""
    apply_change(store, statement("Ana", days=0, predicate="contact:manager"))
    said = "My new boss is Tomás, Ana moved to another team"
    res, _ = apply_change(store, statement(said, days=14, subject="user's new boss"))
    assert res.action.value == "SUPERSEDE"
    assert status(store, "Ana") is FactStatus.SUPERSEDED
