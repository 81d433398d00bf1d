"""Issue 9, by word class and frame (development file scenarios_dev12.jsonl): states of
the moment by class (hunger and sleepiness, being late, a meeting, the weather of the day,
waiting for a stage of a journey), thanks before a comment, and what a deletion request's
topic reaches (a compound's head, the other number of a noun, a Chinese term in another
order, the sentence a typed fact was read from)."""

from __future__ import annotations

import pytest

from memgate.core.events import FactStatus
from memgate.sinks.embedded import EmbeddedIndex
from memgate.stages.moment import moment_reason
from memgate.stages.references import find_references
from memgate.stages.statement_text import split_statements
from tests.unit.stages.resolver_kit import apply, cand, facts, ref

# ------------------------------------------------------------ noise


@pytest.mark.parametrize(
    "text",
    [
        "I'm starving, I skipped lunch today.",
        "Ich hab heute so Hunger, kein Frühstück gehabt.",
        "J'ai sommeil ce matin.",
        "今天好困啊。",
        "Sorry, running late this morning.",
        "Bin heute spät dran.",
        "Je suis en réunion jusqu'à 15h, je te réponds après.",
        "Estoy en una reunión hasta las cinco.",
        "Heute liegt bei uns so viel Schnee, dass die Bahn nicht fährt.",
        "Hoy llueve muchísimo.",
        "Está chovendo muito hoje.",
        "Estoy en el aeropuerto esperando el embarque.",
        "Waiting for boarding at gate 12.",
    ],
)
def test_a_state_of_the_moment_by_its_class_is_the_moment(text: str) -> None:
    assert moment_reason(split_statements(text)) == "moment"


@pytest.mark.parametrize(
    "text",
    [
        "I'm always hungry after swimming, so I keep snacks in my bag.",
        "Je suis souvent en retard le lundi.",
        "We have a standup meeting every morning at nine.",
        "I moved to Seattle because I love the rain.",
        "Ich spiele seit zehn Jahren Handball.",
        "Thanks, I moved to Berlin last month.",
    ],
)
def test_durable_sentences_with_those_words_are_not_the_moment(text: str) -> None:
    assert moment_reason(split_statements(text)) is None


@pytest.mark.parametrize(
    "text",
    ["Merci beaucoup, c'est parfait !", "Danke schön, das ist super.", "Thanks, it's perfect."],
)
def test_thanks_before_a_comment_is_chatter(text: str) -> None:
    assert moment_reason(split_statements(text)) == "chatter"


# ------------------------------------------------------------ deletion by a topic word


@pytest.mark.parametrize(
    ("said", "topic"),
    [
        ("Mein Heimatflughafen ist Hamburg", "meinem Flughafen"),
        ("Meu hotel preferido em São Paulo é o Unique", "meus hotéis"),
        ("我们用禅道管理缺陷", "缺陷管理"),
    ],
)
def test_a_deletion_topic_reaches_a_compound_a_plural_and_chinese_in_another_order(
    store: EmbeddedIndex, said: str, topic: str
) -> None:
    apply(store, cand(said, "statement", days=0, multi=True))
    apply(store, cand("Ich spiele Bratsche", "statement", days=1, multi=True))
    res, dec = apply(store, ref(topic, "delete", days=30))
    assert res.action.value == "SUPERSEDE", dec.reason
    got = facts(store)
    assert said not in got or got[said].status is not FactStatus.ACTIVE
    assert got["Ich spiele Bratsche"].status is FactStatus.ACTIVE


def test_a_deletion_reaches_a_typed_fact_by_the_sentence_it_was_read_from(
    store: EmbeddedIndex,
) -> None:
    typed = cand("Cloudflare", "uses_tool:cloud", days=0, subject="team")
    typed = typed.model_copy(
        update={
            "candidate": typed.candidate.model_copy(
                update={"context": "Our DNS is hosted on Cloudflare."}
            )
        }
    )
    apply(store, typed)
    apply(store, cand("We release to production every Tuesday", "statement", days=1, multi=True))
    res, dec = apply(store, ref("our DNS", "delete", days=30))
    assert res.action.value == "SUPERSEDE", dec.reason
    got = facts(store)
    assert "Cloudflare" not in got or got["Cloudflare"].status is not FactStatus.ACTIVE
    assert got["We release to production every Tuesday"].status is FactStatus.ACTIVE


@pytest.mark.parametrize(
    ("word", "term", "same"),
    [
        ("heimatflughafen", "flughafen", True),
        ("hotel", "hotéis", True),
        ("reunion", "reuniones", True),
        ("flug", "flughafen", False),
        ("server", "service", False),
        ("model", "modem", False),
        ("hotel", "hostel", False),
    ],
)
def test_the_same_word_by_stem_head_or_number(word: str, term: str, same: bool) -> None:
    from memgate.stages.resolve_semantic import _same_word

    assert _same_word(word, term) is same


# ------------------------------------------------------------ confirmation: a change said beside


@pytest.mark.parametrize(
    ("sentence", "clause", "beside"),
    [
        ("I left Shopify last month and joined Stripe", "i left shopify", "joined Stripe"),
        ("Ich habe Siemens verlassen und bin jetzt bei Bosch", "ich habe siemens verlassen",
         "bin jetzt bei Bosch"),
    ],
)  # fmt: skip
def test_a_change_said_after_a_conjunction_is_said_beside_the_stop(
    sentence: str, clause: str, beside: str
) -> None:
    from memgate.stages.references import said_beside

    assert said_beside(sentence, [clause]) == beside


def test_a_stop_and_a_new_employer_in_one_sentence_keep_the_new_one() -> None:
    from datetime import UTC, datetime

    from memgate.core.events import TurnEvent
    from memgate.stages.references import with_references
    from memgate.stages.statements import HybridExtractor

    turn = TurnEvent(
        tenant_id="t", user_id="u", session_id="s", turn_id="x", role="user",
        content="I left Shopify last month and joined Stripe.",
        ts=datetime(2024, 5, 3, tzinfo=UTC),
    )  # fmt: skip
    found = with_references(turn, HybridExtractor().extract(turn))
    kept = [c.object for c in found if not c.retracts]
    assert any("Stripe" in o and "Shopify" not in o for o in kept), kept
    assert any(c.retracts and "Shopify" in c.object for c in found)


# ------------------------------------------------------------ supersede: leaving, moving


@pytest.mark.parametrize(
    ("sentence", "topic"),
    [
        ("Ahora soy diseñador en Cabify, dejé Glovo en marzo.", "Glovo"),
        ("Dejé Telefónica y ahora estoy en BBVA.", "Telefónica"),
        ("Saí da Natura e agora trabalho na Ambev.", "Natura"),
        ("J'ai quitté Decathlon, je suis chez Michelin depuis lundi.", "Decathlon"),
        ("Ich habe Siemens verlassen und bin jetzt bei Bosch.", "Siemens"),
        ("我从腾讯离职了，现在在字节。", "腾讯"),
    ],
)
def test_leaving_a_named_place_stops_it_in_every_language(sentence: str, topic: str) -> None:
    refs = find_references(sentence)
    assert [(r.op, r.topic) for r in refs] == [("stop", topic)]


@pytest.mark.parametrize(
    "sentence",
    [
        "Dejé de fumar el año pasado.",
        "Dejé las llaves en casa.",
        "Saí de casa cedo hoje.",
        "J'ai quitté la maison tôt.",
        "Ich habe meine Brille vergessen.",
    ],
)
def test_leaving_a_habit_or_a_place_of_the_day_stops_nothing(sentence: str) -> None:
    assert find_references(sentence) == []


@pytest.mark.parametrize(
    ("sentence", "city"),
    [
        ("Wir sind letzten Monat nach Leipzig umgezogen.", "Leipzig"),
        ("Ich bin im Mai nach Graz umgezogen.", "Graz"),
        ("Ich bin nach Tokio gezogen.", "Tokio"),
    ],
)
def test_a_german_move_with_the_participle_last_is_where_the_user_lives(
    sentence: str, city: str
) -> None:
    from datetime import UTC, datetime

    from memgate.core.events import TurnEvent
    from memgate.stages.statements import HybridExtractor

    turn = TurnEvent(
        tenant_id="t", user_id="u", session_id="s", turn_id="x", role="user",
        content=sentence, ts=datetime(2024, 5, 3, tzinfo=UTC),
    )  # fmt: skip
    found = HybridExtractor().extract(turn)
    assert [(c.predicate, c.object) for c in found] == [("lives_in", city)]


@pytest.mark.parametrize(
    ("old", "subject", "new"),
    [
        ("Mi móvil es un iPhone 12", "user's móvil", "Me he pasado a un Pixel 8, lo regalé"),
        ("My smartphone is a Galaxy S21", "user's smartphone", "I switched to an iPhone 15"),
        ("Meu celular é um Xiaomi", "user's celular", "Agora uso um iPhone"),
    ],
)  # fmt: skip
def test_a_new_phone_replaces_the_phone(
    store: EmbeddedIndex, old: str, subject: str, new: str
) -> None:
    apply(store, cand(old, "statement", days=0, subject=subject, multi=True))
    res, dec = apply(store, cand(new, "event", days=30, multi=True))
    assert res.action.value == "SUPERSEDE", dec.reason
    assert facts(store)[old].status is FactStatus.SUPERSEDED


def test_a_phone_and_a_laptop_are_not_one_slot(store: EmbeddedIndex) -> None:
    old = "Mi móvil es un iPhone 12"
    apply(store, cand(old, "statement", days=0, subject="user's móvil", multi=True))
    res, _ = apply(store, cand("Me he pasado a un portátil Lenovo", "event", days=30, multi=True))
    assert facts(store)[old].status is FactStatus.ACTIVE
    assert res.action.value != "SUPERSEDE"


@pytest.mark.parametrize(
    "said", ["Me he pasado a Linear", "Nos hemos pasado a Vercel", "He dejado el club"]
)
def test_a_spanish_perfect_of_a_change_verb_is_a_change_cue(said: str) -> None:
    from memgate.stages.resolution_lexicon import LEXICON

    assert LEXICON.has_change_cue(said)


@pytest.mark.parametrize(
    ("sentence", "lives_in"),
    [
        ("I've moved over to Hilton for all my stays now.", None),
        ("We moved over to Austin in May.", "Austin"),
        ("We moved to the Emirates last year.", "the Emirates"),
    ],
)
def test_moving_over_to_a_hotel_chain_is_no_move(sentence: str, lives_in: str | None) -> None:
    from datetime import UTC, datetime

    from memgate.core.events import TurnEvent
    from memgate.stages.statements import HybridExtractor

    turn = TurnEvent(
        tenant_id="t", user_id="u", session_id="s", turn_id="x", role="user",
        content=sentence, ts=datetime(2024, 5, 3, tzinfo=UTC),
    )  # fmt: skip
    found = [c.object for c in HybridExtractor().extract(turn) if c.predicate == "lives_in"]
    assert found == ([lives_in] if lives_in else [])


def test_a_new_hotel_chain_replaces_the_hotel_chain(store: EmbeddedIndex) -> None:
    old = "My go-to hotel chain is Marriott"
    apply(store, cand(old, "statement", days=0, subject="user's go-to hotel chain", multi=True))
    new = "I've moved over to Hilton for all my stays now"
    res, dec = apply(store, cand(new, "event", days=30, multi=True))
    assert res.action.value == "SUPERSEDE", dec.reason
    assert facts(store)[old].status is FactStatus.SUPERSEDED


# ------------------------------------------------------------ dedupe in another language


@pytest.mark.parametrize(
    ("first", "predicate", "again"),
    [
        (
            "trains de nuit",
            "prefers:other",
            "En général, je prends le train de nuit quand le trajet est long",
        ),
        ("vuelos nocturnos", "prefers:other", "Cuando viajo lejos prefiero un vuelo nocturno"),
    ],
)  # fmt: skip
def test_a_restatement_in_another_language_folds_by_its_words(
    store: EmbeddedIndex, first: str, predicate: str, again: str
) -> None:
    apply(store, cand(first, predicate, days=0, multi=predicate == "statement"))
    res, dec = apply(store, cand(again, "statement", days=30, multi=True))
    assert res.action.value == "DUPLICATE", dec.reason
    assert facts(store)[first].occurrences == 2


@pytest.mark.parametrize(
    ("first", "again"),
    [
        ("Je vais au travail à vélo", "Je vais au travail en train"),
        ("Mi hija estudia medicina", "Mi hijo estudia derecho"),
        ("I take the night train on long trips", "I take the early train on short trips"),
    ],
)
def test_another_value_in_the_same_words_stays_apart(
    store: EmbeddedIndex, first: str, again: str
) -> None:
    apply(store, cand(first, "statement", days=0, multi=True))
    res, _ = apply(store, cand(again, "statement", days=30, multi=True))
    assert res.action.value != "DUPLICATE"
    assert facts(store)[first].occurrences == 1
