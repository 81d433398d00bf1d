"""The journal tells nothing about a masked value, not even its length."""

from __future__ import annotations

from memgate.core.events import JournalRecord, TurnEvent
from memgate.stages.detectors import Detector
from memgate.streams.pipeline import TriageStep


def test_the_journal_length_is_the_redacted_length() -> None:
    step = TriageStep(detector=Detector(), hmac_key=b"k" * 32)
    turn = TurnEvent(
        tenant_id="acme", user_id="alice", session_id="s1", turn_id="t1", role="user",
        content="My password is Tr0ub4dor&3xyzzy-long-secret, please keep it.",
        ts="2024-03-01T09:00:00Z",
    )
    (journal,) = [e for e in step(turn) if isinstance(e, JournalRecord)]
    assert "Tr0ub4dor" not in journal.redacted_text
    assert journal.length == len(journal.redacted_text) != len(turn.content)
