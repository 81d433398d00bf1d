"""The five stages as event-in, events-out steps, shared by every runner.

Both the in-process runner and the Faust agents call exactly these steps;
only the transport between them differs. Each step returns a list of
events: the next stage's input, plus audit events (:class:`JournalRecord`,
:class:`DecisionRecord`, :class:`FactHistoryRecord`); what each does is
said once, in :mod:`memgate.streams.topology`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from memgate.core.errors import ExtractionError
from memgate.core.events import (
    CandidateFact,
    DecisionRecord,
    FactHistoryRecord,
    JournalRecord,
    RedactedCandidate,
    Resolution,
    Stage,
    TriagedTurn,
    TriageVerdict,
    TurnEvent,
    content_hmac,
    stable_id,
    utcnow,
)
from memgate.core.stores import FactView
from memgate.stages.context import DEFAULT_CONTEXT_CHARS, with_context
from memgate.stages.dedupe import Resolver
from memgate.stages.detectors import Detector
from memgate.stages.extract import Extractor
from memgate.stages.persist import plan
from memgate.stages.redact import Redactor, mask_all
from memgate.stages.references import with_references
from memgate.stages.seal import seal
from memgate.stages.triage import TriagePolicy, triage

TRIAGE_POLICY_VERSION = "triage-1"


@dataclass(frozen=True)
class TriageStep:
    """Triage one turn; every turn, kept or not, is journaled (redacted text only).

    ``hmac_key`` is the deployment's secret (:func:`memgate.keys.hmac_key`): the
    journal keeps a keyed digest of the raw content, never an unkeyed hash.
    """

    detector: Detector
    hmac_key: bytes = field(repr=False)
    policy: TriagePolicy = field(default_factory=TriagePolicy)
    clock: Callable[[], datetime] = field(default=utcnow)

    def __call__(self, turn: TurnEvent) -> list[TriagedTurn | JournalRecord | DecisionRecord]:
        verdict, reason = triage(turn, self.policy)
        now = self.clock()
        masked = mask_all(self.detector, turn.content)
        journal = JournalRecord(
            event_id=stable_id("journal", turn.tenant_id, turn.turn_id),
            tenant_id=turn.tenant_id,
            user_id=turn.user_id,
            session_id=turn.session_id,
            turn_id=turn.turn_id,
            role=turn.role,
            ts=turn.ts,
            length=len(masked.text),  # the raw length would tell a masked value's length
            content_hmac=self.digest(turn),
            verdict=verdict,
            reason=reason,
            redacted_text=masked.text,
            redaction_counts=masked.counts,
            ingested_at=now,
        )
        journal = seal(self.detector, journal)  # the final check before the audit store
        journal = journal.model_copy(update={"length": len(journal.redacted_text)})
        decision = DecisionRecord(
            event_id=stable_id("decision", Stage.TRIAGE.value, turn.tenant_id, turn.turn_id),
            stage=Stage.TRIAGE,
            tenant_id=turn.tenant_id,
            user_id=turn.user_id,
            session_id=turn.session_id,
            turn_id=turn.turn_id,
            verdict=verdict.value,
            reason=reason,
            policy_version=TRIAGE_POLICY_VERSION,
            decided_at=now,
        )
        out: list[TriagedTurn | JournalRecord | DecisionRecord] = [journal, decision]
        if verdict is TriageVerdict.KEEP:
            out.insert(0, TriagedTurn(turn=turn, reason=reason))
        return out

    def digest(self, turn: TurnEvent) -> str:
        """The keyed digest of the turn's raw content (journal ``content_hmac``)."""
        return content_hmac(self.hmac_key, turn.content)


@dataclass(frozen=True)
class ExtractStep:
    """Run the extractor; zero facts is the common, normal outcome."""

    extractor: Extractor
    clock: Callable[[], datetime] = field(default=utcnow)
    #: budget of each fact's source context (:mod:`memgate.stages.context`); 0 keeps none
    context_chars: int = DEFAULT_CONTEXT_CHARS

    def __call__(self, item: TriagedTurn) -> list[CandidateFact | DecisionRecord]:
        turn = item.turn
        facts: list[CandidateFact] = []
        try:
            found = with_references(turn, self.extractor.extract(turn))
            facts = with_context(turn.content, found, self.context_chars)
            verdict, reason = ("facts", "extracted") if facts else ("none", "no_fact")
        except ExtractionError as exc:
            verdict, reason = "error", f"extraction_error:{type(exc).__name__}"
        decision = DecisionRecord(
            event_id=stable_id("decision", Stage.EXTRACT.value, turn.tenant_id, turn.turn_id),
            stage=Stage.EXTRACT,
            tenant_id=turn.tenant_id,
            user_id=turn.user_id,
            session_id=turn.session_id,
            turn_id=turn.turn_id,
            verdict=verdict,
            reason=reason,
            policy_version=f"{self.extractor.name}-{self.extractor.version}",
            decided_at=self.clock(),
            details={"facts": len(facts), **{f"type.{f.type.value}": 1 for f in facts}},
        )
        return [*facts, decision]


@dataclass(frozen=True)
class Pipeline:
    """The gate: triage → extract → redact → dedupe → persist."""

    triage: TriageStep
    extract: ExtractStep
    redact: Redactor
    resolve: Resolver

    def dedupe(self, item: RedactedCandidate, view: FactView) -> list[Resolution | DecisionRecord]:
        """Resolve a candidate; the facts a resolution writes pass the final check
        (:func:`memgate.stages.seal.seal`) here, before any runner writes them."""
        return [
            o.model_copy(update={"writes": plan(o, self.redact.detector).facts})
            if isinstance(o, Resolution) and o.writes
            else o
            for o in self.resolve(item, view)
        ]

    @staticmethod
    def persist(res: Resolution) -> list[FactHistoryRecord]:
        """The history rows of a resolution's fact writes (the dedupe stage wrote the facts:
        :mod:`memgate.streams.topology`)."""
        return plan(res).history

    def step(self, stage: Stage, view: FactView) -> Callable[[Any], Sequence[object]]:
        """The step of ``stage``: one input event in, its outputs out; dedupe reads ``view``."""
        steps: dict[Stage, Callable[[Any], Sequence[object]]] = {
            Stage.TRIAGE: self.triage,
            Stage.EXTRACT: self.extract,
            Stage.REDACT: self.redact,
            Stage.DEDUPE: lambda item: self.dedupe(item, view),
            Stage.PERSIST: self.persist,
        }
        return steps[stage]
