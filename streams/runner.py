"""The in-process runner: the same stage steps as the Faust agents, chained in one process.

Turns go through triage → extract → redact → dedupe → persist synchronously.
Facts are written to the retrieval store as soon as they are resolved (the
next candidate of the same user must see them); audit events are buffered
and flushed in batches, and always before :meth:`InProcessRunner.close`
returns.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from memgate.events import (
    AuditEvent,
    CandidateFact,
    DecisionRecord,
    FactHistoryRecord,
    JournalRecord,
    RedactedCandidate,
    Resolution,
    ResolutionAction,
    Stage,
    TriagedTurn,
    TurnEvent,
)
from sinks.base import AuditStore, RetrievalStore
from streams.metrics import Metrics
from streams.pipeline import Pipeline

log = logging.getLogger("memgate.runner")
T = TypeVar("T")


@dataclass
class RunSummary:
    """What one run did, for the CLI's table and for reports."""

    turns: int = 0
    kept: int = 0
    dropped: Counter[str] = field(default_factory=Counter)
    candidates: int = 0
    redacted: int = 0
    redaction_kinds: Counter[str] = field(default_factory=Counter)
    rejected: Counter[str] = field(default_factory=Counter)
    actions: Counter[str] = field(default_factory=Counter)
    facts_written: int = 0

    @property
    def stored(self) -> int:
        """New fact rows: adds, supersessions and promotions."""
        return self.actions["ADD"] + self.actions["SUPERSEDE"]

    @property
    def write_amplification(self) -> float:
        return self.stored / self.turns if self.turns else 0.0

    def as_dict(self) -> dict[str, object]:
        return {
            "turns": self.turns,
            "kept": self.kept,
            "dropped": dict(self.dropped),
            "candidates": self.candidates,
            "redacted": self.redacted,
            "redaction_kinds": dict(self.redaction_kinds),
            "rejected": dict(self.rejected),
            "actions": dict(self.actions),
            "stored": self.stored,
            "write_amplification": round(self.write_amplification, 4),
        }


class InProcessRunner:
    def __init__(
        self,
        pipeline: Pipeline,
        retrieval: RetrievalStore,
        audit: AuditStore,
        *,
        metrics: Metrics | None = None,
        audit_batch: int = 2000,
    ) -> None:
        self.pipeline = pipeline
        self.retrieval = retrieval
        self.audit = audit
        self.metrics = metrics or Metrics()
        self.audit_batch = audit_batch
        self._audit_buf: list[AuditEvent] = []
        self.summary = RunSummary()

    # ------------------------------------------------------------------ API

    def run(
        self, turns: Iterable[TurnEvent], progress: Callable[[int], None] | None = None
    ) -> RunSummary:
        for turn in turns:
            self.process(turn)
            if progress is not None:
                progress(1)
        self.flush()
        return self.summary

    def process(self, turn: TurnEvent) -> None:
        p, m, s = self.pipeline, self.metrics, self.summary
        s.turns += 1
        m.record_turn()
        triaged = self._step(Stage.TRIAGE, p.triage, turn)
        for kept in _only(triaged, TriagedTurn):
            s.kept += 1
            for cand in _only(self._step(Stage.EXTRACT, p.extract, kept), CandidateFact):
                s.candidates += 1
                for red in _only(self._step(Stage.REDACT, p.redact, cand), RedactedCandidate):
                    if red.redaction.counts:
                        s.redacted += 1
                    for res in _only(
                        self._step(Stage.DEDUPE, lambda e: p.dedupe(e, self.retrieval), red),
                        Resolution,
                    ):
                        self._persist(res)

    def flush(self) -> None:
        if self._audit_buf:
            self.audit.write(self._audit_buf)
            self._audit_buf = []

    def close(self) -> None:
        self.flush()

    # ------------------------------------------------------------- internals

    def _step(
        self, stage: Stage, fn: Callable[[Any], Sequence[object]], event: object
    ) -> list[object]:
        m = self.metrics
        m.events_in.labels(stage=stage.value).inc()
        t0 = time.perf_counter()
        out = list(fn(event))
        m.latency.labels(stage=stage.value).observe(time.perf_counter() - t0)
        audit = [
            e for e in out if isinstance(e, DecisionRecord | JournalRecord | FactHistoryRecord)
        ]
        passed = len(out) - len(audit)
        if passed:
            m.events_out.labels(stage=stage.value).inc(passed)
        m.record_audit(audit)
        self._account(audit)
        self._audit_buf.extend(audit)  # type: ignore[arg-type]
        if len(self._audit_buf) >= self.audit_batch:
            self.flush()
        return out

    def _account(self, audit: Sequence[object]) -> None:
        s = self.summary
        for rec in audit:
            if isinstance(rec, JournalRecord):
                if rec.verdict.value == "drop":
                    s.dropped[rec.reason] += 1
                s.redaction_kinds.update(rec.redaction_counts)
            elif isinstance(rec, DecisionRecord) and rec.stage is Stage.REDACT:
                if rec.verdict == "rejected":
                    s.rejected[f"redact:{rec.reason}"] += 1
            elif isinstance(rec, DecisionRecord) and rec.stage is Stage.DEDUPE:
                s.actions[rec.verdict] += 1
                if rec.verdict == ResolutionAction.REJECT.value:
                    s.rejected[f"policy:{rec.reason}"] += 1

    def _persist(self, res: Resolution) -> None:
        m = self.metrics
        m.events_in.labels(stage=Stage.PERSIST.value).inc()
        t0 = time.perf_counter()
        plan = self.pipeline.persist(res)
        if plan.facts:
            self.retrieval.upsert(plan.facts)
            self.summary.facts_written += len(plan.facts)
        if res.action in (ResolutionAction.ADD, ResolutionAction.SUPERSEDE):
            m.record_facts(res.action.value.lower())
        self._audit_buf.extend(plan.history)
        m.latency.labels(stage=Stage.PERSIST.value).observe(time.perf_counter() - t0)
        m.events_out.labels(stage=Stage.PERSIST.value).inc(len(plan.facts))


def _only(events: list[object], cls: type[T]) -> list[T]:
    return [e for e in events if isinstance(e, cls)]
