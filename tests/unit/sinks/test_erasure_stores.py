"""Each store's forget() leaves nothing of the user on disk, checked byte by byte
(ClickHouse parts decompressed) with the scanner of memgate.evaluation.bytescan."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path

import pytest

from memgate.core.errors import TransientError
from memgate.core.events import AuditEvent, Stage, TriageVerdict
from memgate.evaluation.bytescan import scan
from memgate.sinks.audit import TABLES, ClickHouseAudit
from memgate.sinks.audit_erasure import ERASURE_SETTINGS, leftovers
from memgate.sinks.embedded import EmbeddedIndex
from tests.contracts.retrieval import DIM, RetrievalStoreContract
from tests.unit.sinks.test_audit import T0, H, decision, history, journal

GONE = "zoe.quarrington@example.org"
KEPT = "bob.kept"
OLD = "legacy.user@example.net"
helper = RetrievalStoreContract()


def _records(user: str, word: str, n: int) -> list[AuditEvent]:
    out: list[AuditEvent] = []
    for i in range(n):
        e = f"{user}-{word}-{i}"
        j = journal(f"{e}-j", "acme", user, T0 + i * H, TriageVerdict.KEEP)
        out.append(j.model_copy(update={"redacted_text": f"we deploy with {word} number {i}"}))
        out.append(decision(f"{e}-d", Stage.TRIAGE, "acme", user, "keep", "signal"))
        out.append(history(f"{e}-h", "acme", user, f"{e}-f", "add", T0 + i * H))
    return out


def _ingest(audit: ClickHouseAudit, batches: int = 3) -> None:
    for b in range(batches):  # several inserts: several parts per table
        audit.write(_records(GONE, f"Quoxtrelpipe{b}", 5) + _records(KEPT, f"Brambleworth{b}", 5))


def _labels(report_hits: Sequence[object]) -> set[str]:
    return {h.label for h in report_hits}  # type: ignore[attr-defined]


def test_chdb_forget_leaves_no_replaced_part_or_mutation_file_naming_the_user(
    tmp_path: Path,
) -> None:
    root = tmp_path / "audit"
    needles = {"gone id": GONE, "gone word": "Quoxtrel", "kept id": KEPT, "kept word": "Bramble"}
    with ClickHouseAudit.embedded(root) as audit:
        _ingest(audit)
        assert _labels(scan(root, needles).hits) == set(needles), "the scan sees both users"
        assert audit.forget("acme", GONE) == 3 * 5 * 3
        assert leftovers(audit.client, audit.database, [t.name for t in TABLES]) == {}
        report = scan(root, needles)
        assert _labels(report.hits) == {"kept id", "kept word"}, [
            h.describe() for h in report.hits if h.label.startswith("gone")
        ]
        assert report.undecoded == []
        mutations = list(root.rglob("mutation_*.txt"))
        assert mutations, "the DELETE ran as a mutation"
        assert dict(audit.counts()) == {
            "journal": 15, "decisions": 15, "fact_history": 15, "disagreements": 0
        }
        _, rows = audit.query("SELECT DISTINCT user_id FROM journal")
        assert rows == [(KEPT,)]


def test_chdb_forget_also_clears_leftovers_of_a_table_made_without_the_settings(
    tmp_path: Path,
) -> None:
    root = tmp_path / "audit"
    with ClickHouseAudit.embedded(root) as audit:
        client = audit.client
        for table in TABLES:  # a table as an older memgate made it
            client.command(f"ALTER TABLE {table.name} RESET SETTING {', '.join(ERASURE_SETTINGS)}")
        _ingest(audit)
        audit.write(_records(OLD, "Legacywordzz", 3))
        # the old forget: ids in the mutation file, replaced parts left on disk
        for table in TABLES:
            client.command(
                f"ALTER TABLE {table.name} DELETE WHERE user_id = '{OLD}'",
                settings={"mutations_sync": 2},
            )
        before = scan(root, {"old id": OLD, "old word": "Legacywordzz"})
        assert {h.kind for h in before.found("old id")} >= {"clickhouse-mutation"}

        audit.forget("acme", GONE)
        report = scan(root, {"old id": OLD, "old word": "Legacywordzz", "gone id": GONE})
        assert report.hits == [], [h.describe() for h in report.hits]
        _, rows = audit.query(
            "SELECT count() FROM system.tables WHERE database = 'memgate' AND name = 'journal' "
            "AND create_table_query LIKE '%cleanup_delay_period = 1%'"
        )
        assert rows == [(1,)], "the settings are kept for the next process"


def _facts(user: str, word: str, n: int) -> list[object]:
    return [
        helper.make_fact(f"{word} lane {i}", predicate=f"lives_on_{i}", user_id=user)
        for i in range(n)
    ]


def test_sqlite_forget_leaves_no_id_or_text_in_file_wal_or_shm(tmp_path: Path) -> None:
    path = tmp_path / "index" / "facts.db"
    needles = {"gone id": GONE, "gone word": "Quoxtrelpipe", "kept word": "Brambleworth"}
    with EmbeddedIndex(path, dim=DIM) as index:
        index.upsert(_facts(GONE, "Quoxtrelpipe", 60))  # type: ignore[arg-type]
        index.upsert(_facts(KEPT, "Brambleworth", 60))  # type: ignore[arg-type]
        assert _labels(scan(path.parent, needles).hits) == set(needles)
        assert index.forget("acme", GONE) == 60
        report = scan(path.parent, needles)
        assert _labels(report.hits) == {"kept word"}, [h.describe() for h in report.hits]
        assert (path.parent / "facts.db-wal").stat().st_size == 0


def test_sqlite_forget_under_an_old_reader_says_so_and_a_rerun_completes(tmp_path: Path) -> None:
    path = tmp_path / "index" / "facts.db"
    needles = {"gone id": GONE, "gone word": "Quoxtrelpipe"}
    with EmbeddedIndex(path, dim=DIM, busy_timeout=0.2) as index:
        index.upsert(_facts(GONE, "Quoxtrelpipe", 40))  # type: ignore[arg-type]
        index.upsert(_facts(KEPT, "Brambleworth", 40))  # type: ignore[arg-type]
        reader = sqlite3.connect(path)
        reader.execute("BEGIN")
        reader.execute("SELECT count(*) FROM facts").fetchone()  # holds its snapshot
        with pytest.raises(TransientError, match=r"40 facts .* are deleted.*run forget again"):
            index.forget("acme", GONE)
        assert scan(path.parent, needles).hits, "old copies are in the WAL, as the error says"
        reader.rollback()
        reader.close()
        assert index.forget("acme", GONE) == 0
        report = scan(path.parent, needles)
        assert report.hits == [], [h.describe() for h in report.hits]

