"""Prometheus metrics. The names below are stable: dashboards depend on them.

One :class:`Metrics` object per process, holding its own registry (no
module-level globals), served over HTTP by every worker.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
)

from memgate.core.events import (
    DecisionRecord,
    DisagreementRecord,
    JournalRecord,
    Stage,
    TriageVerdict,
)

if TYPE_CHECKING:
    from memgate.streams.health import HealthServer, Readiness
    from memgate.streams.topology import Effects

#: HTTP request latency of memgate serve (a search runs in milliseconds; an add with the
#: Claude extractor, seconds)
HTTP_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30)
LATENCY_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10)
AGE_BUCKETS = (3600, 86400, 7 * 86400, 30 * 86400, 90 * 86400, 365 * 86400, 3 * 365 * 86400)

#: An extract decision's ``details`` key ``retries.<kind>``: requests of that turn that failed
#: transiently with that kind and were tried again (memgate.stages.extract_anthropic).
RETRIES_PREFIX = "retries."

METRIC_NAMES = (
    "memgate_events_in_total",
    "memgate_events_out_total",
    "memgate_events_dropped_total",
    "memgate_stage_latency_seconds",
    "memgate_turns_ingested_total",
    "memgate_facts_written_total",
    "memgate_write_amplification",
    "memgate_redactions_total",
    "memgate_extraction_calls_total",
    "memgate_consumer_lag",
    "memgate_served_fact_age_seconds",
    "memgate_retrievals_total",
    "memgate_dead_letters_total",
    "memgate_store_retries_total",
    "memgate_final_check_masked_total",
    "memgate_extractor_fallbacks_total",
    "memgate_extract_cache_total",
    "memgate_shadow_disagreements_total",
    "memgate_extractor_retries_total",
    # memgate serve: per route template (never a raw path), method and status class
    "memgate_http_requests_total",
    "memgate_http_request_duration_seconds",
    # memgate worker's consolidation timer
    "memgate_consolidation_runs_total",
    "memgate_consolidation_changes_total",
    "memgate_consolidation_failures_total",
    # per-user fairness at the input (memgate.streams.fairness)
    "memgate_turns_deferred_total",
    "memgate_deferred_users",
    # written by `memgate scan --metrics-file` (memgate.scan), not by a worker
    "memgate_scan_findings_total",
)


class Metrics:
    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        r = self.registry = registry or CollectorRegistry()
        self.events_in = Counter(
            "memgate_events_in", "Events consumed by a stage", ["stage"], registry=r
        )
        self.events_out = Counter(
            "memgate_events_out", "Events a stage passed on to the next", ["stage"], registry=r
        )
        self.dropped = Counter(
            "memgate_events_dropped",
            "Events a stage dropped or rejected, by reason",
            ["stage", "reason"],
            registry=r,
        )
        self.latency = Histogram(
            "memgate_stage_latency_seconds",
            "Processing time of one event in a stage",
            ["stage"],
            buckets=LATENCY_BUCKETS,
            registry=r,
        )
        self.turns = Counter("memgate_turns_ingested", "Turns that entered the gate", registry=r)
        self.facts_written = Counter(
            "memgate_facts_written",
            "Facts stored by action (add, supersede, promote: new rows only)",
            ["action"],
            registry=r,
        )
        self.write_amplification = Gauge(
            "memgate_write_amplification",
            "Facts stored per turn ingested, since this worker started",
            registry=r,
        )
        self.redactions = Counter(
            "memgate_redactions", "Sensitive spans found, by kind", ["kind"], registry=r
        )
        self.extraction_calls = Counter(
            "memgate_extraction_calls",
            "Extractor invocations by extractor and outcome",
            ["extractor", "outcome"],
            registry=r,
        )
        self.consumer_lag = Gauge(
            "memgate_consumer_lag",
            "Messages not yet consumed, per stage topic and partition",
            ["stage", "topic", "partition"],
            registry=r,
        )
        self.turns_deferred = Counter(
            "memgate_turns_deferred",
            "Turns sent to the deferred topic: over their user's quota, or behind its backlog",
            registry=r,
        )
        self.deferred_users = Gauge(
            "memgate_deferred_users",
            "Users of this worker's partitions with turns waiting on the deferred topic",
            registry=r,
        )
        self.served_age = Histogram(
            "memgate_served_fact_age_seconds",
            "Age (since last seen) of facts returned by search",
            buckets=AGE_BUCKETS,
            registry=r,
        )
        self.retrievals = Counter("memgate_retrievals", "Searches served", ["backend"], registry=r)
        self.dead_letters = Counter(
            "memgate_dead_letters",
            "Events sent to the dead-letter topic",
            ["source", "reason"],
            registry=r,
        )
        self.store_retries = Counter(
            "memgate_store_retries",
            "Retried attempts of a store call after a transient failure (each attempt counted)",
            ["store"],
            registry=r,
        )
        self.final_check = Counter(
            "memgate_final_check_masked",
            "Records the final check before the stores had to mask (the stages before it "
            "let something sensitive through), by record kind (fact, journal)",
            ["record"],
            registry=r,
        )
        for record in ("fact", "journal"):  # a series from the start: alerts see 0, not absent
            self.final_check.labels(record=record)
        self.extractor_fallbacks = Counter(
            "memgate_extractor_fallbacks",
            "Turns an extractor handed to its fallback (the offline extractor), by reason",
            ["extractor", "reason"],
            registry=r,
        )
        self.extract_cache = Counter(
            "memgate_extract_cache",
            "Lookups of the Claude extractor's answer cache (hit: no request was made)",
            ["result"],
            registry=r,
        )
        self.disagreements = Counter(
            "memgate_shadow_disagreements",
            "Shadow mode: turns the primary and the shadow extractor read differently",
            ["shadow", "kind"],
            registry=r,
        )
        self.extractor_retries = Counter(
            "memgate_extractor_retries",
            "Extractor API requests that failed transiently and were tried again, by kind "
            "(timeout, rate_limited, http_5xx, malformed_payload, connection)",
            ["extractor", "kind"],
            registry=r,
        )
        self.http_requests = Counter(
            "memgate_http_requests",
            "HTTP requests of memgate serve by route template (unmatched: no route), method "
            "and status class (2xx, 4xx, 5xx)",
            ["route", "method", "status"],
            registry=r,
        )
        self.http_latency = Histogram(
            "memgate_http_request_duration_seconds",
            "Time memgate serve took to answer one request, by route template",
            ["route"],
            buckets=HTTP_BUCKETS,
            registry=r,
        )
        self.consolidation_runs = Counter(
            "memgate_consolidation_runs",
            "Ticks of the worker's consolidation timer, by outcome (ok: every user done; "
            "failed: some user failed and is tried again next tick)",
            ["outcome"],
            registry=r,
        )
        self.consolidation_changes = Counter(
            "memgate_consolidation_changes",
            "Changes the worker's consolidation made, by verdict (settle, merge, fold, retire)",
            ["verdict"],
            registry=r,
        )
        self.consolidation_failures = Counter(
            "memgate_consolidation_failures",
            "Users whose consolidation failed on a tick (tried again next tick), by error type",
            ["error"],
            registry=r,
        )
        self._turns = 0
        self._stored = 0

    def serve(
        self, port: int, addr: str = "127.0.0.1", ready: Readiness | None = None
    ) -> HealthServer:
        """Serve ``/metrics``, ``/live`` and ``/ready`` on ``addr:port`` (a daemon thread)."""
        from memgate.streams.health import HealthServer, Readiness

        return HealthServer(self.registry, ready or Readiness(), port, addr).start()

    # ------------------------------------------------------------- recorders

    def record_turn(self) -> None:
        self._turns += 1
        self.turns.inc()
        self._update_amplification()

    def record_facts(self, action: str, n: int = 1) -> None:
        self._stored += n
        self.facts_written.labels(action=action).inc(n)
        self._update_amplification()

    def _update_amplification(self) -> None:
        if self._turns:
            self.write_amplification.set(self._stored / self._turns)

    def record_effects(self, stage: Stage, effects: Effects) -> None:
        """Count what one event of a stage did (every runner calls this once per event)."""
        if effects.forward:
            self.events_out.labels(stage=stage.value).inc(len(effects.forward))
        self.record_audit(effects.audit)
        for action in effects.stored:
            self.record_facts(action)
        if stage is Stage.EXTRACT:
            for rec in effects.audit:
                if isinstance(rec, DecisionRecord):
                    outcome = "error" if rec.verdict == "error" else "ok"
                    calls = self.extraction_calls
                    calls.labels(extractor=rec.policy_version, outcome=outcome).inc()
                    self._record_extraction(rec)

    def _record_extraction(self, rec: DecisionRecord) -> None:
        """Fallbacks and cache lookups from an extract decision's report (``details``)."""
        fallback = rec.details.get("fallback")
        if fallback:
            by = self.extractor_fallbacks.labels(extractor=rec.policy_version, reason=str(fallback))
            by.inc()
        for name, n in rec.details.items():
            if not name.startswith(RETRIES_PREFIX):
                continue
            try:
                count = float(n)
            except ValueError:
                continue
            kind = name.removeprefix(RETRIES_PREFIX)
            self.extractor_retries.labels(extractor=rec.policy_version, kind=kind).inc(count)
        cache = rec.details.get("cache")
        if cache in ("hit", "miss"):
            self.extract_cache.labels(result=str(cache)).inc()

    def record_audit(self, records: Iterable[object]) -> None:
        """Count drops and redactions from the audit events a stage emitted."""
        for rec in records:
            if isinstance(rec, DisagreementRecord):
                self.disagreements.labels(shadow=rec.shadow, kind=rec.kind).inc()
            elif isinstance(rec, JournalRecord):
                for kind, n in rec.redaction_counts.items():
                    self.redactions.labels(kind=kind).inc(n)
                if rec.verdict is TriageVerdict.DROP:
                    self.dropped.labels(stage=Stage.TRIAGE.value, reason=rec.reason).inc()
            elif isinstance(rec, DecisionRecord):
                dropped = (
                    (rec.stage is Stage.REDACT and rec.verdict == "rejected")
                    or (rec.stage is Stage.DEDUPE and rec.verdict in ("REJECT", "DUPLICATE"))
                    or (rec.stage is Stage.EXTRACT and rec.verdict != "facts")
                )
                if dropped:
                    self.dropped.labels(stage=rec.stage.value, reason=rec.reason).inc()
                if rec.reason.startswith("final_check_"):
                    self.final_check.labels(record=rec.reason.removeprefix("final_check_")).inc()
