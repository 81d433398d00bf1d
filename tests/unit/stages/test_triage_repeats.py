"""Triage reads a sentence as the speaker states it: its repeat marker cut.

A repeat marker ("wie gesagt", "like I said") is discourse, not content
(:mod:`memgate.stages.repeats`). Extraction always read sentences without it; triage read
the marker as talk about the conversation and dropped the turn as chatter, so a fact said
again never reached resolution to be counted once more (old: ``chatter``)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memgate.core.events import Role, TurnEvent
from memgate.stages.triage import TriageReason, TriageVerdict, triage


def _turn(text: str) -> TurnEvent:
    return TurnEvent(
        tenant_id="acme", user_id="u1", session_id="s1", turn_id="t1", role=Role.USER,
        content=text, ts=datetime(2024, 5, 1, tzinfo=UTC),
    )  # fmt: skip


@pytest.mark.parametrize(
    "text",
    [
        "Wie gesagt, unser Monorepo liegt auf Gitea.",
        "Wie ich schon sagte, ich bin Apothekerin.",
        "Like I said, our CI runs on Buildkite.",
    ],
)
def test_a_fact_said_again_with_a_repeat_marker_is_kept(text: str) -> None:
    # the speaker's statement, read without the marker (old: DROP, chatter)
    assert triage(_turn(text)) == (TriageVerdict.KEEP, TriageReason.FIRST_PERSON_STATEMENT)


@pytest.mark.parametrize(
    "text",
    [
        "Like I said, thanks a lot!",  # nothing but thanks once the marker is cut
        "Like I said, can you book it for Friday?",  # a one-off request
        "As I said before, what time is it in Tokyo?",  # a question
    ],
)
def test_the_marker_cut_leaves_no_fact_to_keep(text: str) -> None:
    verdict, _ = triage(_turn(text))
    assert verdict is TriageVerdict.DROP
