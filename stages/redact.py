"""Redact: nothing raw and sensitive goes past this stage.

Every candidate's subject, object and rationale are scanned for PII,
credentials and regulated categories (payment data, government IDs,
health). PII is replaced by typed placeholders (``[EMAIL]``); a credential
is never worth remembering, so a fact that carried one is rejected; a
regulated category is rejected or reduced to its non-sensitive remainder,
as the policy says. Findings record kinds and counts, never values.

The candidate's source ``context`` (words of the turn around the statement,
searched with the fact) is masked the same way, always: what it holds besides
the statement does not decide the verdict (the fact is judged on itself), so
a sensitive neighbour sentence is reduced to placeholders and counted under
``context.<kind>``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from memgate.core.events import (
    CandidateFact,
    DecisionRecord,
    RedactedCandidate,
    RedactionAction,
    RedactionResult,
    Stage,
    stable_id,
    utcnow,
)
from memgate.stages.detectors import KIND_CATEGORY, Category, Detector, placeholder
from memgate.stages.redact_health import HEALTH_PLACEHOLDER, HEALTH_RE, mask_all, mask_health
from memgate.stages.redact_health import PLACEHOLDER_ONLY as _PLACEHOLDER_ONLY
from memgate.stages.seal import mask_statement, value_kind_in_context

__all__ = ["HEALTH_PLACEHOLDER", "HEALTH_RE", "Redactor", "mask_all", "mask_health"]


@dataclass(frozen=True)
class Redactor:
    """The redact stage: candidate in, redacted candidate (or a rejection) out."""

    detector: Detector
    regulated: Literal["reject", "redact"] = "reject"
    policy_version: str = "redact-1"
    clock: Callable[[], datetime] = field(default=utcnow)
    tenant_regulated: Mapping[str, Literal["reject", "redact"]] = field(default_factory=dict)
    """A tenant's own handling of regulated data (settings ``tenant_policies``)."""

    def __call__(self, c: CandidateFact) -> list[RedactedCandidate | DecisionRecord]:
        regulated = self.tenant_regulated.get(c.tenant_id, self.regulated)
        # subject and object in their statement (the words around a value say what
        # it is), the rationale (a sentence) on its own
        subject, obj, counts = mask_statement(self.detector, c.subject, c.predicate, c.object)
        res = mask_all(self.detector, c.rationale)
        counts.update(res.counts)
        fields = {"subject": subject, "object": obj, "rationale": res.text}
        # a value that the source sentence shows to be sensitive, though its statement does not
        hidden = value_kind_in_context(self.detector, c.object, c.context)
        if hidden is not None and obj == c.object:
            fields["object"] = placeholder(hidden)
            counts[hidden] += 1

        context = c.context
        context_counts: dict[str, int] = {}
        if context:
            ctx = mask_all(self.detector, context)
            context, context_counts = ctx.text, dict(ctx.counts)
            if _PLACEHOLDER_ONLY.match(context):
                context = ""

        categories = {_category(kind) for kind in counts}
        if not counts:
            action, reason = RedactionAction.CLEAN, "clean"
        elif Category.CREDENTIAL in categories:
            action, reason = RedactionAction.REJECTED, "credential"
        elif Category.REGULATED in categories and regulated == "reject":
            action, reason = RedactionAction.REJECTED, "regulated_category"
        elif _PLACEHOLDER_ONLY.match(fields["object"]) or not fields["object"].strip():
            action, reason = RedactionAction.REJECTED, "nothing_left_after_redaction"
        else:
            action, reason = RedactionAction.REDACTED, "placeholders"

        result = RedactionResult(action=action, counts=dict(counts), reason=reason)
        decision = DecisionRecord(
            event_id=stable_id("decision", Stage.REDACT.value, c.candidate_id),
            stage=Stage.REDACT,
            tenant_id=c.tenant_id,
            user_id=c.user_id,
            session_id=c.session_id,
            turn_id=c.source_turn_ids[0],
            verdict=action.value,
            reason=reason,
            policy_version=f"{self.policy_version}/{regulated}",
            decided_at=self.clock(),
            details={
                **{f"kind.{k}": v for k, v in sorted(counts.items())},
                **{f"context.{k}": v for k, v in sorted(context_counts.items())},
            },
        )
        if c.probe:  # a probe leaves no row of its own (memgate.stages.resolve_probe)
            if action is RedactionAction.REJECTED:
                return []
        elif action is RedactionAction.REJECTED:
            return [decision]
        update: dict[str, str] = {} if action is RedactionAction.CLEAN else dict(fields)
        if context != c.context:
            update["context"] = context
        candidate = c.model_copy(update=update) if update else c
        redacted = RedactedCandidate(candidate=candidate, redaction=result)
        return [redacted] if c.probe else [redacted, decision]


def _category(kind: str) -> Category:
    if kind == "health":
        return Category.REGULATED
    return KIND_CATEGORY.get(kind, Category.PII)
