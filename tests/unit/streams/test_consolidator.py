"""The worker's consolidation timer (issue 12): the users the worker read are consolidated
at each tick, off the event path; a user whose run fails is logged on one line, counted,
and tried again at the next tick, while the others go on. Real embedded stores, the
worker's agent bodies driven through the in-memory topics, the command's own wiring
(:func:`memgate.cli.worker.worker_consolidator`)."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from memgate.backends import build_pipeline
from memgate.cli.worker import worker_consolidator
from memgate.core.events import FactType, TurnEvent
from memgate.core.settings import load_settings
from memgate.runtime import Runtime
from memgate.streams.app import Worker
from memgate.streams.consolidator import Consolidator
from memgate.streams.metrics import Metrics
from memgate.streams.recent import RecentFacts
from memgate.streams.runner import InProcessRunner
from tests.unit.streams.conftest import KEY, turn
from tests.unit.streams.replay_harness import Topics, drain_audit, drain_stages

EPISODES = [
    "Yesterday I went to the dentist for a checkup.",
    "Last week I ran a marathon in Berlin.",
    "On Saturday I attended a jazz concert downtown.",
    "I visited my grandmother in Ohio last month.",
]


@dataclass
class Fleet:
    rt: Runtime
    worker: Worker
    consolidator: Consolidator
    metrics: Metrics

    def read(self, turns: list[TurnEvent]) -> None:
        """The turns through the worker's agents (the triage agent notes their users)."""
        topics = Topics("memgate")

        async def go() -> None:
            for t in turns:
                key, raw = f"{t.tenant_id}/{t.user_id}", t.model_dump_json().encode()
                await topics.send("turns", key, raw)
            await drain_stages(self.worker, topics)
            await drain_audit(self.worker, topics)

        asyncio.run(go())

    def episodes(self, user: str) -> list[str]:
        facts = self.rt.retrieval.list_facts("acme", user)
        return sorted(f.value for f in facts if f.type is FactType.EVENT)

    def sample(self, name: str, **labels: str) -> float:
        return self.metrics.registry.get_sample_value(name, labels) or 0.0


def episodes_of(user: str) -> list[TurnEvent]:
    return [
        turn(f"{user}-{i}", text, user=user, minutes=i, session_id=f"s{i}")
        for i, text in enumerate(EPISODES)
    ]


@pytest.fixture
def fleet(tmp_path: Path) -> Iterator[Fleet]:
    s = load_settings(
        data_dir=tmp_path / "data", embedder="hashing", hmac_key=KEY,
        retention={"episodic_max": 1}, consolidate_every_minutes=30,
    )  # fmt: skip
    rt = Runtime(s)
    metrics = Metrics()
    consolidator = worker_consolidator(rt, metrics)
    assert consolidator is not None and consolidator.interval_s == 1800
    worker = Worker(s, build_pipeline(s, rt.embedder), rt.retrieval, rt.audit, metrics,
                    consolidator=consolidator)  # fmt: skip
    try:
        yield Fleet(rt, worker, consolidator, metrics)
    finally:
        rt.close()


def test_a_tick_consolidates_the_users_the_worker_read_and_no_other(fleet: Fleet) -> None:
    fleet.read(episodes_of("alice"))
    # bob's turns reached the stores another way (another worker, an ingest): not ours
    runner = InProcessRunner(fleet.worker.pipeline, fleet.rt.retrieval, fleet.rt.audit)
    runner.run(episodes_of("bob"))
    runner.close()
    assert len(fleet.episodes("alice")) == len(fleet.episodes("bob")) == 4  # nothing yet
    assert list(fleet.consolidator.users) == [("acme", "alice")]

    # the dedupe stage's cache of recent writes holds copies that retention makes stale
    recent = RecentFacts(fleet.rt.retrieval, refresh=lambda: None)
    recent.remember(fleet.rt.retrieval.list_facts("acme", "alice"))
    fleet.consolidator.recent = recent

    tick = asyncio.run(fleet.consolidator.tick())
    assert (tick.users, tick.changed, tick.failed, tick.changes) == (1, 1, 0, {"retire": 3})
    assert len(fleet.episodes("alice")) == 1 and len(fleet.episodes("bob")) == 4
    assert len(recent) == 0, "the stale copies of alice's facts were dropped"
    _, rows = fleet.rt.audit.query(
        "SELECT count() FROM decisions FINAL WHERE stage = 'retention' AND user_id = 'alice'"
    )
    assert rows == [(3,)]
    assert fleet.sample("memgate_consolidation_changes_total", verdict="retire") == 3
    assert fleet.sample("memgate_consolidation_runs_total", outcome="ok") == 1

    again = asyncio.run(fleet.consolidator.tick())  # idempotent: nothing more to do
    assert (again.changed, again.changes) == (0, {})
    assert fleet.sample("memgate_consolidation_changes_total", verdict="retire") == 3
    assert fleet.sample("memgate_consolidation_runs_total", outcome="ok") == 2


def test_a_failing_user_is_logged_counted_and_retried_next_tick_while_others_go_on(
    fleet: Fleet, caplog: pytest.LogCaptureFixture
) -> None:
    fleet.read(episodes_of("alice") + episodes_of("carol"))
    # one of carol's rows is corrupt on disk: her run fails where it reads her facts
    path = fleet.rt.settings.retrieval_path
    with sqlite3.connect(path) as db:
        (rid, doc) = db.execute(
            "SELECT rid, doc FROM facts WHERE user_id = 'carol' ORDER BY rid LIMIT 1"
        ).fetchone()
        db.execute("UPDATE facts SET doc = ? WHERE rid = ?", ('{"broken": true}', rid))
    with caplog.at_level(logging.INFO, logger="memgate.worker.consolidate"):
        tick = asyncio.run(fleet.consolidator.tick())
    assert (tick.users, tick.changed, tick.failed) == (2, 1, 1)
    assert len(fleet.episodes("alice")) == 1  # alice went on
    assert fleet.sample("memgate_consolidation_runs_total", outcome="failed") == 1
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 1 and not any(r.exc_info for r in caplog.records)
    line = errors[0].getMessage()
    assert "event=consolidation_failed" in line and "user=carol" in line
    assert "next tick" in line and "\n" not in line and "broken" not in line
    (error,) = [
        s.labels["error"]
        for m in fleet.metrics.registry.collect()
        if m.name == "memgate_consolidation_failures"
        for s in m.samples
        if s.name.endswith("_total")
    ]
    assert fleet.sample("memgate_consolidation_failures_total", error=error) == 1
    assert ("acme", "carol") in fleet.consolidator.users  # still due

    with sqlite3.connect(path) as db:  # the row repaired: the next tick does carol's run
        db.execute("UPDATE facts SET doc = ? WHERE rid = ?", (doc, rid))
    tick = asyncio.run(fleet.consolidator.tick())
    assert (tick.changed, tick.failed) == (1, 0)
    _, rows = fleet.rt.audit.query(
        "SELECT count() FROM decisions FINAL WHERE stage = 'retention' AND user_id = 'carol'"
    )
    assert rows == [(3,)]
    assert fleet.sample("memgate_consolidation_runs_total", outcome="ok") == 1


def test_users_are_bounded_and_follow_the_partitions_the_worker_owns() -> None:
    c = Consolidator(lambda t, u, now: {}, Metrics(), 60, max_users=3)
    for i, p in enumerate([0, 1, 0, 2]):
        c.saw("acme", f"u{i}", p)
    assert list(c.users) == [("acme", "u1"), ("acme", "u2"), ("acme", "u3")]  # u0 oldest
    c.saw("acme", "u1", 1)  # active again: the most recent
    assert list(c.users)[-1] == ("acme", "u1")
    c.keep_partitions([1])  # a rebalance took partitions 0 and 2 away
    assert list(c.users) == [("acme", "u1")]


def test_the_timer_is_off_at_zero(tmp_path: Path) -> None:
    s = load_settings(data_dir=tmp_path, embedder="hashing", consolidate_every_minutes=0)
    assert worker_consolidator(Runtime(s), Metrics()) is None
