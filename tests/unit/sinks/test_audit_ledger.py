"""The worker's turn ledger on the audit journal (issue 14): an index on ``turn_id`` and a
read without ``FINAL`` that skips the tenant's granules that cannot hold the ids, with
the answers of before (:mod:`memgate.sinks.audit_ledger`)."""

from __future__ import annotations

import dataclasses
import hashlib
import re
import time
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import clickhouse_connect
import pytest

from memgate.core.events import ERASED_TURN_DIGEST, JournalRecord, Role, TriageVerdict
from memgate.sinks.audit import JOURNAL, ClickHouseAudit
from memgate.sinks.audit_erasure import leftovers
from memgate.sinks.audit_ledger import TURN_INDEX, add_turn_index, has_turn_index
from memgate.streams.turns import JournalLedger
from tests.unit.sinks.test_audit_migration import _old_store, _on_disk

T0 = datetime(2024, 5, 1, 10, 0, tzinfo=UTC)
#: rows of one tenant: five granules of 8192 rows
MANY = 40_000


def _record(turn: str, *, user: str = "alice", digest: str = "d1", tenant: str = "acme",
            at: datetime = T0) -> JournalRecord:  # fmt: skip
    return JournalRecord(
        event_id=f"journal:{tenant}:{turn}",  # as stable_id: one per tenant and turn id
        tenant_id=tenant,
        user_id=user,
        session_id="s1",
        turn_id=turn,
        role=Role.USER,
        ts=T0,
        length=3,
        content_hmac=digest,
        verdict=TriageVerdict.KEEP,
        reason="signal",
        redacted_text="hello there",
        ingested_at=at,
    )


def _bulk(client: Any, database: str, tenant: str, n: int, prefix: str = "turn") -> None:
    """``n`` journal rows of ``tenant`` in one insert (one part), turn ids ``prefix0``..."""
    rows = [_record(f"{prefix}{i}", user=f"u{i % 50}", tenant=tenant) for i in range(n)]
    table = [JOURNAL.row(r) for r in rows]
    client.insert(
        "journal",
        [list(c) for c in zip(*table, strict=True)],
        column_names=JOURNAL.column_names,
        database=database,
        column_type_names=JOURNAL.column_types,
        column_oriented=True,
    )


def _indices(audit: ClickHouseAudit) -> list[tuple[Any, ...]]:
    _, rows = audit.query(
        "SELECT name, type, expr, granularity FROM system.data_skipping_indices "
        "WHERE database = 'memgate' AND table = 'journal'"
    )
    return rows


def _mutations(audit: ClickHouseAudit) -> list[tuple[Any, ...]]:
    _, rows = audit.query(
        "SELECT command, is_done FROM system.mutations "
        "WHERE database = 'memgate' AND table = 'journal'"
    )
    return rows


def _wait_for_mutations(audit: ClickHouseAudit) -> None:
    deadline = time.monotonic() + 20
    while any(not done for _, done in _mutations(audit)):
        assert time.monotonic() < deadline, _mutations(audit)
        time.sleep(0.05)


_READ = re.compile(r"Parts: (\d+) \| Granules: (\d+)")
_PRIMARY = re.compile(r"PrimaryKey\b")
_GRANULES = re.compile(r"Granules: (\d+)/(\d+)")


def _ledger_granules(
    audit: ClickHouseAudit, monkeypatch: pytest.MonkeyPatch, tenant: str, ids: Sequence[str]
) -> tuple[int, int, dict[str, tuple[str, str]]]:
    """(granules the store's ledger read selects, granules of the tenant, its answer): the
    statement the store sends, with its settings, asked to ``EXPLAIN indexes = 1``."""
    client = audit.client
    sent: list[tuple[str, dict[str, Any]]] = []
    real = client.query

    def spy(sql: str, *args: Any, **kwargs: Any) -> Any:
        sent.append((sql, kwargs))
        return real(sql, *args, **kwargs)

    with monkeypatch.context() as m:
        m.setattr(client, "query", spy)
        answer = audit.journal_turns(tenant, ids)
    ((sql, kwargs),) = sent
    plan = [
        str(r[0])
        for r in real(
            f"EXPLAIN indexes = 1 {sql}",
            parameters=kwargs["parameters"],
            settings=kwargs.get("settings"),
        ).result_rows
    ]
    tenant_granules = None
    for i, line in enumerate(plan):
        if _PRIMARY.search(line):
            found = next(g for g in map(_GRANULES.search, plan[i:]) if g)
            tenant_granules = int(found.group(1))
            break
    assert tenant_granules is not None, plan
    read = [int(m.group(2)) for m in map(_READ.search, plan) if m]
    return (read[0] if read else 0), tenant_granules, answer


@pytest.fixture
def audit(tmp_path: Path) -> Iterator[ClickHouseAudit]:
    with ClickHouseAudit.embedded(tmp_path / "audit") as store:
        yield store


# -- the index -------------------------------------------------------------------------


def test_a_new_journal_has_a_bloom_filter_on_turn_id(audit: ClickHouseAudit) -> None:
    assert _indices(audit) == [(TURN_INDEX, "bloom_filter", "turn_id", 1)]
    _, other = audit.query(
        "SELECT table FROM system.data_skipping_indices WHERE database = 'memgate' "
        "AND table != 'journal'"
    )
    assert other == []  # only the journal is read by turn id
    assert _mutations(audit) == []  # made with it: nothing to materialize


def test_an_older_journal_gets_the_index_on_open_and_once(tmp_path: Path) -> None:
    path = tmp_path / "audit"
    client = clickhouse_connect.get_client(interface="chdb", path=str(path), tz_mode="aware")
    try:
        client.command("CREATE DATABASE IF NOT EXISTS memgate")
        client.command(dataclasses.replace(JOURNAL, indexes=()).ddl("memgate"))  # as before
        _bulk(client, "memgate", "acme", 20_000)
        gone = client.query(
            "SELECT count() FROM system.data_skipping_indices WHERE database = 'memgate'"
        ).result_rows
        assert gone == [(0,)]
    finally:
        client.close()
    with ClickHouseAudit.embedded(path) as audit:
        assert _indices(audit) == [(TURN_INDEX, "bloom_filter", "turn_id", 1)]
        _wait_for_mutations(audit)
        (done,) = _mutations(audit)
        assert TURN_INDEX in done[0] and "MATERIALIZE" in done[0].upper()
        # the parts written before have their filters: a fresh id skips them
        _, rows = audit.query(
            "SELECT count() FROM system.parts WHERE database = 'memgate' AND table = 'journal' "
            "AND active AND secondary_indices_compressed_bytes = 0 AND rows > 0"
        )
        assert rows == [(0,)]
        assert audit.journal_turns("acme", ["turn7", "nope"]) == {"turn7": ("u7", "d1")}
    with ClickHouseAudit.embedded(path) as audit:  # opened again: no new mutation
        assert len(_mutations(audit)) == 1 and len(_indices(audit)) == 1


def test_a_journal_rebuilt_by_the_digest_migration_has_the_index(tmp_path: Path) -> None:
    path = tmp_path / "audit.chdb"
    _old_store(path)  # a journal with the unkeyed digest column: rebuilt from the DDL
    with ClickHouseAudit.embedded(path) as audit:
        assert _indices(audit) == [(TURN_INDEX, "bloom_filter", "turn_id", 1)]
        assert audit.journal_turns("acme", ["t-old"]) == {"t-old": ("alice", "")}


# -- what the read reads ---------------------------------------------------------------


def test_the_ledger_read_of_fresh_ids_skips_the_tenants_granules(
    audit: ClickHouseAudit, monkeypatch: pytest.MonkeyPatch
) -> None:
    _bulk(audit.client, audit.database, "acme", MANY)
    _bulk(audit.client, audit.database, "globex", 2_000)
    fresh = [f"fresh{i}" for i in range(32)]
    read, tenant, answer = _ledger_granules(audit, monkeypatch, "acme", fresh)
    assert answer == {}
    assert tenant >= 4, tenant  # the journal of the tenant spans several granules
    assert read < tenant and read <= 1, (read, tenant)  # was: all of them (FINAL expands)
    known = ["turn3", "turn39999", *fresh[:5]]
    read, tenant, answer = _ledger_granules(audit, monkeypatch, "acme", known)
    assert answer == {"turn3": ("u3", "d1"), "turn39999": ("u49", "d1")}
    assert 1 <= read < tenant, (read, tenant)


# -- what the read answers -------------------------------------------------------------


class QueryOnly:
    """The audit store through the generic interface only (no ``journal_turns``): the
    ledger's fallback, on the same ClickHouse store."""

    def __init__(self, store: ClickHouseAudit) -> None:
        self.store = store

    def query(
        self, sql: str, parameters: dict[str, Any] | None = None
    ) -> tuple[list[str], list[tuple[Any, ...]]]:
        return self.store.query(sql, parameters)


@pytest.fixture(params=["journal_turns", "generic query"])
def ledger(request: pytest.FixtureRequest, audit: ClickHouseAudit) -> JournalLedger:
    if request.param == "journal_turns":
        return JournalLedger(audit)
    return JournalLedger(QueryOnly(audit))  # type: ignore[arg-type]


def test_replays_duplicates_and_tenants_answer_as_before(
    audit: ClickHouseAudit, ledger: JournalLedger
) -> None:
    audit.write([_record("t1"), _record("t2", user="bob", digest="d2")])
    audit.write([_record("t1")])  # re-delivered: a second copy, in another part, not merged
    audit.write([_record("t1", tenant="globex", user="zed", digest="g1")])
    assert ledger.seen_turns("acme", ["t1", "t2", "t3", "t1"]) == {
        "t1": ("alice", "d1"),
        "t2": ("bob", "d2"),
    }
    assert ledger.seen_turns("globex", ["t1", "t2"]) == {"t1": ("zed", "g1")}
    assert ledger.seen_turns("initech", ["t1"]) == {}
    assert ledger.seen_turns("acme", []) == {}


@pytest.mark.parametrize("newer_first", [False, True])
def test_a_turn_id_with_two_rows_has_one_answer_before_and_after_a_merge(
    audit: ClickHouseAudit, ledger: JournalLedger, newer_first: bool
) -> None:
    """Two turns sent with one id (in one batch, before the ledger knew the first): of two
    users, the row ingested last answers, whichever was written last; of one user (one
    key), the row written last, which a merge keeps. Merged or not, the same answer."""
    later = T0 + timedelta(seconds=1)
    old = [_record("t1", digest="d-old"), _record("t2", user="carol", digest="c-old")]
    new = [
        _record("t1", digest="d-new", at=later),
        _record("t2", user="bob", digest="b-new", at=later),
    ]
    for batch in (new, old) if newer_first else (old, new):
        audit.write(batch)
    audit.write([_record("t9")])
    audit.erase_fact("acme", "alice", "f9", ["t9"])  # a mutation: every part renamed
    last_written = "d-old" if newer_first else "d-new"
    want = {"t1": ("alice", last_written), "t2": ("bob", "b-new")}
    assert ledger.seen_turns("acme", ["t1", "t2"]) == want
    audit.client.command("OPTIMIZE TABLE journal FINAL")  # merged: the same answer
    _, parts = audit.query(
        "SELECT count() FROM system.parts WHERE database = 'memgate' AND table = 'journal' "
        "AND active"
    )
    assert parts == [(1,)]
    assert ledger.seen_turns("acme", ["t1", "t2"]) == want
    audit.write([_record("t2", user="alice", digest="a-tie", at=later)])  # a tie: the larger user
    assert ledger.seen_turns("acme", ["t2"]) == {"t2": ("bob", "b-new")}


def test_an_erased_fact_marks_every_copy_of_its_turn(
    audit: ClickHouseAudit, ledger: JournalLedger
) -> None:
    audit.write([_record("t1"), _record("t2")])
    audit.write([_record("t1")])  # a second copy of t1, not merged
    audit.erase_fact("acme", "alice", "f1", ["t1"])
    assert ledger.seen_turns("acme", ["t1", "t2"]) == {
        "t1": ("alice", ERASED_TURN_DIGEST),  # a replay for alice (classify_turn)
        "t2": ("alice", "d1"),
    }


def test_an_erased_user_leaves_no_turn_id_in_the_filter(
    audit: ClickHouseAudit, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bloom filter holds hashes of turn ids: forget rewrites the parts, and their
    filters no longer select a granule for the user's turn ids."""
    _bulk(audit.client, audit.database, "acme", 9_000)
    audit.write([_record("secret-turn", user="erin", digest="e1")])
    read, _, answer = _ledger_granules(audit, monkeypatch, "acme", ["secret-turn"])
    assert answer == {"secret-turn": ("erin", "e1")} and read == 1
    audit.erase_user("acme", "erin", lambda v: "erased:" + hashlib.sha256(v.encode()).hexdigest())
    read, _, answer = _ledger_granules(audit, monkeypatch, "acme", ["secret-turn"])
    assert answer == {} and read == 0


def test_a_user_that_may_not_alter_the_journal_is_told_and_not_stopped(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The index is added when the store is opened; a read-only user cannot add it: the
    journal is read as before (whole), and a warning says what to do."""
    path = tmp_path / "audit"
    client = clickhouse_connect.get_client(interface="chdb", path=str(path), tz_mode="aware")
    try:
        client.command("CREATE DATABASE IF NOT EXISTS memgate")
        client.command(dataclasses.replace(JOURNAL, indexes=()).ddl("memgate"))
    finally:
        client.close()
    reader = clickhouse_connect.get_client(
        interface="chdb", path=str(path), tz_mode="aware", settings={"readonly": 1}
    )
    try:
        with caplog.at_level("WARNING", logger="memgate.sinks.audit_ledger"):
            assert add_turn_index(reader, "memgate") is False
        assert not has_turn_index(reader, "memgate")
    finally:
        reader.close()
    (warning,) = caplog.messages
    assert "may not add" in warning and "ALTER" in warning


def test_an_older_journal_given_the_index_still_erases_a_user_from_the_disk(
    tmp_path: Path,
) -> None:
    """The index's mutation on open (on a journal made before the erasure settings too)
    leaves forget as it was: no replaced part, no extra mutation file, no byte of the user."""
    path = tmp_path / "audit"
    client = clickhouse_connect.get_client(interface="chdb", path=str(path), tz_mode="aware")
    try:
        client.command("CREATE DATABASE IF NOT EXISTS memgate")
        cols = ", ".join(f"`{c}` {t}" for c, t in JOURNAL.columns)
        client.command(
            f"CREATE TABLE memgate.journal ({cols}) ENGINE = ReplacingMergeTree "
            "ORDER BY (tenant_id, user_id, event_id)"
        )
        _bulk(client, "memgate", "acme", 9_000)
        for turn in ("erin-turn-1", "erin-turn-2"):  # two parts
            row = JOURNAL.row(_record(turn, user="erin-the-user", digest="e1"))
            client.insert("journal", [row], column_names=JOURNAL.column_names, database="memgate")
    finally:
        client.close()
    with ClickHouseAudit.embedded(path) as audit:
        _wait_for_mutations(audit)
        assert _on_disk(path, "erin-the-user") and _on_disk(path, "erin-turn")  # seen before
        assert audit.journal_turns("acme", ["erin-turn-1"]) == {
            "erin-turn-1": ("erin-the-user", "e1")
        }
        audit.erase_user(
            "acme", "erin-the-user", lambda v: "erased:" + hashlib.sha256(v.encode()).hexdigest()
        )
        assert leftovers(audit.client, "memgate", ["journal"]) == {}
        assert audit.journal_turns("acme", ["erin-turn-1", "erin-turn-2"]) == {}
    assert _on_disk(path, "erin-the-user") == [] and _on_disk(path, "erin-turn") == []
