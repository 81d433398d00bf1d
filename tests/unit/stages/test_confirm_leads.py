"""Confirmation leads read by their shape (stages/confirm_leads.py, conf41): a short lead
with a verb of checking, confirming, looking up or deciding before a colon, or a word of a
settled plan before a colon or a comma, says how the speaker knows what follows; the lead
is cut and the turn confirms what it states. Written for these tests, in other words than
the development files. Hard negatives: a lead with a negation, a condition, a question, a
label before a colon, nothing after the lead, a long opening clause."""

from __future__ import annotations

import pytest

from memgate.core.events import TurnEvent
from memgate.stages.statement_text import without_confirmation_leads
from memgate.stages.statements import HybridExtractor, checked_turn


def turn(text: str) -> TurnEvent:
    return TurnEvent(tenant_id="acme", user_id="u1", session_id="s1", turn_id="t1",
                     role="user", content=text, ts="2024-05-01T10:00:00Z")  # fmt: skip


#: a lead no fixed phrase lists, and the statement after it
LEADS = [
    ("Went through my old emails: my landlord is Mr. Okoro.", None),  # no word of the class
    ("Asked my sister and she confirmed: my flight lands at 9.", "my flight lands at 9."),
    ("Ich habe im Vertrag nachgeschaut: meine Kündigungsfrist ist drei Monate.",
     "meine Kündigungsfrist ist drei Monate."),
    ("J'ai regardé sur la facture : mon forfait est chez Free.", "mon forfait est chez Free."),
    ("El médico lo confirmó: soy celíaca.", "soy celíaca."),
    ("Olhei no contrato: o meu plano é o Premium.", "o meu plano é o Premium."),
    ("It's official, I'm the new team lead for payments.", "I'm the new team lead for payments."),
    ("Jetzt ist es offiziell, ich bin Teamleiterin.", "ich bin Teamleiterin."),
    ("C'est signé, on déménage à Lyon en juin.", "on déménage à Lyon en juin."),
    ("Ya es oficial, me caso en septiembre.", "me caso en septiembre."),
    ("搞定了，我的新工位在三楼。", "我的新工位在三楼。"),
]  # fmt: skip


@pytest.mark.parametrize(("text", "fact"), LEADS)
def test_a_lead_read_by_its_shape_is_cut_and_confirms(text: str, fact: str | None) -> None:
    if fact is None:
        assert without_confirmation_leads(text) == (text, False)
        return
    assert without_confirmation_leads(text) == (fact, True)
    assert checked_turn(turn(text)).confirmed is True


NOT_LEADS = [
    "Not confirmed yet: the offsite is in Porto.",  # a negation in the lead
    "Noch nicht entschieden, vielleicht ziehen wir nach Graz.",
    "Once it's official, I'll tell the whole team about it.",  # a condition
    "Quand ce sera fait, je t'envoie le lien.",
    "Checked what? The logs say nothing.",  # a question mark in the lead
    "My favourite dish: pizza with anchovies.",  # a label, no word of the class
    "Done, thanks!",  # nothing stated after the lead
    "I looked at three flats in the old town last weekend with my partner: none fit.",  # long
]


@pytest.mark.parametrize("text", NOT_LEADS)
def test_other_openings_are_no_confirmation(text: str) -> None:
    assert without_confirmation_leads(text) == (text, False)
    assert checked_turn(turn(text)).confirmed is None


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("La veterinaria lo comprobó: mi perra es una galga.", "mi perra es una galga"),
        ("Hab in der App nachgesehen: mein Tarif heißt Komfort Plus.",
         "mein Tarif heißt Komfort Plus"),
        ("C'est officiel, je suis inscrite à la chorale du quartier !",
         "je suis inscrite à la chorale du quartier"),
    ],
)  # fmt: skip
def test_the_statement_after_a_lead_read_by_its_shape_is_extracted(text: str, fact: str) -> None:
    got = [f.object for f in HybridExtractor().extract(checked_turn(turn(text)))]
    assert any(fact.casefold() in (o or "").casefold() for o in got), got
