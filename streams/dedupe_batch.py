"""The dedupe agent on several waiting candidates at a time.

One candidate at a time, the dedupe agent waits on the store three times per candidate
(its read-ahead ``_msearch``, the versions ``_mget`` and the ``_bulk`` of its writes) and
once on the broker (the acknowledgements of what it forwards and audits). The agent takes
the candidates waiting in its partitions (at most :data:`DEDUPE_BATCH`; at once on a quiet
stream, within :data:`DEDUPE_WINDOW_S` behind a backlog:
:func:`memgate.streams.batching.take_waiting`) and cuts them, in their
order, into **segments** of candidates of distinct users (:func:`segments`: a segment
ends before the first candidate whose user is already in it). For one segment:

1. the candidates' vectors are computed (the same embedding calls, from the vectors
   computed ahead where there are some), and the reads every candidate's resolution
   plans (:meth:`memgate.stages.dedupe.Resolver.read_plan`) are asked together: one
   ``_msearch`` for the segment (:mod:`memgate.core.read_ahead`; each read names its
   tenant and user, and the store filters by them inside each query);
2. the candidates are resolved one after the other, in order, over that view;
3. what they forward and audit is handed to the producer in order and acknowledged
   together; then
4. their facts are written in one call (one ``_mget``, one ``_bulk``), durably, and only
   then remembered by the read-your-writes cache and the messages acknowledged.

Why this is the same as one candidate at a time: a candidate reads and writes only its
own user's facts, and a segment holds one candidate per user, so no candidate of a
segment can read what another one of it writes; the next segment starts after the
writes of this one are durable and remembered, so a later candidate of the same user
sees them (:mod:`memgate.streams.recent`). The candidates are resolved in the order they
came, so the clock is read in the same order too.

Failures, as for one candidate: a message that does not parse is dead-lettered; a
candidate whose step fails permanently is dead-lettered alone (the others go on); a
transient failure of the reads is retried for the whole segment (the step writes
nothing); a write the store refuses is tried again candidate by candidate, and what it
still refuses is dead-lettered. A broker failure or a cancellation raises and leaves the
messages not yet acknowledged to come again.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from memgate.core.errors import InvalidEvent, StoreError, is_transient
from memgate.core.events import DecisionRecord, RedactedCandidate, Resolution, StoredFact
from memgate.core.read_ahead import ReadPlan, ReadRequest, read_ahead
from memgate.core.stores import FactView
from memgate.streams.acks import all_acked
from memgate.streams.pipeline import Pipeline
from memgate.streams.topology import AUDIT_TOPIC, Effects, Route, effects, encode_audit

if TYPE_CHECKING:
    from memgate.streams.app import Enqueue, Origin, Send, Worker

__all__ = [
    "DEDUPE_BATCH",
    "DEDUPE_WINDOW_S",
    "handle_dedupe_batch",
    "resolve_segment",
    "segments",
]

#: The dedupe agent takes at most this many waiting candidates at once ...
DEDUPE_BATCH = 32
#: ... and, behind a backlog, what came within this window (none on a quiet stream).
DEDUPE_WINDOW_S = 0.02

Resolved = list[Resolution | DecisionRecord]


def segments(items: Sequence[tuple[int, RedactedCandidate]]) -> list[list[tuple[int, Any]]]:
    """``items`` cut, in order, into runs of candidates of distinct users (tenant and
    user): a run ends before the first candidate whose user is already in it.

    >>> from types import SimpleNamespace as N
    >>> c = lambda u: N(candidate=N(tenant_id="t", user_id=u))
    >>> [[i for i, _ in s] for s in segments(list(enumerate(map(c, "abacad"))))]
    [[0, 1], [2, 3], [4, 5]]
    """
    out: list[list[tuple[int, Any]]] = []
    users: set[tuple[str, str]] = set()
    for i, item in items:
        user = (item.candidate.tenant_id, item.candidate.user_id)
        if not out or user in users:
            out.append([])
            users = set()
        out[-1].append((i, item))
        users.add(user)
    return out


def _waits(exc: BaseException) -> bool:
    """A failure the whole segment waits out and tries again (as one candidate would)."""
    return is_transient(exc) or isinstance(exc, StoreError)


def resolve_segment(
    pipeline: Pipeline, items: Sequence[RedactedCandidate], view: FactView
) -> list[Resolved | Exception]:
    """Each candidate's dedupe step (:meth:`Pipeline.dedupe`), in order, with the reads
    all of them plan asked together; a candidate's permanent failure is its entry (the
    others go on), a failure to wait out (:func:`_waits`) raises."""
    vectors: list[Any] = []
    reads: list[ReadRequest] = []
    for item in items:
        try:
            v = pipeline.dedupe_vectors(item)
        except Exception as exc:
            if _waits(exc):
                raise
            vectors.append(exc)
            continue
        vectors.append(v)
        try:
            reads += pipeline.resolve.read_plan(item, v[0]).reads
        except Exception as exc:  # the resolution raises it, or reads on its own
            if _waits(exc):
                raise
    shared = read_ahead(view, ReadPlan(tuple(reads)))
    out: list[Resolved | Exception] = []
    for item, v in zip(items, vectors, strict=True):
        if isinstance(v, Exception):
            out.append(v)
            continue
        try:
            out.append(pipeline.dedupe_with(item, shared, v))
        except Exception as exc:
            if _waits(exc):
                raise
            out.append(exc)
    return out


async def handle_dedupe_batch(
    worker: Worker,
    route: Route,
    batch: Sequence[tuple[bytes, Origin]],
    send: Send,
    enqueue: Enqueue,
    ack: Callable[[int], None],
) -> None:
    """The dedupe agent's body for the messages ``batch`` (in their order).

    ``ack(i)`` is called for the i-th message once its work is done: what it forwarded
    and audited acknowledged by the broker and its facts confirmed by the store, or it
    was dead-lettered; never before. Raises (and acknowledges nothing more) on a broker
    failure or a cancellation."""
    stage = route.stage.value
    parsed: list[tuple[int, RedactedCandidate]] = []
    for i, (raw, origin) in enumerate(batch):
        try:
            parsed.append((i, route.parse(raw)))
        except (InvalidEvent, ValidationError, ValueError) as exc:
            worker.metrics.events_in.labels(stage=stage).inc()
            await worker.dead_letter(send, stage, origin, raw, f"invalid event: {exc}", exc)
            ack(i)
    for seg in segments(parsed):
        async with worker.facts_lock:  # read-modify-writes of its users' facts
            await _segment(worker, route, batch, seg, send, enqueue, ack)


async def _segment(
    worker: Worker,
    route: Route,
    batch: Sequence[tuple[bytes, Origin]],
    seg: list[tuple[int, RedactedCandidate]],
    send: Send,
    enqueue: Enqueue,
    ack: Callable[[int], None],
) -> None:
    from memgate.streams.app import _failure

    m = worker.metrics
    stage = route.stage.value
    m.events_in.labels(stage=stage).inc(len(seg))
    loop = asyncio.get_running_loop()
    t0 = loop.time()
    items = [item for _, item in seg]
    results = await worker.retry(
        route.reads or "retrieval", lambda: resolve_segment(worker.pipeline, items, worker.view)
    )
    each = (loop.time() - t0) / len(seg)
    done: list[tuple[int, Effects]] = []
    for (i, _), res in zip(seg, results, strict=True):
        if isinstance(res, Exception):
            raw, origin = batch[i]
            await worker.dead_letter(send, stage, origin, raw, _failure(stage, res), res)
            ack(i)
            continue
        m.latency.labels(stage=stage).observe(each)
        done.append((i, effects(route.stage, res)))
    acks: list[Awaitable[int]] = []
    for _, d in done:
        for out in d.forward:
            assert route.forward_to is not None  # dedupe forwards its resolutions
            payload = out.model_dump_json().encode()
            acks.append(await enqueue(route.forward_to, out.partition_key, payload))
        for rec in d.audit:
            acks.append(await enqueue(AUDIT_TOPIC, rec.partition_key, encode_audit(rec)))
    await all_acked(acks)  # the facts come after the rows that explain them
    refused = await _write(worker, [(i, list(d.facts)) for i, d in done if d.facts])
    for i, d in done:
        if i in refused:
            raw, origin = batch[i]
            await worker.dead_letter(send, stage, origin, raw, _failure(stage, refused[i]),
                                     refused[i])  # fmt: skip
        else:
            m.record_effects(route.stage, d)
        ack(i)


async def _write(
    worker: Worker, writes: list[tuple[int, list[StoredFact]]]
) -> dict[int, Exception]:
    """The segment's facts written in one call, durably, then remembered; when the store
    refuses the call, each candidate's facts alone. Returns the refused candidates."""
    facts = [f for _, fs in writes for f in fs]
    if not facts:
        return {}
    # with the recent writes in memory, a write need not wait until it is searchable:
    # it returns once durable (OpenSearch: in the translog), and is remembered then
    wait = worker.recent is None

    async def upsert(these: list[StoredFact]) -> None:
        await worker.retry("retrieval", lambda: worker.retrieval.upsert(these, wait=wait))
        if worker.recent is not None:
            worker.recent.remember(these)

    try:
        await upsert(facts)
        return {}
    except Exception as exc:
        if len(writes) == 1:
            return {writes[0][0]: exc}
    refused: dict[int, Exception] = {}
    for i, fs in writes:
        try:
            await upsert(fs)
        except Exception as exc:
            refused[i] = exc
    return refused


def wire_dedupe(
    app: Any, worker: Worker, topics: Any, send: Send, enqueue: Enqueue, route: Route
) -> None:
    """The dedupe agent of ``worker`` on ``app``: :func:`handle_dedupe_batch` on the
    candidates waiting (at most :data:`DEDUPE_BATCH`; :data:`DEDUPE_WINDOW_S` behind a backlog)."""
    import faust

    from memgate.streams.app import _acker, _origin
    from memgate.streams.batching import take_waiting

    async def dedupe_agent(stream: faust.StreamT[bytes]) -> None:
        async for events in take_waiting(stream, DEDUPE_BATCH, DEDUPE_WINDOW_S):
            for event in events:  # held until handle_dedupe_batch acknowledges it
                event.message.incref()
            batch = [(e.value, _origin(e)) for e in events]
            await handle_dedupe_batch(worker, route, batch, send, enqueue, _acker(events))

    dedupe_agent.__name__ = f"{route.stage.value}_agent"
    name = f"{worker.settings.topic_prefix}.{route.stage.value}"
    app.agent(topics[route.source], name=name)(dedupe_agent)
