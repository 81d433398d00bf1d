"""``memgate audit``: named reports, why a fact is believed, or raw SQL over the audit tables.

The rows are read as the engine sends them (:meth:`ClickHouseAudit.rows`): CSV and JSON
are written as they come, the table shows the first :data:`TABLE_ROWS` and counts the
rest. The query runs in a thread of its own, so that Ctrl-C stops it at once (the
engine holds the thread that calls it until it returns, and Python's signal handlers
only run in the main thread): one line, exit 130 (session 22).
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Annotated, Any, TextIO

import typer

from memgate import render
from memgate.cli.args import AuditFormat, check_id, check_text, check_time, parse_instant
from memgate.cli.common import console, err, errors, json_safe
from memgate.cli.options import global_options, session

if TYPE_CHECKING:
    from memgate.sinks.audit import ClickHouseAudit

app = typer.Typer()

EXPLAIN = "explain"
#: The table shows this many rows at most (a million rows took 130 s and 2.6 GB).
TABLE_ROWS = 10_000
#: ... and this many characters of a cell (one cell of 20 MB took 230 s).
TABLE_CELL = 1_000


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
    from memgate.sinks.audit import REPORTS, TABLES, ClickHouseAudit, ReportScope
    from memgate.sinks.audit_reports import TIME_SERIES_REPORTS, USER_NEEDS_TENANT

    s = session(ctx)
    if list_reports or (report is None and sql is None):
        console.print(render.reports_table(REPORTS))
        console.print(
            f"{EXPLAIN}: --fact ID or --turn ID, the whole chain from the turn to the fact"
        )
        console.print("tables: " + ", ".join(f"memgate.{t.name}" for t in TABLES))
        return
    if sql is not None and report is not None:  # the report was ignored, its title kept
        raise typer.BadParameter(
            f"give a report or --sql, not both ({report!r} and --sql)", param_hint="REPORT"
        )
    if (fact is not None or turn is not None) and report != EXPLAIN:  # they were ignored
        raise typer.BadParameter("--fact and --turn go with 'explain'", param_hint="--fact")
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
            parquet = output
            _interruptible(
                lambda: parquet.write_bytes(store.query_format(statement, params, "Parquet"))
            )
            err.print(f"wrote {output}")
            return
        if plot is not None:  # a time-series report: a row a day
            from memgate.audit_export import plot_series

            got: list[tuple[list[str], list[tuple[Any, ...]]]] = []
            _interruptible(lambda: got.append(store.query(statement, params)))
            cols, rows = got[0]
            plot_series(plot, title, cols, rows)
            err.print(f"wrote {plot}")
        _interruptible(lambda: _emit(store, statement, params, fmt, output, title))


def _emit(
    store: ClickHouseAudit,
    statement: str,
    params: dict[str, Any],
    fmt: AuditFormat,
    output: Path | None,
    title: str,
) -> None:
    from memgate.audit_export import write_csv, write_json

    with store.rows(statement, params) as (cols, blocks):
        if fmt is AuditFormat.TABLE:
            _table(title, cols, blocks)
            return
        with _sink(output) as out:
            if fmt is AuditFormat.CSV:  # a terminal acts on control characters: escaped
                to_terminal = output is None and sys.stdout.isatty()
                write_csv(out, cols, blocks, shown=render.clean if to_terminal else None)
            elif output is None:  # a terminal's unsafe characters as escapes (print_json)
                write_json(out, cols, blocks, ascii_only=False, escape=json_safe)
            else:
                write_json(out, cols, blocks)


@contextmanager
def _sink(output: Path | None) -> Iterator[TextIO]:
    if output is None:
        yield sys.stdout
        sys.stdout.flush()
        return
    with output.open("w", encoding="utf-8", newline="") as f:
        yield f


def _table(title: str, cols: list[str], blocks: Iterator[Any]) -> None:
    """The first :data:`TABLE_ROWS` rows as a table; the rest counted, not kept."""
    rows: list[tuple[object, ...]] = []
    total = 0
    for block in blocks:
        if len(rows) < TABLE_ROWS:
            rows.extend(tuple(_cell(v) for v in r) for r in block[: TABLE_ROWS - len(rows)])
        total += len(block)
    console.print(render.rows_table(title, cols, rows))
    whole = "--format csv or --format json (with --output FILE) writes them"
    if total > len(rows):
        err.print(
            f"showing the first {len(rows):,} of {total:,} rows ({total - len(rows):,} left "
            f"out); {whole} all"
        )
    if any(isinstance(v, _Cut) for r in rows for v in r):
        err.print(f"cells longer than {TABLE_CELL:,} characters are cut (…); {whole} whole")


class _Cut(str):
    """A cell's text, cut at :data:`TABLE_CELL` characters."""


def _cell(value: object) -> object:
    if isinstance(value, str | bytes | list | tuple | dict):
        text = value if isinstance(value, str) else str(value)
        if len(text) > TABLE_CELL:
            return _Cut(f"{text[:TABLE_CELL]}… ({len(text):,} characters)")
    return value


def _interruptible(work: Callable[[], object]) -> None:
    """Run ``work`` in a thread of its own; Ctrl-C meanwhile prints one line and exits 130.

    The engine keeps the thread that queries it until the query ends, and Python runs
    signal handlers in the main thread only: a query there made Ctrl-C wait for it.
    Nothing is written to the audit store (queries are read-only), so the process
    ends at once; an ignored SIGINT (started in the background) stays ignored.
    """
    if threading.current_thread() is not threading.main_thread():
        work()
        return
    failed: list[BaseException] = []

    def run() -> None:
        try:
            work()
        except BaseException as exc:  # handed to the main thread, raised there
            failed.append(exc)

    worker = threading.Thread(target=run, name="memgate-audit-query", daemon=True)
    before = signal.getsignal(signal.SIGINT)
    handler = before if callable(before) else None  # SIG_IGN stays ignored
    if handler is not None:
        signal.signal(signal.SIGINT, _stop_after(handler))
    try:
        worker.start()
        while worker.is_alive():
            worker.join(0.1)
    finally:
        if handler is not None:
            signal.signal(signal.SIGINT, before)
    if failed:
        raise failed[0]


def _stop_after(handler: Callable[[int, FrameType | None], Any]) -> Any:
    """A SIGINT handler: the command line's own (``memgate.cli``: it prints the line), then
    the process ends, the query with it."""

    def stop(signum: int, frame: FrameType | None) -> None:
        with suppress(KeyboardInterrupt):
            handler(signum, frame)
        sys.stderr.flush()
        os._exit(128 + signum)

    return stop
