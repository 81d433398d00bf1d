"""noise35: turns that hold nothing durable dropped at triage by structure and word classes.

A task verb with its enclitic pronoun opens a one-off request (es, pt, fr); 给 before the
task verb after a request lead (zh); a request with a clause of what to say after a comma;
a turn opened by a request whose other sentences say nothing of the speaker (its material);
a stranger read as a determiner and a noun of a person met in passing; a discourse lead with
one word before its pause no longer hides a durable own frame. Hard negatives: a fact of
the speaker said beside a request, a possessed person, a verb that is no task verb.
"""

from __future__ import annotations

import pytest

from memgate.core.events import TurnEvent
from memgate.stages.durable_frame import durable_own
from memgate.stages.moment_scope import (
    clitic_request,
    object_first_request,
    request_with_content,
)
from memgate.stages.triage import TriageReason, triage
from memgate.stages.unreal import unreal_kind


def _turn(text: str) -> TurnEvent:
    return TurnEvent(
        tenant_id="t",
        user_id="u",
        session_id="s",
        turn_id="1",
        role="user",
        content=text,
        ts="2024-05-01T10:00:00Z",
    )


def _verdict(text: str) -> tuple[str, str]:
    v, r = triage(_turn(text))
    return v.value, str(r)


# one-off requests the old rules kept, six languages
DROPPED_REQUESTS = [
    ("es", "Redáctame un correo cortito para la casera sobre la lavadora."),
    ("es", "Explícame este error de compilación en pocas palabras."),
    ("pt", "Escreve-me um resumo curto deste artigo sobre baterias."),
    ("pt", "Envia-me a lista das compras da semana em tópicos."),
    ("fr", "Trouve-moi trois idées de cadeau pour une collègue qui part."),
    (
        "de",
        "Schreib bitte eine kurze Nachricht an das ganze Team, dass der Termin auf Freitag rückt.",
    ),
    ("fr", "Rédige une note pour les voisins de l'immeuble, que la fête finit tard samedi."),
    ("zh", "帮我给房东写一段关于暖气维修的消息。"),
    ("en", "Could you explain this traceback? KeyError: 'user_id' at loader.py line 40."),
    ("de", "Übersetz mir bitte diese Fehlermeldung. ValueError in parser.py Zeile 12."),
]


@pytest.mark.parametrize(("lang", "text"), DROPPED_REQUESTS)
def test_one_off_requests_are_dropped_before_extraction(lang: str, text: str) -> None:
    assert _verdict(text) == ("drop", TriageReason.ONE_OFF_REQUEST)


# a fact of the speaker beside a request, a statement with an enclitic that is no task verb
KEPT = [
    "Llámame Maru, así me dicen todos.",
    "Translate this for me, please. I'm a nurse in Porto and my patients speak English.",
    "Corrige ce texte. We moved to Lyon last year and I teach French there.",
    "Schreib bitte eine kurze Mail an meinen Chef, dass ich ab Oktober nur noch in "
    "Teilzeit arbeite.",
    "Nebenbei bemerkt, ich sammle seit Jahren alte Briefmarken.",
]


@pytest.mark.parametrize("text", KEPT)
def test_a_fact_of_the_speaker_beside_a_request_is_kept(text: str) -> None:
    assert _verdict(text)[0] == "keep"


@pytest.mark.parametrize(
    "text",
    ["Revísalo antes de mandarlo.", "Escreve-me uma mensagem curta.", "Corrige-moi ce texte."],
)
def test_a_task_verb_with_its_pronoun_joined_is_a_request(text: str) -> None:
    assert clitic_request(text)


@pytest.mark.parametrize(
    "text",
    ["Llámame Pepe.", "Escribo novelas policiacas.", "Dime la verdad.", "Mudei-me para Braga."],
)
def test_a_verb_that_is_no_task_verb_is_no_request(text: str) -> None:
    assert not clitic_request(text)


def test_gei_before_the_task_verb_after_a_request_lead() -> None:
    assert object_first_request("帮我给老板写一封请假邮件。")
    assert not object_first_request("我给妈妈写了一封信。")


def test_a_request_with_a_clause_of_what_to_say() -> None:
    assert request_with_content("Écris un mot aux voisins, qu'il y aura du bruit samedi.")
    # the clause says something of the speaker: it may be true, it is not the task's
    assert not request_with_content(
        "Write an email to my boss, saying that I am moving to Berlin next month."
    )
    assert not request_with_content("I told my boss, that I quit.")


@pytest.mark.parametrize(
    "text",
    [
        "A waitress at the diner told us her cousin races pigeons.",
        "Eine Kellnerin im Café hat erzählt, dass ihr Onkel Bienen hält.",
        "Un chauffeur de taxi m'a dit que Lyon est plus joli que Paris.",
        "Una turista en el tren decía que su hermano vive en Oslo.",
        "Um motorista no ponto contou que a filha dele mora em Lisboa.",
        "The woman at the bakery said the shop closes in May.",
    ],
)
def test_a_person_met_in_passing_is_a_stranger(text: str) -> None:
    assert unreal_kind(text) == "stranger"


@pytest.mark.parametrize(
    "text",
    [
        "My aunt keeps bees.",
        "A friend of mine told me she keeps bees.",
        "The guide is my cousin.",
        "I met a lady who sells honey.",
    ],
)
def test_a_person_of_the_speakers_life_is_no_stranger(text: str) -> None:
    assert unreal_kind(text) is None


def test_a_discourse_lead_with_one_word_before_its_pause() -> None:
    assert durable_own("Nebenbei bemerkt, ich sammle Briefmarken.")
    assert durable_own("Bref donc, je collectionne les timbres.")
    assert not durable_own("Anyway today, I'm playing tennis.")
