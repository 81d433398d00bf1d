"""The audit store on ClickHouse: the journal, every stage's decisions, fact history.

One class, one DDL, one SQL dialect, two ways to reach the engine, both
through clickhouse-connect:

* :meth:`ClickHouseAudit.embedded` runs ClickHouse in-process (chDB) with its
  data in a directory on disk: for development, tests and single-node use;
* :meth:`ClickHouseAudit.server` talks HTTP to a ClickHouse server.

Every table is a ``ReplacingMergeTree`` whose sorting key ends in
``event_id``, so a re-delivered record (same event id) collapses into one
row; every read goes through ``FINAL``, so duplicates never reach a report
even before the background merge. A batch is written with one
column-oriented insert per table; there is no transaction across tables, so
a failed :meth:`ClickHouseAudit.write` is retried whole and the rows that
did land collapse with their second copy.

The records are redacted by construction (:class:`memgate.core.events.JournalRecord`
carries ``redacted_text``, never the raw turn); this module writes their
fields and nothing else.

Named reports live in :mod:`memgate.sinks.audit_reports` (:data:`REPORTS`); each
binds a tenant, a user and an event-time range as query parameters::

    audit = ClickHouseAudit.embedded(Path("var/audit"))
    columns, rows = audit.report("drop-reasons", tenant_id="acme")
    columns, rows = audit.report("daily", scope=ReportScope(tenant="acme", user="u1", since=day))

:mod:`memgate.sinks.audit_explain` answers "why": a turn's or a fact's whole chain.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memgate.core.closing import Closing
from memgate.core.errors import (
    ConfigError,
    MemgateError,
    MissingExtra,
    StoreError,
    TransientError,
)
from memgate.core.events import (
    AuditEvent,
    DecisionRecord,
    DisagreementRecord,
    FactHistoryRecord,
    JournalRecord,
)
from memgate.core.settings import mask_secrets
from memgate.sinks.audit_erasure import ERASURE_SETTINGS_SQL, erase
from memgate.sinks.audit_explain import EXPLAIN_COLUMNS, explain_fact, explain_turn
from memgate.sinks.audit_ledger import LEDGER_SQL, TURN_INDEX_DDL, add_turn_index, ledger_answer
from memgate.sinks.audit_lock import check_not_locked
from memgate.sinks.audit_reports import (
    ADMITTED_VERDICTS,
    REPORTS,
    SCOPE_PARAMETERS,
    ReportScope,
)
from memgate.sinks.audit_skeleton import clear_fact, keep_skeleton
from memgate.sinks.audit_sql import canonical, check_statement, placeholders

if TYPE_CHECKING:
    from clickhouse_connect.driver.client import Client

__all__ = [
    "ADMITTED_VERDICTS",
    "DEFAULT_DATABASE",
    "REPORTS",
    "TABLES",
    "ClickHouseAudit",
    "ReportScope",
    "Table",
]

DEFAULT_DATABASE = "memgate"
_INSTALL_HINT = "pip install 'clickhouse-connect[chdb]'"
_IDENT_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,127}$")
# ClickHouse error codes worth a retry: timeouts, overload, too many parts, network.
_TRANSIENT_CODES = frozenset({159, 160, 202, 203, 209, 210, 241, 242, 252, 285, 319, 425, 999})


# --------------------------------------------------------------------------- tables


@dataclass(frozen=True)
class Table:
    """One audit table: its columns (name, ClickHouse type) and how a record fills a row."""

    name: str
    record_type: (
        type[JournalRecord]
        | type[DecisionRecord]
        | type[FactHistoryRecord]
        | type[DisagreementRecord]
    )
    #: (name, ClickHouse type); a column holds the record's field of the same name
    columns: tuple[tuple[str, str], ...]
    #: data-skipping index clauses of the DDL (``INDEX name expr TYPE ... GRANULARITY n``)
    indexes: tuple[str, ...] = ()

    @property
    def column_names(self) -> list[str]:
        return [c for c, _ in self.columns]

    @property
    def column_types(self) -> list[str]:
        return [t for _, t in self.columns]

    def row(self, record: AuditEvent) -> tuple[Any, ...]:
        """The record's fields in column order, as the client inserts them."""
        return tuple(_cell(getattr(record, name), kind) for name, kind in self.columns)

    def ddl(self, database: str) -> str:
        cols = ",\n    ".join([*(f"`{c}` {t}" for c, t in self.columns), *self.indexes])
        # The sorting key is the deduplication key: event_id decides, tenant and
        # user lead so that per-tenant reports and forget() read little.
        return (
            f"CREATE TABLE IF NOT EXISTS `{database}`.`{self.name}` (\n    {cols}\n)\n"
            "ENGINE = ReplacingMergeTree\n"
            "ORDER BY (tenant_id, user_id, event_id)\n"
            f"SETTINGS {ERASURE_SETTINGS_SQL}"
        )


_TS = "DateTime64(3, 'UTC')"
_LC = "LowCardinality(String)"
_STR_MAP = "Map(String, String)"


def _cell(value: Any, kind: str) -> Any:
    """One field as its column takes it: an enum's value, a flag as 0/1, a copy of a list
    or a map (a ``Map(String, String)`` of its values as text)."""
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, dict):
        if kind == _STR_MAP:
            return {k: str(v) for k, v in value.items()}
        return dict(value)
    if isinstance(value, list):
        return list(value)
    return value


JOURNAL = Table(
    name="journal",
    record_type=JournalRecord,
    columns=(
        ("event_id", "String"),
        ("tenant_id", _LC),
        ("user_id", "String"),
        ("session_id", "String"),
        ("turn_id", "String"),
        ("role", _LC),
        ("ts", _TS),
        ("length", "UInt32"),
        ("content_hmac", "String"),
        ("verdict", _LC),
        ("reason", _LC),
        ("redacted_text", "String CODEC(ZSTD(3))"),
        ("redaction_counts", "Map(String, UInt32)"),
        ("ingested_at", _TS),
    ),
    # the worker's turn ledger reads by turn id (memgate.sinks.audit_ledger)
    indexes=(TURN_INDEX_DDL,),
)
DECISIONS = Table(
    name="decisions",
    record_type=DecisionRecord,
    columns=(
        ("event_id", "String"),
        ("stage", _LC),
        ("tenant_id", _LC),
        ("user_id", "String"),
        ("session_id", "String"),
        ("turn_id", "String"),
        ("verdict", _LC),
        ("reason", _LC),
        ("key", "String"),
        ("fact_id", "String"),
        ("policy_version", _LC),
        ("decided_at", _TS),
        ("details", _STR_MAP),
    ),
)
FACT_HISTORY = Table(
    name="fact_history",
    record_type=FactHistoryRecord,
    columns=(
        ("event_id", "String"),
        ("tenant_id", _LC),
        ("user_id", "String"),
        ("fact_id", "String"),
        ("key", "String"),
        ("action", _LC),
        ("value", "String"),
        ("confidence", "Float64"),
        ("occurrences", "UInt32"),
        ("superseded_by", "String"),
        ("supersedes", "String"),
        ("source_turn_id", "String"),
        ("policy_version", _LC),
        ("at", _TS),
    ),
)


#: Shadow mode (``shadow_extractor``): turns the two extractors read differently.
DISAGREEMENTS = Table(
    name="disagreements",
    record_type=DisagreementRecord,
    columns=(
        ("event_id", "String"),
        ("tenant_id", _LC),
        ("user_id", "String"),
        ("session_id", "String"),
        ("turn_id", "String"),
        ("primary", _LC),
        ("shadow", _LC),
        ("kind", _LC),
        ("primary_keep", "UInt8"),
        ("shadow_keep", "UInt8"),
        ("only_primary", "Array(String)"),
        ("only_shadow", "Array(String)"),
        ("decided_at", _TS),
    ),
)
#: The audit tables, in write order.
TABLES: tuple[Table, ...] = (JOURNAL, DECISIONS, FACT_HISTORY, DISAGREEMENTS)


# -------------------------------------------------------------------------- reports

_TENANT = "({tenant:String} = '' OR tenant_id = {tenant:String})"
#: Every read: nothing written (``readonly``), no duplicate event (``final``).
_READ = {"readonly": 2, "final": 1}
#: At most this much of an engine's error message is shown (it quotes the query).
_MAX_ERROR = 600
#: How the engine's formatter says a query it ran for us failed: that part is ours.
_IN_FORMATTER = re.compile(
    r"\s*:?\s*In scope SELECT formatQuerySingleLine\(.*?(?=\s*\([A-Z_]+\)\s*$)", re.S
)


# ---------------------------------------------------------------------------- store


def _check_ident(name: str, what: str) -> str:
    if not _IDENT_RE.match(name):
        raise ConfigError(
            f"{what} {name!r} is not a plain identifier "
            "(letters, digits and _, starting with a letter or _)"
        )
    return name


def _translate(exc: Exception, what: str) -> MemgateError:
    """A clickhouse-connect error as memgate's: transient (retry) or a store error."""
    from clickhouse_connect.driver.exceptions import OperationalError

    code = getattr(exc, "code", None)
    text = _IN_FORMATTER.sub(".", str(exc))
    if len(text) > _MAX_ERROR:
        text = f"{text[: _MAX_ERROR // 2]} [...] {text[-_MAX_ERROR // 2 :]}"
    message = f"audit store: {what} failed: {text}"
    if isinstance(exc, OperationalError | ConnectionError | TimeoutError) or (
        code in _TRANSIENT_CODES
    ):
        return TransientError(message)
    return StoreError(message)


#: A journal column of earlier versions: an unkeyed SHA-256 of the raw turn, which
#: let anyone holding the journal confirm guesses of what a masked span held.
_UNKEYED_DIGEST_COLUMN = "content_sha256"


_MIGRATION_TABLE = "journal_migrating"


def _migrate_journal(client: Client, database: str) -> None:
    """Upgrade a journal made by an earlier version: its unkeyed digest column goes.

    Its values cannot be turned into keyed digests (that needs the raw text), so
    they are dropped; migrated rows have an empty ``content_hmac`` (a turn id
    whose journal row has no digest is never reported as a conflict). An
    ``ALTER ... DROP COLUMN`` would leave the values on disk in the replaced
    parts for minutes, so the table is rebuilt instead: the rows are copied
    into a new table, the two are swapped (``EXCHANGE TABLES``, atomic) and the
    old one is dropped with ``SYNC`` (its files removed before this returns). A
    crash part-way leaves the copy table behind; it is dropped on the next open.
    """
    db = f"`{database}`"
    result = client.query(
        "SELECT name FROM system.tables WHERE database = {db:String} AND name = {t:String}",
        parameters={"db": database, "t": _MIGRATION_TABLE},
    )
    if result.result_rows:  # a copy, or the old table, left by an interrupted migration
        client.command(f"DROP TABLE IF EXISTS {db}.`{_MIGRATION_TABLE}` SYNC")
    result = client.query(
        "SELECT name FROM system.columns WHERE database = {db:String} AND table = 'journal'",
        parameters={"db": database},
    )
    columns = {str(r[0]) for r in result.result_rows}
    if _UNKEYED_DIGEST_COLUMN not in columns:
        return
    ddl = JOURNAL.ddl(database).replace(f"`{database}`.`journal`", f"{db}.`{_MIGRATION_TABLE}`", 1)
    client.command(ddl)
    names = [c for c in JOURNAL.column_names if c in columns]
    select = ", ".join(f"`{c}`" for c in names)
    client.command(
        f"INSERT INTO {db}.`{_MIGRATION_TABLE}` ({select}) SELECT {select} FROM {db}.`journal`"
    )
    client.command(f"EXCHANGE TABLES {db}.`journal` AND {db}.`{_MIGRATION_TABLE}`")
    client.command(f"DROP TABLE {db}.`{_MIGRATION_TABLE}` SYNC")


class ClickHouseAudit(Closing):
    """A :class:`memgate.core.stores.AuditStore` on ClickHouse (in-process chDB or a server).

    ``client`` is a clickhouse-connect client; the store creates the database
    and its tables if missing, sets the client's default database to it, and
    owns the client from then on (:meth:`close` closes it).
    """

    def __init__(self, client: Client, *, database: str = DEFAULT_DATABASE) -> None:
        self.database = _check_ident(database, "audit database")
        self._client: Client | None = client
        self._in_process = False
        try:
            client.command(f"CREATE DATABASE IF NOT EXISTS `{self.database}`")
            for table in TABLES:
                client.command(table.ddl(self.database))
            _migrate_journal(client, self.database)
            add_turn_index(client, self.database)
        except Exception as exc:
            raise _translate(exc, f"creating the tables in {self.database}") from exc
        client.database = self.database

    # -- factories -----------------------------------------------------------------

    @classmethod
    def embedded(cls, path: Path, *, database: str = DEFAULT_DATABASE) -> ClickHouseAudit:
        """ClickHouse in-process (chDB), data kept on disk under ``path``.

        chDB hosts one engine per process: stores on the same path share it,
        and opening another path while a store is still open raises
        :class:`memgate.core.errors.ConfigError`. Close every store of a path
        before opening another one.
        """
        try:
            import clickhouse_connect
            from clickhouse_connect.driver.exceptions import ProgrammingError
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise ConfigError(f"the embedded audit store needs chDB: {_INSTALL_HINT}") from exc
        path = Path(path)
        path.mkdir(parents=True, exist_ok=True)
        check_not_locked(path)
        try:
            client = clickhouse_connect.get_client(
                interface="chdb", path=str(path), tz_mode="aware"
            )
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise ConfigError(f"the embedded audit store needs chDB: {_INSTALL_HINT}") from exc
        except ProgrammingError as exc:
            if "already initialized" in str(exc) or "different path" in str(exc):
                raise ConfigError(
                    f"cannot open the embedded audit store at {path}: chDB runs one engine per "
                    "process and another path is open; close every ClickHouseAudit (and any "
                    f"other chDB client) of that path first. ({exc})"
                ) from exc
            raise ConfigError(f"cannot open the embedded audit store at {path}: {exc}") from exc
        except Exception as exc:
            raise StoreError(f"cannot open the embedded audit store at {path}: {exc}") from exc
        try:
            store = cls(client, database=database)
        except BaseException:
            client.close()
            raise
        store._in_process = True
        return store

    @classmethod
    def server(
        cls,
        url: str,
        username: str = "default",
        password: str = "",
        database: str = DEFAULT_DATABASE,
        *,
        ca_cert: str | None = None,
    ) -> ClickHouseAudit:
        """A ClickHouse server over HTTP(S), e.g. ``http://localhost:8123`` or
        ``https://clickhouse:8443``; an https server's certificate is verified against
        ``ca_cert`` (a PEM file), else against the CAs of the certifi package."""
        try:
            import clickhouse_connect
        except ImportError as exc:
            raise MissingExtra("clickhouse", "the ClickHouse server audit store", exc.name) from exc
        tls: dict[str, Any] = {}
        if url.lower().startswith("https://"):
            tls = {"secure": True, "verify": True}
            if ca_cert is not None:
                tls["ca_cert"] = ca_cert
        try:
            client = clickhouse_connect.get_client(
                dsn=url, username=username, password=password, tz_mode="aware", **tls
            )
        except Exception as exc:
            if "CERTIFICATE_VERIFY_FAILED" in str(exc):
                raise ConfigError(
                    f"audit store: the certificate of ClickHouse at {mask_secrets(url)} is not "
                    "trusted: set MEMGATE_CLICKHOUSE_CA_CERT to the CA that signed it and "
                    "connect by a host name the certificate names"
                ) from None
            raise _translate(exc, f"connecting to {mask_secrets(url)}") from exc
        try:
            return cls(client, database=database)
        except BaseException:
            client.close()
            raise

    # -- lifecycle -------------------------------------------------------------------

    @property
    def client(self) -> Client:
        if self._client is None:
            raise StoreError("the audit store is closed")
        return self._client

    def close(self) -> None:
        """Close the client (idempotent); for chDB this releases the engine path."""
        client, self._client = self._client, None
        if client is not None:
            client.close()

    @staticmethod
    def warm() -> None:
        """Import now what the client imports on its first insert (it looks for pandas
        frames: importing pandas takes about half a second of CPU holding the GIL), not
        in the middle of the first writes: a worker about to join its group."""
        from clickhouse_connect.driver import options

        getattr(options, "pd", None)

    # -- AuditStore ----------------------------------------------------------------

    def write(self, records: Sequence[AuditEvent]) -> None:
        """One column-oriented insert per table; re-delivered event ids collapse."""
        rows: dict[str, list[tuple[Any, ...]]] = {t.name: [] for t in TABLES}
        for record in records:
            for table in TABLES:
                if isinstance(record, table.record_type):
                    rows[table.name].append(table.row(record))
                    break
            else:
                takes = ", ".join(t.record_type.__name__ for t in TABLES)
                raise TypeError(f"the audit store takes {takes}, not {type(record).__name__}")
        client = self.client
        for table in TABLES:
            batch = rows[table.name]
            if not batch:
                continue
            try:
                client.insert(
                    table.name,
                    [list(col) for col in zip(*batch, strict=True)],
                    column_names=table.column_names,
                    database=self.database,
                    column_type_names=table.column_types,
                    column_oriented=True,
                )
            except Exception as exc:
                raise _translate(exc, f"inserting {len(batch)} rows into {table.name}") from exc

    def query(
        self, sql: str, parameters: dict[str, Any] | None = None
    ) -> tuple[list[str], list[tuple[Any, ...]]]:
        """Run read-only SQL; parameters bind server-side as ``{name:Type}``.

        Runs with ``readonly = 2`` (nothing can be written or altered) and
        ``final = 1`` (tables read as if with ``FINAL``: no duplicate event);
        a statement that calls a table function or ``file()`` (they read the
        disk or the network, the HMAC key file included) is refused first
        (:mod:`memgate.sinks.audit_sql`).
        """
        statement, _ = self._prepare(sql, parameters or {})
        try:
            result = self.client.query(statement, parameters=parameters or {}, settings=_READ)
        except Exception as exc:
            raise _translate(exc, f"query {' '.join(sql.split())[:200]!r}") from exc
        columns = list(result.column_names)
        rows = [tuple(r) for r in result.result_rows]
        if not columns and not rows:
            columns = self._probe_columns(statement, parameters or {})
        return columns, rows

    def journal_turns(self, tenant_id: str, turn_ids: Sequence[str]) -> dict[str, tuple[str, str]]:
        """turn id -> (user id, content digest) of the tenant's journaled turns among
        ``turn_ids``: the worker's turn ledger, asked for every turn. One engine query: the
        statement is this store's own (nothing to check), parameters bound server-side;
        read without ``FINAL`` so that the journal's index on ``turn_id`` skips what cannot
        match (:mod:`memgate.sinks.audit_ledger`: which row answers for a turn id)."""
        ids = list(dict.fromkeys(turn_ids))
        if not ids:
            return {}
        try:
            result = self.client.query(
                LEDGER_SQL,
                parameters={"tenant": tenant_id, "turns": ids},
                settings={"readonly": 2},
            )
        except Exception as exc:
            raise _translate(exc, "reading the turn ledger (journal)") from exc
        return ledger_answer(result.result_rows)

    @contextmanager
    def rows(
        self, sql: str, parameters: dict[str, Any] | None = None
    ) -> Iterator[tuple[list[str], Iterator[Sequence[Sequence[Any]]]]]:
        """Like :meth:`query`, streamed: the column names and the rows, block by block
        (a few thousand rows each, read as the engine sends them: bounded memory)."""
        params = parameters or {}
        statement, kind = self._prepare(sql, params)
        what = f"query {' '.join(sql.split())[:200]!r}"
        if kind != "SelectWithUnionQuery":  # DESCRIBE: a few rows (chDB streams no DESCRIBE)
            columns, rows = self.query(statement, params)
            yield columns, iter([rows])
            return
        try:
            stream = self.client.query_row_block_stream(
                statement, parameters=params, settings=_READ
            )
        except Exception as exc:
            raise _translate(exc, what) from exc
        with stream:
            blocks = iter(stream)
            first = _next_block(blocks, what)
            if first is not None:
                columns = list(getattr(stream.source, "column_names", ()))
                yield columns, _blocks(first, blocks, what)
                return
        # an empty result: names from a probe, once the stream has let go of the engine
        yield self._probe_columns(statement, params), iter(())

    def _prepare(self, sql: str, parameters: dict[str, Any]) -> tuple[str, str]:
        """The text to run for ``sql`` (one statement, checked: :mod:`memgate.sinks.audit_sql`)
        and its kind (``SelectWithUnionQuery``, ``DescribeQuery``)."""
        try:
            statement = canonical(sql.strip(), self._format)
            kind = check_statement(
                statement, lambda st: self._explain(st, parameters), self.database
            )
        except PermissionError as exc:
            raise StoreError(f"audit store: query refused (READONLY): {exc}") from None
        return statement, kind

    def _format(self, statement: str) -> str:
        """The engine's formatter on ``statement``, bound as a parameter: nothing in it runs."""
        what = f"query {' '.join(statement.split())[:200]!r}"
        try:
            result = self.client.query(
                "SELECT formatQuerySingleLine({q:String})",
                parameters={"q": statement},
                settings={"readonly": 2},
                query_formats={"String": "bytes"},
            )
        except Exception as exc:
            if "Multi-statements are not allowed" in str(exc):
                raise
            raise _translate(exc, what) from exc
        try:  # an escape such as '\x9b' in a string literal comes back as that byte
            return bytes(result.result_rows[0][0]).decode("utf-8")
        except UnicodeDecodeError:
            raise StoreError(
                f"audit store: {what} refused: a string literal is not UTF-8 text (an escape "
                "such as '\\x9b'); write such bytes as unhex('9b')"
            ) from None

    def _explain(self, statement: str, parameters: dict[str, Any]) -> list[str]:
        """The engine's own parse tree of ``statement`` (``EXPLAIN AST`` runs nothing); a raw
        query, so that no ``FORMAT`` clause of the client's joins the statement's own."""
        try:
            text = self.client.raw_query(f"EXPLAIN AST {statement}", parameters=parameters)
        except Exception as exc:
            raise _translate(exc, f"query {' '.join(statement.split())[:200]!r}") from exc
        return bytes(text).decode("utf-8", "replace").splitlines()

    def _probe_columns(self, statement: str, parameters: dict[str, Any]) -> list[str]:
        """Column names of an empty result.

        chDB sends no block at all for an empty result, so no names either; a
        ``LIMIT 0`` probe returns them, as a server always does. Best effort:
        a statement that cannot be wrapped keeps an empty list.
        """
        try:
            probe = self.client.query(
                f"SELECT * FROM ({statement}) LIMIT 0", parameters=parameters, settings=_READ
            )
        except Exception:
            return []
        return list(probe.column_names)

    def report(
        self, name: str, tenant_id: str | None = None, *, scope: ReportScope | None = None
    ) -> tuple[list[str], list[tuple[Any, ...]]]:
        """Run the named report of :data:`REPORTS` over ``scope`` (tenant, user, event time).

        ``tenant_id`` is the short form of ``scope=ReportScope(tenant=...)``.
        """
        try:
            _, sql = REPORTS[name]
        except KeyError:
            raise ValueError(
                f"unknown audit report {name!r}; choose one of: {', '.join(REPORTS)}"
            ) from None
        scope = scope or ReportScope(tenant=tenant_id)
        return self.query(sql, scope.parameters())

    def scoped_sql(self, sql: str, scope: ReportScope) -> dict[str, Any]:
        """The parameters to run user SQL with: every scope parameter it names, bound.

        A scope value that was given but that the SQL does not name would be
        silently ignored (a ``--tenant`` that scopes nothing), so it is refused; a
        placeholder in a string literal or a comment binds nothing and does not count
        (the engine's formatter drops the comments, :func:`placeholders` skips the strings).
        """
        try:
            named = placeholders(canonical(sql.strip(), self._format))
        except PermissionError as exc:
            raise StoreError(f"audit store: query refused (READONLY): {exc}") from None
        params = scope.parameters()
        unused = [n for n in scope.given() if n not in named]
        if unused:
            hints = ", ".join(f"{{{n}:{SCOPE_PARAMETERS[n]}}}" for n in unused)
            raise ConfigError(
                f"--{', --'.join(unused)} given but the SQL does not use {hints}; add e.g. "
                "WHERE tenant_id = {tenant:String} (or drop the option)"
            )
        return {n: v for n, v in params.items() if n in named}

    def query_format(self, sql: str, parameters: dict[str, Any], fmt: str) -> bytes:
        """``sql`` read-only as ClickHouse's own output format ``fmt`` (e.g. ``Parquet``)."""
        statement, _ = self._prepare(sql, parameters)
        try:
            return bytes(
                self.client.raw_query(statement, parameters=parameters, settings=_READ, fmt=fmt)
            )
        except Exception as exc:
            raise _translate(exc, f"query {' '.join(sql.split())[:200]!r}") from exc

    def explain_sql(
        self, *, fact_id: str | None = None, turn_id: str | None = None, tenant_id: str | None
    ) -> tuple[str, dict[str, Any]]:
        """The SQL and parameters of the chain behind a fact, or from a turn."""
        if fact_id is not None:
            return explain_fact(self.query, fact_id, tenant_id)
        if turn_id is not None:
            return explain_turn(self.query, turn_id, tenant_id)
        raise ValueError("explain needs a fact id or a turn id")

    def explain(
        self, *, fact_id: str | None = None, turn_id: str | None = None, tenant_id: str | None
    ) -> tuple[list[str], list[tuple[Any, ...]]]:
        """The whole chain behind a fact, or from a turn (:mod:`memgate.sinks.audit_explain`):
        one row per step, columns :data:`memgate.sinks.audit_explain.EXPLAIN_COLUMNS`."""
        sql, params = self.explain_sql(fact_id=fact_id, turn_id=turn_id, tenant_id=tenant_id)
        _, rows = self.query(sql, params)
        return list(EXPLAIN_COLUMNS), rows

    def counts(self, tenant_id: str | None = None) -> Mapping[str, int]:
        """Distinct events per table (for one tenant, or all)."""
        out: dict[str, int] = {}
        for table in TABLES:
            _, rows = self.query(
                f"SELECT count() FROM `{table.name}` FINAL WHERE {_TENANT}",
                {"tenant": tenant_id or ""},
            )
            out[table.name] = int(rows[0][0])
        return out

    def forget(self, tenant_id: str, user_id: str) -> int:
        """Delete a user's rows from every table and from the disk; returns how many.

        When this returns, no part (active or replaced) and no mutation file
        holds the user: see :mod:`memgate.sinks.audit_erasure` for how.
        """
        params = {"tenant": tenant_id, "user": user_id}
        where = "tenant_id = {tenant:String} AND user_id = {user:String}"
        total = 0
        for table in TABLES:
            _, rows = self.query(f"SELECT count() FROM `{table.name}` FINAL WHERE {where}", params)
            total += int(rows[0][0])
        try:
            erase(
                self.client,
                self.database,
                [t.name for t in TABLES],
                tenant_id,
                user_id,
                in_process=self._in_process,
            )
        except MemgateError:
            raise
        except Exception as exc:
            raise _translate(exc, f"erasing {tenant_id}/{user_id}") from exc
        return total

    def erase_user(
        self, tenant_id: str, user_id: str, pseudonym: Callable[[str], str]
    ) -> dict[str, int]:
        """Erase a user but keep the skeleton of each row under pseudonymous ids (see
        :mod:`memgate.sinks.audit_skeleton`), so that counts still add up; rows per table."""
        specs = [(t.name, t.column_names, t.column_types) for t in TABLES]
        try:
            counts = keep_skeleton(self.client, self.database, specs, tenant_id, user_id, pseudonym)
        except MemgateError:
            raise
        except Exception as exc:
            raise _translate(exc, f"keeping the skeleton of {tenant_id}/{user_id}") from exc
        self.forget(tenant_id, user_id)
        return counts

    def erase_fact(
        self, tenant_id: str, user_id: str, fact_id: str, turn_ids: Sequence[str]
    ) -> dict[str, int]:
        """Clear the content of the rows about one fact (its history and decisions, the
        redacted text of ``turn_ids``) on disk too; rows cleared per table."""
        try:
            return clear_fact(
                self.client, self.database, tenant_id, user_id, fact_id, turn_ids,
                in_process=self._in_process,
            )  # fmt: skip
        except MemgateError:
            raise
        except Exception as exc:
            raise _translate(exc, f"erasing fact {fact_id}") from exc


def _next_block(blocks: Iterator[Any], what: str) -> Any:
    try:
        return next(blocks, None)
    except Exception as exc:
        raise _translate(exc, what) from exc


def _blocks(first: Any, rest: Iterator[Any], what: str) -> Iterator[Sequence[Sequence[Any]]]:
    yield first
    while (block := _next_block(rest, what)) is not None:
        yield block
