"""The same fact said again, found among the nearest facts (stages/resolve_same.py).

Restatements the folds by rule do not meet: the stored fact's subject a thing with no owner
said ("El código ..."), the restatement the team's; or the restatement longer than the
folds' bars with one more name ("..., in case it helps with the flight to Denver"). Six
languages; hard negatives of another value, another person, a change, one more thing, a
number changed, another stance stay two facts. MiniLM's vectors, as the gate's.
"""

from __future__ import annotations

import pytest

from memgate.core.events import FactStatus
from memgate.sinks.embedded import EmbeddedIndex
from memgate.stages.dedupe import Resolver
from memgate.stages.policy import preset
from memgate.stages.resolve_same import SAME, Same, guarded, plainly_said_again
from tests.unit.stages.resolver_kit import CLOCK, USEM, facts, minilm, resolve, statement

STORE_EMBEDDER = minilm


def _resolver(data: Same = SAME) -> Resolver:
    return Resolver(preset("balanced"), minilm(), clock=CLOCK, meaning=USEM)


FOLDS = [
    # (stored subject, stored, restatement subject, restatement)
    ("user", "My Hilton Honors status is Diamond.",
     "user", "I'm Diamond with Hilton Honors, in case it helps with the Denver trip."),
    ("frontend", "Das Frontend ist in Angular geschrieben.",
     "team", "Wir schreiben das ganze Frontend in Angular, nur damit du Bescheid weißt."),
    ("user", "J'ai un abonnement Deezer Premium.",
     "user", "Je suis sur Deezer Premium, si ça peut aider pour la playlist du mariage à Nantes."),
    ("repositorio del cliente", "El repositorio del cliente está en Bitbucket.",
     "team", "Lo tenemos en Bitbucket, el repositorio del cliente, digo."),
    ("banco de dados", "O banco de dados principal roda em PostgreSQL.",
     "team", "A gente roda o banco principal em PostgreSQL, só pra você saber."),
    ("客户端代码", "客户端代码都放在GitLab上。",
     "team", "我们把客户端的代码都放在GitLab，你知道的。"),
]  # fmt: skip


@pytest.mark.parametrize(("subj_f", "said", "subj_c", "again"), FOLDS)
def test_a_restatement_the_rules_do_not_meet_folds(
    store: EmbeddedIndex, subj_f: str, said: str, subj_c: str, again: str
) -> None:
    resolve(store, statement(said, subject=subj_f, days=0), _resolver())
    res, dec = resolve(store, statement(again, subject=subj_c, days=30), _resolver())
    assert (res.action.value, res.reason) == ("DUPLICATE", "same_fact"), dec.details
    assert dec.details["match"] == "same:model"
    got = facts(store)
    assert set(got) == {said} and got[said].occurrences == 2


NEGATIVES = [
    # another value, no name in common
    ("frontend", "Das Frontend ist in Angular geschrieben.",
     "team", "Das Admin-Panel ist in React geschrieben."),
    # another person's fact
    ("user's hermano", "Mi hermano trabaja en Google desde 2019.",
     "user's hermana", "Mi hermana trabaja en Google, en Madrid."),
    # a change of the fact
    ("repositorio del cliente", "El repositorio del cliente está en Bitbucket.",
     "team", "Ya no usamos Bitbucket, ahora el repositorio del cliente está en GitHub."),
    # one more thing, the same value
    ("billing service", "The billing service runs on Kubernetes.",
     "team", "Our search service runs on Kubernetes too, by the way."),
    ("支付服务", "支付服务部署在Kubernetes上。",
     "team", "我们的搜索服务也部署在Kubernetes上。"),
    # the team's thing is no habit of the user's
    ("team's backend", "Unser Backend ist in Kotlin geschrieben.",
     "user", "Ich schreibe privat viel Kotlin, nur damit du Bescheid weißt."),
    # a number changed
    ("api", "Our API runs on Node 18.",
     "team", "We run the API on Node 20, in case it matters for the Denver rollout."),
    # another stance
    ("user", "J'adore le jazz de Miles Davis.",
     "user", "Je n'aime pas du tout Miles Davis, franchement, surtout à Paris."),
]  # fmt: skip


@pytest.mark.parametrize(("subj_f", "said", "subj_c", "again"), NEGATIVES)
def test_a_related_fact_is_not_folded(
    store: EmbeddedIndex, subj_f: str, said: str, subj_c: str, again: str
) -> None:
    resolve(store, statement(said, subject=subj_f, days=0), _resolver())
    res, _ = resolve(store, statement(again, subject=subj_c, days=30), _resolver())
    assert res.reason != "same_fact"
    got = facts(store)
    assert got[said].occurrences == 1


def test_a_redelivered_restatement_changes_nothing(store: EmbeddedIndex) -> None:
    subj_f, said, subj_c, again = FOLDS[3]
    resolve(store, statement(said, subject=subj_f, days=0), _resolver())
    resolve(store, statement(again, subject=subj_c, days=30), _resolver())
    res, _ = resolve(store, statement(again, subject=subj_c, days=30), _resolver())
    assert (res.action.value, res.reason) == ("DUPLICATE", "redelivered")
    got = facts(store)
    assert set(got) == {said} and got[said].occurrences == 2
    assert got[said].status is FactStatus.ACTIVE


def test_a_fact_said_later_is_no_target(store: EmbeddedIndex) -> None:
    """A restatement that arrives late (its turn before the stored fact's) stands alone."""
    subj_f, said, subj_c, again = FOLDS[3]
    resolve(store, statement(said, subject=subj_f, days=30), _resolver())
    res, _ = resolve(store, statement(again, subject=subj_c, days=0), _resolver())
    assert res.reason != "same_fact"


def test_off_folds_nothing(store: EmbeddedIndex, monkeypatch: pytest.MonkeyPatch) -> None:
    import memgate.stages.resolve_same as rs

    monkeypatch.setattr(
        rs.same_target, "__defaults__", (None, Same("t", "off", 0.5, 0.5, 0.5, 0.5))
    )
    subj_f, said, subj_c, again = FOLDS[3]
    resolve(store, statement(said, subject=subj_f, days=0), _resolver())
    res, _ = resolve(store, statement(again, subject=subj_c, days=30), _resolver())
    assert res.reason != "same_fact"


def test_the_shipped_data() -> None:
    assert SAME.mode == "model"
    assert 0.5 <= SAME.model_bar <= 0.9
    with pytest.raises(ValueError, match="unknown mode"):
        Same.from_data({"version": "1", "mode": "always", "model_bar": 0.5, "usem_bar": 0.5,
                        "minilm_bar": 0.5})  # fmt: skip


@pytest.mark.parametrize(
    ("stored", "said", "folds"),
    [
        ("Our API runs on Node 18.", "We run the API on Node 18.", True),
        ("Our API runs on Node 18.", "We run the API on Node 20.", False),
        ("I live in Porto.", "I don't live in Porto.", False),
        ("We use Jira for tickets.", "We switched from Jira to Linear.", False),
    ],
)
def test_the_guard(stored: str, said: str, folds: bool) -> None:
    assert guarded("statement", stored, said, 0.8) is folds


# fold33: a fact of common words (no name, no number) said again in other words: the guard
# reads its content words said again (its last one among them) in place of a shared name
PLAIN_FOLDS = [
    ("I can't have gluten, I'm coeliac.",
     "Gluten is off the menu for me because of coeliac disease."),
]  # fmt: skip


@pytest.mark.parametrize(("said", "again"), PLAIN_FOLDS)
def test_a_restatement_of_common_words_folds(store: EmbeddedIndex, said: str, again: str) -> None:
    resolve(store, statement(said, days=0), _resolver())
    res, dec = resolve(store, statement(again, days=30), _resolver())
    assert (res.action.value, res.reason) == ("DUPLICATE", "same_fact"), dec.details
    got = facts(store)
    assert set(got) == {said} and got[said].occurrences == 2


PLAIN_NEGATIVES = [
    # the frame said again with another thing
    ("user", "I'm allergic to peanuts.", "user", "I'm allergic to cat hair."),
    ("user", "Ich trinke keinen Alkohol.", "user", "Ich trinke keinen Kaffee."),
    ("user", "Je fais du yoga le matin.", "user", "Je fais du yoga le soir."),
    ("user", "Me encanta la comida picante.", "user", "Me encanta la comida dulce."),
    ("user", "Tenho medo de avião.", "user", "Tenho medo de altura."),
    ("user", "我对海鲜过敏。", "user", "我对花粉过敏。"),
    # another person's fact in the same words
    ("user", "I'm allergic to peanuts.", "user's sister", "My sister is allergic to peanuts."),
]  # fmt: skip


@pytest.mark.parametrize(("subj_f", "said", "subj_c", "again"), PLAIN_NEGATIVES)
def test_the_same_frame_with_another_thing_stays_apart(
    store: EmbeddedIndex, subj_f: str, said: str, subj_c: str, again: str
) -> None:
    resolve(store, statement(said, subject=subj_f, days=0), _resolver())
    res, _ = resolve(store, statement(again, subject=subj_c, days=30), _resolver())
    assert res.reason != "same_fact"
    assert facts(store)[said].occurrences == 1


@pytest.mark.parametrize(
    ("stored", "said", "plain"),
    [
        ("I'm allergic to shellfish", "Shellfish makes me break out in hives", True),
        ("Sou intolerante à lactose", "Não tolero lactose, leite me faz mal", True),
        ("Je suis diabétique", "J'ai un diabète sucré", True),  # an inflection, its accent moved
        ("I'm allergic to shellfish", "I'm allergic to dust", False),  # not the complement
        ("I live in Porto", "Porto is where I live", False),  # a name: the anchor guard's
        ("我对海鲜过敏", "海鲜我不能吃", False),  # Chinese: not read
    ],
)
def test_plainly_said_again(stored: str, said: str, plain: bool) -> None:
    assert plainly_said_again(stored, said) is plain


def test_the_guard_of_a_fact_of_common_words() -> None:
    assert guarded(
        "statement", "I'm allergic to shellfish", "Shellfish gives me hives, I avoid it", 0.8
    )
    assert not guarded("statement", "I'm allergic to shellfish", "I'm allergic to cats", 0.8)


# fold33: a sentence led by another person ("My wife goes ...") with the subject left the
# user's is that person's fact, never the speaker's said again; a companion said later in
# the sentence is no other person's fact
LED_BY_ANOTHER = [
    ("I go swimming every Sunday.", "My wife goes swimming every Sunday."),
    ("Je cours tous les matins.", "Ma sœur court tous les matins."),
    ("Ich spiele jeden Samstag Schach.", "Mein Bruder spielt jeden Samstag Schach."),
    ("Eu corro todas as manhãs.", "Meu pai corre todas as manhãs."),
    ("我每天晚上散步。", "我妈妈每天晚上散步。"),
]


@pytest.mark.parametrize(("said", "again"), LED_BY_ANOTHER)
def test_a_sentence_led_by_another_person_is_not_folded(
    store: EmbeddedIndex, said: str, again: str
) -> None:
    resolve(store, statement(said, days=0), _resolver())
    res, _ = resolve(store, statement(again, days=30), _resolver())
    assert res.action.value != "DUPLICATE"
    assert facts(store)[said].occurrences == 1


def test_a_companion_said_later_still_folds(store: EmbeddedIndex) -> None:
    said = "I go swimming every Sunday."
    resolve(store, statement(said, days=0), _resolver())
    res, _ = resolve(
        store, statement("I go swimming every Sunday with my wife.", days=30), _resolver()
    )
    assert res.action.value == "DUPLICATE"
    assert facts(store)[said].occurrences == 2
