"""Usage counts and single-fact deletion of the embedded index (:mod:`memgate.sinks.embedded`).

The ``usage`` table holds, per fact, how often the read path served it and
when last (microseconds since the epoch); the read path writes it in
batches (one transaction per batch), never once per search. It names the
tenant and user, so :meth:`~memgate.sinks.embedded.EmbeddedIndex.forget`
deletes its rows with the facts.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

from memgate.core.stores import FactUsage

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICRO = timedelta(microseconds=1)
_ID_CHUNK = 500

USAGE_DDL = """
    CREATE TABLE IF NOT EXISTS usage (
        fact_id      TEXT    NOT NULL PRIMARY KEY,
        tenant_id    TEXT    NOT NULL,
        user_id      TEXT    NOT NULL,
        served_count INTEGER NOT NULL,
        last_served  INTEGER NOT NULL
    ) WITHOUT ROWID
"""

_RECORD = """
    INSERT INTO usage (fact_id, tenant_id, user_id, served_count, last_served)
    SELECT fact_id, tenant_id, user_id, ?, ? FROM facts
    WHERE fact_id = ? AND tenant_id = ? AND user_id = ?
    ON CONFLICT (fact_id) DO UPDATE SET
        served_count = usage.served_count + excluded.served_count,
        last_served = max(usage.last_served, excluded.last_served)
"""


def record_usage(conn: sqlite3.Connection, entries: Sequence[FactUsage]) -> None:
    """Add the entries' counts (a fact deleted meanwhile, or of another owner, is skipped)."""
    conn.executemany(
        _RECORD,
        [
            (
                e.served_count,
                (e.last_served - _EPOCH) // _MICRO,
                e.fact_id,
                e.tenant_id,
                e.user_id,
            )
            for e in entries
        ],
    )


def read_usage(
    conn: sqlite3.Connection, tenant_id: str, user_id: str, fact_ids: Sequence[str]
) -> dict[str, FactUsage]:
    out: dict[str, FactUsage] = {}
    ids = list(dict.fromkeys(fact_ids))
    for start in range(0, len(ids), _ID_CHUNK):
        chunk = ids[start : start + _ID_CHUNK]
        marks = ", ".join("?" * len(chunk))
        for fact_id, count, last in conn.execute(
            "SELECT fact_id, served_count, last_served FROM usage "
            f"WHERE tenant_id = ? AND user_id = ? AND fact_id IN ({marks})",
            [tenant_id, user_id, *chunk],
        ):
            out[fact_id] = FactUsage(
                tenant_id=tenant_id,
                user_id=user_id,
                fact_id=fact_id,
                served_count=int(count),
                last_served=_EPOCH + int(last) * _MICRO,
            )
    return out


def delete_one(conn: sqlite3.Connection, tenant_id: str, user_id: str, fact_id: str) -> bool:
    """Delete one fact of that owner from the table, the FTS index and the usage counts."""
    row = conn.execute(
        "SELECT rid FROM facts WHERE fact_id = ? AND tenant_id = ? AND user_id = ?",
        (fact_id, tenant_id, user_id),
    ).fetchone()
    if row is None:
        return False
    conn.execute("DELETE FROM facts_fts WHERE rowid = ?", (row[0],))
    conn.execute("DELETE FROM facts WHERE rid = ?", (row[0],))
    conn.execute("DELETE FROM usage WHERE fact_id = ?", (fact_id,))
    return True
