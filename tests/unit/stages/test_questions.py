"""Triage and the rule extractor ask the same question detector (memgate.core.text).

Before, each had its own word list: triage did not know "anyone" and took
"can't" for "can"; the extractor read "por" alone (from "por qué") and "there"
(from "is there") as question words and skipped the sentence.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memgate.core.events import TriageVerdict, TurnEvent
from memgate.stages.extract import RuleExtractor
from memgate.stages.triage import TriageReason, triage


def _turn(text: str) -> TurnEvent:
    return TurnEvent(
        tenant_id="acme", user_id="u1", session_id="s1", turn_id="t1", role="user",
        content=text, ts=datetime(2024, 3, 1, tzinfo=UTC),
    )


@pytest.mark.parametrize(
    ("text", "verdict", "reason"),
    [
        ("Can't wait to show you my new bike", TriageVerdict.KEEP, "first_person_statement"),
        ("Anyone here tried Helix", TriageVerdict.DROP, TriageReason.QUESTION_ONLY),
        ("Pouvez-vous annuler ma dernière commande ?", TriageVerdict.DROP,
         TriageReason.QUESTION_ONLY),
    ],
)
def test_triage_questions(text: str, verdict: TriageVerdict, reason: str) -> None:
    assert triage(_turn(text)) == (verdict, reason)


@pytest.mark.parametrize(
    ("text", "predicate", "obj"),
    [
        ("Por fin tengo un perro", "has_pet", "un perro"),
        ("Por cierto, trabajo en Madrid", "works_at", "Madrid"),
    ],
)
def test_extractor_reads_statements_starting_with_por(text: str, predicate: str, obj: str) -> None:
    facts = RuleExtractor().extract(_turn(text))
    assert [(c.predicate, c.object) for c in facts] == [(predicate, obj)]


def test_extractor_skips_a_question_that_starts_like_one() -> None:
    # a question word at the start: the whole sentence is skipped, not its first clauses
    assert RuleExtractor().extract(_turn("How'd you get into pottery, I started last year")) == []
