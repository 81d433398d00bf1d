"""Spanish and Portuguese first person marked on the verb alone (keepemb, issue 9): the
``first_person_verb`` cue reads the shape of the sentence's first verb
(``pro_drop_first_person`` of statements.json: endings and closed classes of exceptions),
not a list of phrases.

The sentences are written for these tests, in other words than the development file
(labelled_turns_dev5.jsonl) and the training rows (statements_prodrop.jsonl).
"""

from __future__ import annotations

import pytest

from memgate.core.events import TriageVerdict, TurnEvent
from memgate.stages.statement_text import cues
from memgate.stages.statements import HybridExtractor
from memgate.stages.triage import triage


@pytest.mark.parametrize(
    "text",
    [
        "Estudio piano en el conservatorio de Málaga.",  # es present -o
        "Nunca tomo el metro en hora punta.",  # a negation before the verb
        "Estudié Derecho en la Complutense.",  # es preterite -é
        "Viví seis años en Lima con mi tía.",  # es preterite -í
        "Faço pilates numa academia do bairro.",  # pt present -o
        "Morei cinco anos em Lisboa.",  # pt preterite -ei
        "Também cozinho para a família aos domingos.",  # an adverb before the verb
        "Sempre escolho o voo da manhã.",
    ],
)
def test_first_person_on_the_verb_is_first_person(text: str) -> None:
    assert cues(text)["first_person_verb"], text


@pytest.mark.parametrize(
    "text",
    [
        "Nuevo año, nuevas metas.",  # an adjective of the verb's shape
        "Pedro vive en Lima con su tía.",  # a name before its verb
        "Todo el equipo está de vacaciones.",  # a determiner
        "Número do pedido: 5512, já está pago.",  # a noun before a colon of labels
        "Hablando de viajes, el vuelo sale a las seis.",  # a gerund
        "Cansado de tanto viaje, el equipo se fue a casa.",  # a participle
        "Domingo tem jogo do Flamengo no Maracanã.",  # a day of the week
        "Also the build runs on Jenkins now.",  # English
        "Désolé du retard, la réunion a débordé.",  # French
        "¿Cuánto cuesta el plan anual?",  # a question word
    ],
)
def test_a_word_of_the_verbs_shape_that_is_no_verb_is_not_first_person(text: str) -> None:
    c = cues(text)
    assert not c["first_person"] and not c["first_person_verb"], text


def turn(text: str) -> TurnEvent:
    return TurnEvent(tenant_id="acme", user_id="u1", session_id="s1", turn_id="t1",
                     role="user", content=text, ts="2024-05-01T10:00:00Z")  # fmt: skip


@pytest.mark.parametrize(
    "text",
    [
        "Toco la batería en un grupo de rock del barrio.",
        "Trabalho como contadora num escritório em Belo Horizonte.",
    ],
)
def test_a_durable_sentence_with_the_first_person_on_the_verb_is_stored(text: str) -> None:
    t = turn(text)
    verdict, _ = triage(t)
    assert verdict is TriageVerdict.KEEP and HybridExtractor().extract(t), text
