"""A retraction by reference ends where a clause with its own subject begins (issue 9,
judge5): "ignore what I said about X, we use Y" withdraws X and states Y."""

from __future__ import annotations

import pytest

from memgate.core.events import TurnEvent
from memgate.stages.extract import RuleExtractor


def _turn(text: str) -> TurnEvent:
    return TurnEvent(tenant_id="t", user_id="u", session_id="s", turn_id="x1", role="user",
                     content=text, ts="2024-01-01T00:00:00Z")  # fmt: skip


@pytest.mark.parametrize(
    ("said", "old", "new"),
    [
        (
            "Disregard what I told you about CircleCI, we build on Buildkite.",
            "CircleCI",
            "Buildkite",
        ),
        ("Forget what I said about Neovim, I code in Zed these days.", "Neovim", "Zed"),
    ],
)
def test_the_clause_after_the_topic_is_read_as_a_statement(said: str, old: str, new: str) -> None:
    facts = RuleExtractor().extract(_turn(said))
    withdrawn = [f.object for f in facts if f.retracts]
    stated = [f.object for f in facts if not f.retracts]
    assert any(old in o for o in withdrawn), withdrawn
    assert not any(new in o for o in withdrawn), withdrawn
    assert any(new in o for o in stated), stated


def test_an_apposition_after_the_topic_stays_in_the_topic() -> None:
    """A comma followed by a name, not a subject, is part of what is withdrawn."""
    facts = RuleExtractor().extract(_turn("Forget what I said about my neighbour, Ruth."))
    assert facts and all(f.retracts for f in facts)
    assert any("Ruth" in f.object for f in facts)
