"""Checks and choices of command-line values: a bad one is a usage error (exit code 2).

Each check is a typer callback: it raises :class:`typer.BadParameter`, which
the command line prints as one message naming the option, with exit code 2.

* tenant and user ids follow the id rule of the events (:func:`memgate.core.events.id_problem`):
  1-200 ASCII letters, digits and ``. _ : @ + -``, taken exactly as given; a
  look-alike from another script or a full-width letter is refused with its
  code point named, never folded into the id it resembles;
* every text value (ids, a query, SQL, a label, a host, the data dir) is UTF-8: a byte
  that is not (Python reads it as a lone surrogate) is one usage error naming the option
  and the byte (:func:`memgate.core.events.utf8_problem`), whatever the command;
* a query is 1 to :data:`memgate.recall.MAX_QUERY_CHARS` characters, not blank;
* ``-k`` is 1 to :data:`memgate.recall.MAX_K` (a range on the option itself);
* times (``--as-of``, ``--now``) are ISO 8601 between :data:`TIME_MIN` and
  :data:`TIME_MAX`; a time without a zone is read as UTC;
* a value with a fixed set of choices (a write policy, a backend, an output
  format) is one of the enums below: click refuses any other value
  with a usage error listing the choices. The enums of settings name the same
  values as the ``Literal`` types of :class:`memgate.core.settings.Settings`
  (a unit test compares them).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from enum import StrEnum
from typing import Final

import typer

from memgate.core.events import bounded_utc, id_problem, utf8_problem
from memgate.recall import query_problem

#: Instants a query may name: the range the audit store can hold (DateTime64).
TIME_MIN: Final = datetime(1900, 1, 1, tzinfo=UTC)
TIME_MAX: Final = datetime(2299, 12, 31, 23, 59, 59, tzinfo=UTC)
#: Pollution ratios the benchmark accepts (trivial turns per real turn).
MAX_POLLUTION: Final = 100


def _shown(value: str, limit: int = 40) -> str:
    return repr(value if len(value) <= limit else value[:limit] + "…")


def _not_utf8(value: str) -> None:
    """A usage error when ``value`` holds a byte that is not UTF-8 (a lone surrogate)."""
    problem = utf8_problem(value)
    if problem is not None:
        raise typer.BadParameter(problem)


def _checked(value: str | None, problem_of: Callable[[str], str | None]) -> str | None:
    """``value``, or a usage error: a byte that is not UTF-8, or what ``problem_of`` finds
    wrong with it."""
    if value is None:
        return None
    _not_utf8(value)
    problem = problem_of(value)
    if problem is not None:
        raise typer.BadParameter(f"{_shown(value)} {problem}")
    return value


def check_id(value: str | None) -> str | None:
    """A tenant or user id, or a usage error naming the offending character."""
    return _checked(value, id_problem)


def check_text(value: str | None) -> str | None:
    """Any text argument (SQL, a label, a host, a key id, a report name, the data dir):
    a usage error when it is not UTF-8; nothing else is checked here."""
    return _checked(value, lambda _: None)


def check_query(value: str) -> str:
    _not_utf8(value)
    problem = query_problem(value)
    if problem is not None:
        raise typer.BadParameter(f"the query {problem}")
    return value


def check_fact_id(value: str | None) -> str | None:
    """A fact id, or a usage error when no store could look it up (a byte that was not
    UTF-8 in the argument: a lone surrogate)."""
    return check_text(value)


def parse_instant(value: str) -> datetime:
    """An ISO 8601 time in UTC (no zone: UTC), within ``TIME_MIN..TIME_MAX``; else ValueError."""
    try:
        dt = datetime.fromisoformat(value.strip().replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        raise ValueError(
            f"{_shown(value)} is not an ISO 8601 time (e.g. 2024-05-01T00:00:00Z)"
        ) from None
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    try:
        return bounded_utc(dt, TIME_MIN, TIME_MAX)
    except ValueError as exc:
        raise ValueError(f"{_shown(value)} {exc}") from None


def check_time(value: str | None) -> str | None:
    if value is None:
        return None
    _not_utf8(value)
    try:
        parse_instant(value)
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from None
    return value


def check_pollution(value: str) -> str:
    _not_utf8(value)
    try:
        ratios = [int(x) for x in value.split(",") if x.strip()]
    except ValueError:
        raise typer.BadParameter(
            f"{_shown(value)} is not a comma-separated list of integers"
        ) from None
    bad = [r for r in ratios if not 0 <= r <= MAX_POLLUTION]
    if bad:
        raise typer.BadParameter(
            f"ratio {bad[0]} is out of range: each is 0 to at most {MAX_POLLUTION}"
        )
    return value


# The choices of the options: click refuses any other value with a usage error listing them.
# A member's value is its name in lower case (StrEnum); the enums of settings name the values
# of the ``Literal`` types of :class:`memgate.core.settings.Settings` (a unit test compares them).

#: Write policy presets (``--policy``; :data:`memgate.stages.policy.PRESETS`).
Policy = StrEnum("Policy", "CONSERVATIVE BALANCED PERMISSIVE")
#: ``--embedder``: all-MiniLM-L6-v2 in numpy, or the hashing embedder of the unit tests.
EmbedderName = StrEnum("EmbedderName", "MINILM HASHING")
#: ``--extractor``: the offline rules, the statement classifier, both, or Claude.
ExtractorName = StrEnum("ExtractorName", "RULES STATEMENTS HYBRID ANTHROPIC")
#: ``--retrieval-backend``: the SQLite index under the data dir, or OpenSearch.
RetrievalBackend = StrEnum("RetrievalBackend", "EMBEDDED OPENSEARCH")
#: ``--audit-backend``: chDB in process under the data dir, or a ClickHouse server.
AuditBackend = StrEnum("AuditBackend", "CHDB CLICKHOUSE")
#: ``memgate audit --format``: the output formats plus files for other tools.
AuditFormat = StrEnum("AuditFormat", "TABLE JSON CSV PARQUET")
#: ``--format`` of the commands that print results (``--json`` is ``--format json``).
OutputFormat = StrEnum("OutputFormat", "TABLE JSON")
#: The worker's log levels (``--loglevel``).
LogLevel = StrEnum("LogLevel", "DEBUG INFO WARNING ERROR CRITICAL")
