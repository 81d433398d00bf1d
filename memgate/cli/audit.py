"""``memgate audit``: named reports, or raw SQL over the journal, decisions and fact history."""

from __future__ import annotations

from typing import Annotated

import typer

from memgate import render
from memgate.cli.args import check_id
from memgate.cli.common import console, errors, print_json
from memgate.cli.options import global_options, session

app = typer.Typer()


@app.command()
@global_options(output=True)
def audit(
    ctx: typer.Context,
    report: Annotated[str | None, typer.Argument(help="A named report (see --list).")] = None,
    sql: Annotated[
        str | None, typer.Option("--sql", help="Raw SQL against the audit store.")
    ] = None,
    tenant: Annotated[
        str | None, typer.Option("--tenant", "-t", help="Tenant id.", callback=check_id)
    ] = None,
    list_reports: Annotated[bool, typer.Option("--list", help="List the named reports.")] = False,
) -> None:
    """Named audit reports, or raw SQL over the journal, decisions and fact history."""
    from memgate.sinks.audit import REPORTS

    s = session(ctx)
    if list_reports or (report is None and sql is None):
        console.print(render.reports_table(REPORTS))
        console.print("tables: memgate.journal, memgate.decisions, memgate.fact_history")
        return
    if sql is None and report not in REPORTS:
        raise typer.BadParameter(
            f"unknown report {report!r}; choose one of: {', '.join(REPORTS)}",
            param_hint="REPORT",
        )
    with errors():
        if sql is not None:
            cols, rows = s.runtime.audit.query(sql)
        else:
            assert report is not None
            cols, rows = s.runtime.audit.report(report, tenant)
    if s.json:
        print_json([dict(zip(cols, r, strict=True)) for r in rows])
        return
    console.print(render.rows_table(report or "sql", cols, rows))
