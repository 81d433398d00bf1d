"""A deletion that names a category ("mon boulot", "las herramientas del trabajo", "my
prescriptions") reaches the speaker's facts of that category, read by their nearest
prototypes (stages/reference_categories.py); a fact of another category, near by bare
similarity, is not erased; never another user's fact."""

from __future__ import annotations

import pytest

from memgate.core.events import FactStatus, RedactedCandidate
from memgate.sinks.embedded import EmbeddedIndex
from memgate.stages.dedupe import Resolver
from memgate.stages.policy import preset
from memgate.stages.reference_categories import by_category, categories, category_of
from tests.unit.stages.resolver_kit import CLOCK, USEM, cand, facts, minilm, ref, resolve

#: the ``store`` fixture (conftest.py) is of MiniLM's dimension
STORE_EMBEDDER = minilm


def _apply(store: EmbeddedIndex, item: RedactedCandidate) -> str:
    _, dec = resolve(store, item, Resolver(preset("balanced"), minilm(), clock=CLOCK, meaning=USEM))
    return dec.reason


def _said(store: EmbeddedIndex, values: list[str], user: str = "u1") -> None:
    for i, v in enumerate(values):
        _apply(store, cand(v, "statement", days=i, multi=True, user=user))


def _active(store: EmbeddedIndex, value: str, user: str = "u1") -> bool:
    return facts(store, user=user)[value].status is FactStatus.ACTIVE


@pytest.mark.parametrize(
    ("topic", "member", "other"),
    [
        # a work fact said in English, the request in French: the climbing is nearer to
        # "mon boulot" by bare similarity (usem 0.33 against 0.13), and must stay
        ("mon boulot", "I maintain the billing service at Quadra, all in Python",
         "Je fais de l'escalade tous les week-ends"),
        ("herramientas trabajo", "En mi empresa despliego todo con Kubernetes y Terraform",
         "Tengo una hija de cinco años que se llama Vera"),
        # a doctor of the speaker's is a health fact (session 46); a hobby is not
        ("ma santé", "Mon endocrinologue, c'est la docteure Aubertin, à Rennes",
         "J'adore la randonnée, je fais le GR34 chaque été"),
    ],
)  # fmt: skip
def test_a_category_reaches_its_fact_and_not_the_other(
    store: EmbeddedIndex, topic: str, member: str, other: str
) -> None:
    _said(store, [member, other])
    assert _apply(store, ref(topic, "delete", days=30)) == "deletion_requested"
    assert member not in facts(store)  # erased: its content is gone from every status
    assert member not in {f.value for f in facts(store).values() if f.status is FactStatus.ACTIVE}
    assert _active(store, other)


def test_a_fact_of_another_category_is_not_erased(store: EmbeddedIndex) -> None:
    # the user holds no work fact: the climbing, near "mon boulot" by bare similarity, is a
    # hobby, not the work the request names
    _said(store, ["Je fais de l'escalade tous les week-ends"])
    assert _apply(store, ref("mon boulot", "delete", days=30)) == "nothing_referenced"
    assert _active(store, "Je fais de l'escalade tous les week-ends")


def test_another_users_fact_of_the_category_is_not_reached(store: EmbeddedIndex) -> None:
    _said(store, ["I maintain the billing service at Quadra, all in Python"], user="u2")
    _said(store, ["Tengo una hija de cinco años que se llama Vera"])
    assert _apply(store, ref("mon boulot", "delete", days=30)) == "nothing_referenced"
    assert _active(store, "I maintain the billing service at Quadra, all in Python", user="u2")
    assert _active(store, "Tengo una hija de cinco años que se llama Vera")


def test_no_opinion_without_a_category_word_or_without_usem(store: EmbeddedIndex) -> None:
    _said(store, ["I maintain the billing service at Quadra, all in Python"])
    c = ref("mon boulot", "delete", days=30).candidate
    assert by_category(c, store, None) is None
    assert by_category(ref("mein Auto", "delete", days=30).candidate, store, USEM) is None


def test_categories_by_prototypes() -> None:
    assert category_of("Ich nehme jeden Tag Tabletten gegen Bluthochdruck", USEM) == "health"
    assert category_of("Je suis végétarienne depuis l'an dernier", USEM) == "diet"
    assert categories().named("lo de mis aficiones") == frozenset({"hobbies"})
    assert categories().named("the typo") == frozenset()


@pytest.mark.parametrize(
    "text",
    [
        "Forget the question I asked about my salary, it was silly.",
        "Lösch die Frage von vorhin zu meinem Gehalt.",
        "Oublie la question que je t'ai posée sur mon salaire.",
        "Olvida la pregunta que te hice hace un rato sobre mi sueldo.",
        "Esquece aquela pergunta que te fiz agora há pouco, não interessa mais.",
        "Ignore the typo in my last message about my address.",
    ],
)
def test_a_question_or_a_typo_of_the_chat_is_no_reference(text: str) -> None:
    # a thing of the conversation (a question just asked, a typo) is forgotten, not a
    # stored fact: its words must never reach one ("há" reached "Sou vegano há dez anos")
    from memgate.stages.references import find_references

    assert find_references(text) == []
