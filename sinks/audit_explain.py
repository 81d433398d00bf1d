"""``memgate audit explain``: why the gate believes a fact, or what it did with a turn.

One table, the whole chain in order: the source turn as journaled (redacted
text, verdict), each stage's decision on it (triage, extract, redact, dedupe),
then the fact-history rows (added, superseded, promoted, closed), each with
its turn's event time and its own ingest time. Everything is scoped by tenant:
turn ids repeat across tenants, so a turn id found in more than one tenant is
refused until ``--tenant`` names one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from memgate.core.errors import StoreError

__all__ = ["EXPLAIN_COLUMNS", "AuditNotFound", "explain_fact", "explain_turn"]

Query = Callable[[str, dict[str, Any]], tuple[list[str], list[tuple[Any, ...]]]]

EXPLAIN_COLUMNS = [
    "step",
    "stage",
    "event_ts",
    "ingested_at",
    "tenant_id",
    "user_id",
    "turn_id",
    "verdict",
    "reason",
    "fact_id",
    "key",
    "detail",
]


class AuditNotFound(StoreError):
    """The turn or fact asked about is not in the audit store (for that tenant)."""


_TURNS = (
    "(SELECT tenant_id AS t_tenant, turn_id AS t_turn, min(ts) AS event_ts "
    "FROM journal WHERE tenant_id = {tenant:String} GROUP BY tenant_id, turn_id)"
)
_CHAIN = f"""
SELECT step, stage, event_ts, ingested_at, tenant_id, user_id, turn_id, verdict, reason,
       fact_id, key, detail
FROM (
    SELECT 'turn' AS step, 'ingest' AS stage, ts AS event_ts, ingested_at, tenant_id,
           user_id, turn_id, toString(verdict) AS verdict, toString(reason) AS reason,
           '' AS fact_id, '' AS key,
           concat(toString(role), ', ', toString(length), ' chars: ', redacted_text) AS detail
    FROM journal
    WHERE tenant_id = {{tenant:String}} AND has({{turns:Array(String)}}, turn_id)
    UNION ALL
    SELECT 'decision', toString(d.stage), t.event_ts, d.decided_at, d.tenant_id, d.user_id,
           d.turn_id, toString(d.verdict), toString(d.reason), d.fact_id, d.key,
           concat('policy ', toString(d.policy_version),
                  if(empty(d.details), '', concat(', ', toString(d.details))))
    FROM decisions AS d
    LEFT JOIN {_TURNS} AS t ON t.t_tenant = d.tenant_id AND t.t_turn = d.turn_id
    WHERE d.tenant_id = {{tenant:String}} AND has({{turns:Array(String)}}, d.turn_id)
    UNION ALL
    SELECT 'history', 'persist', t.event_ts, h.at, h.tenant_id, h.user_id, h.source_turn_id,
           toString(h.action), '', h.fact_id, h.key,
           concat('value=', h.value, ', confidence=', toString(h.confidence),
                  ', occurrences=', toString(h.occurrences),
                  if(empty(h.supersedes), '', concat(', supersedes ', h.supersedes)),
                  if(empty(h.superseded_by), '', concat(', superseded by ', h.superseded_by)))
    FROM fact_history AS h
    LEFT JOIN {_TURNS} AS t ON t.t_tenant = h.tenant_id AND t.t_turn = h.source_turn_id
    WHERE h.tenant_id = {{tenant:String}}
      AND (has({{facts:Array(String)}}, h.fact_id)
           OR has({{turns:Array(String)}}, h.source_turn_id))
)
ORDER BY event_ts, turn_id, indexOf(['turn', 'decision', 'history'], step),
         indexOf(['ingest', 'triage', 'extract', 'redact', 'dedupe', 'persist'], stage),
         ingested_at, fact_id
"""


def _one_tenant(query: Query, what: str, sql: str, ident: str, tenant: str | None) -> str:
    _, rows = query(sql, {"id": ident, "tenant": tenant or ""})
    tenants = sorted({str(r[0]) for r in rows})
    scope = f" for tenant {tenant!r}" if tenant else ""
    if not tenants:
        raise AuditNotFound(f"no {what} {ident!r} in the audit store{scope}")
    if len(tenants) > 1:
        raise AuditNotFound(
            f"{what} {ident!r} exists in tenants {', '.join(tenants)}: pass --tenant to pick one"
        )
    return tenants[0]


def _chain(tenant: str, turns: list[str], facts: list[str]) -> tuple[str, dict[str, Any]]:
    return _CHAIN, {"tenant": tenant, "turns": turns, "facts": facts}


def explain_turn(
    query: Query, turn_id: str, tenant: str | None = None
) -> tuple[str, dict[str, Any]]:
    """The SQL (and its parameters) of the chain from a turn: the turn, each stage's
    decision on it, and the history of every fact it touched (columns
    :data:`EXPLAIN_COLUMNS`). ``query`` finds the tenant and the facts first."""
    tenant = _one_tenant(
        query,
        "turn",
        "SELECT DISTINCT tenant_id FROM journal WHERE turn_id = {id:String} "
        "AND ({tenant:String} = '' OR tenant_id = {tenant:String})",
        turn_id,
        tenant,
    )
    _, rows = query(
        "SELECT DISTINCT fact_id FROM ("
        " SELECT fact_id FROM decisions WHERE tenant_id = {tenant:String}"
        "  AND turn_id = {id:String} AND fact_id != ''"
        " UNION ALL SELECT fact_id FROM fact_history WHERE tenant_id = {tenant:String}"
        "  AND source_turn_id = {id:String})",
        {"tenant": tenant, "id": turn_id},
    )
    return _chain(tenant, [turn_id], sorted(str(r[0]) for r in rows))


def explain_fact(
    query: Query, fact_id: str, tenant: str | None = None
) -> tuple[str, dict[str, Any]]:
    """The SQL (and its parameters) of the chain behind a fact: its history, and each
    turn behind it, as journaled and as each stage decided (columns :data:`EXPLAIN_COLUMNS`)."""
    tenant = _one_tenant(
        query,
        "fact",
        "SELECT DISTINCT tenant_id FROM fact_history WHERE fact_id = {id:String} "
        "AND ({tenant:String} = '' OR tenant_id = {tenant:String})",
        fact_id,
        tenant,
    )
    _, rows = query(
        "SELECT DISTINCT source_turn_id FROM fact_history "
        "WHERE tenant_id = {tenant:String} AND fact_id = {id:String}",
        {"tenant": tenant, "id": fact_id},
    )
    return _chain(tenant, sorted(str(r[0]) for r in rows), [fact_id])
