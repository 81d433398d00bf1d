"""Found by the replay property (test_replays.py) on 2026-12-02, kept as a strict expected
failure until fixed: a fact said in two turns, then deleted at the user's request ("Please
forget that I like jazz"), came back when the turns were delivered again before the audit
agent journaled them. The deletion's tombstone was found by the id the *first* turn made
(key, value, first turn); the second turn's redelivery made another id, found no tombstone
and stored the erased content again. The tombstone is now named by a keyed digest of the
fact's owner, key and value (:func:`memgate.stages.resolve_forget.erasure_mark`), which
every turn that would make the fact again computes, without naming the turns."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from memgate.core.events import Role, TurnEvent
from memgate.core.settings import load_settings
from memgate.sinks.audit import ClickHouseAudit
from tests.unit.streams.conftest import KEY
from tests.unit.streams.replay_harness import through_agents

T0 = datetime(2024, 3, 1, 9, 0, tzinfo=UTC)


def _turn(i: int, text: str, minute: int = 0) -> TurnEvent:
    return TurnEvent(
        tenant_id="acme", user_id="alice", session_id="s1", turn_id=f"t{i}",
        role=Role.USER, content=text, ts=T0 + timedelta(minutes=minute),
    )  # fmt: skip


def test_a_deleted_fact_said_twice_stays_deleted_when_both_turns_come_again(
    tmp_path: Path,
) -> None:
    said = ["I like long hikes in the mountains near the lake."] * 5
    said += ["I like jazz, especially Coltrane."] * 2
    turns = [_turn(i, t) for i, t in enumerate(said)]
    turns.append(_turn(7, "Please forget that I like jazz.", 1))
    s = load_settings(data_dir=tmp_path / "data", embedder="hashing", hmac_key=KEY)
    with ClickHouseAudit.embedded(tmp_path / "audit"):
        once = through_agents(s, tmp_path / "audit", "once", [turns], audit_lag=True)
        again = through_agents(s, tmp_path / "audit", "again", [turns, turns], audit_lag=True)
    assert again.facts == once.facts
    assert not any("Coltrane" in str(f.get("value")) for f in again.facts)


def test_a_redelivered_deletion_request_keeps_the_decision_of_its_retraction(
    tmp_path: Path,
) -> None:
    """Found by the replay property with more examples (2026-12-02), on main as well: "Please
    forget that I like jazz" makes a retraction by key and a deletion request by topic. The
    retraction closes the fact (marked with its id), then the deletion erases it and marks it
    with its own. Delivered again before the journal had the turn, the retraction found
    neither the fact (erased: no key, no predicate) nor its mark, and wrote
    ``nothing_to_retract`` over its own ``retracted`` decision (the facts unchanged). The
    tombstone now keeps the id of what closed the fact before the erasure."""
    turns = [_turn(0, "I like jazz, especially Coltrane."),
             _turn(1, "Please forget that I like jazz.", 1)]  # fmt: skip
    s = load_settings(data_dir=tmp_path / "data", embedder="hashing", hmac_key=KEY)
    with ClickHouseAudit.embedded(tmp_path / "audit"):
        once = through_agents(s, tmp_path / "audit", "once", [turns], audit_lag=True)
        again = through_agents(s, tmp_path / "audit", "again", [turns, turns], audit_lag=True)
    assert again.facts == once.facts
    decided = {r["event_id"]: (r["verdict"], r["reason"]) for r in again.audit["decisions"]}
    for r in once.audit["decisions"]:
        assert decided[r["event_id"]] == (r["verdict"], r["reason"]), r
