"""The sentences that confirm or restate a guess reach resolution (issue 9, confirm28):
a confirmation opening read after an opening of agreement ("Oui, c'est confirmé : ...",
"Yes, double-checked: ..."), and a hedged fact whose subject is a pronoun form that opens
with an article ("a gente usa ...": Portuguese "we"). The sentences are written for these
tests, in other words than the development files."""

from __future__ import annotations

import pytest

from memgate.core.events import TurnEvent
from memgate.stages.durable_frame import hedged_fact
from memgate.stages.statement_text import without_confirmation_leads
from memgate.stages.statements import BELIEVED_CONFIDENCE, HybridExtractor, checked_turn


def turn(text: str) -> TurnEvent:
    return TurnEvent(tenant_id="acme", user_id="u1", session_id="s1", turn_id="t1",
                     role="user", content=text, ts="2024-05-01T10:00:00Z")  # fmt: skip


#: An agreement, a confirmation opening, the fact (the fact alone as stored).
AGREED = {
    "en": ("Yes, double-checked: my passport expires in October.",
           "my passport expires in October."),
    "de": ("Ja, ist bestätigt: mein Mietvertrag endet im März.", "mein Mietvertrag endet im März."),
    "fr": ("Oui, c'est vérifié : mon bail se termine en avril.", "mon bail se termine en avril."),
    "es": ("Sí, está confirmado: mi contrato termina en julio.", "mi contrato termina en julio."),
    "pt": ("Sim, foi confirmado: meu contrato de aluguel termina em maio.",
           "meu contrato de aluguel termina em maio."),
    "zh": ("是的，已确认：我的护照十月到期。", "我的护照十月到期。"),
}  # fmt: skip


@pytest.mark.parametrize("lang", sorted(AGREED))
def test_a_confirmation_opening_is_read_after_an_agreement(lang: str) -> None:
    text, fact = AGREED[lang]
    assert without_confirmation_leads(text) == (fact, True)
    assert checked_turn(turn(text)).confirmed is True


@pytest.mark.parametrize("lang", ["en", "de", "fr", "es", "pt"])
def test_the_fact_after_agreement_and_confirmation_is_extracted(lang: str) -> None:
    text, fact = AGREED[lang]
    got = [f.object for f in HybridExtractor().extract(checked_turn(turn(text)))]
    assert any(fact.rstrip(".").casefold() in (o or "").casefold() for o in got), got


@pytest.mark.parametrize(
    "text",
    [
        "Yes, my passport expires in October.",  # an agreement with no confirmation
        "Oui, j'ai vérifié les logs et rien trouvé.",  # checked something, no colon: no lead
        "Sí, confirmado.",  # a confirmation with nothing after it
    ],
)
def test_an_agreement_alone_confirms_nothing(text: str) -> None:
    assert without_confirmation_leads(text) == (text, False)
    assert checked_turn(turn(text)).confirmed is None


def test_a_hedged_fact_of_a_gente_is_a_belief() -> None:
    text = "Acho que a gente paga o aluguel no dia cinco."
    assert hedged_fact(text) == "a gente paga o aluguel no dia cinco."
    got = [(f.object, f.confidence) for f in HybridExtractor().extract(turn(text))]
    assert got and all(c == BELIEVED_CONFIDENCE for _, c in got), got
    assert any("aluguel" in (o or "") for o, _ in got), got


def test_an_opinion_of_a_gente_stays_an_opinion() -> None:
    assert hedged_fact("Acho que a gente deveria mudar de fornecedor.") is None


@pytest.mark.parametrize(
    "text",
    ["I checked: Redis is on version 7.", "Verified: Nginx is on version 1.25."],
)
def test_a_fact_kept_with_its_confirmation_opening_stays_kept(text: str) -> None:
    # the classifier scores these higher with the opening than without it: cutting the
    # opening before the keep decision must not drop them
    got = [f.object for f in HybridExtractor().extract(checked_turn(turn(text)))]
    assert any("version" in (o or "") for o in got), got
