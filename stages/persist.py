"""Persist: turn a resolution into the writes the stores must confirm.

Pure: it says what to write (facts for the retrieval store, history rows for
the audit store); the runner or the Faust agent executes the plan and only
then acknowledges the event.
"""

from __future__ import annotations

from dataclasses import dataclass

from memgate.core.events import (
    FactHistoryRecord,
    FactStatus,
    Resolution,
    ResolutionAction,
    StoredFact,
    stable_id,
)
from memgate.stages.detectors import Detector
from memgate.stages.seal import seal


@dataclass(frozen=True)
class PersistPlan:
    facts: list[StoredFact]
    history: list[FactHistoryRecord]

    @property
    def empty(self) -> bool:
        return not self.facts and not self.history


def _history_action(res: Resolution, fact: StoredFact) -> str:
    if fact.status is FactStatus.SUPERSEDED:
        return "superseded" if res.action is ResolutionAction.SUPERSEDE else "close"
    if fact.status is FactStatus.PENDING:
        return "pending"
    if res.reason.startswith("promoted"):
        return "promote"
    return {
        ResolutionAction.ADD: "add",
        ResolutionAction.SUPERSEDE: "supersede",
        ResolutionAction.DUPLICATE: "duplicate",
    }.get(res.action, res.action.value.lower())


def plan(res: Resolution, detector: Detector | None = None) -> PersistPlan:
    """The writes for one resolution (none for a rejection or a redelivery); with a
    ``detector``, each fact passes the final check (:func:`memgate.stages.seal.seal`) first."""
    facts = [seal(detector, f) for f in res.writes] if detector is not None else res.writes
    history = [
        FactHistoryRecord(
            event_id=stable_id("history", res.event_id, f.fact_id),
            tenant_id=f.tenant_id,
            user_id=f.user_id,
            fact_id=f.fact_id,
            key=f.key,
            action=_history_action(res, f),
            value=f.value,
            confidence=f.confidence,
            occurrences=f.occurrences,
            superseded_by=f.superseded_by or "",
            supersedes=f.supersedes or "",
            source_turn_id=res.source_turn_ids[0],
            policy_version=res.policy_version,
            at=res.decided_at,
        )
        for f in facts
    ]
    return PersistPlan(facts=list(facts), history=history)
