"""A standing-instruction marker ("from now on", "désormais", "ab jetzt") scopes over its
own clause: the clause it closes or opens, never the clause that happens to follow it."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memgate.core.events import CandidateFact, FactType, Role, TurnEvent
from memgate.stages.extract import RuleExtractor

EX = RuleExtractor()


def _facts(text: str) -> list[CandidateFact]:
    t = TurnEvent(
        tenant_id="acme", user_id="u1", session_id="s1", turn_id="t1", role=Role.USER,
        content=text, ts=datetime(2024, 3, 5, 10, tzinfo=UTC),
    )
    return EX.extract(t)


def _instructions(text: str) -> list[str]:
    return [f.object for f in _facts(text) if f.type is FactType.INSTRUCTION]


@pytest.mark.parametrize(
    ("text", "clause", "other"),
    [
        ("Route my calls to voicemail after six from now on, evenings are for the kids.",
         "Route my calls to voicemail after six", "evenings"),
        ("Please bill the Hamburg office going forward, the Berlin one closed.",
         "bill the Hamburg office", "Berlin"),
    ],
)
def test_a_marker_that_closes_its_clause_scopes_over_that_clause(
    text: str, clause: str, other: str
) -> None:
    got = _instructions(text)
    assert any(clause.lower() in o.lower() for o in got), got
    assert not any(other.lower() in o.lower() for o in got), got


@pytest.mark.parametrize(
    "text",
    [
        # the marker inside a statement of how things stand: no instruction to the assistant
        "Nous avons abandonné Jenkins, nos builds passent désormais par Buildkite.",
        "Wir haben Slack verlassen, das Team schreibt ab jetzt in Mattermost.",
        "We dropped Trello, the whole board lives in Linear from now on, it is faster.",
    ],
)
def test_a_marker_inside_a_statement_is_no_instruction(text: str) -> None:
    assert _instructions(text) == []


@pytest.mark.parametrize(
    ("text", "clause"),
    [
        ("From now on, answer me in short bullet points.", "answer me in short bullet points"),
        ("Désormais, envoie les factures à la comptabilité.", "envoie les factures"),
        ("Ab jetzt bitte alle Rechnungen an die Buchhaltung schicken.", "Rechnungen"),
    ],
)
def test_a_marker_that_opens_its_clause_still_reads_what_follows(text: str, clause: str) -> None:
    got = _instructions(text)
    assert any(clause.lower() in o.lower() for o in got), got
