"""The leak watch: every store read with the detectors, findings counted, values never shown.

:func:`scan` reads every record of the retrieval store (facts of every status,
with their masked context), of the audit store (journal, decisions, fact
history, shadow disagreements) and of the Claude extractor's answer cache
(:mod:`memgate.sinks.scan_sources`), runs the detectors the gate masks with
(:func:`memgate.stages.redact_health.mask_all`: PII, credentials, regulated
formats, health terms) on each text field, and counts what it finds by
tenant, store and kind: how many records hold that kind (a record counts
once per kind, however many of its fields hold it) and their ids (at most
:data:`MAX_IDS` per group), never the text. Placeholders such as ``[EMAIL]``
are what the gate leaves; they are not findings.

:func:`write_metrics` writes ``memgate_scan_findings_total{store, kind}`` (the
findings of this scan) in the Prometheus text format, for the node exporter's
textfile collector (no Pushgateway): the file is replaced atomically.

>>> from memgate.sinks.scan_sources import ScanRecord
>>> from memgate.stages.detectors import Detector
>>> records = [ScanRecord("facts", "acme", "u1", "f1", ("mail me at bob@example.com",)),
...            ScanRecord("facts", "acme", "u1", "f2", ("mail me at [EMAIL]",))]
>>> rep = scan_records(records, Detector())
>>> [(g.tenant_id, g.store, g.kind, g.count, g.record_ids) for g in rep.groups]
[('acme', 'facts', 'email', 1, ['f1'])]
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from memgate.sinks.scan_sources import ScanRecord
from memgate.stages.detectors import Detector
from memgate.stages.redact_health import mask_all

__all__ = ["MAX_IDS", "FindingGroup", "ScanReport", "scan_records", "write_metrics"]

#: Record ids kept per (tenant, store, kind); the count goes on.
MAX_IDS = 20
#: Stores the scan reads (a store with no record still shows as scanned).
STORES = ("facts", "journal", "decisions", "fact_history", "disagreements", "answer_cache")


@dataclass
class FindingGroup:
    tenant_id: str
    store: str
    kind: str
    count: int = 0
    record_ids: list[str] = field(default_factory=list)


@dataclass
class ScanReport:
    records: dict[str, int] = field(default_factory=lambda: dict.fromkeys(STORES, 0))
    groups: list[FindingGroup] = field(default_factory=list)

    @property
    def findings(self) -> int:
        return sum(g.count for g in self.groups)

    def by_store_kind(self) -> dict[tuple[str, str], int]:
        out: dict[tuple[str, str], int] = {}
        for g in self.groups:
            out[(g.store, g.kind)] = out.get((g.store, g.kind), 0) + g.count
        return out


def scan_records(records: Iterable[ScanRecord], detector: Detector) -> ScanReport:
    """Count the detectors' findings in ``records``; keep ids and kinds, never values."""
    report = ScanReport()
    groups: dict[tuple[str, str, str], FindingGroup] = {}
    for rec in records:
        report.records[rec.store] = report.records.get(rec.store, 0) + 1
        kinds = {kind for text in rec.texts for kind in mask_all(detector, text).counts}
        for kind in sorted(kinds):
            g = groups.setdefault(
                (rec.tenant_id, rec.store, kind), FindingGroup(rec.tenant_id, rec.store, kind)
            )
            g.count += 1
            if len(g.record_ids) < MAX_IDS and rec.record_id not in g.record_ids:
                g.record_ids.append(rec.record_id)
    report.groups = sorted(groups.values(), key=lambda g: (g.tenant_id, g.store, g.kind))
    return report


def write_metrics(report: ScanReport, path: Path) -> None:
    """``memgate_scan_findings_total{store, kind}`` in the text format, replaced atomically
    (the textfile collector must never read half a file)."""
    from prometheus_client import CollectorRegistry, Counter, write_to_textfile

    registry = CollectorRegistry()
    c = Counter(
        "memgate_scan_findings",
        "Records in which the last memgate scan found sensitive values, by store and kind",
        ["store", "kind"],
        registry=registry,
    )
    for store in STORES:  # every store present at 0: an alert sees a clean scan too
        c.labels(store=store, kind="none")
    for (store, kind), n in report.by_store_kind().items():
        c.labels(store=store, kind=kind).inc(n)
    write_to_textfile(str(path), registry)
