"""Raw SQL against the audit store reads the audit tables and nothing else.

``readonly = 2`` (what :meth:`ClickHouseAudit.query` needs, to set ``final = 1``
on the query) forbids writes but still lets a statement reach outside the
database: table functions (``file('/etc/passwd', ...)``, ``url(...)``,
``s3(...)``, ``remote(...)``) and the scalar ``file()`` read the disk or the
network, the HMAC key file included. ``readonly = 1`` would forbid them, but also
forbids setting ``final``. So each statement is parsed by the engine itself
(``EXPLAIN AST``, which runs nothing) and refused when its tree calls a table
function outside a short list of generators, or a scalar function that reads
files. The check walks the whole tree: subqueries, ``WITH``, joins, ``IN (...)``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

#: Table functions that only generate rows (no disk, no network).
SAFE_TABLE_FUNCTIONS = frozenset(
    {"numbers", "numbers_mt", "zeros", "zeros_mt", "values", "generate_series", "generateSeries"}
)
#: Scalar functions that read outside the database.
UNSAFE_SCALAR_FUNCTIONS = frozenset({"file"})

_LINE = re.compile(r"^(?P<indent> *)(?P<node>\S+)(?: (?P<name>[^\s(]+))?")


def forbidden_calls(ast_lines: Iterable[str]) -> list[str]:
    """Names of the forbidden calls in an ``EXPLAIN AST`` tree (one node per line).

    >>> tree = ["SelectQuery", " TableExpression (children 1)", "  Function file (children 1)"]
    >>> forbidden_calls(tree)
    ['file']
    >>> forbidden_calls([" TableExpression", "  Function numbers"])
    []
    >>> forbidden_calls([" ExpressionList", "  Function file (children 1)"])
    ['file']
    """
    found: list[str] = []
    lines = list(ast_lines)
    for i, line in enumerate(lines):
        m = _LINE.match(line)
        if m is None or m["node"] != "Function" or not m["name"]:
            continue
        name = m["name"]
        parent = _parent(lines, i, len(m["indent"]))
        if parent == "TableExpression":
            if name not in SAFE_TABLE_FUNCTIONS:
                found.append(name)
        elif name in UNSAFE_SCALAR_FUNCTIONS:
            found.append(name)
    return found


def _parent(lines: list[str], i: int, indent: int) -> str | None:
    for j in range(i - 1, -1, -1):
        m = _LINE.match(lines[j])
        if m is not None and len(m["indent"]) < indent:
            return m["node"]
    return None


def check_statement(statement: str, explain: Callable[[str], list[str]]) -> None:
    """Raise :class:`PermissionError` when ``statement`` reaches outside the audit tables."""
    calls = forbidden_calls(explain(statement))
    if calls:
        names = ", ".join(sorted({f"{c}()" for c in calls}))
        raise PermissionError(
            f"{names} reads outside the audit store and is not allowed here; "
            "query the memgate tables (journal, decisions, fact_history, disagreements) instead"
        )
