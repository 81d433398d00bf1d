"""A fact said with a word of doubt is no stated fact (issue 9, judge7): it is held back
(an inference below the policy's explicit confidence, or no fact) until confirmed. The
sentences are written for this test, in other words than scenarios_dev8.jsonl."""

from __future__ import annotations

import pytest

from memgate.core.events import TurnEvent
from memgate.stages.policy import preset
from memgate.stages.statements import HybridExtractor


def turn(text: str) -> TurnEvent:
    return TurnEvent(tenant_id="acme", user_id="u1", session_id="s1", turn_id="t1",
                     role="user", content=text, ts="2024-05-01T10:00:00Z")  # fmt: skip


@pytest.mark.parametrize(
    "text",
    [
        "Vermutlich zahlen wir die Miete am Monatsersten.",
        "Il me semble que mon forfait mobile est chez Bouygues.",
        "Me parece que nuestro servidor de correo es Postfix.",
        "Se não me engano, o nosso banco é o Itaú.",
        "我们的数据库应该是PostgreSQL。",
        "The staging cluster runs Kubernetes 1.29, I'd have to double-check.",
        "If I remember correctly, my insurer is Allianz.",
    ],
)
def test_a_fact_said_with_doubt_is_not_stored_as_stated(text: str) -> None:
    explicit = preset("balanced").explicit_confidence
    facts = HybridExtractor().extract(turn(text))
    assert all(f.confidence < explicit for f in facts), [(f.object, f.confidence) for f in facts]


@pytest.mark.parametrize(
    "text",
    ["Unsere Miete zahlen wir am Monatsersten.", "Mon forfait mobile est chez Bouygues."],
)
def test_the_same_fact_said_plainly_is_stated(text: str) -> None:
    explicit = preset("balanced").explicit_confidence
    facts = HybridExtractor().extract(turn(text))
    assert any(f.confidence >= explicit for f in facts), [(f.object, f.confidence) for f in facts]
