"""References said loosely (the topic before or after the request, a broader word, a bare
anaphor), read by word classes of memgate/data/reference_topics.json, and resolved through
topic families: a kind named reaches its members (a pet for a dog breed, a car for a make)."""

from __future__ import annotations

import pytest

from memgate.core.events import FactStatus
from memgate.sinks.embedded import EmbeddedIndex
from memgate.stages.reference_topics import family_reach
from memgate.stages.references import find_references
from memgate.stages.resolution_lexicon import LEXICON
from tests.unit.stages.resolver_kit import apply, cand, facts, ref


def _refs(text: str) -> list[tuple[str, tuple[str, ...]]]:
    return [(r.op, LEXICON.topic_terms(r.topic)) for r in find_references(text)]


@pytest.mark.parametrize(
    ("text", "op", "term"),
    [
        # the topic first, the request after it, in six languages
        ("That thing about my allergies, it was my son, ignore it.", "delete", "allergies"),
        ("Das mit der Gitarre stimmt nicht, vergiss es.", "delete", "gitarre"),
        ("Ce que je t'ai raconté sur mon chat, tu peux l'effacer.", "delete", "chat"),
        ("Lo de mi hermano no era cierto, olvídalo.", "delete", "hermano"),
        ("Aquilo do meu cachorro, pode apagar, por favor.", "delete", "cachorro"),
        ("关于我工作的那部分不对，别记了。", "delete", "工作"),
        # a complaint, a stuff word, a wish not to keep it
        ("It's odd that you know where my parents live, please remove that.", "delete", "parents"),
        ("Please drop the football stuff, I'd rather you didn't keep it.", "delete", "football"),
    ],
)
def test_a_loose_reference_is_read_by_word_classes(text: str, op: str, term: str) -> None:
    got = _refs(text)
    assert [o for o, _ in got] == [op], got
    assert term in got[0][1]


@pytest.mark.parametrize(
    "text",
    [
        "I keep forgetting my chalk bag at the gym.",
        "Remove the part about logging from the script.",
        "Delete the stale feature branches when you get a chance.",
        "Ignore the warnings about deprecated APIs.",
        "Forget it, I'll write the test myself.",
        "Vergiss nicht, die Datei über die Migration zu löschen.",
        "Borra el párrafo sobre precios del documento.",
    ],
)
def test_no_reference_without_a_memory_word_or_with_a_thing_being_edited(text: str) -> None:
    assert _refs(text) == []


@pytest.mark.parametrize(
    "text",
    [
        "Hmm, no, scratch that, I was thinking of a different project.",
        "Ignore that, my bad.",
        "Vergiss das bitte, ich hab mich vertan.",
        "Olvídalo, me confundí.",
        "当我没说。",
    ],
)
def test_a_bare_anaphor_points_at_the_previous_turn(text: str) -> None:
    refs = find_references(text)
    assert len(refs) == 1 and refs[0].previous, refs


@pytest.mark.parametrize(
    "text",
    [
        "Forget it, I'll do it myself.",
        "Ignore that warning.",
        "No, that's wrong. Forget it.",
        "Forget it, I know the answer already.",
    ],
)
def test_a_bare_anaphor_without_a_word_of_error_is_no_reference(text: str) -> None:
    assert find_references(text) == []


def test_an_anaphor_beside_another_reference_adds_nothing() -> None:
    refs = find_references("Could you drop all the pet stuff? I'd rather you didn't keep that.")
    assert [(r.op, r.topic, r.previous) for r in refs] == [("delete", "pet", False)]


@pytest.mark.parametrize(
    ("topic", "reached", "not_reached"),
    [
        ("the pet stuff", "user has a border collie called juno", "user plays padel"),
        ("o meu carro", "user tem um honda civic prata", "user trabalha com design"),
        ("la musique", "user joue de la guitare électrique", "user travaille comme kiné"),
        ("运动", "我每周去游泳两次", "我在一家银行上班"),
        ("mi familia", "mi hija estudia medicina", "me gusta el jazz"),
    ],
)
def test_a_kind_reaches_its_members(topic: str, reached: str, not_reached: str) -> None:
    reach = family_reach(topic)
    assert reach.search(reached)
    assert not reach.search(not_reached)


def test_a_member_reaches_its_own_set_only() -> None:
    """'running' names running, not every sport: the swimming fact stays."""
    reach = family_reach("the running")
    assert reach.search("user runs a half marathon every year")
    assert not reach.search("user goes swimming twice a week")


def test_a_deletion_by_a_kind_erases_the_member_and_nothing_else(store: EmbeddedIndex) -> None:
    apply(store, cand("I've got a border collie called Juno", "statement", days=0))
    apply(store, cand("I play padel on Sundays", "statement", days=1))
    _, dec = apply(store, ref("pet", "delete", days=5))
    assert dec.reason == "deletion_requested"
    assert dec.details["matched_by"] == "topic_family"
    left = facts(store)
    assert "I've got a border collie called Juno" not in left
    assert left["I play padel on Sundays"].status is FactStatus.ACTIVE


def test_a_bare_anaphor_closes_the_latest_turn_only(store: EmbeddedIndex) -> None:
    # the latest turn's fact is about another subject than the user or the team
    apply(store, cand("Sentry", "uses_tool:monitoring", days=0, subject="team"))
    apply(store, cand("Netlify", "hosted_on", days=1, subject="marketing site"))
    r = ref("that", "retract", days=5)
    r = r.model_copy(
        update={
            "candidate": r.candidate.model_copy(update={"rationale": "reference:retract:previous"})
        }
    )
    _, dec = apply(store, r)
    assert dec.reason == "retracted_by_reference"
    got = facts(store)
    assert got["Netlify"].status is FactStatus.SUPERSEDED
    assert got["Sentry"].status is FactStatus.ACTIVE


def test_a_kind_of_activity_reaches_every_member_said() -> None:
    """'my workouts' names sport: lifting weights and swimming are both meant."""
    reach = family_reach("my workouts")
    assert reach.search("I lift weights on Mondays") and reach.search("I swim on Fridays")
    assert not reach.search("I work at a bank")


@pytest.mark.parametrize(
    "text",
    [
        "Don't forget what I told you about my allergy.",
        "Please don't delete what you know about my address.",
        "Vergiss nicht, was ich dir über meine Allergie gesagt habe.",
        "N'oublie pas ce que je t'ai dit sur mon allergie.",
        "Não esquece daquilo que eu falei do jantar.",
        "别忘了我说的关于过敏的事。",
    ],
)
def test_a_negated_verb_of_forgetting_asks_to_remember(text: str) -> None:
    assert find_references(text) == []


def test_a_no_before_the_request_is_no_negation_of_it() -> None:
    assert _refs("No, forget what I said about the gym.") == [("delete", ("gym",))]


def test_an_edit_of_the_docs_is_no_deletion_of_memory() -> None:
    assert _refs("Delete everything about the old API from the docs.") == []
