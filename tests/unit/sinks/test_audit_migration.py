"""An audit store made by an earlier version (journal column ``content_sha256``, an
unkeyed hash of the raw turn) is upgraded on open: the column and its values go,
``content_hmac`` comes in its place, and old and new rows read and write as usual."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from pathlib import Path

import clickhouse_connect
import pytest

from memgate.core.events import JournalRecord, Role, TriageVerdict
from memgate.sinks.audit import JOURNAL, ClickHouseAudit

T0 = datetime(2024, 5, 1, 10, 0, tzinfo=UTC)
OLD_DIGEST = hashlib.sha256(b"my password is hunter2").hexdigest()


def _on_disk(path: Path, needle: str) -> list[Path]:
    return [p for p in path.rglob("*") if p.is_file() and needle.encode() in p.read_bytes()]


def _old_store(path: Path, *, leftover: bool = False) -> None:
    """The journal table exactly as memgate created it before the HMAC (and, with
    ``leftover``, the copy table of a migration that was interrupted)."""
    client = clickhouse_connect.get_client(interface="chdb", path=str(path), tz_mode="aware")
    try:
        client.command("CREATE DATABASE IF NOT EXISTS memgate")
        old_columns = [
            ("content_sha256", "String") if name == "content_hmac" else (name, type_)
            for name, type_ in JOURNAL.columns
        ]
        cols = ", ".join(f"`{c}` {t}" for c, t in old_columns)
        client.command(
            f"CREATE TABLE memgate.journal ({cols}) ENGINE = ReplacingMergeTree "
            "ORDER BY (tenant_id, user_id, event_id)"
        )
        client.command(
            "INSERT INTO memgate.journal VALUES ('j-old', 'acme', 'alice', 's1', 't-old', "
            f"'user', '2024-05-01 10:00:00', 22, '{OLD_DIGEST}', 'keep', 'signal', "
            "'my password is [PASSWORD]', map('password', 1), '2024-05-01 10:00:01')"
        )
        if leftover:
            client.command(
                "CREATE TABLE memgate.journal_migrating AS memgate.journal"
            )
            client.command("INSERT INTO memgate.journal_migrating SELECT * FROM memgate.journal")
    finally:
        client.close()


@pytest.mark.parametrize("leftover", [False, True])
def test_an_old_journal_loses_its_unkeyed_digest_and_gains_content_hmac(
    tmp_path: Path, leftover: bool
) -> None:
    path = tmp_path / "audit.chdb"
    _old_store(path, leftover=leftover)
    assert _on_disk(path, OLD_DIGEST)  # the check below can see it
    with ClickHouseAudit.embedded(path) as audit:
        # gone from disk at once, not only from the active parts
        assert _on_disk(path, OLD_DIGEST) == []
        _, tables = audit.query("SELECT name FROM system.tables WHERE database = 'memgate'")
        assert sorted(t for (t,) in tables) == [
            "decisions", "disagreements", "fact_history", "journal"
        ]
        _, cols = audit.query(
            "SELECT name FROM system.columns WHERE database = 'memgate' AND table = 'journal' "
            "ORDER BY position"
        )
        assert [c for (c,) in cols] == JOURNAL.column_names
        # the old row is kept, without a digest: it can no longer be used to test guesses
        _, rows = audit.query("SELECT * FROM journal")
        assert len(rows) == 1 and rows[0][JOURNAL.column_names.index("content_hmac")] == ""
        assert OLD_DIGEST not in repr(rows)
        audit.write(
            [
                JournalRecord(
                    event_id="j-new",
                    tenant_id="acme",
                    user_id="alice",
                    session_id="s1",
                    turn_id="t-new",
                    role=Role.USER,
                    ts=T0,
                    length=5,
                    content_hmac="ab" * 32,
                    verdict=TriageVerdict.DROP,
                    reason="filler",
                    redacted_text="hello",
                    ingested_at=T0,
                )
            ]
        )
        _, rows = audit.query("SELECT turn_id, content_hmac FROM journal ORDER BY turn_id")
        assert rows == [("t-new", "ab" * 32), ("t-old", "")]
    # opening it again changes nothing
    with ClickHouseAudit.embedded(path) as audit:
        assert audit.counts()["journal"] == 2
