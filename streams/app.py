"""The Faust app: one topic per stage, the same stage steps as the in-process runner.

Topics (``<prefix>.<name>``, one partition each by default)::

    turns ─▶ triage ─▶ triaged ─▶ extract ─▶ extracted ─▶ redact ─▶ redacted
          ─▶ dedupe ─▶ resolved ─▶ persist            (audit events ─▶ audit ─▶ audit store)
    any stage ─▶ dlq   (invalid or permanently failing events, with their origin)

Every message is keyed ``tenant/user``, so one worker owns a user's facts.

Delivery is at least once. An event is acknowledged only after what it
produced was delivered to Kafka (we await the broker's ack) and what it wrote
was confirmed by the store; transient failures are retried with capped
exponential backoff for as long as they last (the partition waits, nothing is
dropped); permanent failures go to the dead-letter topic with the reason and
the source topic, partition and offset. Effects are idempotent: fact ids are
deterministic, OpenSearch document ids are fact ids, and audit rows collapse
by event id.

Dedupe state: the retrieval store is the source of truth. The dedupe agent
resolves a candidate against the store and applies the resulting fact writes
(waiting for refresh) before it acknowledges the event; since all events of a
user go to one partition and one agent processes a partition in order, the
next candidate of that user always sees the previous one's effect. A replay
after a crash finds its own writes (``redelivered``) and changes nothing.
The persist agent records each resolution's fact history in the audit store.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

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
from memgate.core.events import (
    CandidateFact,
    DeadLetter,
    DecisionRecord,
    FactHistoryRecord,
    JournalRecord,
    RedactedCandidate,
    Resolution,
    ResolutionAction,
    Stage,
    StoredFact,
    TriagedTurn,
    TurnEvent,
    parse_turn,
    utcnow,
)
from memgate.core.retry import Backoff, retry_async
from memgate.core.settings import Settings
from memgate.core.stores import AuditStore, RetrievalStore
from memgate.stages.redact import mask_all
from memgate.stages.seal import seal
from memgate.streams.metrics import Metrics
from memgate.streams.pipeline import Pipeline
from memgate.streams.turns import JournalLedger, TurnIdConflict, TurnLedger, check_turn

log = logging.getLogger("memgate.worker")
T = TypeVar("T")
#: Longest wait between two tries of a store call (the partition waits meanwhile).
_MAX_WAIT_S = 30.0

AUDIT_TYPES = (JournalRecord, DecisionRecord, FactHistoryRecord)
TOPIC_NAMES = ("turns", "triaged", "extracted", "redacted", "resolved", "audit", "dlq")


def topic_name(settings: Settings, name: str) -> str:
    return f"{settings.topic_prefix}.{name}"


async def ensure_topics(settings: Settings, replication: int = 1) -> list[str]:
    """Create the stage topics that do not exist yet (one partition count for all).

    Faust ignores a subscribed topic that is missing when the worker joins its
    group, so the worker and the producer declare them first. Returns the names
    created.
    """
    from aiokafka.admin import AIOKafkaAdminClient, NewTopic

    admin = AIOKafkaAdminClient(bootstrap_servers=settings.kafka_bootstrap)
    await admin.start()
    try:
        existing = set(await admin.list_topics())
        missing = [topic_name(settings, n) for n in TOPIC_NAMES]
        missing = [t for t in missing if t not in existing]
        if missing:
            await admin.create_topics(
                [NewTopic(t, settings.topic_partitions, replication) for t in missing]
            )
        return missing
    finally:
        await admin.close()


def _audit_from_json(raw: bytes) -> JournalRecord | DecisionRecord | FactHistoryRecord:
    import json

    data = json.loads(raw)
    kind = data.pop("_kind", None)
    if kind == "journal":
        return JournalRecord.model_validate(data)
    if kind == "decision":
        return DecisionRecord.model_validate(data)
    if kind == "history":
        return FactHistoryRecord.model_validate(data)
    raise ValueError(f"audit message without a known _kind: {kind!r}")


def _audit_to_json(rec: BaseModel) -> bytes:
    import json

    kind = {JournalRecord: "journal", DecisionRecord: "decision", FactHistoryRecord: "history"}[
        type(rec)
    ]
    d = rec.model_dump(mode="json")
    d["_kind"] = kind
    return json.dumps(d, separators=(",", ":")).encode()


@dataclass
class Worker:
    """The stores and stages one worker process uses."""

    settings: Settings
    pipeline: Pipeline
    retrieval: RetrievalStore
    audit: AuditStore
    metrics: Metrics

    async def retry(self, what: str, fn: Callable[[], T]) -> T:
        """Run a blocking call in a thread; retry transient failures with backoff, forever."""

        def retryable(exc: BaseException) -> bool:
            # StoreError: the store refused for a reason an operator must fix (a missing
            # index, a full disk); retrying keeps the partition waiting, never dropping.
            return is_transient(exc) or isinstance(exc, StoreError)

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


def failure_reason(exc: BaseException) -> str:
    """The dead-letter reason of a step's permanent failure."""
    if isinstance(exc, TurnIdConflict):
        return TurnIdConflict.reason
    return f"permanent failure: {exc}"


async def triage_turn(worker: Worker, ledger: TurnLedger, turn: TurnEvent) -> Sequence[Any]:
    """The triage agent's step: refuse a turn id reused for another turn, then triage.

    The ledger is the audit journal (:class:`memgate.streams.turns.JournalLedger`); a
    replay goes on as before (dedupe finds its own writes). Journal rows reach
    the audit store through the audit topic, so a conflicting turn that comes
    within the audit agent's batch window (0.5 s) of the first is not caught.
    """
    worker.metrics.record_turn()
    p = worker.pipeline
    await worker.retry("audit", lambda: check_turn(ledger, turn, p.triage.digest(turn)))
    return p.triage(turn)


def run_worker(app: faust.App, loglevel: str) -> None:
    """Run the Faust worker of ``app`` until it is stopped (blocks)."""
    faust.Worker(app, loglevel=loglevel, quiet=True).execute_from_commandline()


def create_app(worker: Worker) -> faust.App:
    s = worker.settings
    m = worker.metrics
    app = faust.App(
        s.worker_id,
        broker=f"kafka://{s.kafka_bootstrap}",
        value_serializer="raw",
        key_serializer="raw",
        topic_partitions=s.topic_partitions,
        topic_replication_factor=1,
        processing_guarantee="at_least_once",
        producer_acks=-1,
        web_enabled=False,
        store="memory://",
        consumer_auto_offset_reset="earliest",
        broker_commit_every=50,
        broker_commit_interval=1.0,
    )

    def topic(name: str) -> faust.TopicT:
        return app.topic(
            topic_name(s, name),
            key_type=bytes,
            value_type=bytes,
            partitions=s.topic_partitions,
        )

    topics = {n: topic(n) for n in TOPIC_NAMES}

    async def send(name: str, key: str, payload: bytes) -> None:
        fut = await topics[name].send(key=key.encode(), value=payload)
        await fut  # wait for the broker's ack before the source event is acknowledged

    async def dead_letter_raw(
        stage: str,
        source_topic: str,
        raw: Any,
        reason: str,
        exc: BaseException,
        partition: int = -1,
        offset: int = -1,
        key: bytes | None = None,
    ) -> None:
        text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
        masked = mask_all(worker.pipeline.redact.detector, text).text
        dl = DeadLetter(
            reason=reason[:2000],
            error_type=type(exc).__name__,
            source_topic=source_topic,
            partition=partition,
            offset=offset,
            key=key.decode("utf-8", "replace") if key else None,
            payload=masked[:100_000],
            failed_at=utcnow(),
        )
        dl = seal(worker.pipeline.redact.detector, dl)  # the final check before the topic
        m.dead_letters.labels(source=stage, reason=type(exc).__name__).inc()
        log.error(
            "event=dead_letter stage=%s topic=%s partition=%s offset=%s reason=%r "
            "hint='fix the producer and re-send; the payload (secrets masked) is in %s'",
            stage,
            source_topic,
            partition,
            offset,
            reason,
            topic_name(s, "dlq"),
        )
        await send("dlq", dl.key or "unknown", dl.model_dump_json().encode())

    async def dead_letter(stage: str, event: Any, reason: str, exc: BaseException) -> None:
        msg = event.message
        await dead_letter_raw(
            stage, msg.topic, event.value, reason, exc, msg.partition, msg.offset, msg.key
        )

    async def route(stage: Stage, outputs: Sequence[Any], next_topic: str | None) -> None:
        passed = 0
        for out in outputs:
            if isinstance(out, AUDIT_TYPES):
                await send("audit", out.partition_key, _audit_to_json(out))
            elif next_topic is not None:
                passed += 1
                await send(next_topic, out.partition_key, out.model_dump_json().encode())
        m.record_audit([o for o in outputs if isinstance(o, AUDIT_TYPES)])
        if passed:
            m.events_out.labels(stage=stage.value).inc(passed)

    def stage_agent(
        stage: Stage,
        source: str,
        parse: Callable[[bytes], Any],
        step: Callable[[Any], Awaitable[Sequence[Any]]],
        next_topic: str | None,
    ) -> None:
        async def agent(stream: faust.StreamT[bytes]) -> None:
            async for event in stream.events():
                m.events_in.labels(stage=stage.value).inc()
                try:
                    item = parse(event.value)
                except (InvalidEvent, ValidationError, ValueError) as exc:
                    await dead_letter(stage.value, event, f"invalid event: {exc}", exc)
                    continue
                loop = asyncio.get_running_loop()
                t0 = loop.time()
                try:
                    outputs = await step(item)
                except (PermanentError, InvalidEvent) as exc:
                    await dead_letter(stage.value, event, failure_reason(exc), exc)
                    continue
                except Exception as exc:  # a bug or poison input: do not block the partition
                    log.exception("event=stage_failed stage=%s", stage.value)
                    await dead_letter(stage.value, event, f"unexpected failure: {exc!r}", exc)
                    continue
                m.latency.labels(stage=stage.value).observe(loop.time() - t0)
                await route(stage, outputs, next_topic)

        agent.__name__ = f"{stage.value}_agent"
        app.agent(topics[source], name=f"{s.topic_prefix}.{stage.value}")(agent)

    p = worker.pipeline

    journal = JournalLedger(worker.audit)

    async def triage_step(turn: TurnEvent) -> Sequence[Any]:
        return await triage_turn(worker, journal, turn)

    async def extract_step(item: TriagedTurn) -> Sequence[Any]:
        out = await worker.retry("extractor", lambda: p.extract(item))
        m.extraction_calls.labels(extractor=p.extract.extractor.name, outcome="ok").inc()
        return out

    async def redact_step(item: CandidateFact) -> Sequence[Any]:
        return p.redact(item)

    async def dedupe_step(item: RedactedCandidate) -> Sequence[Any]:
        outputs = await worker.retry("retrieval", lambda: p.dedupe(item, worker.retrieval))
        for res in outputs:
            if isinstance(res, Resolution):
                facts = p.persist(res).facts
                if facts:
                    await worker.retry("retrieval", _upsert(facts))
                if res.action in (ResolutionAction.ADD, ResolutionAction.SUPERSEDE):
                    m.record_facts(res.action.value.lower())
        return outputs

    async def persist_step(res: Resolution) -> Sequence[Any]:
        return p.persist(res).history

    stage_agent(Stage.TRIAGE, "turns", lambda raw: parse_turn(raw), triage_step, "triaged")
    stage_agent(
        Stage.EXTRACT, "triaged", TriagedTurn.model_validate_json, extract_step, "extracted"
    )
    stage_agent(
        Stage.REDACT, "extracted", CandidateFact.model_validate_json, redact_step, "redacted"
    )
    stage_agent(
        Stage.DEDUPE, "redacted", RedactedCandidate.model_validate_json, dedupe_step, "resolved"
    )
    stage_agent(Stage.PERSIST, "resolved", Resolution.model_validate_json, persist_step, None)

    @app.agent(topics["audit"], name=f"{s.topic_prefix}.audit")
    async def audit_agent(stream: faust.StreamT[bytes]) -> None:
        async for batch in stream.take(500, within=0.5):
            records = []
            for raw in batch:
                try:
                    records.append(_audit_from_json(raw))
                except (ValidationError, ValueError) as exc:
                    await dead_letter_raw("audit", topic_name(s, "audit"), raw, str(exc), exc)
            if records:
                await worker.retry("audit", _audit_write(records))

    def _upsert(facts: list[StoredFact]) -> Callable[[], None]:
        return lambda: worker.retrieval.upsert(facts, wait=True)

    def _audit_write(
        records: list[JournalRecord | DecisionRecord | FactHistoryRecord],
    ) -> Callable[[], None]:
        return lambda: worker.audit.write(records)

    async def report_lag() -> None:
        consumer = app.consumer
        try:
            assignment = consumer.assignment()
        except Exception:  # the consumer is not started yet
            return
        for tp in assignment:
            hw = consumer.highwater(tp)
            read = getattr(consumer, "_read_offset", {}).get(tp)
            if hw is None:
                continue
            lag = max(0, hw - ((read + 1) if read is not None else 0))
            stage = tp.topic.rsplit(".", 1)[-1]
            m.consumer_lag.labels(stage=stage, topic=tp.topic, partition=str(tp.partition)).set(lag)

    app.timer(interval=2.0)(report_lag)
    return app
