"""benchmarks/bench_failover.py: the row when a service does not answer, and how the
sampled commits give the stalled partition and the time it moved again."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[3] / "benchmarks"


@pytest.fixture()
def failover(monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    monkeypatch.syspath_prepend(str(BENCH))
    import bench_failover

    return bench_failover


def test_not_run_when_kafka_does_not_answer(tmp_path: Path) -> None:
    env = dict(os.environ)
    env.update(MEMGATE_BENCH_RESULTS=str(tmp_path), MEMGATE_KAFKA_BOOTSTRAP="127.0.0.1:1",
               MEMGATE_OPENSEARCH_URL="http://127.0.0.1:1")  # fmt: skip
    done = subprocess.run([sys.executable, "bench_failover.py"], cwd=BENCH, env=env,
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    rows = json.loads((tmp_path / "failover.json").read_text())["rows"]
    assert [r["figure"] for r in rows] == ["not run: service unreachable"]


def test_the_partition_without_commits_after_the_kill_and_when_it_moved(failover) -> None:  # type: ignore[no-untyped-def]
    c = failover.Commits.__new__(failover.Commits)
    # partition 0 commits every second throughout; partition 1 stops at t=10 (the kill
    # at 10.5) and moves again at 23
    c.samples = [(float(t), {0: t, 1: min(t, 10) if t < 23 else t}) for t in range(30)]
    kill = 10.5
    assert c.last_commit(0, kill + 3) == 13.0
    assert c.last_commit(1, kill + 3) == 10.0  # before the kill: stalled
    assert c.first_commit_after(1, kill) == 23.0
    assert c.first_commit_after(0, kill) == 11.0
    c.samples = [(float(t), {0: 5, 1: 5}) for t in range(30)]  # nothing moves
    assert c.first_commit_after(1, kill) is None


def test_the_killed_workers_partitions_are_those_its_lag_metric_lists(failover) -> None:  # type: ignore[no-untyped-def]
    text = (
        "# TYPE memgate_consumer_lag gauge\n"
        'memgate_consumer_lag{partition="1",stage="triage",topic="run.turns"} 4.0\n'
        'memgate_consumer_lag{partition="0",stage="extract",topic="run.triaged"} 0.0\n'
        'memgate_consumer_lag{partition="1",stage="extract",topic="run.triaged"} 0.0\n'
        'memgate_stage_latency_seconds_count{stage="triage"} 3.0\n'
    )
    assert failover.lag_partitions(text, "run.turns") == [1]
    assert failover.lag_partitions(text, "other.turns") == []


def test_a_partition_taken_back_within_three_seconds_is_timed(failover) -> None:  # type: ignore[no-untyped-def]
    c = failover.Commits.__new__(failover.Commits)
    # samples every 0.2 s; the dead worker's last commit (offset 10) made just before the
    # kill at 10.0 is first seen at 10.2; the restarted worker commits 11 at 12.0
    c.samples = [
        (round(t * 0.2, 1), {1: 5 if t < 51 else (10 if t < 60 else 11)}) for t in range(80)
    ]
    kill = 10.0
    # the old rule (no commit in the 3 s after the kill) finds nothing to time
    assert c.last_commit(1, kill + 3) >= kill
    # the new one: past the offset seen SEEN_S after the kill
    at = c.first_commit_after(1, kill + failover.SEEN_S)
    assert at is not None and round(at - kill, 1) == 2.0
