"""``memgate audit``: named reports, why a fact is believed, or raw SQL over the audit tables."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from memgate import render
from memgate.cli.args import AuditFormat, check_id, check_text, check_time, parse_instant
from memgate.cli.common import console, err, errors, print_json
from memgate.cli.options import global_options, session

app = typer.Typer()

EXPLAIN = "explain"


def _instant(value: str | None) -> Any:
    return None if value is None else parse_instant(value)


@app.command()
@global_options(output=True)
def audit(
    ctx: typer.Context,
    report: Annotated[
        str | None,
        typer.Argument(
            help="A named report (see --list), or 'explain' with --fact or --turn.",
            callback=check_text,
        ),
    ] = None,
    sql: Annotated[
        str | None,
        typer.Option(
            "--sql",
            help="Raw SQL against the audit store; --tenant, --user, --since and --until bind "
            "{tenant:String}, {user:String}, {since:DateTime64(3, 'UTC')}, {until:...}.",
            callback=check_text,
        ),
    ] = None,
    tenant: Annotated[
        str | None, typer.Option("--tenant", "-t", help="Tenant id.", callback=check_id)
    ] = None,
    user: Annotated[
        str | None, typer.Option("--user", "-u", help="User id.", callback=check_id)
    ] = None,
    since: Annotated[
        str | None,
        typer.Option("--since", help="From this event time (ISO 8601, UTC).", callback=check_time),
    ] = None,
    until: Annotated[
        str | None,
        typer.Option(
            "--until", help="Before this event time (ISO 8601, UTC).", callback=check_time
        ),
    ] = None,
    fact: Annotated[
        str | None, typer.Option("--fact", help="explain: the fact id.", callback=check_id)
    ] = None,
    turn: Annotated[
        str | None, typer.Option("--turn", help="explain: the turn id.", callback=check_id)
    ] = None,
    output_format: Annotated[
        AuditFormat | None,
        typer.Option(
            "--format",
            help="table (default), json, csv, or parquet (needs --output).",
            case_sensitive=False,
        ),
    ] = None,
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", help="Write the json, csv or parquet to this file."),
    ] = None,
    plot: Annotated[
        Path | None,
        typer.Option("--plot", help="Also draw a time-series report (daily) to FILE.png."),
    ] = None,
    list_reports: Annotated[bool, typer.Option("--list", help="List the named reports.")] = False,
) -> None:
    """Named audit reports, why a fact is believed (explain), or raw SQL over the audit tables.

    Reports count by event time (when a turn was said); ingest time is a column of its own.
    """
    from memgate.sinks.audit import REPORTS, ClickHouseAudit, ReportScope
    from memgate.sinks.audit_reports import TIME_SERIES_REPORTS, USER_NEEDS_TENANT

    s = session(ctx)
    if list_reports or (report is None and sql is None):
        console.print(render.reports_table(REPORTS))
        console.print(
            f"{EXPLAIN}: --fact ID or --turn ID, the whole chain from the turn to the fact"
        )
        console.print("tables: memgate.journal, memgate.decisions, memgate.fact_history")
        return
    if sql is None and report != EXPLAIN and report not in REPORTS:
        raise typer.BadParameter(
            f"unknown report {report!r}; choose one of: {', '.join([*REPORTS, EXPLAIN])}",
            param_hint="REPORT",
        )
    if report == EXPLAIN and sql is None and (fact is None) == (turn is None):
        raise typer.BadParameter("explain takes one of --fact ID or --turn ID", param_hint="--fact")
    fmt = output_format or (AuditFormat.JSON if s.json else AuditFormat.TABLE)
    if fmt is AuditFormat.PARQUET and output is None:
        raise typer.BadParameter("parquet is binary: name a file with --output FILE.parquet")
    if plot is not None and (sql is not None or report not in TIME_SERIES_REPORTS):
        raise typer.BadParameter(
            f"--plot draws a time-series report: {', '.join(TIME_SERIES_REPORTS)}",
            param_hint="--plot",
        )
    if user is not None and tenant is None:
        raise typer.BadParameter(USER_NEEDS_TENANT, param_hint="--user")
    scope = ReportScope(tenant, user, _instant(since), _instant(until))
    title = report or "sql"
    with errors():
        store = s.runtime.audit
        assert isinstance(store, ClickHouseAudit)  # both audit backends are ClickHouse
        if sql is not None:
            statement, params = sql, store.scoped_sql(sql, scope)
        elif report == EXPLAIN:
            statement, params = store.explain_sql(fact_id=fact, turn_id=turn, tenant_id=tenant)
            title = f"explain {'fact ' + fact if fact else 'turn ' + str(turn)}"
        else:
            assert report is not None
            statement, params = REPORTS[report][1], scope.parameters()
        if fmt is AuditFormat.PARQUET:
            assert output is not None
            output.write_bytes(store.query_format(statement, params, "Parquet"))
            err.print(f"wrote {output}")
            return
        cols, rows = store.query(statement, params)
        if plot is not None:
            from memgate.audit_export import plot_series

            plot_series(plot, title, cols, rows)
            err.print(f"wrote {plot}")
        _emit(fmt, output, title, cols, rows)


def _emit(
    fmt: AuditFormat, output: Path | None, title: str, cols: list[str], rows: list[tuple[Any, ...]]
) -> None:
    from memgate.audit_export import csv_text

    if fmt is AuditFormat.CSV:
        text = csv_text(cols, rows)
        if output is None:
            sys.stdout.write(text)
        else:
            output.write_text(text)
        return
    if fmt is AuditFormat.JSON:
        records = [dict(zip(cols, r, strict=True)) for r in rows]
        if output is None:
            print_json(records)
        else:
            import json

            output.write_text(json.dumps(records, indent=2, default=str) + "\n")
        return
    console.print(render.rows_table(title, cols, rows))
