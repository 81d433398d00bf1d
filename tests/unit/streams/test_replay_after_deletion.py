"""A known bug, found by the replay property (test_replays.py) on 2026-12-02 and kept here as
a strict expected failure until it is fixed: a fact said in two turns, then deleted at the
user's request ("Please forget that I like jazz"), comes back when the turns are delivered
again before the audit agent journaled them. The deletion's tombstone is found by the id
the *first* turn made (key, value, first turn); the second turn's redelivery makes another
id, finds no tombstone and stores the erased content again (then the replayed request
closes it: superseded, with its content). Fixing it needs the tombstone findable from every
turn it absorbed without naming those turns in clear."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

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


@pytest.mark.xfail(strict=True, reason="known bug: a fact said twice and deleted comes back "
                   "when its second turn is redelivered before the journal has it")  # fmt: skip
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
