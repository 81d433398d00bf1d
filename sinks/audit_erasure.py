"""Erasure on ClickHouse: a user's audit rows deleted, and gone from the disk.

A ClickHouse ``ALTER TABLE ... DELETE`` rewrites the parts holding the rows,
but the parts it replaced stay on disk until the table's cleanup thread
removes them (30 s to 5 min later by default, and never if the process ends
first, as a CLI command does), and every mutation's command text is kept in a
``mutation_*.txt`` file beside the parts. :func:`erase` makes the deletion
final before it returns:

* the DELETE names the user only through a random request id, looked up in
  :data:`ERASURE_REQUESTS`, a ``Memory`` table (never written to disk)
  emptied right after, so no mutation file holds a tenant or user id (a user
  id may be an e-mail address);
* :data:`ERASURE_SETTINGS` (in every audit table's DDL, and applied to older
  tables by :func:`erase`) let a replaced part go at once and run the cleanup
  thread every second, and keep one finished mutation file only;
* :func:`erase` waits until ``system.parts`` lists no replaced part and at
  most one finished mutation is left per table. In process (chDB), a table
  whose cleanup thread still sleeps on the settings it was loaded with is
  detached and attached again, which restarts the thread.

The SQL is plain ClickHouse; a server gets the same behaviour from the same
table settings. On a replicated table the request table would have to exist
on every replica: memgate's DDL makes non-replicated tables.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

from memgate.core.errors import StoreError

if TYPE_CHECKING:
    from clickhouse_connect.driver.client import Client

__all__ = [
    "ERASURE_REQUESTS",
    "ERASURE_SETTINGS",
    "ERASURE_SETTINGS_SQL",
    "ERASURE_WAIT",
    "erase",
    "leftovers",
    "wait_for_cleanup",
]

#: MergeTree settings of every audit table: a part replaced by a mutation may be
#: removed at once (``old_parts_lifetime``; ClickHouse's default keeps it 8 min
#: as a safety net against a crash before the new part reached the disk, chDB's
#: is already 0), the cleanup thread runs every second even when idle, and
#: finished mutation files beyond the last one are removed.
ERASURE_SETTINGS: dict[str, int] = {
    "old_parts_lifetime": 0,
    "cleanup_delay_period": 1,
    "cleanup_delay_period_random_add": 0,
    "max_cleanup_delay_period": 1,
    "finished_mutations_to_keep": 1,
}
ERASURE_SETTINGS_SQL = ", ".join(f"{k} = {v}" for k, v in ERASURE_SETTINGS.items())
#: The in-memory table naming the users being erased, by request id.
ERASURE_REQUESTS = "erasure_requests"
#: Seconds :func:`erase` waits for the replaced parts to leave the disk.
ERASURE_WAIT = 30.0
#: Seconds before an in-process table's cleanup thread is restarted.
_RESTART_AFTER = 3.0


def leftovers(client: Client, database: str, tables: Sequence[str]) -> dict[str, int]:
    """Per table: replaced (inactive) parts still present, plus finished mutations beyond one."""
    args = {"db": database, "tables": list(tables)}
    scope = "database = {db:String} AND has({tables:Array(String)}, table)"
    parts = client.query(
        f"SELECT table, count() FROM system.parts WHERE {scope} AND NOT active GROUP BY table",
        parameters=args,
    ).result_rows
    mutations = client.query(
        f"SELECT table, count() - 1 FROM system.mutations WHERE {scope} "
        "GROUP BY table HAVING count() > 1",
        parameters=args,
    ).result_rows
    out: dict[str, int] = {}
    for table, n in [*parts, *mutations]:
        out[str(table)] = out.get(str(table), 0) + int(n)
    return out


def erase(
    client: Client,
    database: str,
    tables: Sequence[str],
    tenant_id: str,
    user_id: str,
    *,
    in_process: bool,
) -> None:
    """Delete the user's rows from ``tables`` and wait until no replaced part holds them.

    ``tables`` are MergeTree tables with ``tenant_id`` and ``user_id``
    columns. Raises :class:`memgate.core.errors.StoreError` if replaced parts are
    still listed after :data:`ERASURE_WAIT` seconds (the rows are deleted by
    then), and lets the client's errors through.
    """
    requests = f"`{database}`.`{ERASURE_REQUESTS}`"
    request = {"request": secrets.token_hex(16)}
    client.command(
        f"CREATE TABLE IF NOT EXISTS {requests} "
        "(request String, tenant_id String, user_id String) ENGINE = Memory"
    )
    for table in tables:
        client.command(f"ALTER TABLE `{database}`.`{table}` MODIFY SETTING {ERASURE_SETTINGS_SQL}")
    client.command(
        f"INSERT INTO {requests} (request, tenant_id, user_id) "
        "VALUES ({request:String}, {tenant:String}, {user:String})",
        parameters={**request, "tenant": tenant_id, "user": user_id},
    )
    try:
        for table in tables:
            client.command(
                f"ALTER TABLE `{database}`.`{table}` DELETE WHERE (tenant_id, user_id) IN "
                f"(SELECT tenant_id, user_id FROM {requests} WHERE request = {{request:String}})",
                parameters=request,
                # kept a subquery in the mutation file: evaluated on the initiator, it
                # would be replaced there by the ids it returns
                settings={"mutations_sync": 2, "mutations_execute_subqueries_on_initiator": 0},
            )
    finally:
        client.command(
            f"ALTER TABLE {requests} DELETE WHERE request = {{request:String}}",
            parameters=request,
            settings={"mutations_sync": 2},
        )
    wait_for_cleanup(client, database, tables, f"{tenant_id}/{user_id}", in_process=in_process)


def wait_for_cleanup(
    client: Client, database: str, tables: Sequence[str], who: str, *, in_process: bool
) -> None:
    for table in tables:
        # parts left by an earlier process are loaded in the background after a start;
        # best effort: a server user may lack the SYSTEM privilege, and the wait below
        # sees those parts anyway once they are loaded
        try:
            client.command(f"SYSTEM WAIT LOADING PARTS `{database}`.`{table}`")
        except Exception:
            break
    start = time.monotonic()
    restarted = not in_process
    while left := leftovers(client, database, tables):
        waited = time.monotonic() - start
        if waited >= ERASURE_WAIT:
            counts = ", ".join(f"{t}: {n}" for t, n in sorted(left.items()))
            raise StoreError(
                f"audit store: the rows of {who} are deleted, but replaced parts or mutation "
                f"files are still on disk after {ERASURE_WAIT:.0f} s ({counts}); the server's "
                "cleanup thread removes them within minutes: run forget again to confirm"
            )
        if not restarted and waited >= _RESTART_AFTER:
            # the cleanup thread may sleep on the settings the table was loaded with
            # (up to 5 min): detaching and attaching the table restarts it
            for table in left:
                client.command(f"DETACH TABLE `{database}`.`{table}`")
                client.command(f"ATTACH TABLE `{database}`.`{table}`")
            restarted = True
        time.sleep(0.05)
