"""Per-user fairness at the input stage, through the agents' bodies on the in-memory
topics. A burst of one user (1,000 turns here: on the agents' path every turn costs a
journal lookup in chDB, about 40 ms on the shared test machine;
``MEMGATE_FAIR_BURST_TURNS=5000`` runs the 5,000-turn form), with a few turns of other
users of the same partition among them: the other users' turns go through the stages at
once (behind at most ``burst`` of the burst's turns), the burst goes on at the user's
quota from the deferred topic, every turn is processed exactly once, each user's turns
in their order, and the stores end up as the in-process run of the same turns leaves
them.
A crash in the middle (the worker's memory lost, the uncommitted messages of the
input and deferred topics delivered again) changes none of it: the markers are
rebuilt from what the deferred topic still holds.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from memgate.core.events import Role, TurnEvent
from memgate.core.settings import Settings, load_settings
from memgate.sinks.audit import ClickHouseAudit
from memgate.streams.app import Origin, Worker
from memgate.streams.fairness import FairGate
from memgate.streams.metrics import Metrics
from memgate.streams.runner import InProcessRunner
from memgate.streams.topology import AUDIT_TOPIC, DEFERRED_TOPIC, DLQ_TOPIC, ROUTES
from tests.unit.streams.conftest import KEY
from tests.unit.streams.replay_harness import (
    Clock,
    Held,
    HeldAcks,
    Topics,
    drain_audit,
    held,
    in_process,
    pipeline,
    stores,
)

RATE, BURST = 50.0, 20
N = int(os.environ.get("MEMGATE_FAIR_BURST_TURNS", "1000"))
BURSTING = "alice"
T0 = datetime(2024, 3, 1, 9, 0, tzinfo=UTC)
#: what the burst says, in turn: facts that supersede one another, near-duplicates,
#: questions and filler that triage drops
SAYINGS = (
    "I live in city number {i}.",
    "ok thanks",
    "I prefer tool number {i} for scripting.",
    "What time is it?",
    "I like long hikes in the mountains near lake {i}.",
)
_names = itertools.count()


@pytest.fixture(scope="module")
def audit_path(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    path = tmp_path_factory.mktemp("fair") / "audit"
    with ClickHouseAudit.embedded(path):
        yield path


@pytest.fixture(scope="module")
def fair_settings(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return load_settings(
        data_dir=tmp_path_factory.mktemp("data"), embedder="hashing", hmac_key=KEY,
        fair_turns_per_s=RATE, fair_burst=BURST,
    )  # fmt: skip


def _turn(user: str, i: int, text: str) -> TurnEvent:
    return TurnEvent(
        tenant_id="acme", user_id=user, session_id=f"s{i // 1000}", turn_id=f"{user}-{i}",
        role=Role.USER, content=text, ts=T0 + timedelta(seconds=i),
    )  # fmt: skip


def burst_with_others(n: int) -> list[TurnEvent]:
    """``n`` turns of the bursting user; every 97th place another user's turn."""
    out: list[TurnEvent] = []
    others = itertools.cycle(("bob", "carol", "dave"))
    for i in range(n):
        if i % 97 == 50:
            who = next(others)
            out.append(_turn(who, i, f"I prefer tea number {i} in the morning."))
        out.append(_turn(BURSTING, i, SAYINGS[i % len(SAYINGS)].format(i=i)))
    return out


class VirtualTime:
    """The gate's clock: it moves only when the deferred agent waits for a token."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    async def sleep(self, s: float) -> None:
        self.now += s


@dataclass
class LoggedTopics(Topics):
    """The in-memory topics, with a log of every message sent (topic, key, payload)."""

    log: list[tuple[str, str, bytes]] = field(default_factory=list)

    async def send(self, name: str, key: str, payload: bytes) -> None:
        self.log.append((name, key, payload))
        await super().send(name, key, payload)

    def redeliver(self, name: str, taken: Sequence[tuple[bytes, Origin]]) -> None:
        """Put messages read but not committed back in front of the topic's queue."""
        self.queues[name][:0] = [(o.key or b"", raw, o.offset) for raw, o in taken]

    def first_journaled(self) -> list[str]:
        """Turn ids in the order their journal rows were first sent."""
        seen: dict[str, None] = {}
        for name, _, raw in self.log:
            if name == AUDIT_TOPIC:
                row = json.loads(raw)
                if row["_kind"] == "journal":
                    seen.setdefault(row["turn_id"], None)
        return list(seen)


def _worker(settings: Settings, retrieval: object, audit: object, t: VirtualTime) -> Worker:
    return Worker(
        settings=settings,
        pipeline=pipeline(settings, Clock()),
        retrieval=retrieval,  # type: ignore[arg-type]
        audit=audit,  # type: ignore[arg-type]
        metrics=Metrics(),
        gate=FairGate(settings.fair_turns_per_s, settings.fair_burst, clock=t, sleep=t.sleep),
    )


async def _stages(worker: Worker, topics: Topics) -> None:
    """The stage agents after triage read their topics to the end."""
    while any(topics.queues[r.source] for r in ROUTES[1:]):
        for route in ROUTES[1:]:
            while topics.queues[route.source]:
                ((raw, origin),) = topics.take(route.source, 1)
                await worker.handle(route, raw, origin, topics.send)


async def input_agent(worker: Worker, topics: Topics, now: list[str]) -> list[tuple[bytes, Origin]]:
    """The input agent reads ``turns`` to the end; ``now``: the turns it let through.
    Returns what it read."""
    taken: list[tuple[bytes, Origin]] = []
    while topics.queues["turns"]:
        ((raw, origin),) = topics.take("turns", 1)
        taken.append((raw, origin))
        later = await worker.take_turn(raw, origin, topics.send, topics.enqueue)
        if later is None:
            now.append(TurnEvent.model_validate_json(raw).turn_id)
        else:
            await later  # the broker acknowledged the copy: the message may be acknowledged
        await _stages(worker, topics)
    return taken


async def deferred_agent(
    worker: Worker, topics: Topics, n: int | None = None
) -> list[tuple[bytes, Origin]]:
    """The deferred agent reads ``n`` messages (all: None); returns what it read."""
    taken: list[tuple[bytes, Origin]] = []
    while topics.queues[DEFERRED_TOPIC] and (n is None or len(taken) < n):
        ((raw, origin),) = topics.take(DEFERRED_TOPIC, 1)
        await worker.take_deferred(raw, origin, topics.send)
        taken.append((raw, origin))
        await _stages(worker, topics)
    return taken


def _per_user(ids: Sequence[str]) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for tid in ids:
        user, _, i = tid.partition("-")
        out.setdefault(user, []).append(int(i))
    return out


def _in_order(turns: Sequence[TurnEvent], done: Sequence[str]) -> None:
    want = _per_user([t.turn_id for t in turns])
    got = _per_user(done)
    assert got == want  # every turn once, each user's in the order they came


def test_a_burst_never_holds_the_other_users_back_and_goes_on_at_its_quota(
    fair_settings: Settings, audit_path: Path
) -> None:
    turns = burst_with_others(N)
    others = [t.turn_id for t in turns if t.user_id != BURSTING]
    t = VirtualTime()
    with stores(audit_path, f"fair{next(_names)}") as (retrieval, audit):
        worker = _worker(fair_settings, retrieval, audit, t)
        topics = LoggedTopics(fair_settings.topic_prefix)
        now: list[str] = []

        async def run() -> None:
            for turn in turns:
                await topics.send("turns", turn.partition_key, turn.model_dump_json().encode())
            await input_agent(worker, topics, now)  # the whole input at one instant
            assert t.now == 0.0
            await deferred_agent(worker, topics)
            await drain_audit(worker, topics)

        asyncio.run(run())
        got = held(retrieval, audit, turns)
    assert topics.queues[DLQ_TOPIC] == []
    # the bound: every other user's turn went through the stages at once, and ahead of
    # it the burst had taken at most its ``burst`` turns (nothing waited on its work)
    for tid in others:
        ahead = now[: now.index(tid)]
        assert sum(1 for a in ahead if a.startswith(BURSTING)) <= BURST
    assert set(others) <= set(now)
    assert sum(1 for a in now if a.startswith(BURSTING)) == BURST
    # the rest went on from the deferred topic at the quota: (n - burst) / rate seconds
    assert t.now == pytest.approx((N - BURST) / RATE, rel=1e-6)
    assert worker.gate is not None and worker.gate.users_waiting == 0
    assert worker.metrics.turns_deferred._value.get() == N - BURST
    _in_order(turns, topics.first_journaled())
    want = in_process(fair_settings, audit_path, f"fair{next(_names)}", [turns])
    assert got.facts and len(got.audit["journal"]) == len(turns)
    assert got.without_clock() == want.without_clock()


def test_a_crash_in_the_middle_of_the_backlog_changes_nothing(
    fair_settings: Settings, audit_path: Path
) -> None:
    turns = burst_with_others(400)
    after = [_turn(BURSTING, 9_000, "I live in city number 9000."),
             _turn("bob", 9_001, "I prefer tea number 9001 in the morning."),
             _turn(BURSTING, 9_002, "ok thanks")]  # fmt: skip
    t = VirtualTime()
    with stores(audit_path, f"fair{next(_names)}") as (retrieval, audit):
        topics = LoggedTopics(fair_settings.topic_prefix)
        first = _worker(fair_settings, retrieval, audit, t)
        now: list[str] = []

        async def run() -> None:
            for turn in turns:
                await topics.send("turns", turn.partition_key, turn.model_dump_json().encode())
            read = await input_agent(first, topics, now)
            done = await deferred_agent(first, topics, n=150)
            # a crash: the worker's memory is gone; the last 40 deferred messages and the
            # last 30 input messages it processed were not committed yet, and come again;
            # the audit agent lagged (the journal knows none of them: they go through the
            # stages again)
            topics.redeliver(DEFERRED_TOPIC, done[-40:])
            topics.redeliver("turns", read[-30:])
            second = _worker(fair_settings, retrieval, audit, t)
            assert second.gate is not None
            second.gate.assigned([0])
            second.gate.rebuild(
                0, [(k.decode(), off) for k, _, off in topics.queues[DEFERRED_TOPIC]]
            )
            for turn in after:  # new turns after the restart: alice's wait behind hers
                await topics.send("turns", turn.partition_key, turn.model_dump_json().encode())
            await input_agent(second, topics, now)
            await deferred_agent(second, topics)
            await drain_audit(second, topics)
            assert second.gate.users_waiting == 0

        asyncio.run(run())
        got = held(retrieval, audit, [*turns, *after])
    assert topics.queues[DLQ_TOPIC] == []
    assert "bob-9001" in now and "alice-9000" not in now
    _in_order([*turns, *after], topics.first_journaled())
    want = in_process(fair_settings, audit_path, f"fair{next(_names)}", [[*turns, *after]])
    assert Held(got.facts, {}).without_clock() == Held(want.facts, {}).without_clock()
    assert len(got.audit["journal"]) == len(turns) + len(after)


def test_in_process_the_other_users_go_first_and_the_result_is_the_same(
    fair_settings: Settings, audit_path: Path
) -> None:
    turns = burst_with_others(600)
    t = VirtualTime()  # frozen: the quota never refills, the backlog waits for the end
    gate = FairGate(RATE, BURST, clock=t, sleep=t.sleep)
    with stores(audit_path, f"fair{next(_names)}") as (retrieval, audit):
        runner = InProcessRunner(pipeline(fair_settings, Clock()), retrieval, audit,
                                 fairness=gate)  # fmt: skip
        runner.run(turns)
        assert not runner.dead_letters and not runner.deferred
        got = held(retrieval, audit, turns)
        order = [r[0] for r in audit.query("SELECT turn_id FROM journal FINAL ORDER BY "
                                           "ingested_at")[1]]  # fmt: skip
    others = [i for i, tid in enumerate(order) if not tid.startswith(BURSTING)]
    assert max(others) < BURST + len(others)  # behind at most the burst's ``burst`` turns
    _in_order(turns, order)
    want = in_process(fair_settings, audit_path, f"fair{next(_names)}", [turns])
    assert got.without_clock() == want.without_clock()


def test_a_marker_stays_while_a_later_copy_is_on_its_way_to_the_broker() -> None:
    """Two deferred copies in flight; the first acknowledged and processed before the
    second's acknowledgement: the user still has a backlog (its next turn is deferred)."""
    t = VirtualTime()
    gate = FairGate(rate=1.0, burst=1, clock=t)
    assert gate.defers("a/u") is False  # the one token
    gate.deferring("a/u")  # offset 0, in flight
    assert gate.defers("a/u") is True
    gate.deferring("a/u")  # offset 1, in flight
    gate.deferred("a/u", 0)
    gate.undeferred("a/u", 0)  # processed before offset 1 was acknowledged
    assert gate.defers("a/u") is True and gate.users_waiting == 1
    gate.deferred("a/u", 1)
    gate.undeferred("a/u", 1)
    assert gate.users_waiting == 0


def test_markers_rebuilt_from_the_deferred_partition_hold_the_input_back() -> None:
    gate = FairGate(rate=0.0, burst=1)  # the quota off: a backlog still drains first
    gate.assigned([0])

    async def run() -> bool:
        waiting = asyncio.ensure_future(gate.ready(0))
        await asyncio.sleep(0)
        held_back = not waiting.done()
        gate.rebuild(0, [("a/u", 7), ("a/v", 8), ("a/u", 9)])
        await waiting
        return held_back

    assert asyncio.run(run())
    assert gate.defers("a/u") and gate.defers("a/v") and not gate.defers("a/w")
    gate.undeferred("a/u", 7)
    assert gate.defers("a/u")  # its last deferred turn is at 9
    gate.undeferred("a/u", 9)
    assert not gate.defers("a/u")


def test_the_deferred_agent_waits_while_the_stages_are_full() -> None:
    """With more than ``max_backlog`` messages waiting in the stages, the next deferred turn
    waits (even with tokens to spare) until they drained below it."""
    t = VirtualTime()
    waiting = [700]

    async def drain(s: float) -> None:  # the stages work while the deferred agent sleeps
        t.now += s
        waiting[0] = max(0, waiting[0] - 10)

    gate = FairGate(rate=100.0, burst=5, clock=t, sleep=drain,
                    backlog=lambda: waiting[0], max_backlog=500)  # fmt: skip
    asyncio.run(gate.take("a/u"))
    assert waiting[0] == 500  # it went on only once the stages were down to the cap
    asyncio.run(gate.take("a/u"))
    assert waiting[0] == 500  # below the cap: no wait


def test_a_bad_event_goes_on_without_waiting_for_the_dead_letter_ack(
    fair_settings: Settings, audit_path: Path
) -> None:
    """A flood of bad events costs no broker round trip each in line: the input agent sends
    the dead letter and goes on; the message is acknowledged only once the broker
    acknowledged the copy, and a refused copy leaves it unacknowledged (it comes again)."""
    with stores(audit_path, f"fair{next(_names)}") as (retrieval, audit):
        worker = _worker(fair_settings, retrieval, audit, VirtualTime())
        topics = HeldAcks(fair_settings.topic_prefix)

        async def run() -> None:
            for raw in (b'{"tenant_id": "acme", "content": "x"', b"\xff\xfe not json"):
                await topics.send("turns", "acme/x", raw)
            pending = []
            for raw, origin in topics.take("turns", 2):
                later = await worker.take_turn(raw, origin, topics.send, topics.enqueue)
                assert later is not None  # returned while the copy is unacknowledged
                pending.append(asyncio.ensure_future(later))
            await asyncio.sleep(0)
            assert len(topics.queues[DLQ_TOPIC]) == 2 and not any(p.done() for p in pending)
            topics.acks[0].set_result(0)
            topics.acks[1].set_exception(ConnectionError("broker gone"))
            await pending[0]  # acknowledged: the message may be committed
            with pytest.raises(ConnectionError):
                await pending[1]  # left unacknowledged

        asyncio.run(run())
