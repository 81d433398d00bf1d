"""A name is written as a name: where the writer uses capitals, a lower-case word after
'call me' is no name ("call me every Friday")."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memgate.core.events import TurnEvent
from memgate.stages.statements import HybridExtractor


def _names(text: str) -> list[str]:
    t = TurnEvent(
        tenant_id="a", user_id="u", session_id="s", turn_id="t", role="user",
        content=text, ts=datetime(2024, 1, 1, tzinfo=UTC),
    )  # fmt: skip
    return [f.object for f in HybridExtractor().extract(t) if f.predicate == "name_is"]


@pytest.mark.parametrize(
    "text", ["Please call me every Friday about the order.", "Call me after 5 on Mondays."]
)
def test_a_lower_case_word_after_call_me_is_no_name(text: str) -> None:
    assert _names(text) == []


@pytest.mark.parametrize(
    ("text", "name"), [("Please call me Jon.", "Jon"), ("my name is jon", "jon")]
)
def test_a_name_is_still_read(text: str, name: str) -> None:
    assert _names(text) == [name]


def _predicates(text: str) -> list[str]:
    t = TurnEvent(
        tenant_id="a", user_id="u", session_id="s", turn_id="t", role="user",
        content=text, ts=datetime(2024, 1, 1, tzinfo=UTC),
    )  # fmt: skip
    return [f.predicate for f in HybridExtractor().extract(t)]


@pytest.mark.parametrize(
    "text",
    [
        "Seit März arbeite ich bei Bosch.",  # German verb-second: the subject follows the verb
        "I joined Shopify last month.",  # a joining names an employer when a name follows
        "J'ai rejoint Peugeot en janvier.",
    ],
)
def test_an_employer_said_in_another_order_or_by_joining_is_the_employer(text: str) -> None:
    assert "works_at" in _predicates(text)


@pytest.mark.parametrize("text", ["I joined a gym last month.", "We joined the call late."])
def test_joining_something_unnamed_is_no_employer(text: str) -> None:
    assert "works_at" not in _predicates(text)
