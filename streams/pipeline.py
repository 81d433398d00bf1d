"""The five stages as event-in, events-out steps, shared by every runner.

Both the in-process runner and the Faust agents call exactly these steps;
only the transport between them differs. Each step returns a list of
events: the next stage's input, plus audit events (:class:`JournalRecord`,
:class:`DecisionRecord`, :class:`FactHistoryRecord`); what each does is
said once, in :mod:`memgate.streams.topology`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import numpy as np

from memgate.core.errors import ExtractionError, MemgateError
from memgate.core.events import (
    CandidateFact,
    DecisionRecord,
    DisagreementRecord,
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
from memgate.stages.extract_report import ReportingExtractor
from memgate.stages.persist import plan
from memgate.stages.proposal import adopt
from memgate.stages.redact import Redactor, mask_all
from memgate.stages.references import with_references
from memgate.stages.resolve_probe import PROBE, probe_candidate
from memgate.stages.resolve_settled import settles
from memgate.stages.seal import seal
from memgate.stages.shadow import disagreement
from memgate.stages.tentative import Answer, answer, plain_statement, stated_fact
from memgate.stages.triage import TriagePolicy, triage
from memgate.streams.proposals import HeldTurns
from memgate.streams.tentatives import HeldTentatives

TRIAGE_POLICY_VERSION = "triage-1"
#: the triage reason of a user's brief yes read as the assistant's proposition about them
CONFIRMED_PROPOSAL = "confirmed_proposal"
#: the triage reasons of a user turn that confirms or withdraws a held tentative statement
CONFIRMED_TENTATIVE = "confirmed_tentative"
WITHDRAWN_TENTATIVE = "withdrawn_tentative"
#: the metadata keys of a turn that settles a tentative statement: its turn id, and (for a
#: turn kept as itself) the statement's plain form, masked, read when the turn yields no fact
TENTATIVE_TURN = "tentative_turn"
TENTATIVE_PLAIN = "tentative_plain"
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class TriageStep:
    """Triage one turn; every turn, kept or not, is journaled (redacted text only).

    ``hmac_key`` is the deployment's secret (:func:`memgate.keys.hmac_key`): the
    journal keeps a keyed digest of the raw content, never an unkeyed hash.

    ``held`` keeps each conversation's latest assistant turn, redacted
    (:mod:`memgate.streams.proposals`): a user's brief yes right after it is triaged and
    extracted as the user stating the assistant's proposition about them
    (:mod:`memgate.stages.proposal`), ``confirmed``; the decision's reason is
    ``confirmed_proposal`` and names the assistant turn (``proposal_turn``).

    ``tentatives`` holds the user's tentative statements, their plain form masked
    (:mod:`memgate.streams.tentatives`): a later turn of the user that confirms one
    (:func:`memgate.stages.tentative.answer`) is triaged and extracted as the user stating
    it, ``confirmed`` (reason ``confirmed_tentative``); one that withdraws it is dropped
    (``withdrawn_tentative``). Both name the tentative turn (``tentative_turn``).
    """

    detector: Detector
    hmac_key: bytes = field(repr=False)
    policy: TriagePolicy = field(default_factory=TriagePolicy)
    clock: Callable[[], datetime] = field(default=utcnow)
    held: HeldTurns = field(default_factory=HeldTurns, compare=False, repr=False)
    tentatives: HeldTentatives = field(default_factory=HeldTentatives, compare=False, repr=False)

    def __call__(self, turn: TurnEvent) -> list[TriagedTurn | JournalRecord | DecisionRecord]:
        said, proposal_turn = self._adopted(turn)
        verdict, reason = triage(said, self.policy)
        if proposal_turn and verdict is TriageVerdict.KEEP:
            reason = CONFIRMED_PROPOSAL
        tentative_turn, withdrawn = "", False
        if reason != CONFIRMED_PROPOSAL and (found := self._settles(turn)) is not None:
            said, verdict, reason, tentative_turn = self._tentative_read(
                turn, found, (said, verdict, reason)
            )
            withdrawn = reason == WITHDRAWN_TENTATIVE
            if tentative_turn:
                proposal_turn = ""
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
        sealed = seal(self.detector, journal)  # the final check before the audit store
        caught = _count_diff(sealed.redaction_counts, journal.redaction_counts)
        journal = sealed.model_copy(update={"length": len(sealed.redacted_text)})
        if turn.role == "assistant":  # held redacted and sealed: nothing raw is kept
            self.held.hold(turn, journal.redacted_text)
        elif not (proposal_turn or tentative_turn):
            self._hold_tentative(turn, journal.redacted_text)
        details = turn_flags(turn)
        if proposal_turn:
            details["proposal_turn"] = proposal_turn
        if tentative_turn:
            details["tentative_turn"] = tentative_turn
        decision = _turn_decision(
            Stage.TRIAGE,
            turn,
            verdict=verdict.value,
            reason=reason,
            policy_version=TRIAGE_POLICY_VERSION,
            decided_at=now,
            details=details,
        )
        out: list[TriagedTurn | JournalRecord | DecisionRecord] = [journal, decision]
        if caught:
            out.append(
                final_check_record(
                    journal.tenant_id,
                    journal.user_id,
                    journal.session_id,
                    journal.turn_id,
                    "journal",
                    journal.event_id,
                    "",
                    caught,
                    now,
                )
            )
        if verdict is TriageVerdict.KEEP:
            out.insert(0, TriagedTurn(turn=said, reason=reason))
        elif (
            PROBE.on
            and turn.role == "user"
            and not withdrawn
            and (reason in PROBE.drop_reasons or settles(turn.content))
        ):
            # dropped, yet it may restate a stored fact: carried on as a probe only
            # (no extractor reads it; resolution may only reinforce: resolve_probe)
            out.insert(0, TriagedTurn(turn=said, reason=reason, probe=True))
        return out

    def _adopted(self, turn: TurnEvent) -> tuple[TurnEvent, str]:
        """``turn``, or, a user's brief yes to the assistant turn it answers, the turn saying
        the assistant's proposition as the user's (``confirmed``); and that assistant turn's
        id ("" when none)."""
        if turn.role != "user":
            return turn, ""
        held = self.held.answered(turn)
        if held is None:
            return turn, ""
        stated = adopt(turn.content, held.text)
        if stated is None:
            return turn, ""
        meta = {**turn.metadata, "proposal_turn": held.turn_id}
        return turn.model_copy(
            update={"content": stated, "confirmed": True, "metadata": meta}
        ), held.turn_id

    def _settles(self, turn: TurnEvent) -> Answer | None:
        """What the user turn ``turn`` does to one of the user's held tentative statements
        (:func:`memgate.stages.tentative.answer`), marked answered; None when nothing."""
        if turn.role != "user":
            return None
        held = self.tentatives.open(turn)
        found = answer(turn.content, turn.session_id, turn.ts, held) if held else None
        if found is None or not self.tentatives.answer(turn, found.held.turn_id):
            return None
        return found

    def _tentative_read(
        self, turn: TurnEvent, found: Answer, read: tuple[TurnEvent, TriageVerdict, str]
    ) -> tuple[TurnEvent, TriageVerdict, str, str]:
        """The turn as triage passes it on, its verdict and reason, and the tentative turn
        it settles ("" when none), given ``found``; ``read`` is the turn as read before.

        A withdrawal is dropped. A confirmation that names the statement, or whose own
        words triage drops, is the user stating it (``confirmed``). One that names nothing
        and says something triage keeps goes on as itself, the statement beside it in its
        metadata: extraction reads the statement when the turn yields no fact of its own.
        """
        held = found.held
        if found.kind == "withdraws":
            return turn, TriageVerdict.DROP, WITHDRAWN_TENTATIVE, held.turn_id
        said = read[0]
        own = read[1:] if said is turn else triage(turn, self.policy)
        meta = {**turn.metadata, TENTATIVE_TURN: held.turn_id}
        if not found.named and own[0] is TriageVerdict.KEEP:
            beside = turn.model_copy(update={"metadata": {**meta, TENTATIVE_PLAIN: held.plain}})
            return beside, own[0], own[1], held.turn_id
        stated = turn.model_copy(
            update={"content": held.plain, "confirmed": True, "metadata": meta}
        )
        verdict, _ = triage(stated, self.policy)
        if verdict is not TriageVerdict.KEEP:
            return said, read[1], read[2], ""  # not a statement kept: the turn as read
        return stated, verdict, CONFIRMED_TENTATIVE, held.turn_id

    def _hold_tentative(self, turn: TurnEvent, masked: str) -> None:
        """Hold the plain form of a user's tentative statement (its masked text) when,
        said plainly, triage would keep it."""
        if turn.role != "user":
            return
        plain = plain_statement(masked)
        if plain is None:
            return
        verdict, _ = triage(turn.model_copy(update={"content": plain}), self.policy)
        if verdict is TriageVerdict.KEEP:
            self.tentatives.hold(turn, plain)

    def digest(self, turn: TurnEvent) -> str:
        """The keyed digest of the turn's raw content (journal ``content_hmac``)."""
        return content_hmac(self.hmac_key, turn.content)


@dataclass(frozen=True)
class ExtractStep:
    """Run the extractor; zero facts is the common, normal outcome.

    With a ``shadow`` extractor (shadow mode), the shadow reads every turn too; its
    candidates go nowhere, and a turn on which the two differ yields a
    :class:`DisagreementRecord` (masked with ``detector``) for the audit store. A
    failure of the shadow never fails the turn: it is logged, and nothing is compared.
    """

    extractor: Extractor
    clock: Callable[[], datetime] = field(default=utcnow)
    #: budget of each fact's source context (:mod:`memgate.stages.context`); 0 keeps none
    context_chars: int = DEFAULT_CONTEXT_CHARS
    shadow: Extractor | None = None
    detector: Detector | None = None

    def __call__(
        self, item: TriagedTurn
    ) -> list[CandidateFact | DecisionRecord | DisagreementRecord]:
        turn = item.turn
        if item.probe:  # a dropped turn: no extraction, no decision of its own
            probe = probe_candidate(turn)
            return [probe] if probe is not None else []
        facts: list[CandidateFact] = []
        report: dict[str, str] = {}
        plain = turn.metadata.get(TENTATIVE_PLAIN)
        if plain is not None:  # the statement beside the turn is no part of it
            meta = {k: v for k, v in turn.metadata.items() if k != TENTATIVE_PLAIN}
            turn = turn.model_copy(update={"metadata": meta})
        try:
            raw, report = self._extract(turn)
            found = with_references(turn, raw)
            if not found and isinstance(plain, str) and plain:
                # a confirmation with no fact of its own: the statement it confirms
                turn = turn.model_copy(update={"content": plain, "confirmed": True})
                raw, report = self._extract(turn)
                found = with_references(turn, raw)
            if not found and (plain or item.reason == CONFIRMED_TENTATIVE):
                # the user confirmed their own words: they are the statement
                found = [f for f in (stated_fact(turn),) if f is not None]
            facts = with_context(turn.content, found, self.context_chars)
            verdict, reason = ("facts", "extracted") if facts else ("none", "no_fact")
        except ExtractionError as exc:
            verdict, reason = "error", f"extraction_error:{type(exc).__name__}"
        now = self.clock()
        decision = _turn_decision(
            Stage.EXTRACT,
            turn,
            verdict=verdict,
            reason=reason,
            policy_version=_label(self.extractor),
            decided_at=now,
            details={
                "facts": len(facts),
                **{f"type.{f.type.value}": 1 for f in facts},
                **report,
            },
        )
        out: list[CandidateFact | DecisionRecord | DisagreementRecord] = [*facts, decision]
        if verdict == "none" and (probe := probe_candidate(turn)) is not None:
            out.insert(0, probe)  # no fact: it may still restate one (resolve_probe)
        if self.shadow is not None and verdict != "error":
            differs = self._compare(turn, facts, now)
            if differs is not None:
                out.append(differs)
        return out

    def _extract(self, turn: TurnEvent) -> tuple[list[CandidateFact], dict[str, str]]:
        if isinstance(self.extractor, ReportingExtractor):
            done = self.extractor.extract_reported(turn)
            return done.facts, done.report
        return self.extractor.extract(turn), {}

    def _compare(
        self, turn: TurnEvent, facts: list[CandidateFact], now: datetime
    ) -> DisagreementRecord | None:
        assert self.shadow is not None
        try:
            other = self.shadow.extract(turn)
        except (MemgateError, ValueError) as exc:  # the shadow never fails the turn
            log.warning(
                "extract: the shadow %s failed on turn %s, not compared: %s",
                self.shadow.name,
                turn.turn_id,
                exc,
            )
            return None
        return disagreement(
            self.detector or Detector(),
            turn,
            (_label(self.extractor), facts),
            (_label(self.shadow), other),
            now,
        )


def _label(extractor: Extractor) -> str:
    return f"{extractor.name}-{extractor.version}"


@dataclass(frozen=True)
class Pipeline:
    """The gate: triage → extract → redact → dedupe → persist."""

    triage: TriageStep
    extract: ExtractStep
    redact: Redactor
    resolve: Resolver

    def dedupe(self, item: RedactedCandidate, view: FactView) -> list[Resolution | DecisionRecord]:
        """Resolve a candidate; the facts a resolution writes pass the final check
        (:func:`memgate.stages.seal.seal`) here, before any runner writes them. A fact the
        check had to mask adds a ``final_check`` decision (the stages upstream missed
        something: counted in ``memgate_final_check_masked_total``, alerted on)."""
        return self._sealed(item, self.resolve(item, view))

    def dedupe_vectors(self, item: RedactedCandidate) -> tuple[np.ndarray, np.ndarray | None]:
        """The vectors :meth:`dedupe` computes for ``item`` (the same embedding call):
        the statement's, and the statement with its context's (None: no context)."""
        return self.resolve.vectors(item)

    def dedupe_with(
        self,
        item: RedactedCandidate,
        view: FactView,
        vectors: tuple[np.ndarray, np.ndarray | None],
    ) -> list[Resolution | DecisionRecord]:
        """:meth:`dedupe` with the vectors :meth:`dedupe_vectors` gave."""
        return self._sealed(item, self.resolve.resolve(item, view, *vectors))

    def _sealed(
        self, item: RedactedCandidate, resolved: Sequence[Resolution | DecisionRecord]
    ) -> list[Resolution | DecisionRecord]:
        out: list[Resolution | DecisionRecord] = []
        for o in resolved:
            if not (isinstance(o, Resolution) and o.writes):
                out.append(o)
                continue
            sealed = plan(o, self.redact.detector).facts
            out.append(o.model_copy(update={"writes": sealed}))
            for before, after in zip(o.writes, sealed, strict=True):
                if after == before:
                    continue
                fields = {
                    f"field.{name}": 1
                    for name in ("subject", "value", "text", "context", "rationale", "key")
                    if getattr(after, name) != getattr(before, name)
                }
                out.append(
                    final_check_record(
                        after.tenant_id,
                        after.user_id,
                        item.candidate.session_id,
                        o.source_turn_ids[0] if o.source_turn_ids else "",
                        "fact",
                        o.event_id,
                        after.fact_id,
                        fields,
                        o.decided_at,
                        key=after.key,
                    )
                )
        return out

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


FINAL_CHECK_VERSION = "final-check-1"


def _count_diff(after: dict[str, int], before: dict[str, int]) -> dict[str, int]:
    """Kinds the final check found beyond what the stage had already masked."""
    return {k: n - before.get(k, 0) for k, n in after.items() if n > before.get(k, 0)}


def final_check_record(
    tenant_id: str,
    user_id: str,
    session_id: str,
    turn_id: str,
    record: str,
    record_event_id: str,
    fact_id: str,
    details: dict[str, int],
    at: datetime,
    key: str = "",
) -> DecisionRecord:
    """The audit row of the final check masking what the stages before it let through."""
    return DecisionRecord(
        event_id=stable_id("decision", "final_check", record, record_event_id, fact_id),
        stage=Stage.PERSIST,
        tenant_id=tenant_id,
        user_id=user_id,
        session_id=session_id,
        turn_id=turn_id,
        verdict="masked",
        reason=f"final_check_{record}",
        key=key,
        fact_id=fact_id,
        policy_version=FINAL_CHECK_VERSION,
        decided_at=at,
        details=dict(details),
    )


def turn_flags(turn: TurnEvent) -> dict[str, str | int | float]:
    """The turn's task outcome and confirmation, as the triage decision keeps them (no
    content: a replay reads them back, :func:`memgate.replay.journal_turns`)."""
    out: dict[str, str | int | float] = {}
    if turn.outcome is not None:
        out["outcome"] = turn.outcome.value
    if turn.confirmed is not None:
        out["confirmed"] = "true" if turn.confirmed else "false"
    return out


def _turn_decision(stage: Stage, turn: TurnEvent, **fields: Any) -> DecisionRecord:
    """The audit row of a stage's decision on a whole turn (one per stage and turn)."""
    return DecisionRecord(
        event_id=stable_id("decision", stage.value, turn.tenant_id, turn.turn_id),
        stage=stage,
        tenant_id=turn.tenant_id,
        user_id=turn.user_id,
        session_id=turn.session_id,
        turn_id=turn.turn_id,
        **fields,
    )
