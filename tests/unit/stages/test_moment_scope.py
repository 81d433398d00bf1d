"""Issue 9, noise (session noise27): the moment by its time scope and its mood, in six
languages, with durable counter-examples that carry the same time words.

A state scoped to the day (a day-bounded time and a present-tense state, no change verb,
nothing lasting beside it), an excuse (an apology before a pause or a word of delay), and
a Chinese object-first request (请/帮我 + 把 + object + task verb) are no memory: triage
drops a turn of them alone, and the hybrid extractor leaves them out of a mixed turn's
statement. "Since today", a change verb, or a lasting clause beside the time keep it.
"""

from __future__ import annotations

import pytest

from memgate.core.events import TriageVerdict, TurnEvent
from memgate.stages.moment import moment_reason
from memgate.stages.moment_scope import day_scoped_state, excuse, object_first_request
from memgate.stages.statement_text import split_statements
from memgate.stages.statements import HybridExtractor
from memgate.stages.triage import triage


def _turn(text: str) -> TurnEvent:
    return TurnEvent(
        tenant_id="t", user_id="u", session_id="s", turn_id="1", role="user",
        content=text, ts="2024-05-01T10:00:00Z",
    )  # fmt: skip


# states whose state word is in no class list: only the day's time scope says the moment
DAY_STATES = [
    ("en", "I'm so cranky this afternoon."),
    ("en", "Tonight the neighbours are having a loud party."),
    ("de", "Heute bin ich total unkonzentriert."),
    ("de", "Diese Woche ist bei mir alles etwas chaotisch."),
    ("fr", "Aujourd'hui je suis complètement à plat."),
    ("fr", "Ce soir j'ai la tête ailleurs."),
    ("es", "Hoy estoy un poco despistada."),
    ("es", "Esta semana tengo la cabeza en otra parte."),
    ("pt", "Hoje estou meio distraído."),
    ("pt", "Esta semana tenho a cabeça nas nuvens."),
    ("zh", "今天有点心不在焉。"),
    ("zh", "这周特别乱。"),
]

EXCUSES = [
    ("en", "Sorry, crazy commute, the bridge was closed."),
    ("de", "Entschuldige die Verspätung, der Router hat gesponnen."),
    ("fr", "Désolé du retard, ma connexion a sauté."),
    ("es", "Perdona la demora, se fue la luz."),
    ("pt", "Desculpa a demora, a reunião atrasou."),
    ("zh", "不好意思，网络刚才断了。"),
]

# the same time words or openings, and something that lasts
DURABLE = [
    ("en", "Since today I'm officially vegetarian."),
    ("en", "I'm vegetarian, so no steak for me tonight."),
    ("en", "Today I'm starting my new job at Shopify."),
    ("en", "Sorry, I'm allergic to peanuts."),
    ("de", "Ab heute bin ich Veganerin."),
    ("de", "Ich wohne in Köln, bin aber diese Woche in Hamburg."),
    ("de", "Entschuldigung, ich arbeite bei Siemens."),
    ("fr", "À partir d'aujourd'hui je suis végétarien."),
    ("fr", "Cette semaine je déménage à Lyon."),
    ("fr", "Désolée, je suis végétarienne."),
    ("es", "Desde hoy soy vegetariana."),
    ("es", "Esta semana me mudo a Sevilla."),
    ("es", "Perdona, trabajo en Inditex."),
    ("pt", "A partir de hoje sou vegano."),
    ("pt", "Esta semana me mudo para o Porto."),
    ("pt", "Desculpa, eu moro em Curitiba."),
    ("zh", "从今天起我是素食者。"),
    ("zh", "我刚搬到杭州。"),
    ("zh", "我把车卖了。"),
]


@pytest.mark.parametrize(("lang", "text"), DAY_STATES + EXCUSES)
def test_a_state_of_the_day_or_an_excuse_is_the_moment(lang: str, text: str) -> None:
    assert moment_reason(split_statements(text)) == "moment", lang
    assert triage(_turn(text)) == (TriageVerdict.DROP, "moment"), lang


@pytest.mark.parametrize(
    "text",
    ["请把这封邮件改写得正式一点。", "麻烦你把这段代码解释一下。", "帮我把这段话总结一下吧。"],
)
def test_a_chinese_object_first_request_is_one_off(text: str) -> None:
    assert object_first_request(text)
    assert moment_reason(split_statements(text)) == "one_off_request"


@pytest.mark.parametrize(("lang", "text"), DURABLE)
def test_a_lasting_fact_with_a_time_word_or_an_apology_is_kept(lang: str, text: str) -> None:
    assert not day_scoped_state(text) and not excuse(text), lang
    assert moment_reason(split_statements(text)) is None, lang
    assert triage(_turn(text))[0] is TriageVerdict.KEEP, lang


def test_sympathy_is_no_excuse() -> None:
    # "sorry to hear": no pause and no word of delay after the apology
    assert not excuse("Sorry to hear that, I moved to Lisbon last year.")


@pytest.mark.parametrize(
    ("text", "kept", "left_out"),
    [
        (
            "Ugh, my head is pounding this afternoon and the AC is not helping. "
            "For the record, I'm left-handed.",
            "left-handed",
            "pounding",
        ),
        (
            "Heute bin ich total unkonzentriert. Übrigens spiele ich seit Jahren Handball.",
            "Handball",
            "unkonzentriert",
        ),
        (
            "Perdona la demora, se fue la luz. Para que lo sepas, trabajo de enfermera en Bilbao.",
            "enfermera",
            "luz",
        ),
        (
            "刚开完会，脑子有点乱。我是我们公司后端组的负责人，主要用 Go。"
            "帮我把这段话翻译成英文吧。",
            "负责人",
            "脑子",
        ),
    ],
)
def test_a_mixed_turn_stores_the_lasting_sentence_without_the_moment(
    text: str, kept: str, left_out: str
) -> None:
    facts = HybridExtractor().extract(_turn(text))
    said = " | ".join(f.object for f in facts)
    assert kept in said
    assert left_out not in said
    assert "翻译" not in said


@pytest.mark.parametrize(
    ("lang", "text"),
    [
        ("en", "Sorry, I gave you the wrong city earlier: it's Leeds, not York."),
        ("de", "Entschuldige, das war falsch: ich arbeite bei Bosch, nicht bei Siemens."),
        ("fr", "Désolé, c'était une erreur : mon chien s'appelle Filou."),
        ("es", "Perdona, te di el dato equivocado: vivo en Cádiz."),
        ("pt", "Desculpa, falei errado: meu time é o Grêmio."),
        ("zh", "不好意思，公司名字写错了，我在华为工作。"),
    ],
)
def test_an_apology_before_a_correction_is_no_excuse(lang: str, text: str) -> None:
    assert not excuse(text), lang
    assert triage(_turn(text))[0] is TriageVerdict.KEEP, lang


def test_an_excuse_the_rules_read_says_the_turn_holds_a_memory_but_is_not_stored() -> None:
    text = (
        "Sorry, my dog just knocked my coffee over. Anyway, our nightly backups run on "
        "Restic to a Backblaze bucket. Might be relevant."
    )
    said = " | ".join(f.object for f in HybridExtractor().extract(_turn(text)))
    assert "Restic" in said
    assert "coffee" not in said
