"""Erasure that keeps the audit store's counts: a skeleton of every erased row.

``memgate forget`` used to delete a user's audit rows outright, so the
reports' totals (turns kept, drop reasons, decisions by stage) changed after
each erasure. Now (:meth:`ClickHouseAudit.erase_user`) every row of the user
is first copied as a *skeleton* and only then deleted
(:func:`memgate.sinks.audit_erasure.erase`):

* **kept**: what counts and explains without naming anyone: tenant, stage,
  verdict, reason, action, role, times, lengths, redaction counts, confidence,
  occurrences, policy version;
* **pseudonymised** (:data:`PSEUDONYMISED`): the user, session, turn, fact and
  event ids become ``erased:<keyed digest>`` (HMAC-SHA256 under the deployment's
  key, of tenant and id), so rows of one erased user still group together and
  join (a decision to its history row) while the id cannot be read back or
  confirmed without the key;
* **cleared** (:data:`CLEARED`): every content column: the journal's redacted
  text and content digest, fact keys and values, decision details, the shadow
  extractor's differing facts.

Forgetting *one fact* (:meth:`ClickHouseAudit.erase_fact`) clears the content
columns of the rows about it in place (``ALTER TABLE ... UPDATE``: the fact's
history rows and decisions, and the redacted text of the turns it came from,
whose other content goes with it), and waits for the replaced parts to leave
the disk; the ids stay (they are the user's, who is not erased).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from memgate.core.events import ERASED_TURN_DIGEST
from memgate.sinks.audit_erasure import ERASURE_SETTINGS_SQL, wait_for_cleanup

if TYPE_CHECKING:
    from clickhouse_connect.driver.client import Client

#: Columns whose ids become pseudonyms, per table.
PSEUDONYMISED: dict[str, tuple[str, ...]] = {
    "journal": ("event_id", "user_id", "session_id", "turn_id"),
    "decisions": ("event_id", "user_id", "session_id", "turn_id", "fact_id"),
    "fact_history": (
        "event_id", "user_id", "fact_id", "superseded_by", "supersedes", "source_turn_id",
    ),
    "disagreements": ("event_id", "user_id", "session_id", "turn_id"),
}  # fmt: skip
#: Content columns and the empty value they get, per table.
CLEARED: dict[str, dict[str, Any]] = {
    "journal": {"redacted_text": "", "content_hmac": ""},
    "decisions": {"key": "", "details": {}},
    "fact_history": {"key": "", "value": ""},
    "disagreements": {"only_primary": [], "only_shadow": []},
}
#: What one fact's erasure (:func:`clear_fact`) writes instead: the journal's digest of
#: the fact's turns becomes a marker, not '', so that a worker reading the journal as its
#: turn ledger takes the turn delivered again as a replay rather than as a new turn that
#: makes the erased fact again (:func:`memgate.streams.turns.classify_turn`).
FACT_CLEARED: dict[str, dict[str, Any]] = {
    **CLEARED,
    "journal": {**CLEARED["journal"], "content_hmac": ERASED_TURN_DIGEST},
}
#: The same, as ClickHouse literals (for ``ALTER TABLE ... UPDATE``).
_SQL_EMPTY = {"": "''", "{}": "map()", "[]": "[]", ERASED_TURN_DIGEST: f"'{ERASED_TURN_DIGEST}'"}
#: The in-memory table naming the items (fact ids, turn ids) of one fact's erasure.
ERASURE_ITEMS = "erasure_items"

TableSpec = tuple[str, Sequence[str], Sequence[str]]  # name, column names, column types


def keep_skeleton(
    client: Client,
    database: str,
    tables: Sequence[TableSpec],
    tenant_id: str,
    user_id: str,
    pseudonym: Callable[[str], str],
) -> dict[str, int]:
    """Insert the skeleton of each of the user's rows (under pseudonymous ids); rows per table.

    Idempotent: the skeleton's event id is the pseudonym of the original's, so a second
    copy collapses with the first (``ReplacingMergeTree``).
    """
    out: dict[str, int] = {}
    for name, columns, types in tables:
        cols = ", ".join(f"`{c}`" for c in columns)
        rows = client.query(
            f"SELECT {cols} FROM `{database}`.`{name}` FINAL "
            "WHERE tenant_id = {tenant:String} AND user_id = {user:String}",
            parameters={"tenant": tenant_id, "user": user_id},
        ).result_rows
        out[name] = len(rows)
        if not rows:
            continue
        ids = {columns.index(c) for c in PSEUDONYMISED[name]}
        cleared = {columns.index(c): v for c, v in CLEARED[name].items()}
        skeleton = [
            [
                cleared[i] if i in cleared else pseudonym(v) if i in ids and v else v
                for i, v in enumerate(row)
            ]
            for row in rows
        ]
        client.insert(
            name,
            skeleton,
            column_names=list(columns),
            database=database,
            column_type_names=list(types),
        )
    return out


def clear_fact(
    client: Client,
    database: str,
    tenant_id: str,
    user_id: str,
    fact_id: str,
    turn_ids: Sequence[str],
    *,
    in_process: bool,
) -> dict[str, int]:
    """Clear the content columns of the rows about one fact; rows cleared per table.

    The mutations name the rows only through a random request id looked up in an
    in-memory table (as :func:`memgate.sinks.audit_erasure.erase` does), so no
    mutation file holds an id; then the replaced parts are waited for.
    """
    items = f"`{database}`.`{ERASURE_ITEMS}`"
    request = {"request": secrets.token_hex(16)}
    client.command(
        f"CREATE TABLE IF NOT EXISTS {items} "
        "(request String, tenant_id String, user_id String, kind String, item String) "
        "ENGINE = Memory"
    )
    rows = [(request["request"], tenant_id, user_id, "fact", fact_id)]
    rows += [(request["request"], tenant_id, user_id, "turn", t) for t in dict.fromkeys(turn_ids)]
    client.insert(
        ERASURE_ITEMS, rows, column_names=["request", "tenant_id", "user_id", "kind", "item"],
        database=database,
    )  # fmt: skip
    targets = {
        "fact_history": ("fact_id", "fact"),
        "decisions": ("fact_id", "fact"),
        "journal": ("turn_id", "turn"),
        "disagreements": ("turn_id", "turn"),
    }
    out: dict[str, int] = {}
    try:
        for table, (column, kind) in targets.items():
            where = (
                f"(tenant_id, user_id, {column}) IN (SELECT tenant_id, user_id, item FROM {items} "
                f"WHERE request = {{request:String}} AND kind = '{kind}')"
            )
            out[table] = int(
                client.query(
                    f"SELECT count() FROM `{database}`.`{table}` FINAL WHERE {where}",
                    parameters=request,
                ).result_rows[0][0]
            )
            if not out[table]:
                continue
            client.command(
                f"ALTER TABLE `{database}`.`{table}` MODIFY SETTING {ERASURE_SETTINGS_SQL}"
            )
            cleared = FACT_CLEARED[table].items()
            sets = ", ".join(f"`{c}` = {_SQL_EMPTY[str(v)]}" for c, v in cleared)
            client.command(
                f"ALTER TABLE `{database}`.`{table}` UPDATE {sets} WHERE {where}",
                parameters=request,
                settings={"mutations_sync": 2, "mutations_execute_subqueries_on_initiator": 0},
            )
    finally:
        client.command(
            f"ALTER TABLE {items} DELETE WHERE request = {{request:String}}",
            parameters=request,
            settings={"mutations_sync": 2},
        )
    changed = [t for t, n in out.items() if n]
    if changed:
        wait_for_cleanup(client, database, changed, f"fact {fact_id}", in_process=in_process)
    return out
