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


def plan(res: Resolution) -> PersistPlan:
    """The writes for one resolution (none for a rejection or a redelivery)."""
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
        for f in res.writes
    ]
    return PersistPlan(facts=list(res.writes), history=history)
