"""ClickHouseAudit against the real ClickHouse engine, in-process (chDB), on disk.

chDB hosts one engine per process: every store opened here is closed by its
fixture (or by the test) before another path is opened.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from memgate.core.errors import ConfigError, StoreError, TransientError
from memgate.core.events import (
    DecisionRecord,
    FactHistoryRecord,
    JournalRecord,
    Role,
    Stage,
    TriageVerdict,
)
from memgate.core.stores import AuditStore
from memgate.sinks.audit import REPORTS, TABLES, ClickHouseAudit

T0 = datetime(2024, 5, 1, 10, 0, tzinfo=UTC)
H = timedelta(hours=1)


def journal(
    event_id: str,
    tenant_id: str,
    user_id: str,
    ts: datetime,
    verdict: TriageVerdict,
    counts: dict[str, int] | None = None,
) -> JournalRecord:
    return JournalRecord(
        event_id=event_id,
        tenant_id=tenant_id,
        user_id=user_id,
        session_id="s1",
        turn_id=f"turn-{event_id}",
        role=Role.USER,
        ts=ts,
        length=42,
        content_hmac="0" * 64,
        verdict=verdict,
        reason="signal" if verdict is TriageVerdict.KEEP else "filler",
        redacted_text="mail me at [EMAIL]" if counts else "ok",
        redaction_counts=counts or {},
        ingested_at=ts + H,
    )


def decision(
    event_id: str,
    stage: Stage,
    tenant_id: str,
    user_id: str,
    verdict: str,
    reason: str,
    details: dict[str, str | int | float] | None = None,
) -> DecisionRecord:
    return DecisionRecord(
        event_id=event_id,
        stage=stage,
        tenant_id=tenant_id,
        user_id=user_id,
        session_id="s1",
        turn_id="turn-1",
        verdict=verdict,
        reason=reason,
        key="k" if stage is Stage.DEDUPE else "",
        policy_version="balanced-1",
        decided_at=T0,
        details=details or {},
    )


def history(
    event_id: str,
    tenant_id: str,
    user_id: str,
    fact_id: str,
    action: str,
    at: datetime,
    supersedes: str = "",
    source_turn_id: str = "turn-1",
) -> FactHistoryRecord:
    return FactHistoryRecord(
        event_id=event_id,
        tenant_id=tenant_id,
        user_id=user_id,
        fact_id=fact_id,
        key=f"{tenant_id}/{user_id}/user/editor",
        action=action,
        value=f"value of {fact_id}",
        confidence=0.9,
        occurrences=2 if action == "duplicate" else 1,
        supersedes=supersedes,
        source_turn_id=source_turn_id,
        policy_version="balanced-1",
        at=at,
    )


D2 = T0 + 24 * H  # 2024-05-02 10:00

JOURNAL = [
    journal("j1", "acme", "u1", T0, TriageVerdict.KEEP, {"email": 1}),
    journal("j2", "acme", "u1", T0 + H, TriageVerdict.DROP),
    journal("j3", "acme", "u2", D2 - H, TriageVerdict.KEEP, {"email": 2, "phone": 1}),
    journal("j4", "globex", "u1", D2 + 2 * H, TriageVerdict.KEEP, {"api_key": 1}),
    journal("j5", "acme", "u1", D2, TriageVerdict.DROP),
]
DECISIONS = [
    decision("d1", Stage.TRIAGE, "acme", "u1", "keep", "signal"),
    decision("d2", Stage.TRIAGE, "acme", "u1", "drop", "filler"),
    decision("d3", Stage.TRIAGE, "acme", "u2", "keep", "signal"),
    decision(
        "d4",
        Stage.REDACT,
        "acme",
        "u1",
        "redacted",
        "pii",
        {"email": 1, "phone": 1, "action": "redacted", "ratio": 0.5},
    ),
    decision("d5", Stage.DEDUPE, "acme", "u1", "ADD", "new_key"),
    decision("d6", Stage.DEDUPE, "acme", "u2", "SUPERSEDE", "new_value"),
    decision("d7", Stage.DEDUPE, "acme", "u2", "DUPLICATE", "same_value"),
    decision("d8", Stage.TRIAGE, "globex", "u1", "drop", "too_short"),
    decision("d9", Stage.REDACT, "globex", "u1", "rejected", "credential", {"api_key": 1}),
]
HISTORY = [
    # each fact's source turn is journaled: reports count it on that turn's event day
    history("h1", "acme", "u1", "f1", "add", T0, source_turn_id="turn-j1"),
    history("h2", "acme", "u2", "f2", "add", T0 + 2 * H, source_turn_id="turn-j3"),
    history("h3", "acme", "u2", "f3", "supersede", D2, "f2", "turn-j3"),
    history("h4", "acme", "u2", "f3", "duplicate", D2 + H / 2, source_turn_id="turn-j3"),
    history("h5", "globex", "u1", "g1", "add", D2 + 2 * H, source_turn_id="turn-j4"),
]
RECORDS: list[JournalRecord | DecisionRecord | FactHistoryRecord] = [
    *JOURNAL,
    *DECISIONS,
    *HISTORY,
]


@pytest.fixture
def audit(tmp_path: Path) -> Iterator[ClickHouseAudit]:
    with ClickHouseAudit.embedded(tmp_path / "audit") as store:
        yield store


@pytest.fixture
def loaded(audit: ClickHouseAudit) -> ClickHouseAudit:
    audit.write(RECORDS)
    # re-delivery: everything again, in other batches and another order
    audit.write(list(reversed(RECORDS)))
    audit.write([*HISTORY[:2], *JOURNAL[:1]])
    return audit


# -- schema ---------------------------------------------------------------------------


def test_satisfies_the_protocol(audit: ClickHouseAudit) -> None:
    assert isinstance(audit, AuditStore)


def test_ddl_creates_four_replacing_tables(audit: ClickHouseAudit) -> None:
    _, rows = audit.query(
        "SELECT name, engine, sorting_key FROM system.tables "
        "WHERE database = {db:String} ORDER BY name",
        {"db": "memgate"},
    )
    assert rows == [
        ("decisions", "ReplacingMergeTree", "tenant_id, user_id, event_id"),
        ("disagreements", "ReplacingMergeTree", "tenant_id, user_id, event_id"),
        ("fact_history", "ReplacingMergeTree", "tenant_id, user_id, event_id"),
        ("journal", "ReplacingMergeTree", "tenant_id, user_id, event_id"),
    ]
    _, cols = audit.query(
        "SELECT name, type FROM system.columns "
        "WHERE database = 'memgate' AND table = 'journal' ORDER BY position"
    )
    assert dict(cols)["ts"] == "DateTime64(3, 'UTC')"
    assert dict(cols)["redaction_counts"] == "Map(String, UInt32)"


@pytest.mark.parametrize("table", TABLES, ids=lambda t: t.name)
def test_tables_hold_exactly_the_record_fields(table: Any) -> None:
    # nothing is written that the (redacted) record does not carry
    fields = set(table.record_type.model_fields) - {"schema_version"}
    assert set(table.column_names) == fields


def test_opening_twice_is_harmless(tmp_path: Path) -> None:
    with ClickHouseAudit.embedded(tmp_path / "a") as first:
        first.write(JOURNAL)
        with ClickHouseAudit.embedded(tmp_path / "a") as second:  # same path: shared engine
            assert second.counts()["journal"] == len(JOURNAL)


def test_custom_database_name(tmp_path: Path) -> None:
    with ClickHouseAudit.embedded(tmp_path / "a", database="audit_test") as store:
        store.write(JOURNAL)
        assert store.report("write-amplification", "globex")[1] == [
            ("globex", 1, 0, 0, 0, 0, 0.0)
        ]
        _, rows = store.query("SELECT count() FROM audit_test.journal")
        assert rows == [(len(JOURNAL),)]


@pytest.mark.parametrize("name", ["", "memgate; DROP", "a-b", "1abc", "x" * 200])
def test_bad_database_name_is_a_config_error(tmp_path: Path, name: str) -> None:
    with pytest.raises(ConfigError, match="identifier"):
        ClickHouseAudit.embedded(tmp_path / "a", database=name)


# -- writes and reads ----------------------------------------------------------------


def test_write_and_read_back(audit: ClickHouseAudit) -> None:
    audit.write(RECORDS)
    assert audit.counts() == {"journal": 5, "decisions": 9, "fact_history": 5, "disagreements": 0}
    cols, rows = audit.query("SELECT * FROM journal WHERE event_id = {id:String}", {"id": "j3"})
    row = dict(zip(cols, rows[0], strict=True))
    assert row["tenant_id"] == "acme"
    assert row["user_id"] == "u2"
    assert row["ts"] == D2 - H  # aware UTC datetimes come back
    assert row["redaction_counts"] == {"email": 2, "phone": 1}
    assert row["redacted_text"] == "mail me at [EMAIL]"
    assert row["role"] == "user"
    assert row["verdict"] == "keep"
    _, details = audit.query("SELECT details FROM decisions WHERE event_id = 'd4'")
    assert details == [({"email": "1", "phone": "1", "action": "redacted", "ratio": "0.5"},)]
    _, hist = audit.query(
        "SELECT action, supersedes, occurrences, confidence FROM fact_history WHERE event_id = 'h3'"
    )
    assert hist == [("supersede", "f2", 1, 0.9)]


def test_empty_write_is_a_no_op(audit: ClickHouseAudit) -> None:
    audit.write([])
    assert audit.counts() == {"journal": 0, "decisions": 0, "fact_history": 0, "disagreements": 0}


def test_write_refuses_other_types(audit: ClickHouseAudit) -> None:
    with pytest.raises(TypeError, match="JournalRecord"):
        audit.write(["not a record"])  # type: ignore[list-item]


def test_duplicate_event_ids_collapse(audit: ClickHouseAudit) -> None:
    for table in TABLES:  # keep every copy on disk, so the reads must collapse them
        audit.client.command(f"SYSTEM STOP MERGES memgate.{table.name}")
    audit.write(RECORDS)
    audit.write(list(reversed(RECORDS)))
    audit.write(JOURNAL[:2])
    # the engine really holds the re-delivered copies...
    raw = audit.client.query("SELECT count() FROM journal").result_rows[0][0]
    assert raw == 2 * len(JOURNAL) + 2
    # ...and no read shows them, with or without an explicit FINAL
    assert audit.counts() == {"journal": 5, "decisions": 9, "fact_history": 5, "disagreements": 0}
    assert audit.query("SELECT count() FROM journal")[1] == [(5,)]
    _, per_event = audit.query(
        "SELECT event_id, count() FROM decisions GROUP BY event_id HAVING count() > 1"
    )
    assert per_event == []
    assert audit.report("verdicts", "globex")[1] == [
        ("triage", "drop", 1),
        ("redact", "rejected", 1),
    ]


def test_query_binds_parameters_server_side(loaded: ClickHouseAudit) -> None:
    cols, rows = loaded.query(
        "SELECT event_id FROM journal WHERE tenant_id = {t:String} AND ts >= {since:DateTime64(3)} "
        "ORDER BY event_id",
        {"t": "acme", "since": D2 - H},
    )
    assert cols == ["event_id"]
    assert rows == [("j3",), ("j5",)]
    # a hostile value is data, not SQL
    _, none = loaded.query(
        "SELECT count() FROM journal WHERE tenant_id = {t:String}", {"t": "acme' OR '1'='1"}
    )
    assert none == [(0,)]


def test_empty_result_still_names_its_columns(loaded: ClickHouseAudit) -> None:
    cols, rows = loaded.query("SELECT event_id, ts FROM journal WHERE tenant_id = 'nobody'")
    assert (cols, rows) == (["event_id", "ts"], [])


# -- reports ------------------------------------------------------------------------------


def test_every_report_runs_and_is_described(loaded: ClickHouseAudit) -> None:
    assert set(REPORTS) >= {
        "verdicts",
        "drop-reasons",
        "redactions",
        "write-amplification",
        "supersessions",
        "daily",
    }
    for name, (description, _) in REPORTS.items():
        assert description
        cols, _ = loaded.report(name)
        assert cols, name
        cols_t, _ = loaded.report(name, tenant_id="acme")
        assert cols_t == cols


def test_unknown_report(audit: ClickHouseAudit) -> None:
    with pytest.raises(ValueError, match="choose one of: verdicts"):
        audit.report("nope")


def test_report_verdicts(loaded: ClickHouseAudit) -> None:
    cols, rows = loaded.report("verdicts")
    assert cols == ["stage", "verdict", "decisions"]
    assert rows == [
        ("triage", "drop", 2),
        ("triage", "keep", 2),
        ("redact", "redacted", 1),
        ("redact", "rejected", 1),
        ("dedupe", "ADD", 1),
        ("dedupe", "DUPLICATE", 1),
        ("dedupe", "SUPERSEDE", 1),
    ]
    assert loaded.report("verdicts", "globex")[1] == [
        ("triage", "drop", 1),
        ("redact", "rejected", 1),
    ]


def test_report_drop_reasons(loaded: ClickHouseAudit) -> None:
    cols, rows = loaded.report("drop-reasons")
    assert cols == ["stage", "reason", "decisions"]
    assert rows == [
        ("triage", "filler", 1),
        ("triage", "too_short", 1),
        ("redact", "credential", 1),
        ("dedupe", "same_value", 1),
    ]
    assert loaded.report("drop-reasons", "acme")[1] == [
        ("triage", "filler", 1),
        ("dedupe", "same_value", 1),
    ]


def test_report_redactions(loaded: ClickHouseAudit) -> None:
    cols, rows = loaded.report("redactions")
    assert cols == ["source", "kind", "redactions"]
    assert rows == [
        ("journal", "email", 3),
        ("journal", "api_key", 1),
        ("journal", "phone", 1),
        ("redact", "api_key", 1),
        ("redact", "email", 1),
        ("redact", "phone", 1),
    ]
    assert loaded.report("redactions", "acme")[1] == [
        ("journal", "email", 3),
        ("journal", "phone", 1),
        ("redact", "email", 1),
        ("redact", "phone", 1),
    ]


def test_report_write_amplification(loaded: ClickHouseAudit) -> None:
    cols, rows = loaded.report("write-amplification")
    assert cols == [
        "tenant_id", "turns", "facts_added", "facts_promoted", "facts_superseded",
        "facts_stored", "facts_per_turn",
    ]  # fmt: skip
    assert rows == [("acme", 4, 2, 0, 1, 3, 0.75), ("globex", 1, 1, 0, 0, 1, 1.0)]
    assert loaded.report("write-amplification", "globex")[1] == [("globex", 1, 1, 0, 0, 1, 1.0)]


def test_report_write_amplification_without_turns(audit: ClickHouseAudit) -> None:
    audit.write(HISTORY[:1])
    assert audit.report("write-amplification")[1] == [("acme", 0, 1, 0, 0, 1, None)]


def test_report_supersessions(loaded: ClickHouseAudit) -> None:
    cols, rows = loaded.report("supersessions")
    assert cols[:7] == [
        "event_ts", "ingested_at", "tenant_id", "user_id", "key", "fact_id", "supersedes",
    ]  # fmt: skip
    # event time is the source turn's (j3, said at D2 - H); processed at D2
    assert [r[:7] for r in rows] == [
        (D2 - H, D2, "acme", "u2", "acme/u2/user/editor", "f3", "f2")
    ]
    assert loaded.report("supersessions", "globex")[1] == []


def test_report_daily(loaded: ClickHouseAudit) -> None:
    cols, rows = loaded.report("daily")
    assert cols == ["day", "turns", "turns_kept", "facts_stored", "last_ingested_at"]
    # by event time: f2 was stored on 05-01 (processing time) from j3, said on 05-02
    assert [r[:4] for r in rows] == [(date(2024, 5, 1), 2, 1, 1), (date(2024, 5, 2), 3, 2, 3)]
    assert [r[:4] for r in loaded.report("daily", "acme")[1]] == [
        (date(2024, 5, 1), 2, 1, 1),
        (date(2024, 5, 2), 2, 1, 2),
    ]


def test_unknown_tenant_gets_empty_reports(loaded: ClickHouseAudit) -> None:
    for name in REPORTS:
        assert loaded.report(name, "initech")[1] == [], name


# -- forget -------------------------------------------------------------------------------


def test_forget_removes_only_that_user(loaded: ClickHouseAudit) -> None:
    assert loaded.forget("acme", "u2") == 1 + 3 + 3  # j3; d3 d6 d7; h2 h3 h4
    assert loaded.counts() == {"journal": 4, "decisions": 6, "fact_history": 2, "disagreements": 0}
    raw = loaded.client.query(
        "SELECT count() FROM journal WHERE user_id = 'u2' AND tenant_id = 'acme'"
    ).result_rows
    assert raw == [(0,)]  # every copy, not just the visible one
    assert loaded.report("supersessions")[1] == []
    assert loaded.report("write-amplification")[1] == [
        ("acme", 3, 1, 0, 0, 1, round(1 / 3, 6)),
        ("globex", 1, 1, 0, 0, 1, 1.0),
    ]
    assert loaded.forget("acme", "u2") == 0
    assert loaded.forget("nobody", "u1") == 0


# -- errors ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sql", "params", "match"),
    [
        ("SELEC 1", None, "SYNTAX_ERROR"),
        ("SELECT * FROM no_such_table", None, "no_such_table"),
        ("SELECT {x:String}", {}, "UNKNOWN_QUERY_PARAMETER"),
        ("DROP TABLE journal", None, "READONLY"),
        ("INSERT INTO journal (event_id) VALUES ('x')", None, "READONLY"),
        ("ALTER TABLE journal DELETE WHERE 1", None, "READONLY"),
        # table functions read the disk or the network (the HMAC key file, /etc/passwd)
        ("SELECT * FROM file('/etc/hostname', 'LineAsString')", None, "READONLY"),
        ("SELECT * FROM url('http://127.0.0.1:1/x', 'LineAsString')", None, "READONLY"),
        ("SELECT file('/etc/hostname')", None, "READONLY"),
        (
            "WITH t AS (SELECT 1 FROM file('/etc/hostname', 'LineAsString')) "
            "SELECT count() FROM journal WHERE 1 IN (SELECT * FROM t)",
            None,
            "READONLY",
        ),
    ],
)
def test_bad_or_writing_sql_gives_a_clear_error(
    audit: ClickHouseAudit, sql: str, params: dict[str, Any] | None, match: str
) -> None:
    with pytest.raises(StoreError, match=match) as info:
        audit.query(sql, params)
    assert "audit store: query" in str(info.value)
    assert audit.counts()["journal"] == 0  # and the table is still there


def test_generators_and_ordinary_functions_still_work(audit: ClickHouseAudit) -> None:
    assert audit.query("SELECT sum(number) AS s FROM numbers(4)") == (["s"], [(6,)])
    assert audit.query("SELECT format('{}-{}', 'a', 'b') AS f") == (["f"], [("a-b",)])


def test_trailing_semicolon_is_accepted(audit: ClickHouseAudit) -> None:
    assert audit.query("SELECT 1 AS one;  ") == (["one"], [(1,)])


def test_closed_store(tmp_path: Path) -> None:
    store = ClickHouseAudit.embedded(tmp_path / "a")
    store.close()
    store.close()
    with pytest.raises(StoreError, match="closed"):
        store.write(JOURNAL)


def test_unreachable_server_is_transient() -> None:
    with socket.socket() as s:  # a port that nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(TransientError, match=f"127.0.0.1:{port}"):
        ClickHouseAudit.server(f"http://127.0.0.1:{port}", "default", "")


# -- persistence and the one-engine-per-process rule ---------------------------------


def test_data_survives_reopening(tmp_path: Path) -> None:
    path = tmp_path / "audit"
    with ClickHouseAudit.embedded(path) as store:
        store.write(RECORDS)
    with ClickHouseAudit.embedded(path) as store:
        assert store.counts() == {
            "journal": 5, "decisions": 9, "fact_history": 5, "disagreements": 0
        }
        assert store.report("verdicts", "globex")[1] == [
            ("triage", "drop", 1),
            ("redact", "rejected", 1),
        ]


def test_one_engine_path_per_process(tmp_path: Path) -> None:
    with ClickHouseAudit.embedded(tmp_path / "one") as first:
        first.write(JOURNAL)
        with pytest.raises(ConfigError, match="one engine per"):
            ClickHouseAudit.embedded(tmp_path / "two")
        assert first.counts()["journal"] == 5  # the open store is unaffected
    # once every store of the first path is closed, another path opens
    with ClickHouseAudit.embedded(tmp_path / "two") as second:
        assert second.counts()["journal"] == 0
