"""The dedupe agent on several waiting candidates at a time (memgate.streams.dedupe_batch):
the same decisions, facts and messages as one candidate at a time, in fewer round trips;
a later candidate of a user sees the earlier one's writes; every message acknowledged
only once its work is durable or dead-lettered; a failure stays with its candidate."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

from memgate.core.errors import PermanentError, TransientError
from memgate.core.events import RedactedCandidate, Stage, StoredFact
from memgate.core.read_ahead import Nearest
from memgate.sinks.embedded import EmbeddedIndex
from memgate.streams.app import Origin, Worker
from memgate.streams.dedupe_batch import handle_dedupe_batch, segments
from memgate.streams.metrics import Metrics
from memgate.streams.topology import AUDIT_TOPIC, DLQ_TOPIC, ROUTES, route_of
from tests.unit.streams.conftest import Gate, turn
from tests.unit.streams.near_real_time import NearRealTimeReadAhead
from tests.unit.streams.replay_harness import Clock, Topics, pipeline

DEDUPE = route_of(Stage.DEDUPE)
USERS = [("acme", "alice"), ("acme", "bob"), ("globex", "alice")]  # one user id, two tenants
SAID = [
    "I like long hikes in the mountains near the lake.",
    "I prefer green tea in the morning.",
    "My manager is Ana.",
    "I like long hikes in the mountains near the lake.",
    "I now prefer black coffee in the morning.",
    "My new boss is Tom.",
    "My dog is called Rex.",
    "Our team uses Python for the backend.",
    "I live in Berlin.",
    "We moved from Python to Rust for the backend.",
    "I love jazz, especially Coltrane.",
    "I moved to Paris last month.",
    "Forget that I like jazz.",
    "My dog is called Rex.",
    "I prefer black coffee in the morning.",
    "I live in Berlin.",
    "Please delete what you know about my manager.",
    "I love jazz, especially Coltrane.",
]


def _store(tmp_path: Path, name: str, dim: int) -> NearRealTimeReadAhead:
    return NearRealTimeReadAhead(EmbeddedIndex(tmp_path / f"{name}.db", dim=dim))


def _worker(gate: Gate, store: NearRealTimeReadAhead) -> Worker:
    w = Worker(gate.settings, pipeline(gate.settings, Clock()), store, gate.audit, Metrics())  # type: ignore[arg-type]
    assert w.recent is not None  # the read-your-writes cache, as on OpenSearch
    return w


async def _upstream(worker: Worker, topics: Topics) -> None:
    """Every turn of ``SAID`` (users in turn) sent, then carried up to the redacted topic."""
    for i, text in enumerate(SAID):
        tenant, user = USERS[i % len(USERS)]
        t = turn(f"t{i}", text, user=user, tenant_id=tenant, minutes=i, session_id=f"s{i // 6}")
        await topics.send("turns", t.partition_key, t.model_dump_json().encode())
    for route in ROUTES[:3]:
        while topics.queues[route.source]:
            ((raw, origin),) = topics.take(route.source, 1)
            await worker.handle(route, raw, origin, topics.send)


def _run(gate: Gate, store: NearRealTimeReadAhead, batch: int) -> dict[str, Any]:
    """``SAID`` through the agents; the dedupe agent takes ``batch`` candidates at a time
    (0: one at a time, :meth:`Worker.handle`). What the topics and the store hold."""
    worker = _worker(gate, store)
    topics = Topics("memgate")

    async def go() -> None:
        await _upstream(worker, topics)
        assert len(topics.queues["redacted"]) >= 12
        while topics.queues["redacted"]:
            if batch:
                msgs = topics.take("redacted", batch)
                acked: list[int] = []
                await handle_dedupe_batch(
                    worker, DEDUPE, msgs, topics.send, topics.enqueue, acked.append
                )
                assert sorted(acked) == list(range(len(msgs)))
            else:
                ((raw, origin),) = topics.take("redacted", 1)
                assert await worker.handle(DEDUPE, raw, origin, topics.send) is None
        persist = ROUTES[4]
        while topics.queues[persist.source]:
            ((raw, origin),) = topics.take(persist.source, 1)
            await worker.handle(persist, raw, origin, topics.send)

    asyncio.run(go())
    store.refresh()
    facts = {u: store.list_facts(*u, include_inactive=True) for u in USERS}
    return {
        "audit": [raw for _, raw, _ in topics.queues[AUDIT_TOPIC]],
        "resolved": [raw for _, raw, _ in topics.queues["resolved"]],
        "dlq": topics.queues[DLQ_TOPIC],
        "facts": facts,
    }


def test_batches_decide_write_and_send_exactly_what_one_at_a_time_does(
    gate: Gate, tmp_path: Path
) -> None:
    dim = gate.embedder.dim
    one = _store(tmp_path, "one", dim)
    want = _run(gate, one, 0)
    assert want["dlq"] == []
    assert all(want["facts"][u] for u in USERS)
    # the same user's statements met again: a later candidate saw the earlier one's write
    decisions = [json.loads(a) for a in want["audit"]]
    dedupe = [d for d in decisions if d.get("stage") == "dedupe"]
    assert {d["verdict"] for d in dedupe} >= {"ADD", "DUPLICATE", "SUPERSEDE"}
    for size in (4, 32):
        many = _store(tmp_path, f"many{size}", dim)
        got = _run(gate, many, size)
        assert got == want, size  # byte for byte: decisions, resolutions, facts, clock
        # fewer round trips: one read-ahead and one write per segment, not per candidate
        assert len(many.plans) < len(one.plans), (len(many.plans), len(one.plans))
        assert len(many.waits) < len(one.waits), (len(many.waits), len(one.waits))
        assert not any(many.waits)  # durable writes, not waiting for a refresh
    # every read of a read-ahead names a tenant and user of the segment's candidates
    owners = {(r.tenant_id, r.user_id) for p in many.plans for r in p.reads}
    assert owners <= set(USERS)
    assert any(len({(r.tenant_id, r.user_id) for r in p.reads}) > 1 for p in many.plans)
    assert any(isinstance(r, Nearest) for p in many.plans for r in p.reads)


def test_segments_hold_one_candidate_per_user_in_the_order_they_came(
    gate: Gate, tmp_path: Path
) -> None:
    worker = _worker(gate, _store(tmp_path, "s", gate.embedder.dim))
    topics = Topics("memgate")
    asyncio.run(_upstream(worker, topics))
    items = [(i, RedactedCandidate.model_validate_json(raw))
             for i, (_, raw, _) in enumerate(topics.queues["redacted"])]  # fmt: skip
    segs = segments(items)
    assert [i for s in segs for i, _ in s] == [i for i, _ in items]  # order kept
    for s in segs:
        users = [(c.candidate.tenant_id, c.candidate.user_id) for _, c in s]
        assert len(users) == len(set(users))
    # cut only where the user is already in the segment
    for a, b in pairwise(segs):
        first = b[0][1].candidate
        assert (first.tenant_id, first.user_id) in {
            (c.candidate.tenant_id, c.candidate.user_id) for _, c in a
        }
    assert len(segs) < len(items)


def _redacted(gate: Gate, store: NearRealTimeReadAhead) -> tuple[Worker, Topics, list[Any]]:
    worker = _worker(gate, store)
    topics = Topics("memgate")
    asyncio.run(_upstream(worker, topics))
    return worker, topics, topics.take("redacted", 100)


def _user(raw: bytes) -> tuple[str, str]:
    c = RedactedCandidate.model_validate_json(raw).candidate
    return c.tenant_id, c.user_id


def _writes_of(topics: Topics, msgs: list[Any]) -> dict[int, set[str]]:
    """By message index: the fact ids its resolution writes (from the resolved topic)."""
    ids: dict[str, int] = {}
    for i, (raw, _) in enumerate(msgs):
        try:
            ids[RedactedCandidate.model_validate_json(raw).candidate.candidate_id] = i
        except ValueError:  # the malformed message
            continue
    out: dict[int, set[str]] = {}
    for _, raw, _ in topics.queues["resolved"]:
        res = json.loads(raw)
        out.setdefault(ids[res["candidate_id"]], set()).update(w["fact_id"] for w in res["writes"])
    return out


def test_acknowledged_only_once_written_and_a_refused_write_stays_with_its_candidate(
    gate: Gate, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = _store(tmp_path, "f", gate.embedder.dim)
    worker, topics, msgs = _redacted(gate, store)
    bad = b'{"candidate": "not one"}'
    msgs.insert(1, (bad, Origin("memgate.redacted", 0, 999, b"acme/alice")))
    durable: set[str] = set()  # fact ids whose write returned
    at_ack: dict[int, tuple[set[str], int]] = {}
    real = store.upsert
    calls: list[int] = []

    def upsert(facts: list[StoredFact], **kw: Any) -> None:
        calls.append(len(facts))
        if ("acme", "bob") in {(f.tenant_id, f.user_id) for f in facts}:
            raise PermanentError("refused: a fact id of another tenant")
        real(facts, **kw)
        durable.update(f.fact_id for f in facts)

    def ack(i: int) -> None:
        assert i not in at_ack  # once
        at_ack[i] = (set(durable), len(topics.queues[DLQ_TOPIC]))

    monkeypatch.setattr(store, "upsert", upsert)
    asyncio.run(handle_dedupe_batch(worker, DEDUPE, msgs, topics.send, topics.enqueue, ack))
    assert sorted(at_ack) == list(range(len(msgs)))
    dead = [json.loads(raw) for _, raw, _ in topics.queues[DLQ_TOPIC]]
    assert dead[0]["offset"] == 999 and dead[0]["reason"].startswith("invalid event")
    assert at_ack[1][1] >= 1  # dead-lettered before its ack
    refused = dead[1:]
    assert refused and all(d["key"] == "acme/bob" for d in refused)
    assert all("permanent failure" in d["reason"] for d in refused)
    writes = _writes_of(topics, msgs)
    bobs = {i for i, (raw, _) in enumerate(msgs) if raw != bad and _user(raw) == ("acme", "bob")}
    for i, ids in writes.items():
        if i in bobs:
            assert at_ack[i][1] > 1  # its dead letter came first
        else:
            assert ids <= at_ack[i][0], i  # acknowledged only once its facts were durable
    assert max(calls) > 2  # a segment's facts written in one call
    store.refresh()
    assert store.list_facts("acme", "bob", include_inactive=True) == []
    assert store.list_facts("acme", "alice") and store.list_facts("globex", "alice")
    assert worker.recent is not None  # only durable writes are remembered
    assert ("acme", "bob") not in worker.recent._facts
    assert ("acme", "alice") in worker.recent._facts


def test_a_broker_failure_leaves_the_segment_unwritten_and_unacknowledged(
    gate: Gate, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = _store(tmp_path, "b", gate.embedder.dim)
    worker, topics, msgs = _redacted(gate, store)
    writes: list[int] = []
    monkeypatch.setattr(store, "upsert", lambda facts, **kw: writes.append(len(facts)))

    async def refused() -> int:
        raise ConnectionError("broker gone")

    async def enqueue(name: str, key: str, payload: bytes) -> Awaitable[int]:
        await topics.send(name, key, payload)
        return refused()

    acked: list[int] = []
    with pytest.raises(ConnectionError):
        asyncio.run(handle_dedupe_batch(worker, DEDUPE, msgs, topics.send, enqueue, acked.append))
    assert acked == [] and writes == []
    assert worker.recent is not None and len(worker.recent) == 0


def test_a_transient_read_failure_retries_the_segment_once_for_all(
    gate: Gate, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = _store(tmp_path, "t", gate.embedder.dim)
    worker, topics, msgs = _redacted(gate, store)
    real = store.read_ahead
    fails = [1]

    def flaky(plan: Any) -> Any:
        if fails[0]:
            fails[0] -= 1
            raise TransientError("opensearch: 503")
        return real(plan)

    monkeypatch.setattr(store, "read_ahead", flaky)
    acked: list[int] = []
    asyncio.run(handle_dedupe_batch(worker, DEDUPE, msgs, topics.send, topics.enqueue,
                                    acked.append))  # fmt: skip
    assert sorted(acked) == list(range(len(msgs)))
    assert topics.queues[DLQ_TOPIC] == []
    # each candidate resolved once: one resolution each on the resolved topic
    resolved = [json.loads(raw)["candidate_id"] for _, raw, _ in topics.queues["resolved"]]
    assert len(resolved) == len(set(resolved)) == len(msgs)
