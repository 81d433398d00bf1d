"""A confirmation closes the pending guess it answers, under whatever key the guess was
stored (stages/resolve_confirm.py); a confirmation of something else leaves it waiting."""

from __future__ import annotations

from memgate.core.events import FactStatus, RedactedCandidate
from memgate.sinks.embedded import EmbeddedIndex
from tests.unit.stages.resolver_kit import apply, cand, facts


def _with(item: RedactedCandidate, **update: object) -> RedactedCandidate:
    return item.model_copy(update={"candidate": item.candidate.model_copy(update=update)})


def test_a_confirmation_under_another_key_closes_the_guess(store: EmbeddedIndex) -> None:
    guess = _with(cand("我觉得我们的打印机是惠普的", "statement", days=0), confidence=0.5)
    res, _ = apply(store, guess)
    assert res.writes[0].status is FactStatus.PENDING
    said = _with(cand("对，打印机是惠普的", "uses_tool:printer", days=1), confirmed=True)
    _, dec = apply(store, said)
    assert dec.reason == "confirmed_value", dec
    got = facts(store)
    assert got["我觉得我们的打印机是惠普的"].status is FactStatus.SUPERSEDED
    assert got["对，打印机是惠普的"].status is FactStatus.ACTIVE


def test_a_confirmation_of_something_else_leaves_the_guess_pending(store: EmbeddedIndex) -> None:
    apply(
        store, _with(cand("I think my landlord is Mr Brooks", "statement", days=0), confidence=0.5)
    )
    _, dec = apply(store, _with(cand("Berlin", "lives_in", days=1), confirmed=True))
    assert dec.reason != "confirmed_value"
    assert facts(store)["I think my landlord is Mr Brooks"].status is FactStatus.PENDING
