"""The pipeline benchmark's warm-up turns: one per user, none of the timed runs' turns.

A sustained run with two workers was timed from the moment their metrics ports
answered, before their group was stable: a partition changed hands inside the timed
run. It is now timed once every worker has taken a warm-up turn; those turns must not
be turns of a timed run (they would come back as replays, cheaper than a turn).
"""

from __future__ import annotations

import importlib
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from memgate.core.events import TurnEvent

BENCH = Path(__file__).resolve().parents[3] / "benchmarks"


def _turn(i: int, user: str) -> TurnEvent:
    return TurnEvent(
        tenant_id="t", user_id=user, session_id="s", turn_id=f"x{i}", role="user",
        content=f"turn {i}", ts=datetime(2024, 1, 1, tzinfo=UTC),
    )  # fmt: skip


def test_warm_up_turns_are_one_per_user_and_none_of_the_timed_ones(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("MEMGATE_LOCOMO_DEV", str(tmp_path / "no-locomo.json"))
    monkeypatch.syspath_prepend(str(BENCH))
    sys.modules.pop("bench_pipeline", None)
    bench = importlib.import_module("bench_pipeline")
    pool = [_turn(i, f"u{i % 3}") for i in range(12)] + [_turn(99, "u7")]
    warm = bench.one_per_user(pool, 9)
    assert sorted(t.user_id for t in warm) == ["u0", "u1", "u2", "u7"]
    assert all(int(t.turn_id[1:]) >= 9 for t in warm)
    assert bench.one_per_user(pool, len(pool)) == []
