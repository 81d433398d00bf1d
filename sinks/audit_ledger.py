"""The worker's turn ledger on the audit journal: a skip index on ``turn_id``, one read.

A Kafka worker checks every batch of turns against the journal for replays and turn-id
conflicts (:class:`memgate.streams.turns.JournalLedger`). The journal is sorted by
``(tenant_id, user_id, event_id)``, so its primary key narrows a read by turn id only
to the tenant; read with ``FINAL``, ClickHouse then expands it to every granule of the
tenant (``PrimaryKeyExpand``), and each check cost grew with the tenant's journal
(76 to 230 ms a read of 32 ids at 2M rows, by the ids' shape). Now:

* the journal has a data-skipping index on ``turn_id`` (:data:`TURN_INDEX`, a bloom
  filter: hashes of the turn ids, never content), in its DDL and added on open to a
  journal made by an older version (:func:`add_turn_index`);
* the ledger is read without ``FINAL`` (:data:`LEDGER_SQL`), so that the index skips
  the granules of the tenant that cannot hold the ids asked for; the few rows read are
  reduced to one answer per turn id here (:func:`ledger_answer`).

Without ``FINAL`` the rows that a merge would collapse are all read: one key ``(tenant_id,
user_id, event_id)``, and as ``event_id = stable_id("journal", tenant, turn_id)`` the key
of a turn id's rows is their user (a journal row written again). :func:`ledger_answer`
keeps of them the one a merge keeps, the last written (by the parts' block numbers and
the row's place in its part), so the answer does not change when the parts merge. Where
the journal holds a turn id under more than one user (two different turns sent with one
id in one batch, before the ledger knew the first), the most recently ingested row
answers (``ingested_at``), a tie by the larger user id: one answer, whatever the parts
and the merges. (For two turns of one user and id, the last written is the most recently
ingested unless the writers' clocks disagree; what a merge keeps decides, as ``FINAL``
did.) One fact's erasure rewrites every copy of the turn's row in place (``ALTER ...
UPDATE``, :mod:`memgate.sinks.audit_skeleton`), so every copy holds the erased marker.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from clickhouse_connect.driver.client import Client

__all__ = [
    "LEDGER_SQL",
    "TURN_INDEX",
    "TURN_INDEX_DDL",
    "add_turn_index",
    "has_turn_index",
    "ledger_answer",
]

log = logging.getLogger(__name__)

#: The journal's skip index on ``turn_id``.
TURN_INDEX = "turn_ids"
#: Its false-positive rate, chosen by ``benchmarks/bench_ledger.py`` at 2M journal rows (32
#: ids a read, fresh / recent): 0.01 read 20.8 / 22.4 ms with 1.23 bytes a row of filter,
#: 0.001 9.0 / 12.9 ms and 1.82 bytes, 0.0001 5.6 / 9.8 ms and 2.38 bytes; 0.00001 no
#: better (its filter is no larger). A journal row is about 95 bytes on disk.
TURN_INDEX_FPP = 0.0001
_INDEX_DEFINITION = f"`{TURN_INDEX}` `turn_id` TYPE bloom_filter({TURN_INDEX_FPP}) GRANULARITY 1"
#: The index clause of the journal's DDL (GRANULARITY 1: one filter per granule).
TURN_INDEX_DDL = f"INDEX {_INDEX_DEFINITION}"
#: The ledger read: the tenant's journal rows of the turn ids asked for, with where each
#: was written (its part and its place in it), for :func:`ledger_answer` to pick from. No
#: ``FINAL``, no grouping (a subquery and two ``GROUP BY`` cost 1.5 ms a read more), no
#: ``event_id`` (one per tenant and turn id: the user tells a turn id's keys apart; a
#: column less to read in every granule the index keeps): see the module's docstring.
LEDGER_SQL = (
    "SELECT turn_id, user_id, content_hmac, ingested_at, "
    "_partition_id, _part, _part_offset FROM journal "
    "WHERE tenant_id = {tenant:String} AND has({turns:Array(String)}, turn_id)"
)
#: Engine errors that mean "not allowed" (READONLY, ACCESS_DENIED): the index is then
#: left out and the ledger reads as before, only slower.
_NOT_ALLOWED = frozenset({164, 497})


def _written(partition: str, part: str, offset: int) -> tuple[int, int]:
    """When a row was written, as an order: its part's first block number, then its place
    in the part. A part's name is ``<partition>_<min block>_<max block>_<level>`` (and
    ``_<mutation>``); a merge or a mutation keeps the smallest block number, and rows of one
    key in one part were collapsed when it was written or merged."""
    return int(part[len(partition) + 1 :].split("_", 1)[0]), int(offset)


def ledger_answer(rows: Iterable[Sequence[Any]]) -> dict[str, tuple[str, str]]:
    """turn id -> (user id, digest), from the rows of :data:`LEDGER_SQL`.

    Of the rows of one key (for one turn id, one user) the last written, as a merge keeps;
    of several users of one turn id the most recently ingested, a tie by the larger user id.
    """
    kept: dict[tuple[str, str], tuple[tuple[int, int], str, Any]] = {}
    for turn, user, digest, at, partition, part, offset in rows:
        key = (str(turn), str(user))
        written = _written(str(partition), str(part), int(offset))
        if key not in kept or written > kept[key][0]:
            kept[key] = (written, str(digest), at)
    ranks: dict[str, tuple[Any, str]] = {}
    out: dict[str, tuple[str, str]] = {}
    for (turn, user), (_, digest, at) in kept.items():
        if turn not in ranks or (at, user) > ranks[turn]:
            ranks[turn] = (at, user)
            out[turn] = (user, digest)
    return out


def has_turn_index(client: Client, database: str) -> bool:
    """Whether the journal has :data:`TURN_INDEX` (``system.data_skipping_indices``)."""
    result = client.query(
        "SELECT count() FROM system.data_skipping_indices "
        "WHERE database = {db:String} AND table = 'journal' AND name = {name:String}",
        parameters={"db": database, "name": TURN_INDEX},
    )
    return bool(result.result_rows[0][0])


def add_turn_index(client: Client, database: str) -> bool:
    """Give a journal made by an older version :data:`TURN_INDEX`; whether one was added.

    Idempotent: a journal that has the index is left alone (no mutation each open). The
    parts already written get their filters from ``MATERIALIZE INDEX``, a mutation that
    runs in the background (a fraction of a second per million rows); until it is done
    those parts are read whole, with the same answers. A user that may not alter the
    table (read-only, no ``ALTER ADD INDEX`` grant) opens the store as before, without
    the index: a warning says so.
    """
    if has_turn_index(client, database):
        return False
    journal = f"`{database}`.`journal`"
    try:
        client.command(f"ALTER TABLE {journal} ADD INDEX IF NOT EXISTS {_INDEX_DEFINITION}")
    except Exception as exc:
        if getattr(exc, "code", None) not in _NOT_ALLOWED:
            raise
        log.warning(
            "audit store: the journal has no index on turn_id and this user may not add "
            "one (%s); the worker's turn ledger reads the whole tenant's journal. Open the "
            "store once as a user with ALTER on %s to add it",
            type(exc).__name__,
            journal,
        )
        return False
    client.command(f"ALTER TABLE {journal} MATERIALIZE INDEX `{TURN_INDEX}`")
    return True
