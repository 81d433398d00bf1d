"""A change finds the fact of its slot by the slot's family (issue 9, supersede, resolve28).

Two readings of :mod:`memgate.stages.resolve_semantic` and the lexicon's family words:

* the family words of a change are read with its change cue taken out and a Latin value
  set apart from the Chinese around it: "Ich arbeite jetzt bei Bosch" names the employer
  ("arbeite bei") as "Ich arbeite bei Siemens" does, "我们现在改用Linear了" the tracker;
* the owner's possessed thing, however the user calls it, is the owner's slot of the
  single-valued family its value names: "team's ticketsystem" holding Jira is the team's
  tracker, so "we switched to Linear now" supersedes it. Never another person's thing.

Negatives: another person's employer or tracker, another family said with a cue, another
value of a multi-valued family, and a change with no cue keep the stored fact active.
"""

from __future__ import annotations

import pytest

from memgate.core.events import FactStatus, StoredFact
from memgate.sinks.embedded import EmbeddedIndex
from memgate.stages.resolution_lexicon import LEXICON
from memgate.stages.resolve_semantic import slot_owner
from tests.unit.stages.resolver_kit import apply, cand, statement, status

# ------------------------------------------------- a cue inside the slot's words


@pytest.mark.parametrize(
    "said",
    [
        "Ich arbeite jetzt bei Bosch",
        "Je travaille maintenant chez Airbus",
        "Trabajo ahora en Inditex",
        "Trabalho agora na Natura",
        "I work now for Stripe",
    ],
)
def test_a_cue_inside_the_employer_words_supersedes_the_employer(
    store: EmbeddedIndex, said: str
) -> None:
    apply(store, cand("Siemens", "works_at", days=0))
    res, dec = apply(store, statement(said, days=14))
    assert (res.action.value, res.reason) == ("SUPERSEDE", "semantic_update")
    assert dec.details["match"] == "family:employer"
    assert status(store, "Siemens") is FactStatus.SUPERSEDED
    assert status(store, said) is FactStatus.ACTIVE


def test_the_family_is_read_through_the_cue_and_the_script_seam() -> None:
    assert LEXICON.family("statement", "Ich arbeite jetzt bei Bosch").name == "employer"
    assert LEXICON.family("statement", "我们现在改用Linear了").name == "tracker"
    assert LEXICON.family("statement", "Ich arbeite bei Siemens").name == "employer"
    # the cue taken out joins no words that were not the slot's
    assert LEXICON.family("statement", "Ich wohne jetzt in Köln").name == "lives_in"
    assert LEXICON.family("statement", "Ich gehe jetzt schlafen") is None


# ------------------------------------------------- the owner's thing is its slot


@pytest.mark.parametrize(
    ("thing", "stored", "said"),
    [
        (
            "team's ticketsystem",
            "Unser Ticketsystem ist Jira",
            "Wir sind inzwischen auf Linear umgestiegen",
        ),
        (
            "team's outil de tickets",
            "Notre outil de tickets, c'est Jira",
            "On est passés à Linear maintenant",
        ),
        (
            "team's herramienta de incidencias",
            "Nuestra herramienta de incidencias es Jira",
            "Ahora usamos Linear",
        ),
        (
            "team's ferramenta de chamados",
            "Nossa ferramenta de chamados é o Jira",
            "Agora usamos o Linear",
        ),
        ("team's 工单系统", "我们的工单系统是Jira", "我们现在改用Linear了"),
    ],
)
def test_a_change_of_the_family_supersedes_the_owners_thing(
    store: EmbeddedIndex, thing: str, stored: str, said: str
) -> None:
    apply(store, statement(stored, days=0, subject=thing))
    res, dec = apply(store, statement(said, days=14, subject="team"))
    assert (res.action.value, res.reason) == ("SUPERSEDE", "semantic_update")
    assert dec.details["match"] == "family:tracker"
    assert status(store, stored) is FactStatus.SUPERSEDED
    assert status(store, said) is FactStatus.ACTIVE


def test_slot_owner_reads_a_thing_but_never_a_person() -> None:
    def owner(subject: str, predicate: str, value: str) -> str:
        f = StoredFact.model_construct(subject=subject, predicate=predicate, value=value)
        return slot_owner(f, LEXICON.family(predicate, value))

    assert owner("team's ticketsystem", "statement", "Unser Ticketsystem ist Jira") == "team"
    # no family (a car is one since supersede29: "user's carro" is the user's car slot)
    assert owner("user's bici", "statement", "Minha bici é uma Caloi") == "users bici"
    assert owner("user's bruder", "statement", "Mein Bruder nutzt Jira") == "users bruder"
    assert owner("user's hermana", "works_at", "Inditex") == "users hermana"


# ------------------------------------------------- what stays apart


@pytest.mark.parametrize(
    ("person", "said"),
    [
        ("user's schwester", "Ich arbeite jetzt bei Bosch"),
        ("user's sister", "I work now for Stripe"),
        ("user's hermana", "Trabajo ahora en Inditex"),
    ],
)
def test_another_persons_employer_stays(store: EmbeddedIndex, person: str, said: str) -> None:
    apply(store, cand("Siemens", "works_at", days=0, subject=person))
    res, _ = apply(store, statement(said, days=14))
    assert res.action.value == "ADD"
    assert status(store, "Siemens") is FactStatus.ACTIVE


def test_another_persons_tracker_stays(store: EmbeddedIndex) -> None:
    apply(store, statement("Mein Bruder nutzt Jira", days=0, subject="user's bruder"))
    res, _ = apply(
        store, statement("Wir sind inzwischen auf Linear umgestiegen", days=14, subject="team")
    )
    assert res.action.value == "ADD"
    assert status(store, "Mein Bruder nutzt Jira") is FactStatus.ACTIVE


@pytest.mark.parametrize(
    ("thing", "stored", "said"),
    [
        # another family said with a cue: version control is not the tracker
        (
            "team's ticketsystem",
            "Unser Ticketsystem ist Jira",
            "Wir sind inzwischen auf GitLab umgestiegen",
        ),
        # a move is not a new employer
        ("user", "Je travaille chez Airbus", "J'habite maintenant à Lyon"),
        # no cue: a second statement of the slot is not read as a change
        (
            "team's herramienta de incidencias",
            "Nuestra herramienta de incidencias es Jira",
            "Usamos Linear para el roadmap",
        ),
    ],
)
def test_other_slots_and_no_cue_keep_the_fact(
    store: EmbeddedIndex, thing: str, stored: str, said: str
) -> None:
    apply(store, statement(stored, days=0, subject=thing))
    res, _ = apply(store, statement(said, days=14, subject="team" if thing != "user" else "user"))
    assert res.action.value == "ADD"
    assert status(store, stored) is FactStatus.ACTIVE
