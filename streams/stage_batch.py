"""The extract, redact and persist agents on several waiting messages at a time.

These stages write no fact: one message at a time, each agent parsed a message, ran its
step (the extract step in a thread of its own, since an extractor may call a model),
handed its outputs to the producer and went on, with one task per message waiting for
the broker's acknowledgements (:class:`memgate.streams.acks.LaterAcks`). The agent now
takes the messages waiting in its partitions (at most :data:`STAGE_BATCH`; at once on a quiet
stream, within :data:`STAGE_WINDOW_S` behind a backlog:
:func:`memgate.streams.batching.take_waiting`) and, in their order:

1. parses them (one that does not parse is dead-lettered, as before);
2. runs the step of each, in order: the extract steps of the batch in one thread call,
   each step's failure kept with its message; a step that failed on something to wait
   out (:func:`memgate.core.errors.is_transient`, a store error) is then tried again on
   its own with the worker's backoff, for as long as it lasts (the steps that succeeded
   are not run again: an extractor's model is not asked twice);
3. hands every output to the producer in the order of the messages, and goes on: one
   task waits for the batch's acknowledgements and only then are its messages
   acknowledged (a failure leaves them unacknowledged and stops the agent at its next
   batch, as :class:`~memgate.streams.acks.LaterAcks` did per message).

A step's permanent failure is dead-lettered with its message, the others go on. The
outputs, their order on each topic, the metrics and the dead letters are those of one
message at a time (``tests/unit/streams/test_stage_batch.py``).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from memgate.core.errors import InvalidEvent, StoreError, is_transient
from memgate.core.events import Stage
from memgate.streams.acks import LaterAcks, all_acked
from memgate.streams.topology import AUDIT_TOPIC, Effects, Route, effects, encode_audit

if TYPE_CHECKING:
    from memgate.streams.app import Enqueue, Origin, Send, Worker

__all__ = ["STAGE_BATCH", "STAGE_WINDOW_S", "handle_stage_batch", "wire_stage"]

#: A stage agent takes at most this many waiting messages at once ...
STAGE_BATCH = 32
#: ... and, behind a backlog, what came within this window (none on a quiet stream).
STAGE_WINDOW_S = 0.02

Outcome = Sequence[object] | BaseException


class _Again:
    """A step's failure to wait out: the step is tried again on its own."""

    def __init__(self, exc: BaseException) -> None:
        self.exc = exc


def _waits(exc: BaseException) -> bool:
    return is_transient(exc) or isinstance(exc, StoreError)


def _run_steps(
    fn: Callable[[Any], Sequence[object]], items: Sequence[Any], again: bool
) -> list[tuple[Sequence[object] | Exception | _Again, float]]:
    """Each item's step in order, with its seconds; a failure is its item's (to be tried
    again when ``again`` and it is one to wait out)."""
    out: list[tuple[Sequence[object] | Exception | _Again, float]] = []
    for item in items:
        t0 = time.perf_counter()
        try:
            res: Sequence[object] | Exception | _Again = fn(item)
        except Exception as exc:
            res = _Again(exc) if again and _waits(exc) else exc
        out.append((res, time.perf_counter() - t0))
    return out


async def _steps(
    worker: Worker, route: Route, items: Sequence[Any]
) -> list[tuple[Sequence[object] | Exception, float]]:
    fn = worker.pipeline.step(route.stage, worker.view)
    if route.reads is None:  # a pure step: every failure is its message's
        first = _run_steps(fn, items, again=False)
    else:  # one thread call for the batch, as the worker's retry runs one step
        first = await asyncio.to_thread(_run_steps, fn, items, True)
    out: list[tuple[Sequence[object] | Exception, float]] = []
    for item, (first_res, took) in zip(items, first, strict=True):
        if not isinstance(first_res, _Again):
            out.append((first_res, took))
            continue
        assert route.reads is not None
        worker.metrics.store_retries.labels(store=route.reads).inc()
        t0 = time.perf_counter()
        res: Sequence[object] | Exception
        try:  # retried for as long as it fails on something to wait out
            res = await worker.retry(route.reads, partial(fn, item))
        except Exception as exc:
            res = exc
        out.append((res, took + time.perf_counter() - t0))
    return out


async def handle_stage_batch(
    worker: Worker,
    route: Route,
    batch: Sequence[tuple[bytes, Origin]],
    send: Send,
    enqueue: Enqueue,
    ack: Callable[[int], None],
) -> Awaitable[None] | None:
    """A stage agent's body for the messages ``batch`` (in order), for a stage that writes
    no fact. Dead-lettered messages are acknowledged (``ack(i)``) before it returns; what
    it returns completes once the broker acknowledged every output of the others, and
    acknowledges them then (it raises, acknowledging none of them, if one failed)."""
    from memgate.streams.app import _failure

    m = worker.metrics
    stage = route.stage.value
    parsed: list[tuple[int, Any]] = []
    for i, (raw, origin) in enumerate(batch):
        m.events_in.labels(stage=stage).inc()
        try:
            parsed.append((i, route.parse(raw)))
        except (InvalidEvent, ValidationError, ValueError) as exc:
            await worker.dead_letter(send, stage, origin, raw, f"invalid event: {exc}", exc)
            ack(i)
    if not parsed:
        return None
    results = await _steps(worker, route, [item for _, item in parsed])
    done: list[tuple[int, Effects]] = []
    for (i, _), (res, took) in zip(parsed, results, strict=True):
        if isinstance(res, Exception):
            raw, origin = batch[i]
            await worker.dead_letter(send, stage, origin, raw, _failure(stage, res), res)
            ack(i)
            continue
        m.latency.labels(stage=stage).observe(took)
        done.append((i, effects(route.stage, res)))
    if route.stage is Stage.REDACT and worker.ahead is not None:
        worker.ahead.candidates(out for _, d in done for out in d.forward)
    acks: list[Awaitable[int]] = []
    for _, d in done:
        assert not d.facts  # only the dedupe stage writes facts (memgate.streams.dedupe_batch)
        for out in d.forward:
            assert route.forward_to is not None  # only a stage with a next one forwards
            payload = out.model_dump_json().encode()
            acks.append(await enqueue(route.forward_to, out.partition_key, payload))
        for rec in d.audit:
            acks.append(await enqueue(AUDIT_TOPIC, rec.partition_key, encode_audit(rec)))
        m.record_effects(route.stage, d)
    if not done:
        return None

    async def acknowledged() -> None:
        await all_acked(acks)
        for i, _ in done:
            ack(i)

    return acknowledged()


def wire_stage(
    app: Any, worker: Worker, topics: Any, send: Send, enqueue: Enqueue, route: Route
) -> None:
    """The agent of ``route`` (a stage that writes no fact) on ``app``:
    :func:`handle_stage_batch` on the messages waiting (at most :data:`STAGE_BATCH`;
    :data:`STAGE_WINDOW_S` behind a backlog)."""
    import faust

    from memgate.streams.app import _acker, _origin
    from memgate.streams.batching import take_waiting

    async def agent(stream: faust.StreamT[bytes]) -> None:
        later_acks = LaterAcks()
        async for events in take_waiting(stream, STAGE_BATCH, STAGE_WINDOW_S):
            later_acks.check()
            for event in events:  # held until handle_stage_batch acknowledges it
                event.message.incref()
            batch = [(e.value, _origin(e)) for e in events]
            later = await handle_stage_batch(worker, route, batch, send, enqueue, _acker(events))
            if later is not None:
                later_acks.ack_when(later, lambda: None)

    agent.__name__ = f"{route.stage.value}_agent"
    app.agent(topics[route.source], name=f"{worker.settings.topic_prefix}.{route.stage.value}")(
        agent
    )
