"""The activity reader of the fold (stages/activity.py) and the de/fr/es episodes the hybrid
extractor types as events (issue 12, item 2).

The sentences are written for these tests; none is in the fold's measurement set
(memgate/data/eval/fold_pairs.json), which a test below checks.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memgate.core.events import FactType, TurnEvent
from memgate.stages.activity import Activity, read_activity, said_as_episode
from memgate.stages.statements import HybridExtractor

ROOT = Path(__file__).resolve().parents[3]

# the same activity said twice: another companion, place, day, wording or tense
SAME = [
    ("I went bouldering at the quarry on Monday.", "I bouldered at the quarry again on Thursday."),
    ("We went sailing on the bay with Ines.", "I sailed with my dad last summer."),
    ("I went to the opera with my aunt.", "I went to the opera again yesterday."),
    ("I played badminton with Jo after work.", "I have played badminton with my sister."),
    ("Ich war am Montag mit Ida joggen.", "Ich bin gestern im Stadtpark gejoggt."),
    ("Ich habe im Park mit Ben Federball gespielt.", "Ich habe Federball im Garten gespielt."),
    ("Nous sommes allés au théâtre avec Zoé.", "Je suis allée au théâtre mardi."),
    ("J'ai joué au badminton avec Inès.", "J'ai encore joué au badminton jeudi."),
    ("Ayer cociné paella con mi madre.", "Cociné para mis amigos el viernes."),
    ("Fui al teatro con Marta.", "Fui otra vez al teatro el domingo."),
]
# another activity in the same frame: never the same
OTHER = [
    ("I went to the opera with my aunt.", "I went to the pharmacy with my aunt."),
    ("I played badminton with Jo after work.", "I played poker with Jo after work."),
    ("I went bouldering at the quarry on Monday.", "I went fishing at the quarry on Monday."),
    ("Ich habe mit Ben Federball gespielt.", "Ich habe mit Ben Karten gespielt."),
    ("Ich war am Montag mit Ida joggen.", "Ich war am Montag mit Ida tanzen."),
    ("Je suis allée au théâtre mardi.", "Je suis allée à la banque mardi."),
    ("Fui al teatro con Marta.", "Fui al banco con Marta."),
    ("Ayer cociné paella con mi madre.", "Ayer pinté un cuadro con mi madre."),
]


@pytest.mark.parametrize(("a", "b"), SAME)
def test_the_same_activity_reads_the_same(a: str, b: str) -> None:
    got = read_activity(a)
    assert got is not None and got == read_activity(b)


@pytest.mark.parametrize(("a", "b"), OTHER)
def test_another_activity_reads_otherwise(a: str, b: str) -> None:
    assert read_activity(a) != read_activity(b)
    assert read_activity(a) is not None and read_activity(b) is not None


def test_a_light_verb_takes_its_object_a_content_verb_is_the_activity() -> None:
    assert read_activity("I went to the opera with Sam") == Activity("go", "opera")
    # the content verb wins over the light verb that carries it, and the place is no part
    assert read_activity("I went kayaking on the river") == Activity("sail", "")
    # German: the object before the verb that ends the clause, not the companion
    # (its stem: a singular and its plural read alike, stages/activity.py ``objects``)
    assert read_activity("Ich habe mit Petra Karten gespielt") == Activity("play", "kart")
    # nothing the lists know: no activity (and so no fold)
    assert read_activity("I renewed my passport") is None
    assert read_activity("I went there") is None


EPISODES = [
    "Ich war am Montag klettern.",
    "Wir sind am Wochenende nach Hamburg gefahren.",
    "Ich habe gestern mit Ben Schach gespielt.",
    "Ich bin gestern mit Ben gejoggt.",  # "sein" with an activity of the lists
    "Je suis allé courir samedi.",
    "Nous avons visité le Louvre dimanche.",
    "Fui a nadar el martes.",
    "Ayer jugué al ajedrez con Ana.",
    "He corrido diez kilómetros esta mañana.",
]
NOT_EPISODES = [
    "Ich wohne seit zwei Jahren in Köln.",
    "Ich bin verheiratet und habe zwei Kinder.",
    "Ich bin seit Wochen völlig erschöpft.",  # "sein" with a state
    "J'ai une sœur qui habite à Nantes.",
    "Je suis infirmière à Lille.",
    "Me encanta el café de Colombia.",
    "Trabajo en un hospital en Sevilla.",
    "I work on AI audit tooling.",  # English: "on ai audit" is no French perfect
]


@pytest.mark.parametrize("text", EPISODES)
def test_a_past_episode_of_the_speaker(text: str) -> None:
    assert said_as_episode(text)


@pytest.mark.parametrize("text", NOT_EPISODES)
def test_a_standing_fact_is_no_episode(text: str) -> None:
    assert not said_as_episode(text)


def turn(text: str) -> TurnEvent:
    return TurnEvent(tenant_id="acme", user_id="u1", session_id="s1", turn_id="t1",
                     role="user", content=text, ts="2024-05-01T10:00:00Z")  # fmt: skip


@pytest.mark.parametrize(
    "text", ["Ich war am Montag klettern.", "Je suis allé courir samedi.", "Fui a nadar el martes."]
)
def test_the_hybrid_types_a_de_fr_es_episode_as_the_english_one(text: str) -> None:
    # "I went climbing on Monday" is an event said under the rules' predicate; so is its
    # German, French and Spanish equivalent, or it can never fold
    (f,) = HybridExtractor().extract(turn(text))
    assert (f.type, f.predicate, f.extractor) == (FactType.EVENT, "event", "hybrid")
    assert f.object == text.rstrip(".")
    assert f.subject == "user"  # the speaker's episode, said with no pronoun in Spanish


def test_a_spanish_episode_of_us_is_the_teams() -> None:
    (f,) = HybridExtractor().extract(turn("Fuimos a remar al embalse el domingo."))
    assert (f.type, f.subject) == (FactType.EVENT, "team")


def test_the_hybrid_keeps_a_de_fr_es_standing_fact_a_fact() -> None:
    facts = HybridExtractor().extract(turn("Trabajo en un hospital en Sevilla."))
    assert facts and all(f.type is not FactType.EVENT for f in facts)


def test_no_sentence_here_is_in_the_measurement_set() -> None:
    raw = json.loads((ROOT / "memgate/data/eval/fold_pairs.json").read_text("utf-8"))
    measured = {s for p in raw["pairs"] for s in (p["a"], p["b"])}
    mine = {s for pair in SAME + OTHER for s in pair} | set(EPISODES) | set(NOT_EPISODES)
    assert not mine & measured


# -- a language's rules read only clauses of that language -------------------------------
# (found by the merged dev eval, d6-dd-fr-banque: the Spanish preterite rule read the
# French "la Société" as clitic + preterite, "la vi", and typed a statement as an episode)


@pytest.mark.parametrize(
    "text",
    [
        "Ma banque est la Société Générale",
        "Je suis cliente de la Société Générale pour mes comptes",
        "Notre équipe utilise la métrique de la qualité",
    ],
)
def test_a_french_statement_is_not_read_by_the_spanish_rules(text: str) -> None:
    assert not said_as_episode(text)


@pytest.mark.parametrize(
    "text",
    [
        "Fui a nadar el martes",
        "Ayer nadé en la piscina",
        "Je suis allé courir samedi",
        "Ich war am Montag klettern",
    ],
)
def test_episodes_of_each_language_are_still_read(text: str) -> None:
    assert said_as_episode(text)
