"""One topology: the topic each stage reads, and what each of its outputs does.

Both runners carry out what this module says and decide nothing of it
themselves: the in-process runner (:mod:`memgate.streams.runner`) chains the
stages by function calls inside one transaction per batch, the Faust worker
(:mod:`memgate.streams.app`) by one Kafka topic per stage (the topic stays:
it is how operators scale and watch each stage)::

    turns ─▶ triage ─▶ triaged ─▶ extract ─▶ extracted ─▶ redact ─▶ redacted
          ─▶ dedupe ─▶ resolved ─▶ persist          (audit rows ─▶ audit ─▶ audit store)
    any stage ─▶ dlq   (invalid or permanently failing events, with their origin)
    turns ─▶ (over the user's quota) ─▶ deferred ─▶ triage      (:data:`DEFERRED_TOPIC`)

**Fairness at the input** (:mod:`memgate.streams.fairness`, off unless
``fair_turns_per_s`` is set): a turn of a user over its quota, or of a user
with turns still waiting there, goes unchanged to the ``deferred`` topic
(same key) instead of the triage step; the deferred reader takes the user's
quota for each and then carries the turn through the triage step exactly as
the main path does. In process, the deferred topic is a queue in memory, read
between two input turns and emptied at the end of the input.

What one input event of a stage yields is sorted by :func:`effects` into
three kinds, carried out in this order:

1. **forward**: the events the next stage takes (a triaged turn, a candidate,
   a redacted candidate, a resolution), to its topic (or its call);
2. **audit**: journal rows, decisions and fact history, to the audit store;
3. **facts**: fact writes to the retrieval store. The dedupe stage writes the
   facts of its resolutions itself: the store is its state, and the next
   candidate of the same user (same partition, processed in order) must see
   them. The persist stage's step turns each resolution into the history
   rows of those writes (audit rows).

The order is what makes a replay safe to skip. The turn ledger (the
embedded index's ``turns`` table, or the audit journal) is written after
everything else a turn causes: in process in the batch's transaction, after
its facts; on Kafka the journal row is sent after the triaged turn it
explains was acknowledged by the broker, so the turn's downstream work is
durable before its journal row can be read. A turn the ledger knows is a
replay and is skipped (:func:`admit`); a turn id reused for another turn is
dead-lettered (``turn_id_conflict``). Within a stage, the facts come last so
that the rows explaining them are never missing (a store without
transactions writes them first, and a crash between the two is redone by the
replay, whose dedupe finds the facts it wrote: ``redelivered``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from pydantic import BaseModel

from memgate.core.events import (
    AuditEvent,
    CandidateFact,
    DecisionRecord,
    DisagreementRecord,
    FactHistoryRecord,
    JournalRecord,
    RedactedCandidate,
    Resolution,
    ResolutionAction,
    Stage,
    StoredFact,
    TriagedTurn,
    parse_turn,
)
from memgate.stages.persist import plan
from memgate.streams.turns import TurnState

__all__ = [
    "AUDIT_TOPIC",
    "AUDIT_TYPES",
    "DEFERRED_TOPIC",
    "DLQ_TOPIC",
    "FORWARD_TYPES",
    "ROUTES",
    "TOPIC_NAMES",
    "Effects",
    "Forwarded",
    "Route",
    "admit",
    "decode_audit",
    "effects",
    "encode_audit",
    "next_route",
    "route_of",
]

AUDIT_TOPIC: Final = "audit"
DLQ_TOPIC: Final = "dlq"
#: turns over their user's quota, waiting in order; read by the deferred agent (triage)
DEFERRED_TOPIC: Final = "deferred"
AUDIT_TYPES = (JournalRecord, DecisionRecord, FactHistoryRecord, DisagreementRecord)
#: what a stage passes on to the next one
Forwarded = TriagedTurn | CandidateFact | RedactedCandidate | Resolution
FORWARD_TYPES = (TriagedTurn, CandidateFact, RedactedCandidate, Resolution)


@dataclass(frozen=True)
class Route:
    """One stage: the topic it reads, what it reads, where what it passes on goes."""

    stage: Stage
    #: the topic it reads (``<prefix>.<source>``)
    source: str
    #: its input, read from the topic's JSON
    parse: Callable[[bytes], Any]
    #: the topic of the next stage (None: the last stage)
    forward_to: str | None
    #: the service the step reads, whose transient failures a worker retries (None: pure)
    reads: str | None = None


ROUTES: tuple[Route, ...] = (
    Route(Stage.TRIAGE, "turns", parse_turn, "triaged", reads="audit"),
    Route(Stage.EXTRACT, "triaged", TriagedTurn.model_validate_json, "extracted", "extractor"),
    Route(Stage.REDACT, "extracted", CandidateFact.model_validate_json, "redacted"),
    Route(Stage.DEDUPE, "redacted", RedactedCandidate.model_validate_json, "resolved", "retrieval"),
    Route(Stage.PERSIST, "resolved", Resolution.model_validate_json, None),
)
TOPIC_NAMES: tuple[str, ...] = (
    *(r.source for r in ROUTES), AUDIT_TOPIC, DLQ_TOPIC, DEFERRED_TOPIC
)
_BY_STAGE = {r.stage: r for r in ROUTES}
_BY_SOURCE = {r.source: r for r in ROUTES}
#: resolutions whose writes store a new fact row (counted as facts written)
_NEW_ROWS = (ResolutionAction.ADD, ResolutionAction.SUPERSEDE)


def route_of(stage: Stage) -> Route:
    """The route of a stage (:class:`KeyError` for ``ingest``, which is no stage)."""
    return _BY_STAGE[stage]


def next_route(route: Route) -> Route | None:
    """The stage that reads what ``route`` forwards."""
    return None if route.forward_to is None else _BY_SOURCE[route.forward_to]


def admit(state: TurnState) -> bool:
    """Whether a turn goes through the stages: a new one does, a replay does not.

    (A conflict never gets here: :func:`memgate.streams.turns.check_turn` raises it.)
    """
    return state is TurnState.NEW


@dataclass(frozen=True)
class Effects:
    """What one input event's outputs do, in the order to carry them out."""

    forward: tuple[Forwarded, ...] = ()
    audit: tuple[AuditEvent, ...] = ()
    facts: tuple[StoredFact, ...] = ()
    #: the actions (``add``, ``supersede``) of resolutions that store a new fact row
    stored: tuple[str, ...] = ()


def effects(stage: Stage, outputs: Sequence[object]) -> Effects:
    """Sort a stage step's outputs into forward, audit and fact writes.

    >>> effects(Stage.PERSIST, []) == Effects()
    True
    """
    audit: list[AuditEvent] = [o for o in outputs if isinstance(o, AUDIT_TYPES)]
    passed: list[Forwarded] = [o for o in outputs if isinstance(o, FORWARD_TYPES)]
    facts: list[StoredFact] = []
    stored: list[str] = []
    if stage is Stage.DEDUPE:
        for res in (o for o in passed if isinstance(o, Resolution)):
            facts.extend(plan(res).facts)
            if res.action in _NEW_ROWS:
                stored.append(res.action.value.lower())
    forward = passed if route_of(stage).forward_to is not None else []
    return Effects(tuple(forward), tuple(audit), tuple(facts), tuple(stored))


# ------------------------------------------------------------- the audit topic's messages


_KINDS: dict[type[BaseModel], str] = {
    JournalRecord: "journal",
    DecisionRecord: "decision",
    FactHistoryRecord: "history",
    DisagreementRecord: "disagreement",
}


def encode_audit(rec: AuditEvent) -> bytes:
    """An audit row as an ``audit`` topic message: its JSON with a ``_kind``."""
    d = rec.model_dump(mode="json")
    d["_kind"] = _KINDS[type(rec)]
    return json.dumps(d, separators=(",", ":")).encode()


def decode_audit(raw: bytes) -> AuditEvent:
    """The audit row of an ``audit`` topic message (``ValueError`` if it is none)."""
    data = json.loads(raw)
    if not isinstance(data, dict):
        raise ValueError("an audit message is a JSON object")
    kind = data.pop("_kind", None)
    if kind == "journal":
        return JournalRecord.model_validate(data)
    if kind == "decision":
        return DecisionRecord.model_validate(data)
    if kind == "history":
        return FactHistoryRecord.model_validate(data)
    if kind == "disagreement":
        return DisagreementRecord.model_validate(data)
    raise ValueError(f"audit message without a known _kind: {kind!r}")
