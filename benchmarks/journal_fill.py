"""An audit journal as a worker in service for months has it: ``n`` journal rows of each
of ``tenants`` (turns of other ids, other users), written by the engine itself
(``INSERT ... SELECT FROM numbers(n)``: 2M rows in about 4 s), before a benchmark starts
its workers on that data directory.

The worker reads the journal as its turn ledger for every batch of turns
(:class:`memgate.streams.turns.JournalLedger`), so what that read costs at the journal's
size is a figure of the worker's rate; an empty journal hides it.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from memgate.sinks.audit import ClickHouseAudit

__all__ = ["fill_journal"]

_COLUMNS = (
    "event_id, tenant_id, user_id, session_id, turn_id, role, ts, length, content_hmac, "
    "verdict, reason, redacted_text, redaction_counts, ingested_at"
)


def fill_journal(audit_path: Path, tenants: Iterable[str], n: int) -> None:
    """``n`` rows of each tenant into the journal of the embedded audit store at
    ``audit_path`` (created when missing): 500 users, distinct turn and event ids."""
    if n <= 0:
        return
    audit_path.parent.mkdir(parents=True, exist_ok=True)
    audit = ClickHouseAudit.embedded(audit_path)
    try:
        for tenant in tenants:
            audit.client.command(
                f"INSERT INTO journal ({_COLUMNS}) SELECT concat('fill-', toString(number)), "
                "{tenant:String}, concat('fill-user-', toString(number % 500)), 'fill', "
                "concat('fill-turn-', toString(number)), 'user', now64(3), 40, "
                "hex(SHA256(toString(number))), 'drop', 'chatter', '', map(), now64(3) "
                "FROM numbers({n:UInt64})",
                parameters={"tenant": tenant, "n": n},
            )
    finally:
        audit.close()
