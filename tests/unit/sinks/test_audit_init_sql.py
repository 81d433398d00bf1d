"""deploy/clickhouse/init/01-memgate.sql creates exactly the tables sinks/audit.py creates."""

from __future__ import annotations

import re
from pathlib import Path

from memgate.sinks.audit import TABLES, ClickHouseAudit

INIT_SQL = Path(__file__).resolve().parents[3] / "deploy" / "clickhouse" / "init" / "01-memgate.sql"


def _statements(text: str) -> list[str]:
    body = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("--"))
    return [s.strip() for s in body.split(";") if s.strip()]


def _schema(audit: ClickHouseAudit, database: str) -> tuple[list[tuple[object, ...]], ...]:
    q = audit.client.query
    columns = q(
        "SELECT table, name, type, position, default_kind, compression_codec "
        "FROM system.columns WHERE database = {db:String} ORDER BY table, position",
        parameters={"db": database},
    ).result_rows
    tables = q(
        "SELECT name, engine, sorting_key, primary_key, partition_key, "
        "replaceRegexpAll(engine_full, '`?' || {db:String} || '`?\\\\.', '') "
        "FROM system.tables WHERE database = {db:String} ORDER BY name",
        parameters={"db": database},
    ).result_rows
    return [tuple(r) for r in columns], [tuple(r) for r in tables]


def test_the_init_sql_creates_the_tables_the_code_creates(tmp_path: Path) -> None:
    statements = _statements(INIT_SQL.read_text())
    assert len(statements) == len(TABLES)
    with ClickHouseAudit.embedded(tmp_path / "audit", database="memgate_code") as audit:
        audit.client.command("CREATE DATABASE IF NOT EXISTS memgate")
        for st in statements:
            assert re.match(r"CREATE TABLE IF NOT EXISTS `memgate`\.", st), st[:80]
            audit.client.command(st)
        from_file = _schema(audit, "memgate")
        from_code = _schema(audit, "memgate_code")
    assert from_file[0], "the init SQL created no columns"
    assert [r[0] for r in from_file[1]] == sorted(t.name for t in TABLES)
    assert from_file == from_code


def test_every_table_choice_is_explained_in_a_comment() -> None:
    text = INIT_SQL.read_text()
    for word in ("ORDER BY", "PARTITION BY", "TTL"):
        assert re.search(rf"^--.*{word}", text, re.M), word
