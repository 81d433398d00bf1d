"""The audit store's read path (session 22): one statement, checked, then run; rows streamed.

``ClickHouseAudit.query`` serves every reader (``memgate audit``, the library, replay,
evaluation); these run on the embedded engine (chDB).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from memgate.core.errors import ConfigError, StoreError
from memgate.sinks.audit import ClickHouseAudit, ReportScope


@pytest.fixture
def audit(tmp_path: Path) -> Iterator[ClickHouseAudit]:
    with ClickHouseAudit.embedded(tmp_path / "audit") as store:
        yield store


def test_use_is_refused_and_the_client_keeps_its_database(audit: ClickHouseAudit) -> None:
    """`USE system` ran and moved the store's client: later reads and writes went there."""
    with pytest.raises(StoreError, match="UseQuery is not allowed here"):
        audit.query("USE system")
    assert audit.query("SELECT currentDatabase() AS db") == (["db"], [("memgate",)])


def test_a_second_statement_is_refused_before_anything_runs(
    audit: ClickHouseAudit, tmp_path: Path
) -> None:
    out = tmp_path / "second.txt"
    with pytest.raises(StoreError, match="one statement"):
        audit.query(f"SELECT 1 ; SELECT 2 INTO OUTFILE '{out}'")
    with pytest.raises(StoreError, match="one statement"):
        audit.query_format(f"SELECT 1 ; SELECT 2 INTO OUTFILE '{out}'", {}, "Parquet")
    assert not out.exists()


def test_heredoc_and_quoted_semicolons_are_one_statement(audit: ClickHouseAudit) -> None:
    assert audit.query("SELECT $$a;b$$ AS h, `x;y` FROM (SELECT 1 AS `x;y`) /* ; */") == (
        ["h", "x;y"],
        [("a;b", 1)],
    )


def test_rows_streams_blocks_and_names_an_empty_result(audit: ClickHouseAudit) -> None:
    with audit.rows("SELECT number AS n FROM numbers(200000)") as (cols, blocks):
        sizes = [len(b) for b in blocks]
    assert cols == ["n"] and sum(sizes) == 200_000 and len(sizes) > 1
    with audit.rows("SELECT number AS n FROM numbers(3) WHERE 0") as (cols, blocks):
        assert (cols, list(blocks)) == (["n"], [])
    with audit.rows("DESCRIBE TABLE journal") as (cols, blocks):
        assert cols[0] == "name" and any(r[0] == "tenant_id" for b in blocks for r in b)
    assert audit.query("SELECT 1 AS one") == (["one"], [(1,)])  # the stream let go


def test_placeholders_in_strings_and_comments_do_not_scope(audit: ClickHouseAudit) -> None:
    scope = ReportScope(tenant="acme")
    for sql in (
        "SELECT '{tenant:String}'",
        "SELECT 1 -- {tenant:String}",
        "SELECT $${tenant:String}$$",
        "SELECT 1 AS `{tenant:String}`",
    ):
        with pytest.raises(ConfigError, match="does not use"):
            audit.scoped_sql(sql, scope)
    sql = "SELECT count() FROM journal WHERE tenant_id = {tenant:String}"
    assert audit.scoped_sql(sql, scope) == {"tenant": "acme"}


def test_a_literal_that_is_not_utf8_is_refused_not_run_as_hex(audit: ClickHouseAudit) -> None:
    """The formatter gives the byte of an escape back raw; the client read that as hex text
    and ran the hex (a syntax error naming no cause)."""
    with pytest.raises(StoreError, match="not UTF-8 text"):
        audit.query("SELECT 'a\\x9bb' AS s")
    assert audit.query("SELECT 'é\\x41' AS s") == (["s"], [("éA",)])
