"""The triage step holds each conversation's latest assistant turn, redacted, bounded, and
reads a user's brief yes to it as the user stating its proposition (streams/proposals.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memgate.core.events import DecisionRecord, Stage, TriagedTurn, TurnEvent
from memgate.core.settings import Settings
from memgate.keys import keyed_in_memory
from memgate.receipts import erase_user
from memgate.stages.detectors import Detector
from memgate.streams.pipeline import CONFIRMED_PROPOSAL, TriageStep
from memgate.streams.proposals import HeldTurns


def _turn(i: str, role: str, text: str, ts: str = "2025-03-01T10:00:00Z", **kw: Any) -> TurnEvent:
    fields: dict[str, Any] = {"tenant_id": "acme", "user_id": "alice", "session_id": "s1"}
    fields.update(kw)
    return TurnEvent(turn_id=i, role=role, content=text, ts=ts, **fields)


def _step() -> TriageStep:
    return TriageStep(detector=Detector(), hmac_key=b"k" * 32)


def _kept(out: list[Any]) -> list[TriagedTurn]:
    return [o for o in out if isinstance(o, TriagedTurn) and not o.probe]


def test_a_yes_after_the_assistants_question_is_the_user_stating_it() -> None:
    step = _step()
    step(_turn("a1", "assistant", "So you coach the under-12 football team, right?"))
    out = step(_turn("u1", "user", "Yes, exactly.", ts="2025-03-01T10:00:30Z"))
    (kept,) = _kept(out)
    assert kept.turn.content == "I coach the under-12 football team."
    assert kept.turn.confirmed is True
    assert kept.reason == CONFIRMED_PROPOSAL
    (decision,) = [o for o in out if isinstance(o, DecisionRecord) and o.stage is Stage.TRIAGE]
    assert decision.reason == CONFIRMED_PROPOSAL
    assert decision.details["proposal_turn"] == "a1"
    assert decision.turn_id == "u1"


def test_a_no_another_session_a_late_or_a_second_yes_adopt_nothing() -> None:
    step = _step()
    step(_turn("a1", "assistant", "Are you still living in Leeds?"))
    assert not _kept(step(_turn("u1", "user", "No, I moved to York.", ts="2025-03-01T10:01:00Z")))[
        0
    ].turn.confirmed
    assert not _kept(step(_turn("u2", "user", "yes", ts="2025-03-01T10:02:00Z")))  # answered
    step(_turn("a2", "assistant", "Are you still living in Leeds?", ts="2025-03-02T10:00:00Z"))
    other = step(_turn("u3", "user", "yes", ts="2025-03-02T10:00:10Z", session_id="s2"))
    assert not _kept(other)
    late = step(_turn("u4", "user", "yes", ts="2025-03-02T12:00:00Z"))
    assert not _kept(late)  # two hours later: the question is stale


def test_the_held_turn_is_redacted_before_it_is_held() -> None:
    step = _step()
    step(_turn("a1", "assistant", "Is your work e-mail jane.doe@example.com?"))
    (held,) = step.held._held.values()
    assert "jane.doe@example.com" not in held.text
    out = step(_turn("u1", "user", "yes", ts="2025-03-01T10:00:05Z"))
    assert all("jane.doe" not in k.turn.content for k in _kept(out))


def test_the_same_turn_read_twice_answers_the_same() -> None:
    step = _step()
    step(_turn("a1", "assistant", "Du spielst also Cello?"))
    first = _kept(step(_turn("u1", "user", "Ja, genau.", ts="2025-03-01T10:00:05Z")))
    again = _kept(step(_turn("u1", "user", "Ja, genau.", ts="2025-03-01T10:00:05Z")))
    assert first[0].turn.content == again[0].turn.content == "Ich spiele also Cello."


def test_the_holder_is_bounded_per_user_and_in_all() -> None:
    held = HeldTurns(per_user=2, total=3)
    for n in range(4):
        held.hold(_turn(f"a{n}", "assistant", "x", session_id=f"s{n}"), "x")
    assert len(held) == 2  # the user's two latest sessions
    for n in range(3):
        held.hold(_turn(f"b{n}", "assistant", "x", user_id=f"u{n}"), "x")
    assert len(held) == 3
    assert held.answered(_turn("q", "user", "yes", session_id="s0")) is None


def test_an_erasure_clears_what_is_held_of_the_user(tmp_path: Path) -> None:
    step = _step()
    step(_turn("a1", "assistant", "Are you allergic to nuts?"))
    step(_turn("b1", "assistant", "Are you in Rome?", user_id="bob"))
    assert len(step.held) == 2

    class _Store:
        def forget(self, tenant_id: str, user_id: str) -> int:
            return 0

    settings = keyed_in_memory(Settings(), tmp_path)
    erase_user(settings, _Store(), _Store(), None, "acme", "alice")  # type: ignore[arg-type]
    assert len(step.held) == 1
    assert not _kept(step(_turn("u1", "user", "yes", ts="2025-03-01T10:00:05Z")))


def _probes(out: list[Any]) -> list[TriagedTurn]:
    return [o for o in out if isinstance(o, TriagedTurn) and o.probe]


def test_a_dropped_brief_confirmation_is_carried_on_as_a_probe() -> None:
    """conf35: "Ja, heute beim Arzt – ist bestätigt." is dropped (a moment), yet it may
    settle the session's latest guess (stages/resolve_settled.py): a probe; a bare yes to a
    task, or a 'maybe', is not."""
    step = _step()
    (probe,) = _probes(step(_turn("u1", "user", "Ja, heute beim Arzt – ist bestätigt.")))
    assert probe.turn.content == "Ja, heute beim Arzt – ist bestätigt."
    step(_turn("a1", "assistant", "Want me to book the table for Friday?"))
    assert not _probes(step(_turn("u2", "user", "Yes please.", ts="2025-03-01T10:00:20Z")))
    assert not _probes(step(_turn("u3", "user", "Vielleicht, noch nicht entschieden.")))
