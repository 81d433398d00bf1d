"""The input agent on several waiting turns at a time.

One turn at a time, the input agent waited twice per turn in line: for the turn ledger
(one audit store query in a thread) and for the broker's acknowledgement of what the
turn's triage sent, before it read the next turn; the other stages waited for it. The
agent now takes the turns waiting in its partitions (at most :data:`TRIAGE_BATCH`; at once on
a quiet stream, within :data:`TRIAGE_WINDOW_S` behind a backlog:
:func:`memgate.streams.batching.take_waiting`) and, in their
order:

1. each turn passes the fairness gate as before (:class:`memgate.streams.fairness.FairGate`,
   in the order the turns came); the turns it lets through form a **run**, and a turn it
   defers ends the run first: the run is triaged and its outputs acknowledged by the
   broker before the deferred copy is sent, exactly as one turn at a time did, so a
   user's turns keep their order whichever path they take;
2. a run's turns are looked up in the ledger together (one query per tenant,
   :func:`memgate.streams.turns.check_turns`): a replay is skipped, a turn id reused for
   another turn is dead-lettered (``turn_id_conflict``), a new turn is triaged;
3. what the run's turns forward and journal is handed to the producer in order and
   acknowledged together; only then is each turn acknowledged.

A turn that does not parse is dead-lettered, and a deferred turn's copy sent, without
waiting in line: the batch waits for those acknowledgements at its end, and a message is
acknowledged only once its own came. Whatever fails permanently stays with its turn (it
is dead-lettered, the others go on); a failure of the ledger to wait out is retried for
the run, which has written nothing yet; a broker failure or a cancellation raises and
leaves the turns not yet acknowledged to come again.

Why the ledger answers the same as one turn at a time: a turn's journal row reaches the
audit store through the audit topic and the audit agent's batch (within
``AUDIT_WINDOW_S``), so a turn repeated within a few milliseconds of the first was not
recognised one at a time either; the ledger is read before the run's rows are sent.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from memgate.core.errors import InvalidEvent
from memgate.core.events import Stage, TurnEvent
from memgate.streams.acks import all_acked
from memgate.streams.topology import (
    AUDIT_TOPIC,
    DLQ_TOPIC,
    ROUTES,
    Effects,
    admit,
    effects,
    encode_audit,
)
from memgate.streams.turns import check_turns

if TYPE_CHECKING:
    from memgate.streams.app import Enqueue, Origin, Send, Worker

__all__ = ["TRIAGE_BATCH", "TRIAGE_WINDOW_S", "handle_turn_batch"]

log = logging.getLogger("memgate.worker")

#: The input agent takes at most this many waiting turns at once ...
TRIAGE_BATCH = 32
#: ... and, behind a backlog, what came within this window (none on a quiet stream).
TRIAGE_WINDOW_S = 0.02

_ROUTE = ROUTES[0]


async def handle_turn_batch(
    worker: Worker,
    batch: Sequence[tuple[bytes, Origin]],
    send: Send,
    enqueue: Enqueue,
    ack: Callable[[int], None],
) -> None:
    """The input agent's body for the messages of the turns topic ``batch`` (in order).

    ``ack(i)`` is called for the i-th message once its work is done: what its triage
    forwarded and journaled acknowledged by the broker, or its deferred copy or its
    dead letter acknowledged; never before. Raises (and acknowledges nothing more of
    what is not done) on a broker failure or a cancellation."""
    gate = worker.gate
    assert gate is not None
    stage = _ROUTE.stage.value
    waiting: list[asyncio.Future[None]] = []
    run: list[tuple[int, TurnEvent]] = []
    try:
        for i, (raw, origin) in enumerate(batch):
            await gate.ready(origin.partition)  # markers rebuilt after an assignment
            try:
                turn = _ROUTE.parse(raw)
            except (InvalidEvent, ValidationError, ValueError) as exc:
                worker.metrics.events_in.labels(stage=stage).inc()
                key, payload = worker.dead_letter_message(
                    stage, origin, raw, f"invalid event: {exc}", exc
                )
                waiting.append(_ack_when(_done(await enqueue(DLQ_TOPIC, key, payload)), ack, i))
                continue
            key = turn.partition_key
            if not gate.defers(key):
                run.append((i, turn))
                continue
            await _triage_run(worker, batch, run, send, enqueue, ack)  # before, in order
            run = []
            waiting.append(_ack_when(await worker.defer(gate, key, raw, enqueue), ack, i))
        await _triage_run(worker, batch, run, send, enqueue, ack)
    except BaseException:
        # what was sent without waiting is still acknowledged when its copy is (the
        # tasks go on), but not waited for: a broker failure or a shutdown stops here
        for task in waiting:
            task.add_done_callback(_retrieved)
        raise
    results = await asyncio.gather(*waiting, return_exceptions=True)
    failures = [r for r in results if isinstance(r, BaseException)]
    if failures:
        raise failures[0]


def _retrieved(task: asyncio.Future[None]) -> None:
    """Mark a task's failure as seen (its message stays unacknowledged and comes again)."""
    if not task.cancelled():
        task.exception()


def _ack_when(done: Awaitable[None], ack: Callable[[int], None], i: int) -> asyncio.Future[None]:
    async def wait() -> None:
        await done
        ack(i)

    return asyncio.ensure_future(wait())


async def _done(delivered: Awaitable[int]) -> None:
    await delivered


async def _triage_run(
    worker: Worker,
    batch: Sequence[tuple[bytes, Origin]],
    run: list[tuple[int, TurnEvent]],
    send: Send,
    enqueue: Enqueue,
    ack: Callable[[int], None],
) -> None:
    """The triage step of the turns of ``run``: the ledger asked once per tenant, each new
    turn triaged, their outputs acknowledged together, then each turn acknowledged."""
    from memgate.streams.app import _failure

    if not run:
        return
    m = worker.metrics
    p = worker.pipeline
    stage = _ROUTE.stage.value
    for i, turn in run:
        m.events_in.labels(stage=stage).inc()
        if worker.consolidator is not None:
            worker.consolidator.saw(turn.tenant_id, turn.user_id, batch[i][1].partition)
        m.record_turn()
    loop = asyncio.get_running_loop()
    t0 = loop.time()
    turns = [t for _, t in run]
    failed: Exception | None = None
    try:
        states = await worker.retry(
            "audit", lambda: check_turns(worker.ledger, turns, [p.triage.digest(t) for t in turns])
        )
    except Exception as exc:  # what one turn at a time would have failed with, each
        failed = exc
    each = (loop.time() - t0) / len(run)
    done: list[tuple[int, Effects]] = []
    for n, (i, turn) in enumerate(run):
        t1 = loop.time()
        try:
            if failed is not None:
                raise failed
            state = states[n]
            if isinstance(state, Exception):
                raise state
            if admit(state):
                outputs: Sequence[Any] = p.triage(turn)
            else:
                log.info("event=turn_replayed tenant=%s turn=%s", turn.tenant_id, turn.turn_id)
                outputs = []
            out = effects(Stage.TRIAGE, outputs)
        except Exception as exc:
            raw, origin = batch[i]
            await worker.dead_letter(send, stage, origin, raw, _failure(stage, exc), exc)
            ack(i)
            continue
        m.latency.labels(stage=stage).observe(each + loop.time() - t1)
        done.append((i, out))
    acks: list[Awaitable[int]] = []
    for _, d in done:
        for fwd in d.forward:
            assert _ROUTE.forward_to is not None
            payload = fwd.model_dump_json().encode()
            acks.append(await enqueue(_ROUTE.forward_to, fwd.partition_key, payload))
        for rec in d.audit:
            acks.append(await enqueue(AUDIT_TOPIC, rec.partition_key, encode_audit(rec)))
    await all_acked(acks)
    for i, d in done:
        m.record_effects(_ROUTE.stage, d)
        ack(i)


def wire_triage(app: Any, worker: Worker, topics: Any, send: Send, enqueue: Enqueue) -> None:
    """The input agent of ``worker`` on ``app``: :func:`handle_turn_batch` on the turns
    waiting (at most :data:`TRIAGE_BATCH`; :data:`TRIAGE_WINDOW_S` behind a backlog)."""
    import faust

    from memgate.streams.app import _acker, _origin
    from memgate.streams.batching import take_waiting

    async def input_agent(stream: faust.StreamT[bytes]) -> None:
        async for events in take_waiting(stream, TRIAGE_BATCH, TRIAGE_WINDOW_S):
            for event in events:  # held until handle_turn_batch acknowledges it
                event.message.incref()
            batch = [(e.value, _origin(e)) for e in events]
            await handle_turn_batch(worker, batch, send, enqueue, _acker(events))

    input_agent.__name__ = f"{_ROUTE.stage.value}_agent"
    name = f"{worker.settings.topic_prefix}.{_ROUTE.stage.value}"
    app.agent(topics[_ROUTE.source], name=name)(input_agent)
