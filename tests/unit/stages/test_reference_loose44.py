"""Session 44 (ref44): withdrawals said in word forms the word classes of
memgate/data/reference_topics.json did not hold, and deletions naming a category of money,
travel or the people at work (memgate/data/reference_categories.json).

* Verb forms: an infinitive after a modal ("kannst du streichen", "pode desconsiderar"), a
  separable verb ("nimm ... raus"), a clitic ("retíralo"), "忽略掉".
* A German topic said first ends where the verb of the clause comes ("Das mit X hab ich
  ...", "... kannst du ...", "... will ich ..."); a Romance topic ends at its relative
  clause of saying ("lo de X que te dije").
* Words of error: "isn't mine", "no es así", "不算"; a lead of its own with the formal
  "vous" ("ce que je vous ai dit sur"); a correction the speaker announces is their own.
* A category word inside a longer word of another category names that one only ("gente de
  mi trabajo" is the colleagues, not the job); the job includes the colleagues.
"""

from __future__ import annotations

import pytest

from memgate.core.events import FactStatus
from memgate.sinks.embedded import EmbeddedIndex
from memgate.stages.reference_categories import categories, category_of
from memgate.stages.references import find_references
from tests.unit.stages.resolver_kit import USEM, apply, cand, facts, ref


def _refs(text: str) -> list[tuple[str, str, bool]]:
    return [(r.op, r.topic.lower(), r.retracted) for r in find_references(text)]


@pytest.mark.parametrize(
    ("text", "op", "topic"),
    [
        ("Das mit Grafana hab ich falsch gesagt, das nutzt ein anderes Team.", "retract",
         "grafana"),
        ("Das mit dem Segelkurs kannst du streichen, der fällt aus.", "delete", "segelkurs"),
        ("Den Teil mit der Steuerberaterin nimm bitte raus.", "delete", "steuerberaterin"),
        ("Die Angaben zu meinem Arbeitgeber will ich nicht mehr bei dir haben, bitte löschen.",
         "delete", "arbeitgeber"),
        ("Ce que je vous ai dit sur la voiture est faux, c'était celle de mon frère.",
         "retract", "voiture"),
        ("Lo del gimnasio que te dije, retíralo, era de mi prima.", "retract", "gimnasio"),
        ("Pode desconsiderar aquilo das aulas de piano, desisti.", "retract", "piano"),
        ("之前说网球的那件事是我朋友的，忽略掉吧。", "retract", "网球"),
        ("刚才说的 Jenkins 那条不算，还没定。", "retract", "jenkins"),
        ("That cat thing isn't mine, it's my roommate's.", "retract", "cat"),
        ("A correction to something I told you: that peanut thing was wrong.", "retract",
         "peanut"),
    ],
)  # fmt: skip
def test_a_withdrawal_in_other_word_forms(text: str, op: str, topic: str) -> None:
    got = _refs(text)
    assert len(got) == 1, got
    assert ("retract" if got[0][2] else got[0][0]) == op
    assert topic in got[0][1]
    assert not got[0][1].rstrip().endswith(("hab", "kannst du", "nimm", "que te dije", "will ich"))


@pytest.mark.parametrize(
    "text",
    [
        # a word of a new class, with no thing the user said: no withdrawal
        "Das mit dem Deployment hab ich gestern erledigt.",
        "Den Teil mit der Einleitung kannst du kürzer machen.",
        "La ventanilla del coche no es así de grande.",
        "这个 bug 不算严重，先放着。",
        "That laptop isn't mine, it belongs to the office.",
        "Retira el mensaje de error del log, por favor.",
        "Ce que je vous ai dit sur la réunion, c'est pour demain.",
        # "not at all", "not like that": said of how a thing is, not of what was said
        "Das mit dem Umzug ist gar nicht so einfach.",
        "Lo de la mudanza no es así de fácil.",
        "Aquilo da mudança não é bem assim tão simples.",
    ],
)
def test_no_withdrawal_without_a_thing_said_and_an_error(text: str) -> None:
    assert _refs(text) == []


def test_a_german_topic_first_withdraws_the_fact_it_names(store: EmbeddedIndex) -> None:
    apply(store, cand("Unser Monitoring läuft über Grafana", "statement", days=0))
    apply(store, cand("Wir deployen mit Argo CD", "statement", days=1))
    (r,) = find_references("Das mit Grafana hab ich falsch gesagt, das nutzt ein anderes Team.")
    apply(store, ref(r.topic, "retract", days=7))
    got = facts(store)
    assert got["Unser Monitoring läuft über Grafana"].status is FactStatus.SUPERSEDED
    assert got["Wir deployen mit Argo CD"].status is FactStatus.ACTIVE


@pytest.mark.parametrize(
    ("topic", "names"),
    [
        ("meine Finanzen", {"money"}),
        ("mi dinero", {"money"}),
        ("mes voyages", {"travel"}),
        ("minhas férias", {"travel"}),
        ("my colleagues", {"colleagues"}),
        ("gente de mi trabajo", {"colleagues"}),
        ("mon boulot", {"job", "colleagues"}),
        ("mein Auto", set()),
    ],
)
def test_the_categories_a_topic_names(topic: str, names: set[str]) -> None:
    assert categories().named(topic) == frozenset(names)


@pytest.mark.parametrize(
    ("text", "category"),
    [
        ("Ich zahle jeden Monat 900 Euro für meinen Baukredit ab", "money"),
        ("Nos vamos a Lisboa del 12 al 19 de octubre", "travel"),
        ("Mi jefe se llama Ramón y es muy exigente", "colleagues"),
    ],
)
def test_the_new_categories_by_prototypes(text: str, category: str) -> None:
    assert category_of(text, USEM) == category
