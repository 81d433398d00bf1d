"""Issue 9, by word class and frame (development file scenarios_dev14.jsonl): a disruption
of the moment said with a time of the moment, calls and ailments and late rising as classes
of the moment, slips said in one clause; a Chinese request that forgets "X 的事情"; what a
deletion topic reaches through a kind (a phone, a CI, monitoring, a car model)."""

from __future__ import annotations

import pytest

from memgate.core.events import FactStatus
from memgate.sinks.embedded import EmbeddedIndex
from memgate.stages.moment import moment_reason
from memgate.stages.reference_topics import family_reach
from memgate.stages.references import find_references
from memgate.stages.statement_text import split_statements
from tests.unit.stages.resolver_kit import apply, cand, facts, ref

# ------------------------------------------------------------ noise


@pytest.mark.parametrize(
    "text",
    [
        # a disruption with a time of the moment
        "Der Bus hat heute mal wieder Verspätung.",
        "My train is delayed this morning.",
        "O meu voo atrasou hoje.",
        "我现在在候机。",
        # a call, with a time of the moment
        "I'm on the phone right now, give me five minutes.",
        "Ich telefoniere gerade.",
        "En este momento estoy en una llamada.",
        "Je suis au téléphone, là, tout de suite en ce moment.",
        "我正在打电话。",
        # an ailment of the day
        "I've got a splitting headache today.",
        "J'ai mal à la tête ce soir.",
        "Hoy tengo dolor de garganta.",
        "今天肚子疼。",
        # getting up late today
        "I overslept this morning.",
        "Hoje acordei tarde.",
        "我今天起晚了。",
        # a slip, in one clause
        "I accidentally deleted the holiday photos yesterday.",
        "J'ai oublié mon parapluie au restaurant.",
        "Sin querer borré la lista de la compra.",
    ],
)
def test_a_state_or_slip_of_the_moment_by_its_class_is_the_moment(text: str) -> None:
    assert moment_reason(split_statements(text)) == "moment"


@pytest.mark.parametrize(
    "text",
    [
        "I work nights at the hospital.",
        "I get migraines whenever I skip breakfast.",
        "Je me lève toujours tard le dimanche.",
        "I accidentally became a cat person, I have three cats now.",
        "Our flights to Lisbon are usually delayed, so we always book a buffer day.",
        "我正在学日语。",
        "Ich bin allergisch gegen Nüsse.",
    ],
)
def test_durable_sentences_with_those_words_are_not_the_moment(text: str) -> None:
    assert moment_reason(split_statements(text)) is None


# ------------------------------------------------------------ deletion


@pytest.mark.parametrize(
    ("sentence", "topic"),
    [
        ("忘掉我健身房的事情吧。", "我健身房"),
        ("把我养猫的事情忘掉。", "我养猫"),
    ],
)
def test_a_chinese_request_to_forget_x_no_de_shiqing_is_a_deletion(
    sentence: str, topic: str
) -> None:
    refs = find_references(sentence)
    assert [(r.op, r.topic) for r in refs] == [("delete", topic)]


@pytest.mark.parametrize("sentence", ["我忘掉了那件事。", "我们同事的事情很多。"])
def test_a_statement_about_forgetting_is_no_request(sentence: str) -> None:
    assert find_references(sentence) == []


@pytest.mark.parametrize(
    ("topic", "member", "other"),
    [
        ("meinem Handy", "Ich habe ein Pixel 8", "Ich spiele Bratsche"),
        ("mi móvil", "Uso un iPhone 15", "Toco el violín"),
        ("我们持续集成", "team builds with GitHub Actions", "we write Kotlin"),
        ("our CI", "we build on CircleCI", "we write Kotlin"),
        ("unser Monitoring", "Wir überwachen alles mit Prometheus", "Wir schreiben Kotlin"),
        ("mi coche", "Tengo un Seat Ibiza rojo", "Vivo en Bilbao"),
    ],
)
def test_a_deletion_topic_naming_a_kind_reaches_its_members(
    store: EmbeddedIndex, topic: str, member: str, other: str
) -> None:
    assert family_reach(topic).search(member)
    assert not family_reach(topic).search(other)
    apply(store, cand(member, "statement", days=0, multi=True))
    apply(store, cand(other, "statement", days=1, multi=True))
    res, dec = apply(store, ref(topic, "delete", days=30))
    assert res.action.value == "SUPERSEDE", dec.reason
    got = facts(store)
    assert member not in got or got[member].status is not FactStatus.ACTIVE
    assert got[other].status is FactStatus.ACTIVE


def test_a_seat_preference_is_no_car() -> None:
    assert not family_reach("my car").search("user prefers an aisle seat")


@pytest.mark.parametrize(
    ("topic", "other"),
    [
        ("Datadog", "we use Grafana for dashboards"),
        ("Jenkins", "we build on CircleCI"),
        ("my Pixel", "my work phone is an iPhone"),
    ],
)
def test_one_product_named_does_not_reach_the_other_products_of_its_kind(
    topic: str, other: str
) -> None:
    assert not family_reach(topic).search(other)


@pytest.mark.parametrize(
    "text",
    [
        # a reply promised for later, with a state of the moment
        "Là je suis dans le métro, je te réponds plus tard.",
        "I'm heading out for lunch, back in an hour.",
        # a breakdown or a battery running out, in one clause
        "The printer on our floor is jammed again.",
        "Meu celular está quase sem bateria.",
        "我手机快没电了。",
        # waiting rooms and queues, with a time of the moment
        "Ich sitze gerade im Wartezimmer beim Arzt.",
        "Je suis à la bourre ce matin.",
    ],
)
def test_more_states_of_the_moment_by_class(text: str) -> None:
    assert moment_reason(split_statements(text)) == "moment"


@pytest.mark.parametrize(
    "text",
    [
        "I accidentally fell in love with bouldering and now climb three times a week.",
        "Ich arbeite wieder bei Siemens.",
        "Trabajo otra vez en Madrid.",
        "My laptop is a ThinkPad X1.",
    ],
)
def test_durable_sentences_with_a_slip_or_again_are_not_the_moment(text: str) -> None:
    assert moment_reason(split_statements(text)) is None


@pytest.mark.parametrize(
    ("topic", "member", "other"),
    [
        ("mon boulot", "Je suis comptable chez KPMG", "J'adore la randonnée"),
        ("我工作", "我在腾讯做前端开发", "我周末喜欢钓鱼"),
        ("mi trabajo", "Soy enfermera en el hospital clínico", "Vivo en Bilbao"),
    ],
)
def test_a_job_topic_reaches_a_statement_naming_a_profession(
    store: EmbeddedIndex, topic: str, member: str, other: str
) -> None:
    assert family_reach(topic).search(member)
    assert not family_reach("nurse").search("I am a lawyer")  # one profession: itself only
    apply(store, cand(member, "statement", days=0, multi=True))
    apply(store, cand(other, "statement", days=1, multi=True))
    res, dec = apply(store, ref(topic, "delete", days=30))
    assert res.action.value == "SUPERSEDE", dec.reason
    got = facts(store)
    assert member not in got or got[member].status is not FactStatus.ACTIVE
    assert got[other].status is FactStatus.ACTIVE


@pytest.mark.parametrize(
    "text",
    [
        "Estou esperando o técnico da internet, vou demorar para responder.",
        "I'm waiting for the plumber, so I'll be slow to reply.",
    ],
)
def test_waiting_with_a_reply_said_to_come_late_is_the_moment(text: str) -> None:
    assert moment_reason(split_statements(text)) == "moment"


@pytest.mark.parametrize(
    ("text", "moment"),
    [
        ("Ich bin gerade beim Friseur.", True),
        ("Estoy en la peluquería ahora.", True),
        ("Estou no cabeleireiro agora.", True),
        ("我现在在理发店。", True),
        ("I'm at the dentist right now.", True),
        ("I currently work at the dentist's as an assistant.", False),
        ("Ich arbeite gerade beim Arzt als Empfangskraft.", False),
        ("My dentist is Dr. Patel.", False),
    ],
)
def test_a_place_of_an_errand_now_is_the_moment_unless_the_speaker_works_there(
    text: str, moment: bool
) -> None:
    assert (moment_reason(split_statements(text)) == "moment") is moment
