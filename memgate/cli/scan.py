"""``memgate scan``: the leak watch over every store (counts and record ids, never values)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from memgate import render
from memgate.cli.common import console, err, errors, print_json
from memgate.cli.options import global_options, session

if TYPE_CHECKING:
    from memgate.sinks.scan_sources import ScanRecord

app = typer.Typer()


@app.command()
@global_options(output=True)
def scan(
    ctx: typer.Context,
    metrics_file: Annotated[
        Path | None,
        typer.Option(
            "--metrics-file",
            help="Also write memgate_scan_findings_total{store,kind} to this .prom file "
            "(for the node exporter's textfile collector; replaced atomically).",
        ),
    ] = None,
) -> None:
    """Read every store with the detectors and report what they find, by tenant, store and
    kind: counts and record ids only, never a value. Exit code 1 when something is found.

    Stores: the retrieval facts (with their context), the audit journal, decisions,
    fact history and disagreements, and the Claude extractor's answer cache. The
    dead letters are a Kafka topic, not a memgate store, and are not read.
    """
    from memgate.scan import scan_records, write_metrics
    from memgate.sinks.scan_sources import audit_records, cache_records, fact_records
    from memgate.stages.detectors import Detector

    s = session(ctx)
    with errors():
        rt = s.runtime

        def records() -> Iterator[ScanRecord]:
            yield from fact_records(rt.retrieval)
            yield from audit_records(rt.audit)
            yield from cache_records(rt.answer_cache)

        report = scan_records(records(), Detector())
        if metrics_file is not None:
            write_metrics(report, metrics_file)
    if s.json:
        print_json({
            "records": report.records,
            "findings": report.findings,
            "groups": [
                {"tenant_id": g.tenant_id, "store": g.store, "kind": g.kind, "count": g.count,
                 "record_ids": g.record_ids}
                for g in report.groups
            ],
        })  # fmt: skip
    else:
        scanned = ", ".join(f"{n:,} {store}" for store, n in report.records.items())
        console.print(render.text(f"scanned {scanned}"), soft_wrap=True)
        if report.groups:
            console.print(render.text("tenant\tstore\tkind\tcount\trecord ids"), soft_wrap=True)
        for g in report.groups:  # ids only (tenant ids follow the id rule, record ids are hex)
            line = f"{g.tenant_id}\t{g.store}\t{g.kind}\t{g.count}\t{' '.join(g.record_ids)}"
            console.print(render.text(line), soft_wrap=True)
    if report.findings:
        err.print(
            render.text(
                f"found {report.findings:,} sensitive value(s) in the stores (kinds and record "
                "ids above; values are not shown): find how they got past the gate, then "
                "memgate forget the user or delete the fact"
            ),
            soft_wrap=True,
        )
        raise typer.Exit(1)
