"""A stop said by the team reaches the team's qualified facts ("our build tool is ..."),
as a stop said by the user reaches the user's ("my plan is ...")."""

from __future__ import annotations

import pytest

from memgate.core.events import FactStatus
from memgate.sinks.embedded import EmbeddedIndex
from tests.unit.stages.resolver_kit import apply, cand, facts, ref


@pytest.mark.parametrize(
    ("old", "subject", "topic"),
    [
        ("Our build tool is gradle", "team's build tool", "gradle"),
        ("Notre outil de tickets est redmine", "team's outil de tickets", "redmine"),
        ("Unsere Datenbank ist mariadb", "team's datenbank", "mariadb"),
    ],
)
def test_a_team_stop_closes_the_teams_qualified_fact(
    store: EmbeddedIndex, old: str, subject: str, topic: str
) -> None:
    apply(store, cand(old, "statement", days=0, subject=subject))
    _, dec = apply(store, ref(topic, "stop", days=5, subject="team"))
    assert dec.reason == "stopped_by_reference"
    assert facts(store)[old].status is FactStatus.SUPERSEDED


def test_a_team_stop_leaves_a_qualified_fact_naming_something_else(store: EmbeddedIndex) -> None:
    apply(store, cand("Our build tool is gradle", "statement", days=0, subject="team's build tool"))
    apply(store, ref("redmine", "stop", days=5, subject="team"))
    assert facts(store)["Our build tool is gradle"].status is FactStatus.ACTIVE
