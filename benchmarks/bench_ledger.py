"""The worker's turn ledger on the audit journal (issue 14): one read of 32 turn ids, as the
journal of one tenant grows (20k, 200k, 2M rows, plus rows of another tenant).

    .venv/bin/python benchmarks/bench_ledger.py

Two journals with the same rows in one chDB engine (in process, a throwaway directory):

* *before*: the journal as memgate made it until session 26 (no skip index), read as the
  worker read it then (``FINAL``, ``has(ids, turn_id)``): built here as the baseline;
* *after*: the store's own table and read (:meth:`ClickHouseAudit.journal_turns`, the
  bloom filter on ``turn_id``, no ``FINAL``).

Each read asks for 32 ids never asked before (ClickHouse 25+ keeps a query condition
cache: the same query again gives false fast figures): *fresh* ids (not in the journal:
the common case, a new turn) and *recent* ids (the tenant's last written turns: a
replay). The figure is the median of ``--reads`` reads. Also: the journal's bytes a row
on disk with and without the index, the read with bloom filters of other false-positive
rates (how the store's was chosen), and the time to add the index to the old journal
(what opening it with this version does).
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import statistics
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from common import write

from memgate.sinks.audit import JOURNAL, ClickHouseAudit
from memgate.sinks.audit_ledger import LEDGER_SQL, TURN_INDEX_FPP, add_turn_index, ledger_answer

OLD_DB = "ledger_before"
#: The read of before: every granule of the tenant (FINAL expands the primary key's range).
OLD_SQL = (
    f"SELECT turn_id, user_id, content_hmac FROM `{OLD_DB}`.journal "
    "WHERE tenant_id = {tenant:String} AND has({turns:Array(String)}, turn_id)"
)
TENANT, OTHER = "acme", "globex"
SIZES = (20_000, 200_000, 2_000_000)
BATCH = 50_000
IDS = 32
T0 = datetime(2026, 12, 1, tzinfo=UTC)
#: False-positive rates of the bloom filter tried on the largest journal.
SWEEP = (0.01, 0.001, 0.0001, 0.00001)


class Journals:
    """The two journals, filled with the same rows."""

    def __init__(self, path: Path, seed: int, ids: str = "random") -> None:
        self.store = ClickHouseAudit.embedded(path)
        self.client = self.store.client
        self.client.command(f"CREATE DATABASE IF NOT EXISTS `{OLD_DB}`")
        self.client.command(dataclasses.replace(JOURNAL, indexes=()).ddl(OLD_DB))
        self.rng = random.Random(seed)
        self.turns: list[str] = []  # the tenant's turn ids, in the order written
        self.ids = ids
        self.written = 0
        self.asked = 0

    def add(self, tenant: str, n: int) -> None:
        for start in range(0, n, BATCH):
            rows = [self._row(tenant) for _ in range(min(BATCH, n - start))]
            columns = [list(c) for c in zip(*rows, strict=True)]
            for db in (self.store.database, OLD_DB):
                self.client.insert(
                    "journal",
                    columns,
                    column_names=JOURNAL.column_names,
                    database=db,
                    column_type_names=JOURNAL.column_types,
                    column_oriented=True,
                )

    def _row(self, tenant: str) -> list[Any]:
        self.written += 1
        if self.ids == "sequential":  # short ids that compress well: turn1, turn2, ...
            turn = f"turn{self.written}"
        else:  # a UUID's worth of randomness
            turn = f"{self.rng.getrandbits(128):032x}"
        if tenant == TENANT:
            self.turns.append(turn)
        i = len(self.turns)
        at = T0 + timedelta(milliseconds=i)
        text = f"the redacted text of turn {i}: we deploy with tool {i % 97} on [EMAIL]"
        return [
            f"j{self.rng.getrandbits(64):016x}", tenant, f"user{self.rng.randrange(500)}",
            f"s{i // 20}", turn, "user", at, len(text), f"{self.rng.getrandbits(256):064x}",
            "keep", "signal", text, {"email": 1}, at,
        ]  # fmt: skip

    def settle(self) -> None:
        """Wait for the background merges the inserts started (they would time themselves)."""
        while self.client.query("SELECT count() FROM system.merges").result_rows[0][0]:
            time.sleep(0.1)

    def fresh(self) -> list[str]:
        self.asked += 1
        return [f"fresh-{self.asked}-{i}" for i in range(IDS)]

    def recent(self) -> list[str]:
        self.asked += 1
        end = len(self.turns) - self.asked * IDS
        assert end >= IDS, "more reads than recent turns"
        return self.turns[end - IDS : end]

    def before(self, ids: list[str]) -> tuple[float, int]:
        t = time.perf_counter()
        rows = self.client.query(
            OLD_SQL,
            parameters={"tenant": TENANT, "turns": ids},
            settings={"readonly": 2, "final": 1},
        ).result_rows
        return (time.perf_counter() - t) * 1000, len(rows)

    def after(self, ids: list[str]) -> tuple[float, int]:
        t = time.perf_counter()
        seen = self.store.journal_turns(TENANT, ids)
        return (time.perf_counter() - t) * 1000, len(seen)

    def on_disk(self, db: str) -> dict[str, float]:
        ((rows, disk, index, parts),) = self.client.query(
            "SELECT sum(rows), sum(bytes_on_disk), sum(secondary_indices_compressed_bytes), "
            "count() FROM system.parts WHERE database = {db:String} AND table = 'journal' "
            "AND active",
            parameters={"db": db},
        ).result_rows
        return {"per_row": disk / rows, "index_per_row": index / rows, "parts": parts}


def sweep(j: Journals, reads: int, n: int) -> list[dict[str, Any]]:
    """The store's read on the old journal, given a bloom filter of each rate of :data:`SWEEP`
    in turn: how the rate of the store's index was chosen."""
    table = f"`{OLD_DB}`.journal"
    sql = LEDGER_SQL.replace("FROM journal", f"FROM {table}")

    def read(ids: list[str]) -> tuple[float, int]:
        t = time.perf_counter()
        rows = j.client.query(
            sql, parameters={"tenant": TENANT, "turns": ids}, settings={"readonly": 2}
        ).result_rows
        return (time.perf_counter() - t) * 1000, len(ledger_answer(rows))

    out = []
    sync = {"mutations_sync": 2}
    for fpp in SWEEP:
        j.client.command(
            f"ALTER TABLE {table} ADD INDEX sweep turn_id TYPE bloom_filter({fpp}) GRANULARITY 1"
        )
        j.client.command(f"ALTER TABLE {table} MATERIALIZE INDEX sweep", settings=sync)
        fresh = median_ms(read, j.fresh, reads, 0)
        recent = median_ms(read, j.recent, reads, IDS)
        index = j.on_disk(OLD_DB)["index_per_row"]
        j.client.command(f"ALTER TABLE {table} DROP INDEX sweep", settings=sync)
        chosen = " (the store's)" if fpp == TURN_INDEX_FPP else ""
        out.append(
            {
                "what": f"turn ledger read, {n:,} journal rows, bloom_filter({fpp}){chosen}",
                "figure": f"{fresh} / {recent}",
                "unit": "ms (median; fresh / recent ids)",
                "note": f"the filter {index:.2f} bytes a row; {IDS} ids a read, median of {reads}",
            }
        )
        print(f"bloom_filter({fpp}): fresh {fresh} ms, recent {recent} ms, {index:.2f} B/row")
    return out


def median_ms(read: Any, ids: Any, reads: int, expect: int) -> float:
    times = []
    for _ in range(reads):
        ms, found = read(ids())
        assert found == expect, (found, expect)  # both reads answer the same
        times.append(ms)
    return round(statistics.median(times), 2)


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    assert __doc__
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reads", type=int, default=15, help="reads per figure (the median)")
    ap.add_argument("--other", type=int, default=20_000, help="rows of another tenant")
    ap.add_argument("--seed", type=int, default=26)
    ap.add_argument(
        "--ids",
        choices=["random", "sequential"],
        default="random",
        help="turn ids of 32 random hex digits (default), or turn1, turn2, ...",
    )
    return ap.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    a = parse(argv)
    rows: list[dict[str, Any]] = []
    table = ["| journal rows (tenant) | ids | before: FINAL, no index | after | parts |"]
    table.append("|---:|---|---:|---:|---:|")
    with tempfile.TemporaryDirectory(prefix="bench-ledger-") as tmp:
        j = Journals(Path(tmp) / "audit", a.seed, a.ids)
        j.add(OTHER, a.other)
        for size in SIZES:
            j.add(TENANT, size - len(j.turns))
            j.settle()
            parts = int(j.on_disk(j.store.database)["parts"])
            for kind, ids, expect in (("fresh", j.fresh, 0), ("recent", j.recent, IDS)):
                old = median_ms(j.before, ids, a.reads, expect)
                new = median_ms(j.after, ids, a.reads, expect)
                table.append(f"| {size:,} | {kind} | {old} ms | {new} ms | {parts} |")
                for when, ms in (("before (FINAL, no index)", old), ("after", new)):
                    rows.append(
                        {
                            "what": f"turn ledger read, {size:,} journal rows, {kind} ids, {when}",
                            "figure": ms,
                            "unit": "ms (median)",
                            "note": f"{IDS} ids a read, new ids each read, median of {a.reads}; "
                            f"{a.other:,} rows of another tenant; {parts} active parts; "
                            f"{a.ids} turn ids; chDB",
                        }
                    )
        old_disk, new_disk = j.on_disk(OLD_DB), j.on_disk(j.store.database)
        rows.extend(sweep(j, a.reads, SIZES[-1]))
        t = time.perf_counter()
        add_turn_index(j.client, OLD_DB)  # what opening an older journal does
        while j.client.query(
            "SELECT count() FROM system.mutations WHERE database = {db:String} AND NOT is_done",
            parameters={"db": OLD_DB},
        ).result_rows[0][0]:
            time.sleep(0.05)
        added = time.perf_counter() - t
        j.store.close()
    n = SIZES[-1] + a.other
    rows.append(
        {
            "what": f"journal on disk, {n:,} rows, without / with the turn_id index",
            "figure": f"{old_disk['per_row']:.1f} / {new_disk['per_row']:.1f}",
            "unit": "bytes a row",
            "note": f"the bloom filter {new_disk['index_per_row']:.2f} bytes a row; "
            f"{a.ids} turn ids",
        }
    )
    rows.append(
        {
            "what": f"adding the turn_id index to an older journal of {n:,} rows",
            "figure": round(added, 2),
            "unit": "s",
            "note": "ADD INDEX and MATERIALIZE INDEX (a background mutation), on open",
        }
    )
    print("\n".join(table))
    write("ledger" if a.ids == "random" else f"ledger-{a.ids}", rows)


if __name__ == "__main__":
    main()
