"""The extract step adds reference candidates for every extractor, and never keeps the request."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memgate.core.events import CandidateFact, Role, TriagedTurn, TurnEvent
from memgate.stages.extract import Extractor, RuleExtractor
from memgate.stages.references import REFERENCE_PREDICATE
from memgate.stages.statements import HybridExtractor
from memgate.streams.pipeline import ExtractStep


def turn(content: str, role: Role = Role.USER) -> TriagedTurn:
    t = TurnEvent(
        tenant_id="acme",
        user_id="u1",
        session_id="s1",
        turn_id="t1",
        role=role,
        content=content,
        ts=datetime(2024, 5, 1, tzinfo=UTC),
    )
    return TriagedTurn(turn=t, reason="kept")


@pytest.mark.parametrize("extractor", [RuleExtractor(), HybridExtractor()], ids=["rules", "hybrid"])
def test_a_deletion_request_is_an_operation_not_a_fact(extractor: Extractor) -> None:
    out = ExtractStep(extractor)(turn("Please delete what you know about my address."))
    facts = [o for o in out if isinstance(o, CandidateFact)]
    assert [(f.predicate, f.object, f.retracts, f.rationale) for f in facts] == [
        (REFERENCE_PREDICATE, "my address", True, "reference:delete")
    ]
    assert facts[0].context  # the context is kept (masked later, like every candidate's)


def test_the_rest_of_the_turn_is_still_extracted() -> None:
    out = ExtractStep(RuleExtractor())(turn("Scratch that bit about the gym. I live in Porto."))
    got = {(f.predicate, f.object) for f in out if isinstance(f, CandidateFact)}
    assert got == {(REFERENCE_PREDICATE, "the gym"), ("lives_in", "Porto")}


def test_an_assistant_turn_refers_to_nothing() -> None:
    out = ExtractStep(RuleExtractor())(
        turn("I will delete what I know about your address.", Role.ASSISTANT)
    )
    assert not [o for o in out if isinstance(o, CandidateFact)]
