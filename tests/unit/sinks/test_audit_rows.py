"""Each audit table's row of a record, cell by cell and type by type (issue 10: the row is
read from the table's columns, not written out a second time; the rows must not change)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from memgate.core.events import (
    DecisionRecord,
    DisagreementRecord,
    FactHistoryRecord,
    JournalRecord,
    Role,
    Stage,
    TriageVerdict,
)
from memgate.sinks.audit import DECISIONS, DISAGREEMENTS, FACT_HISTORY, JOURNAL, TABLES

T0 = datetime(2024, 5, 1, 10, 0, tzinfo=UTC)
T1 = datetime(2024, 5, 1, 10, 0, 1, tzinfo=UTC)


def _same(got: tuple[Any, ...], want: tuple[Any, ...]) -> None:
    assert got == want
    assert [type(c) for c in got] == [type(c) for c in want]


def test_a_journal_row() -> None:
    r = JournalRecord(event_id="e1", tenant_id="t", user_id="u", session_id="s", turn_id="1",
                      role=Role.USER, ts=T0, length=12, content_hmac="h",
                      verdict=TriageVerdict.KEEP, reason="first_person", redacted_text="I am <X>",
                      redaction_counts={"email": 1}, ingested_at=T1)
    row = JOURNAL.row(r)
    _same(row, ("e1", "t", "u", "s", "1", "user", T0, 12, "h", "keep", "first_person",
                "I am <X>", {"email": 1}, T1))
    assert row[12] is not r.redaction_counts  # a copy: the record stays the record's


def test_a_decision_row() -> None:
    r = DecisionRecord(event_id="e2", stage=Stage.DEDUPE, tenant_id="t", user_id="u",
                       session_id="s", turn_id="1", verdict="superseded", reason="slot",
                       key="k", fact_id="f", policy_version="p1", decided_at=T0,
                       details={"n": 2, "score": 0.5, "by": "rule"})
    _same(DECISIONS.row(r), ("e2", "dedupe", "t", "u", "s", "1", "superseded", "slot", "k",
                             "f", "p1", T0, {"n": "2", "score": "0.5", "by": "rule"}))


def test_a_fact_history_row() -> None:
    r = FactHistoryRecord(event_id="e3", tenant_id="t", user_id="u", fact_id="f", key="k",
                          action="add", value="Go", confidence=0.9, occurrences=2,
                          source_turn_id="1", policy_version="p1", at=T0)
    _same(FACT_HISTORY.row(r), ("e3", "t", "u", "f", "k", "add", "Go", 0.9, 2, "", "", "1",
                                "p1", T0))


def test_a_disagreement_row() -> None:
    r = DisagreementRecord(event_id="e4", tenant_id="t", user_id="u", turn_id="1",
                           primary="rules", shadow="anthropic", kind="key", primary_keep=True,
                           shadow_keep=False, only_primary=["u/lang = Go"], decided_at=T0)
    row = DISAGREEMENTS.row(r)
    _same(row, ("e4", "t", "u", "", "1", "rules", "anthropic", "key", 1, 0, ["u/lang = Go"],
                [], T0))
    assert row[10] is not r.only_primary


def test_every_table_fills_every_column() -> None:
    assert [t.name for t in TABLES] == ["journal", "decisions", "fact_history", "disagreements"]
    for table in TABLES:
        assert len(table.column_names) == len(set(table.column_names))
