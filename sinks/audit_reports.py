"""The named audit reports: one time base each (event time), every one scoped alike.

Every report takes the same four bound parameters (:class:`ReportScope`):

* ``tenant`` and ``user`` (``''`` = all);
* ``since`` and ``until``, a half-open range ``[since, until)`` of **event
  time**: when the turn was said (``journal.ts``). A decision or a fact-history
  row has no event time of its own (``decided_at`` and ``at`` are when the gate
  processed it), so it takes its source turn's, joined on ``(tenant_id,
  turn_id)``: turn ids repeat across tenants, so the join names both. Where a
  report shows time, ingest time is a column of its own (``ingested_at``,
  ``last_ingested_at``), never mixed in.

The fact counts agree with the ingest summary (``memgate ingest``): a stored
fact row is a fact-history ``add``, ``promote`` (a pending fact confirmed) or
``supersede``; ``superseded`` and ``close`` only mark an old row and
``duplicate`` and ``pending`` store nothing new.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from memgate.core.errors import InvalidRequest

__all__ = [
    "ADMITTED_VERDICTS",
    "REPORTS",
    "SCOPE_PARAMETERS",
    "STORED_ACTIONS",
    "TIME_SERIES_REPORTS",
    "ReportScope",
]

#: The range DateTime64 holds: the defaults of ``since`` and ``until``.
EARLIEST = datetime(1900, 1, 1, tzinfo=UTC)
LATEST = datetime(2299, 12, 31, 23, 59, 59, tzinfo=UTC)

#: Verdicts that let a candidate go on (or land); every other verdict is a drop
#: reason in the ``drop-reasons`` report (compared case-insensitively).
ADMITTED_VERDICTS: tuple[str, ...] = (
    "keep",
    "extracted",
    "facts",
    "clean",
    "redacted",
    "add",
    "supersede",
    "stored",
    "written",
    "ok",
)
#: Fact-history actions that store a new fact row (the ingest summary's "stored").
STORED_ACTIONS: tuple[str, ...] = ("add", "promote", "supersede")

#: The parameters every report binds, with their ClickHouse types.
SCOPE_PARAMETERS: dict[str, str] = {
    "tenant": "String",
    "user": "String",
    "since": "DateTime64(3, 'UTC')",
    "until": "DateTime64(3, 'UTC')",
}


#: Why a user without a tenant scopes nothing: the same user id in two tenants is two people.
USER_NEEDS_TENANT = (
    "--user needs --tenant: a user id names a person only within its tenant "
    "(the same id under two tenants is two users)"
)


@dataclass(frozen=True)
class ReportScope:
    """Which rows a report reads: a tenant, a user, an event-time range (all optional)."""

    tenant: str | None = None
    user: str | None = None
    since: datetime | None = None
    until: datetime | None = None

    def __post_init__(self) -> None:
        if self.user and not self.tenant:
            raise InvalidRequest(USER_NEEDS_TENANT)

    def parameters(self) -> dict[str, Any]:
        return {
            "tenant": self.tenant or "",
            "user": self.user or "",
            "since": self.since or EARLIEST,
            "until": self.until or LATEST,
        }

    def given(self) -> list[str]:
        """The names of the parameters set (not left to their all-rows default)."""
        return [n for n in SCOPE_PARAMETERS if getattr(self, n) not in (None, "")]


_ADMITTED_SQL = ", ".join(f"'{v}'" for v in ADMITTED_VERDICTS)
_STORED_SQL = "(" + ", ".join(f"'{a}'" for a in STORED_ACTIONS) + ")"
_STAGE_ORDER = "['ingest', 'triage', 'extract', 'redact', 'dedupe', 'persist']"
#: Each turn's event time, by (tenant, turn): what decisions and fact history join.
_TURNS = (
    "(SELECT tenant_id AS t_tenant, turn_id AS t_turn, min(ts) AS event_ts, "
    "min(ingested_at) AS turn_ingested_at FROM journal FINAL GROUP BY tenant_id, turn_id)"
)


def _scope(alias: str, time_expr: str) -> str:
    """The WHERE clause every report applies (tenant, user, event-time range)."""
    a = f"{alias}." if alias else ""
    return (
        f"({{tenant:String}} = '' OR {a}tenant_id = {{tenant:String}})"
        f" AND ({{user:String}} = '' OR {a}user_id = {{user:String}})"
        f" AND {time_expr} >= {{since:DateTime64(3, 'UTC')}}"
        f" AND {time_expr} < {{until:DateTime64(3, 'UTC')}}"
    )


def _decisions(columns: str) -> str:
    """Decisions with their turn's event time (``event_ts``), scoped."""
    return (
        f"SELECT {columns} FROM decisions AS d FINAL "
        f"LEFT JOIN {_TURNS} AS t ON t.t_tenant = d.tenant_id AND t.t_turn = d.turn_id "
        f"WHERE {_scope('d', 't.event_ts')}"
    )


def _history(columns: str) -> str:
    """Fact-history rows with their source turn's event time (``event_ts``), scoped."""
    return (
        f"SELECT {columns} FROM fact_history AS h FINAL "
        f"LEFT JOIN {_TURNS} AS t ON t.t_tenant = h.tenant_id AND t.t_turn = h.source_turn_id "
        f"WHERE {_scope('h', 't.event_ts')}"
    )


_JOURNAL_SCOPE = _scope("", "ts")

#: name -> (description, SQL). Every SQL binds the parameters of :class:`ReportScope`.
REPORTS: dict[str, tuple[str, str]] = {
    "verdicts": (
        "Decisions per stage and verdict (turns said in the range).",
        f"""
        SELECT stage, verdict, count() AS decisions
        FROM ({_decisions("d.stage AS stage, d.verdict AS verdict")})
        GROUP BY stage, verdict
        ORDER BY indexOf({_STAGE_ORDER}, stage), stage, verdict
        """,
    ),
    "drop-reasons": (
        "Decisions per stage and reason whose verdict does not admit the candidate "
        f"(anything but {', '.join(ADMITTED_VERDICTS)}).",
        f"""
        SELECT stage, reason, count() AS decisions
        FROM ({_decisions("d.stage AS stage, d.reason AS reason, d.verdict AS verdict")})
        WHERE lower(verdict) NOT IN ({_ADMITTED_SQL})
        GROUP BY stage, reason
        ORDER BY indexOf({_STAGE_ORDER}, stage), stage, decisions DESC, reason
        """,
    ),
    "redactions": (
        "Redactions by kind: summed from the journal's redaction_counts (turn text) and "
        "from redact-stage decisions, whose details map each kind to a whole-number count.",
        f"""
        SELECT source, kind, sum(n) AS redactions
        FROM (
            SELECT 'journal' AS source, kind, toUInt64(n) AS n
            FROM journal FINAL
            ARRAY JOIN mapKeys(redaction_counts) AS kind, mapValues(redaction_counts) AS n
            WHERE {_JOURNAL_SCOPE}
            UNION ALL
            SELECT 'redact' AS source, kind, toUInt64(v) AS n
            FROM ({_decisions("d.stage AS stage, d.details AS details")})
            ARRAY JOIN mapKeys(details) AS kind, mapValues(details) AS v
            WHERE stage = 'redact' AND match(v, '^[0-9]{{1,18}}$')
        )
        GROUP BY source, kind
        ORDER BY source, redactions DESC, kind
        """,
    ),
    "write-amplification": (
        "Per tenant: turns journaled, fact rows stored (added, incl. promoted pending "
        "facts, and superseding), and stored rows per turn: the ingest summary's figures.",
        f"""
        SELECT tenant_id,
               sum(j) AS turns,
               sum(a) AS facts_added,
               sum(p) AS facts_promoted,
               sum(s) AS facts_superseded,
               facts_added + facts_promoted + facts_superseded AS facts_stored,
               if(turns = 0, NULL, round(facts_stored / turns, 6)) AS facts_per_turn
        FROM (
            SELECT tenant_id, toUInt64(1) AS j, toUInt64(0) AS a, toUInt64(0) AS p,
                   toUInt64(0) AS s
            FROM journal FINAL WHERE {_JOURNAL_SCOPE}
            UNION ALL
            SELECT tenant_id, toUInt64(0), toUInt64(action = 'add'),
                   toUInt64(action = 'promote'), toUInt64(action = 'supersede')
            FROM ({_history("h.tenant_id AS tenant_id, lower(h.action) AS action")})
        )
        GROUP BY tenant_id
        ORDER BY tenant_id
        """,
    ),
    "supersessions": (
        "The 100 latest supersede events by event time (the source turn's), newest first, "
        "with the key, both fact ids and when the gate processed it (ingested_at).",
        f"""
        SELECT event_ts, ingested_at, tenant_id, user_id, key, fact_id, supersedes,
               superseded_by, value, policy_version
        FROM ({_history(
            "t.event_ts AS event_ts, h.at AS ingested_at, h.tenant_id AS tenant_id, "
            "h.user_id AS user_id, h.key AS key, h.fact_id AS fact_id, "
            "h.supersedes AS supersedes, h.superseded_by AS superseded_by, h.value AS value, "
            "h.policy_version AS policy_version, h.action AS action, h.event_id AS event_id"
        )})
        WHERE lower(action) = 'supersede'
        ORDER BY event_ts DESC, event_id
        LIMIT 100
        """,
    ),
    "disagreements": (
        "Shadow mode: turns on which the primary and the shadow extractor differ, per "
        "pair and kind (keep, key, value), with one example turn of each.",
        f"""
        SELECT primary, shadow, kind, count() AS turns,
               any(turn_id) AS example_turn, any(only_primary) AS example_primary,
               any(only_shadow) AS example_shadow
        FROM disagreements AS g FINAL
        LEFT JOIN {_TURNS} AS t ON t.t_tenant = g.tenant_id AND t.t_turn = g.turn_id
        WHERE {_scope('g', 't.event_ts')}
        GROUP BY primary, shadow, kind
        ORDER BY primary, shadow, turns DESC, kind
        """,
    ),
    "extractor-fallbacks": (
        "Turns the extractor handed to its fallback (the Claude extractor's offline "
        "extractor), by extractor and reason; and answers served from its cache.",
        f"""
        SELECT extractor, reason, countIf(reason != '') AS turns,
               countIf(cache = 'hit') AS cache_hits
        FROM ({_decisions(
            "d.policy_version AS extractor, d.details['fallback'] AS reason, "
            "d.details['cache'] AS cache, d.stage AS stage"
        )})
        WHERE stage = 'extract' AND (reason != '' OR cache = 'hit')
        GROUP BY extractor, reason
        ORDER BY extractor, turns DESC, reason
        """,
    ),
    "daily": (
        "Per UTC day of event time (when the turn was said): turns journaled, turns kept by "
        "triage, fact rows stored from that day's turns; last_ingested_at is when the gate "
        "last processed one of them.",
        f"""
        SELECT day, sum(j) AS turns, sum(k) AS turns_kept, sum(f) AS facts_stored,
               max(ing) AS last_ingested_at
        FROM (
            SELECT toDate(ts) AS day, toUInt64(1) AS j, toUInt64(verdict = 'keep') AS k,
                   toUInt64(0) AS f, ingested_at AS ing
            FROM journal FINAL WHERE {_JOURNAL_SCOPE}
            UNION ALL
            SELECT toDate(event_ts), toUInt64(0), toUInt64(0),
                   toUInt64(action IN {_STORED_SQL}), ing
            FROM ({_history("t.event_ts AS event_ts, lower(h.action) AS action, h.at AS ing")})
        )
        GROUP BY day
        ORDER BY day
        """,
    ),
}

#: Reports whose first column is a time axis (``memgate audit REPORT --plot FILE.png``).
TIME_SERIES_REPORTS: tuple[str, ...] = ("daily",)
