"""The Faust app: one topic per stage, carrying out :mod:`memgate.streams.topology`.

Topics (``<prefix>.<name>``, one partition each by default)::

    turns ─▶ triage ─▶ triaged ─▶ extract ─▶ extracted ─▶ redact ─▶ redacted
          ─▶ dedupe ─▶ resolved ─▶ persist            (audit events ─▶ audit ─▶ audit store)
    any stage ─▶ dlq   (invalid or permanently failing events, with their origin)

Every message is keyed ``tenant/user``, so one worker owns a user's facts.
What a stage's outputs do (forward, audit rows, fact writes, in that order)
is :func:`memgate.streams.topology.effects`; this module only carries it
out: the agents are thin wiring around bodies that run without a broker:
:meth:`Worker.handle` (a stage's body, one message), and the bodies of the
messages waiting in a partition, taken several at a time
(:mod:`memgate.streams.triage_batch`, :mod:`memgate.streams.stage_batch`,
:mod:`memgate.streams.dedupe_batch`, and :meth:`Worker.write_audit`).

Delivery is at least once. A message is acknowledged only after its body
returned: what it forwarded and its audit rows were delivered to Kafka (we
await the broker's ack), and the facts it wrote were confirmed by the store
(or it was dead-lettered). The agents hold a reference on each message
while the body runs, so a body that raises or is cancelled (a broker
failure, a shutdown) leaves it unacknowledged and it comes again. Transient
failures are retried with capped exponential backoff for as long as they
last (the partition waits, nothing is dropped); permanent failures go to the
dead-letter topic with the reason and the source topic, partition and
offset. Effects are idempotent: fact ids are deterministic, OpenSearch
document ids are fact ids, audit rows collapse by event id, and a candidate
delivered again finds the fact it was folded into (``redelivered``).

Replays: the ledger is the audit journal. A turn whose journal row is stored
is a replay and is skipped (its journal row was sent after its triaged turn
was delivered, so the rest of its work is durable); a turn replayed before
its journal row reached the store (within the audit agent's batch window)
goes through the stages again and changes no fact.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from pydantic import ValidationError

from memgate.core.errors import (
    InvalidEvent,
    MissingExtra,
    PermanentError,
    StoreError,
    is_transient,
)

try:
    import faust
except ImportError as exc:
    raise MissingExtra("kafka", "the Kafka worker", exc.name) from exc
from memgate.core.events import AuditEvent, DeadLetter, Stage, TurnEvent, utcnow
from memgate.core.retry import Backoff, retry_async
from memgate.core.settings import Settings
from memgate.core.stores import AuditStore, FactView, Refreshable, RetrievalStore
from memgate.stages.seal import DEAD_LETTER_PAYLOAD_CHARS, mask_prefix, seal
from memgate.streams.acks import all_acked
from memgate.streams.consolidator import Consolidator
from memgate.streams.dedupe_batch import wire_dedupe
from memgate.streams.embed_ahead import EmbedAhead
from memgate.streams.fair_agents import wire_input
from memgate.streams.fairness import FairGate
from memgate.streams.health import Readiness
from memgate.streams.kafka_client import (
    faust_broker_kwargs,
    faust_datadir,
    kafka_client_kwargs,
    membership,
    start_client,
)
from memgate.streams.lag import CommittedLag
from memgate.streams.metrics import Metrics
from memgate.streams.pipeline import Pipeline
from memgate.streams.recent import RecentFacts
from memgate.streams.stage_batch import wire_stage
from memgate.streams.topology import (
    AUDIT_TOPIC,
    DEFERRED_TOPIC,
    DLQ_TOPIC,
    ROUTES,
    TOPIC_NAMES,
    Route,
    admit,
    decode_audit,
    effects,
    encode_audit,
)
from memgate.streams.turns import JournalLedger, TurnIdConflict, TurnLedger, check_turn

log = logging.getLogger("memgate.worker")
#: the stage that reads each stage topic (the audit topic's reader is the audit agent)
_READER = {r.source: r.stage.value for r in ROUTES} | {DEFERRED_TOPIC: Stage.TRIAGE.value}
T = TypeVar("T")
#: Longest wait between two tries of a store call (the partition waits meanwhile).
_MAX_WAIT_S = 30.0
#: The audit agent writes up to this many rows at once, or what came within the window.
AUDIT_BATCH = 500
AUDIT_WINDOW_S = 0.5

#: Sends ``payload`` under ``key`` to a topic (its name without the prefix) and waits for
#: the broker's acknowledgement.
Send = Callable[[str, str, bytes], Awaitable[None]]
#: Hands ``payload`` under ``key`` to the producer for a topic without waiting: what it
#: returns completes with the message's offset once the broker acknowledged it.
Enqueue = Callable[[str, str, bytes], Awaitable[Awaitable[int]]]


def topic_name(settings: Settings, name: str) -> str:
    return f"{settings.topic_prefix}.{name}"


def topic_configs(settings: Settings) -> dict[str, str]:
    """The config of every topic memgate creates: deleted after ``kafka_retention_hours``,
    never compacted (no record outlives the retention, so erasure needs no tombstone).

    >>> from memgate.core.settings import load_settings
    >>> topic_configs(load_settings(data_dir="/tmp/mg-doc"))
    {'cleanup.policy': 'delete', 'retention.ms': '86400000'}
    """
    ms = int(settings.kafka_retention_hours * 3600 * 1000)
    return {"cleanup.policy": "delete", "retention.ms": str(ms)}


async def ensure_topics(settings: Settings, replication: int = 1) -> list[str]:
    """Create the stage topics that do not exist yet (one partition count for all).

    Faust ignores a subscribed topic that is missing when the worker joins its
    group, so the worker and the producer declare them first. Returns the names
    created.
    """
    from aiokafka.admin import AIOKafkaAdminClient, NewTopic

    admin = AIOKafkaAdminClient(**kafka_client_kwargs(settings))
    await start_client(admin.start, admin.close, settings)
    try:
        existing = set(await admin.list_topics())
        missing = [topic_name(settings, n) for n in TOPIC_NAMES]
        missing = [t for t in missing if t not in existing]
        if missing:
            await admin.create_topics(
                [
                    NewTopic(
                        t, settings.topic_partitions, replication,
                        topic_configs=topic_configs(settings),
                    )
                    for t in missing
                ]
            )  # fmt: skip
        return missing
    finally:
        await admin.close()


@dataclass(frozen=True)
class Origin:
    """Where a message was read: what its dead letter names."""

    topic: str
    partition: int = -1
    offset: int = -1
    key: bytes | None = None


def _waits(exc: BaseException) -> bool:
    # StoreError: the store refused for a reason an operator must fix (a missing
    # index, a full disk); retrying keeps the partition waiting, never dropping.
    return is_transient(exc) or isinstance(exc, StoreError)


@dataclass
class Worker:
    """The stores and stages one worker process uses, and the agents' bodies."""

    settings: Settings
    pipeline: Pipeline
    retrieval: RetrievalStore
    audit: AuditStore
    metrics: Metrics
    #: the consolidation timer's users and tick (:mod:`memgate.streams.consolidator`)
    consolidator: Consolidator | None = None
    #: per-user fairness at the input stage (:mod:`memgate.streams.fairness`); from the
    #: settings when not given
    gate: FairGate | None = None
    #: the turn ledger: the audit journal
    ledger: TurnLedger = field(init=False)
    #: committed lag of this worker's partitions by (topic name without prefix, partition),
    #: refreshed every 2 s by the lag timer (what the deferred agent's backpressure reads)
    stage_lag: dict[tuple[str, int], int] = field(init=False, default_factory=dict)
    #: what the dedupe stage reads: the store, and this worker's recent writes on a store
    #: that needs a refresh before a search sees a write (:mod:`memgate.streams.recent`)
    recent: RecentFacts | None = field(init=False)
    #: the dedupe embeddings of the candidates the redact stage forwards, computed ahead in
    #: a background thread (:mod:`memgate.streams.embed_ahead`; off with ``ingest_window`` 1)
    ahead: EmbedAhead | None = field(init=False)

    def __post_init__(self) -> None:
        if self.gate is None:
            s = self.settings
            self.gate = FairGate(
                s.fair_turns_per_s, s.fair_burst,
                backlog=self.stages_backlog, max_backlog=s.fair_max_backlog,
            )  # fmt: skip
        self.ledger = JournalLedger(self.audit)
        self.recent = recent_facts(self.settings, self.retrieval)
        self.ahead = None
        if self.settings.ingest_window > 1:
            ahead = EmbedAhead(self.pipeline.resolve)
            self.ahead = ahead if ahead.enabled else None
        if hasattr(self.retrieval, "on_retry"):  # a store that retries inside (OpenSearch)
            retries = self.metrics.store_retries.labels(store="retrieval")
            self.retrieval.on_retry = lambda _what: retries.inc()
        if self.consolidator is not None:
            self.consolidator.recent = self.recent
        #: the dedupe stage reads and writes a user's facts under it, as consolidation does
        self.facts_lock = (
            self.consolidator.lock if self.consolidator is not None else asyncio.Lock()
        )

    def warm(self) -> None:
        """Load the embedding model now (tokenizer, weights; the int8 model built or read
        from its cache), resolution's multilingual similarity (usem, when on) and what the
        audit client imports on its first write, not on the first candidate or audit
        batch: a worker about to join its group."""
        for load in (getattr(self.pipeline.resolve.embedder, "load", None),
                     getattr(self.pipeline.resolve.meaning, "load", None),
                     getattr(self.audit, "warm", None)):  # fmt: skip
            if callable(load):
                load()

    def stages_backlog(self) -> int:
        """Messages waiting in this worker's stage topics after triage (committed lag)."""
        after = {r.source for r in ROUTES[1:]}
        return sum(lag for (topic, _), lag in self.stage_lag.items() if topic in after)

    @property
    def view(self) -> FactView:
        return self.recent if self.recent is not None else self.retrieval

    async def retry(
        self,
        what: str,
        fn: Callable[[], T],
        retryable: Callable[[BaseException], bool] = _waits,
    ) -> T:
        """Run a blocking call in a thread; retry transient failures with backoff, forever."""

        def note(failures: int, exc: BaseException, wait: float) -> None:
            self.metrics.store_retries.labels(store=what).inc()
            log.warning(
                "event=retry what=%s attempt=%d wait_s=%.2f error=%r "
                "hint='the store is unavailable or throttling; "
                "the partition waits, nothing is dropped'",
                what,
                failures,
                wait,
                exc,
            )

        backoff = Backoff(base=min(self.settings.retry_base_delay_s, _MAX_WAIT_S), cap=_MAX_WAIT_S)
        return await retry_async(
            lambda: asyncio.to_thread(fn), backoff=backoff, retryable=retryable, on_retry=note
        )

    async def step(self, route: Route, item: Any) -> Sequence[object]:
        """The stage's step on one input; what it reads is retried while it fails transiently."""
        if route.stage is Stage.TRIAGE:
            return await triage_turn(self, self.ledger, item)
        fn = self.pipeline.step(route.stage, self.view)
        if route.reads is None:
            return fn(item)
        return await self.retry(route.reads, lambda: fn(item))

    async def handle(
        self, route: Route, raw: bytes, origin: Origin, send: Send, enqueue: Enqueue | None = None
    ) -> Awaitable[None] | None:
        """A stage agent's body for one message: parse, step, carry out the effects.

        Returns None once every effect is done (sent and acknowledged by the broker,
        written and confirmed by the store) or the message is dead-lettered; only
        then may the message be acknowledged. Raises what must leave it
        unacknowledged (a broker failure, a cancellation).

        With ``enqueue``, the messages it sends are handed to the producer in order and
        their acknowledgements awaited together (one broker round trip, not one each).
        When the message writes no fact, it returns at once what completes once the
        broker acknowledged them all (or raises): only then may the message be
        acknowledged, and the agent may go on meanwhile. Facts are written only after
        the forwarded events and the audit rows that explain them were acknowledged.
        """
        stage = route.stage.value
        try:
            item = route.parse(raw)
        except (InvalidEvent, ValidationError, ValueError) as exc:
            self.metrics.events_in.labels(stage=stage).inc()
            await self.dead_letter(send, stage, origin, raw, f"invalid event: {exc}", exc)
            return None
        return await self.handle_item(route, item, raw, origin, send, enqueue)

    async def handle_item(
        self,
        route: Route,
        item: Any,
        raw: bytes,
        origin: Origin,
        send: Send,
        enqueue: Enqueue | None = None,
    ) -> Awaitable[None] | None:
        """:meth:`handle` of a message already parsed (``item``)."""
        self.metrics.events_in.labels(stage=route.stage.value).inc()
        if route.stage is Stage.TRIAGE and self.consolidator is not None:
            self.consolidator.saw(item.tenant_id, item.user_id, origin.partition)
        if route.stage is Stage.DEDUPE:  # a read-modify-write of the user's facts
            async with self.facts_lock:
                return await self._handle(route, item, raw, origin, send, enqueue)
        return await self._handle(route, item, raw, origin, send, enqueue)

    async def _handle(
        self,
        route: Route,
        item: Any,
        raw: bytes,
        origin: Origin,
        send: Send,
        enqueue: Enqueue | None,
    ) -> Awaitable[None] | None:
        m = self.metrics
        stage = route.stage.value
        loop = asyncio.get_running_loop()
        t0 = loop.time()
        try:
            done = effects(route.stage, await self.step(route, item))
        except Exception as exc:
            await self.dead_letter(send, stage, origin, raw, _failure(stage, exc), exc)
            return None
        m.latency.labels(stage=stage).observe(loop.time() - t0)
        if route.stage is Stage.REDACT and self.ahead is not None:
            self.ahead.candidates(done.forward)
        outs: list[tuple[str, str, bytes]] = []
        for out in done.forward:
            assert route.forward_to is not None  # only a stage with a next one forwards
            outs.append((route.forward_to, out.partition_key, out.model_dump_json().encode()))
        outs.extend((AUDIT_TOPIC, rec.partition_key, encode_audit(rec)) for rec in done.audit)
        if enqueue is None:
            for name, key, payload in outs:
                await send(name, key, payload)
        else:
            acks = [await enqueue(name, key, payload) for name, key, payload in outs]
            if not done.facts:
                m.record_effects(route.stage, done)
                return all_acked(acks) if acks else None
            await all_acked(acks)
        if done.facts:
            facts = list(done.facts)
            # with the recent writes in memory, a write need not wait until it is searchable:
            # it returns once durable (OpenSearch: in the translog), and is remembered then
            wait = self.recent is None
            try:
                await self.retry("retrieval", lambda: self.retrieval.upsert(facts, wait=wait))
            except Exception as exc:
                await self.dead_letter(send, stage, origin, raw, _failure(stage, exc), exc)
                return None
            if self.recent is not None:
                self.recent.remember(facts)
        m.record_effects(route.stage, done)
        return None

    async def take_turn(
        self, raw: bytes, origin: Origin, send: Send, enqueue: Enqueue
    ) -> Awaitable[None] | None:
        """The input agent's body for one message of the turns topic.

        The turn goes through the triage step now (:meth:`handle`; returns None, and the
        message may be acknowledged), or, when its user is over its quota or has turns
        waiting on the deferred topic (:class:`memgate.streams.fairness.FairGate`), it
        is handed unchanged to the deferred topic under the same key. Then the agent
        goes on with the next message at once, and what this returns completes once
        the broker acknowledged the copy: only then may the message be acknowledged
        (if it raises, the message stays unacknowledged and comes again).
        """
        gate = self.gate
        assert gate is not None
        route = ROUTES[0]
        await gate.ready(origin.partition)  # the backlog markers are rebuilt after a restart
        try:
            turn = route.parse(raw)
        except (InvalidEvent, ValidationError, ValueError) as exc:
            # dead-lettered without waiting for the broker's ack here: the agent goes on at
            # once and the message is acknowledged when the copy is (a flood of bad events
            # would otherwise cost one broker round trip each, in line)
            self.metrics.events_in.labels(stage=route.stage.value).inc()
            dlq_key, payload = self.dead_letter_message(
                route.stage.value, origin, raw, f"invalid event: {exc}", exc
            )
            return self._delivered(await enqueue(DLQ_TOPIC, dlq_key, payload))
        key = turn.partition_key
        if not gate.defers(key):
            later = await self.handle_item(route, turn, raw, origin, send, enqueue)
            if later is not None:
                await later
            return None
        return await self.defer(gate, key, raw, enqueue)

    async def defer(
        self, gate: FairGate, key: str, raw: bytes, enqueue: Enqueue
    ) -> Awaitable[None]:
        """A turn of a user over its quota to the deferred topic: what it returns completes
        once the broker acknowledged the copy (the user's marker then moves on)."""
        gate.deferring(key)
        try:
            delivered = await enqueue(DEFERRED_TOPIC, key, raw)
        except BaseException:
            gate.deferred(key, None)
            raise
        self.metrics.turns_deferred.inc()
        self.metrics.deferred_users.set(gate.users_waiting)
        return self._deferred(gate, key, delivered)

    @staticmethod
    async def _delivered(delivered: Awaitable[int]) -> None:
        await delivered

    async def _deferred(self, gate: FairGate, key: str, delivered: Awaitable[int]) -> None:
        offset: int | None = None
        try:
            offset = await delivered
        finally:
            gate.deferred(key, offset)

    async def take_deferred(self, raw: bytes, origin: Origin, send: Send) -> None:
        """The deferred agent's body for one message: wait for one of the user's tokens,
        then the triage step exactly as on the main path (a replay skipped, a turn id
        conflict or a failure dead-lettered, naming the deferred topic as its origin);
        then, if it was the user's last deferred turn, its marker goes."""
        gate = self.gate
        assert gate is not None
        route = ROUTES[0]
        try:
            turn = route.parse(raw)
        except (InvalidEvent, ValidationError, ValueError):
            await self.handle(route, raw, origin, send)  # dead-lettered there
            key = origin.key.decode("utf-8", "replace") if origin.key else ""
        else:
            key = turn.partition_key
            await gate.take(key)
            await self.handle_item(route, turn, raw, origin, send)
        gate.undeferred(key, origin.offset)
        self.metrics.deferred_users.set(gate.users_waiting)

    async def write_audit(
        self,
        batch: Sequence[tuple[bytes, Origin]],
        send: Send,
        ack: Callable[[int], None],
    ) -> None:
        """The audit agent's body for one batch: each message written, or dead-lettered.

        ``ack(i)`` is called for the batch's i-th message once it is in the audit
        store (the write returned) or in the dead-letter topic (the broker
        acknowledged it), never before. Transient failures are retried for as
        long as they last; a write the store refuses otherwise (a
        :class:`StoreError`, a row it cannot hold) is tried again row by row,
        and what it still refuses is dead-lettered with the reason. Raises (and
        acknowledges nothing more) on a broker failure or a cancellation.
        """
        rows: list[tuple[int, AuditEvent]] = []
        for i, (raw, origin) in enumerate(batch):
            try:
                rows.append((i, decode_audit(raw)))
            except (ValidationError, ValueError) as exc:
                await self.dead_letter(send, AUDIT_TOPIC, origin, raw, f"invalid row: {exc}", exc)
                ack(i)
        refused: dict[int, Exception] = {}
        try:
            if rows:
                await self._write_rows([rec for _, rec in rows])
        except Exception as exc:
            refused = await self._refused(rows, exc)
        for i, _ in rows:
            if i in refused:
                raw, origin = batch[i]
                reason = f"audit write failed: {refused[i]}"
                await self.dead_letter(send, AUDIT_TOPIC, origin, raw, reason, refused[i])
            ack(i)

    async def _refused(
        self, rows: list[tuple[int, AuditEvent]], exc: Exception
    ) -> dict[int, Exception]:
        """The rows of a refused batch that the store refuses alone too, with the error."""
        if len(rows) == 1:
            return {rows[0][0]: exc}
        log.warning("event=audit_batch_refused rows=%d error=%r hint='row by row'", len(rows), exc)
        refused: dict[int, Exception] = {}
        for i, rec in rows:
            try:
                await self._write_rows([rec])
            except Exception as one:
                refused[i] = one
        return refused

    async def _write_rows(self, records: list[AuditEvent]) -> None:
        # only transient failures wait: a refused row would hold the audit partition forever
        await self.retry("audit", lambda: self.audit.write(records), retryable=is_transient)

    async def dead_letter(
        self,
        send: Send,
        stage: str,
        origin: Origin,
        raw: Any,
        reason: str,
        exc: BaseException,
    ) -> None:
        """Send a message that cannot be processed to the dead-letter topic (secrets masked)."""
        key, payload = self.dead_letter_message(stage, origin, raw, reason, exc)
        await send(DLQ_TOPIC, key, payload)

    def dead_letter_message(
        self, stage: str, origin: Origin, raw: Any, reason: str, exc: BaseException
    ) -> tuple[str, bytes]:
        """The dead letter of a message (key and value, secrets masked), counted and logged."""
        text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
        size = len(raw) if isinstance(raw, bytes) else len(text.encode("utf-8", "replace"))
        # bounded: the detectors read at most the kept part and a margin, whatever the size
        masked = mask_prefix(self.pipeline.redact.detector, text, DEAD_LETTER_PAYLOAD_CHARS)
        dl = DeadLetter(
            reason=reason[:2000],
            error_type=type(exc).__name__,
            source_topic=origin.topic,
            partition=origin.partition,
            offset=origin.offset,
            key=origin.key.decode("utf-8", "replace") if origin.key else None,
            payload=masked,
            payload_bytes=size,
            payload_truncated=len(text) > DEAD_LETTER_PAYLOAD_CHARS,
            failed_at=utcnow(),
        )
        dl = seal(self.pipeline.redact.detector, dl)  # the final check before the topic
        reason = dl.reason  # masked: the log line below says it too
        self.metrics.dead_letters.labels(source=stage, reason=type(exc).__name__).inc()
        log.error(
            "event=dead_letter stage=%s topic=%s partition=%s offset=%s reason=%r "
            "hint='fix the producer and re-send; the payload (secrets masked) is in %s'",
            stage,
            origin.topic,
            origin.partition,
            origin.offset,
            reason,
            topic_name(self.settings, DLQ_TOPIC),
        )
        return dl.key or "unknown", dl.model_dump_json().encode()


def recent_facts(settings: Settings, retrieval: RetrievalStore) -> RecentFacts | None:
    """The dedupe stage's read-your-writes cache, for a store that needs a refresh before
    a search sees a write (None: the embedded index, or ``dedupe_wait_for_refresh``)."""
    if settings.dedupe_wait_for_refresh or not isinstance(retrieval, Refreshable):
        return None
    return RecentFacts(
        retrieval,
        retrieval.refresh,
        per_user=settings.dedupe_cache_facts_per_user,
        ttl_s=settings.dedupe_cache_seconds,
    )


def failure_reason(exc: BaseException) -> str:
    """The dead-letter reason of a step's permanent failure."""
    if isinstance(exc, TurnIdConflict):
        return TurnIdConflict.reason
    return f"permanent failure: {exc}"


def _raised_at(exc: BaseException) -> str:
    """Where ``exc`` was raised (file:line of the innermost frame)."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return f"{tb.tb_frame.f_code.co_filename}:{tb.tb_lineno}" if tb is not None else "?"


def _failure(stage: str, exc: Exception) -> str:
    if isinstance(exc, PermanentError | InvalidEvent):
        return failure_reason(exc)
    # a bug or poison input: dead-lettered, so that it does not block the partition. The
    # log names the type and the place, never the text: an exception's text often holds
    # the input it failed on (UnicodeEncodeError, ValidationError), raw (attack20); the
    # reason keeps it for the dead letter, which is masked before it is sent or logged
    log.error("event=stage_failed stage=%s error=%s at=%s", stage, type(exc).__name__,
              _raised_at(exc))  # fmt: skip
    return f"unexpected failure: {exc!r}"


async def triage_turn(worker: Worker, ledger: TurnLedger, turn: TurnEvent) -> Sequence[Any]:
    """The triage agent's step: refuse a turn id reused for another turn, skip a replay,
    triage a new turn.

    The ledger is the audit journal (:class:`memgate.streams.turns.JournalLedger`).
    Journal rows reach the audit store through the audit topic, so a turn that
    comes again within the audit agent's batch window (0.5 s) of the first is
    not recognised: a replay then goes through the stages again (dedupe finds
    its own writes), and a conflicting turn is not caught.
    """
    worker.metrics.record_turn()
    p = worker.pipeline
    state = await worker.retry("audit", lambda: check_turn(ledger, turn, p.triage.digest(turn)))
    if not admit(state):
        log.info("event=turn_replayed tenant=%s turn=%s", turn.tenant_id, turn.turn_id)
        return []
    return p.triage(turn)


def run_worker(app: faust.App, loglevel: str, uvloop: bool = True) -> None:
    """Run the Faust worker of ``app`` until it is stopped (blocks)."""
    from memgate.streams.faust_worker import faust_worker

    faust_worker(app, loglevel, uvloop).execute_from_commandline()


def _origin(event: faust.EventT[bytes]) -> Origin:
    msg = event.message
    return Origin(msg.topic, msg.partition, msg.offset, msg.key)


def _acker(events: Sequence[faust.EventT[bytes]]) -> Callable[[int], None]:
    def ack(i: int) -> None:
        events[i].ack()

    return ack


def create_app(worker: Worker) -> faust.App:
    s = worker.settings
    m = worker.metrics
    app = faust.App(
        s.worker_id,
        **faust_broker_kwargs(s),
        value_serializer="raw",
        key_serializer="raw",
        topic_partitions=s.topic_partitions,
        topic_replication_factor=1,
        processing_guarantee="at_least_once",
        producer_acks=-1,
        web_enabled=False,
        store="memory://",
        datadir=faust_datadir(s),
        consumer_auto_offset_reset="earliest",
        broker_commit_every=50,
        broker_commit_interval=1.0,
        **membership(s),
    )
    topics = {
        n: app.topic(
            topic_name(s, n), key_type=bytes, value_type=bytes, partitions=s.topic_partitions
        )
        for n in TOPIC_NAMES
    }

    async def send(name: str, key: str, payload: bytes) -> None:
        fut = await topics[name].send(key=key.encode(), value=payload)
        await fut  # wait for the broker's ack before the source event is acknowledged

    async def enqueue(name: str, key: str, payload: bytes) -> Awaitable[int]:
        fut = await topics[name].send(key=key.encode(), value=payload)

        async def offset() -> int:
            return int((await fut).offset)

        return offset()

    # Faust acknowledges a message in a ``finally`` once the body is done with it, even
    # when the body raised or was cancelled: the agents take one more reference on each
    # message and give it back only after the body returned, so that a message whose
    # work did not complete stays unacknowledged (and uncommitted) and comes again.

    # the input stage: the gate in front of triage, and the deferred agent behind it
    wire_input(app, worker, topics, send)
    for route in ROUTES[1:]:
        if route.stage is Stage.DEDUPE:  # several waiting candidates at a time
            wire_dedupe(app, worker, topics, send, enqueue, route)
        else:  # several waiting messages at a time (memgate.streams.stage_batch)
            wire_stage(app, worker, topics, send, enqueue, route)

    @app.agent(topics[AUDIT_TOPIC], name=f"{s.topic_prefix}.audit")
    async def audit_agent(stream: faust.StreamT[bytes]) -> None:
        assert isinstance(stream, faust.Stream)  # StreamT does not declare take_events
        async for events in stream.take_events(AUDIT_BATCH, within=AUDIT_WINDOW_S):
            for event in events:
                event.message.incref()
            batch = [(e.value, _origin(e)) for e in events]
            await worker.write_audit(batch, send, _acker(events))

    lag_reader = CommittedLag(s, s.worker_id)
    reported: set[tuple[str, str, str]] = set()

    async def report_lag() -> None:
        """``memgate_consumer_lag`` of this worker's partitions: log end minus the group's
        committed offset (:mod:`memgate.streams.lag`), as Kafka's consumer-group tool says."""
        try:
            assignment = app.consumer.assignment()
        except Exception:  # the consumer is not started yet
            return
        try:
            lags = await lag_reader.read((tp.topic, tp.partition) for tp in assignment)
        except Exception as exc:  # the metric waits; the next tick tries again
            log.warning("event=lag_unreadable error=%r", exc)
            await lag_reader.close()
            return
        now: set[tuple[str, str, str]] = set()
        worker.stage_lag = {(tp.topic.rsplit(".", 1)[-1], tp.partition): lag
                            for tp, lag in lags.items()}  # fmt: skip
        for tp, lag in lags.items():
            # labelled by the stage that reads the topic (turns -> triage), as every other
            # metric is, so that one dashboard variable filters them all
            source = tp.topic.rsplit(".", 1)[-1]
            labels = (_READER.get(source, source), tp.topic, str(tp.partition))
            m.consumer_lag.labels(*labels).set(lag)
            now.add(labels)
        for gone in reported - now:  # partitions moved to another worker: not ours to report
            m.consumer_lag.remove(*gone)
        reported.clear()
        reported.update(now)

    if worker.recent is not None:
        recent = worker.recent

        @app.on_partitions_assigned.connect
        def forget_recent_writes(sender: Any, /, *args: Any, signal: Any, **kwargs: Any) -> None:
            # another worker may have written to these users meanwhile: start empty, and
            # refresh the store before the next read (memgate.streams.recent)
            recent.reset()

    @app.on_before_shutdown.connect
    def close_lag_reader(sender: Any, /, *args: Any, signal: Any, **kwargs: Any) -> Awaitable[None]:
        if worker.ahead is not None:  # the queued forward passes are not waited for
            worker.ahead.close()
        return lag_reader.close()

    app.timer(interval=2.0)(report_lag)
    consolidator = worker.consolidator
    if consolidator is not None and consolidator.enabled:
        turns = topic_name(s, ROUTES[0].source)

        @app.on_partitions_assigned.connect
        def keep_owned_users(sender: Any, /, *args: Any, signal: Any, **kwargs: Any) -> None:
            # another worker now writes the facts of the users of partitions we lost
            assigned = args[0] if args else kwargs.get("assigned", ())
            consolidator.keep_partitions(tp.partition for tp in assigned if tp.topic == turns)

        async def consolidate() -> None:
            try:
                await consolidator.tick()
            except Exception as exc:  # never stops the worker: the next tick tries again
                log.error("event=consolidation_tick_failed error=%s", type(exc).__name__)

        app.timer(interval=consolidator.interval_s)(consolidate)
    return app


def worker_readiness(app: faust.App, retrieval: RetrievalStore, audit: AuditStore) -> Readiness:
    """The worker's ``/ready`` checks: both stores answer and the Kafka consumer runs."""

    def kafka() -> None:
        app.consumer.assignment()  # raises until the consumer has started

    return Readiness(
        {
            "retrieval": retrieval.stats,
            "audit": lambda: audit.query("SELECT 1"),
            "kafka": kafka,
        }
    )
