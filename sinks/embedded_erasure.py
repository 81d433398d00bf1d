"""Erasure on the embedded index (:mod:`memgate.sinks.embedded`): a user or one fact,
deleted from every table and from the disk, with counts for the deletion receipt.

A user's rows go from ``facts`` (statement, context, both vectors), the FTS5
index, ``usage`` and the turn ledger ``turns``; one fact's from ``facts``, the
FTS5 index and ``usage``. Then :func:`scrub` makes the deletion final on disk:
``secure_delete`` (on for every connection) zeroes the freed cells, the FTS5
index is merged (``optimize``: the segments holding the deleted terms are
rewritten; its shadow tables ``facts_fts_data``/``_idx``/``_docsize``/``_content``
are rebuilt), the file is rebuilt (``VACUUM``, in memory, so no temporary file
holds a copy; stale copies in the unused gap of live pages go too) and the WAL
is checkpointed and truncated.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from memgate.core.events import ERASED_TURN_DIGEST

__all__ = ["erase_fact_rows", "erase_user_rows", "scrub"]


def erase_user_rows(conn: sqlite3.Connection, tenant_id: str, user_id: str) -> dict[str, int]:
    """Delete a user's rows (in the caller's transaction); rows deleted per table."""
    owner = (tenant_id, user_id)
    vectors = conn.execute(
        "SELECT count(embedding) + count(search_embedding) FROM facts "
        "WHERE tenant_id = ? AND user_id = ?",
        owner,
    ).fetchone()[0]
    fts = conn.execute(
        "DELETE FROM facts_fts WHERE rowid IN "
        "(SELECT rid FROM facts WHERE tenant_id = ? AND user_id = ?)",
        owner,
    ).rowcount
    facts = conn.execute("DELETE FROM facts WHERE tenant_id = ? AND user_id = ?", owner).rowcount
    # the turn ledger (replays, turn-id conflicts) and the usage name the user too
    usage = conn.execute("DELETE FROM usage WHERE tenant_id = ? AND user_id = ?", owner).rowcount
    turns = conn.execute("DELETE FROM turns WHERE tenant_id = ? AND user_id = ?", owner).rowcount
    return {
        "facts": int(facts),
        "vectors": int(vectors),
        "fts_rows": int(fts),
        "usage": int(usage),
        "turn_ledger": int(turns),
    }


def erase_fact_rows(
    conn: sqlite3.Connection,
    tenant_id: str,
    user_id: str,
    fact_id: str,
    turn_ids: Sequence[str] = (),
) -> dict[str, int] | None:
    """Delete one fact of that owner (in the caller's transaction); ``None`` if none.

    The turn ledger's digests of ``turn_ids`` (the turns the fact came from) become
    :data:`~memgate.core.events.ERASED_TURN_DIGEST`: a keyed digest of the raw turn, under
    the key the data dir keeps beside it, would confirm a guess of the erased value; the
    row stays, so the turn delivered again is still a replay (as the audit journal's, whose
    digest the erasure clears the same way)."""
    row = conn.execute(
        "SELECT rid, (embedding IS NOT NULL) + (search_embedding IS NOT NULL) FROM facts "
        "WHERE fact_id = ? AND tenant_id = ? AND user_id = ?",
        (fact_id, tenant_id, user_id),
    ).fetchone()
    if row is None:
        return None
    fts = conn.execute("DELETE FROM facts_fts WHERE rowid = ?", (row[0],)).rowcount
    conn.execute("DELETE FROM facts WHERE rid = ?", (row[0],))
    usage = conn.execute("DELETE FROM usage WHERE fact_id = ?", (fact_id,)).rowcount
    turns = sum(
        conn.execute(
            "UPDATE turns SET content_hmac = ? WHERE tenant_id = ? AND turn_id = ? "
            "AND user_id = ? AND content_hmac != ?",
            (ERASED_TURN_DIGEST, tenant_id, turn, user_id, ERASED_TURN_DIGEST),
        ).rowcount
        for turn in dict.fromkeys(turn_ids)
    )
    return {
        "facts": 1,
        "vectors": int(row[1]),
        "fts_rows": int(fts),
        "usage": int(usage),
        "turn_ledger": int(turns),
    }


def scrub(conn: sqlite3.Connection) -> tuple[bool, bool]:
    """Merge the FTS index, VACUUM and truncate the WAL (outside any transaction).

    Returns ``(vacuumed, checkpointed)``: False when another connection still reads
    an older snapshot (the deletion is committed, old copies may remain on disk).
    """
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.execute("INSERT INTO facts_fts (facts_fts) VALUES ('optimize')")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
    conn.execute("PRAGMA temp_store = MEMORY")
    vacuumed = _try_vacuum(conn)
    busy, _, _ = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
    return vacuumed, not busy


def _try_vacuum(conn: sqlite3.Connection) -> bool:
    """``VACUUM`` the file; False when another connection's read keeps it from running."""
    try:
        conn.execute("VACUUM")
    except sqlite3.OperationalError as exc:
        if "locked" in str(exc) or "busy" in str(exc) or "SQL statements in progress" in str(exc):
            return False
        raise
    return True
