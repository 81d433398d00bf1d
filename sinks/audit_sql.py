"""Raw SQL against the audit store reads the audit tables and nothing else.

``readonly = 2`` (what :meth:`ClickHouseAudit.query` needs, to set ``final = 1``
on the query) forbids writes but still lets a statement reach outside the
database: table functions (``file('/etc/passwd', ...)``, ``url(...)``,
``s3(...)``, ``remote(...)``, ``executable(...)``) and the scalar ``file()``
read the disk or the network, the HMAC key file included; ``INTO OUTFILE``
writes any file the process may write (``TRUNCATE`` overwrites it); ``KILL
QUERY``, ``USE`` and ``SET`` act on the engine or the session. ``readonly = 1``
would forbid some of them, but also forbids setting ``final``.

So a statement goes through three steps before it runs (session 22):

1. the engine's own formatter (``formatQuerySingleLine``, the text bound as a
   query parameter, so nothing in it runs) parses it: exactly one statement, or
   it is refused. chDB runs every statement of a multi-statement text, and so
   did ``EXPLAIN AST`` of one: ``SELECT 1; SELECT file('/etc/hostname')`` ran
   the second unchecked. A ``;`` in a string literal or a comment, and one
   trailing ``;``, are the engine's business, not a text split's. What runs from
   then on is the formatter's text: what was checked is what runs;
2. the engine parses that text (``EXPLAIN AST``, which runs nothing) and the
   tree is checked (:func:`problems`): a ``SELECT`` (with ``WITH``, ``UNION``,
   ``EXCEPT``) or a ``DESCRIBE``; no ``INTO OUTFILE``, no ``FORMAT`` (``--format``
   chooses it), no ``SETTINGS`` (``additional_result_filter = 'file(...)'`` is SQL
   the tree does not show); no table function outside a short list of
   generators, no scalar function that reads files or names a table by a string,
   no table outside the store's database and ``system`` (chDB's ``default``
   database maps a table name to a file), anywhere in the tree: subqueries,
   ``WITH``, joins, ``IN (...)``. Not ``SHOW TABLES``: its tree hides its ``WHERE``;
3. it runs with ``readonly = 2``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

#: Table functions that only generate rows (no disk, no network).
SAFE_TABLE_FUNCTIONS = frozenset(
    {"numbers", "numbers_mt", "zeros", "zeros_mt", "values", "generate_series", "generateSeries"}
)
#: Scalar functions that read outside the database (compared in lower case): a file, or a
#: table named by a string (``hasColumnInTable('default', '/etc/passwd', 'c1')`` infers the
#: file's columns from its first lines).
UNSAFE_SCALAR_FUNCTIONS = frozenset(
    {"file", "catboostevaluate", "hascolumnintable", "joinget", "joingetornull"}
)
#: The statements ``--sql`` runs (the root of the engine's parse tree).
#: Not ``SHOW TABLES``: its tree does not show its ``WHERE``, where ``file()`` read the disk.
READ_STATEMENTS = frozenset({"SelectWithUnionQuery", "DescribeQuery"})
#: Databases a query may name besides the audit store's own. Not ``default``: in chDB (as in
#: clickhouse-local) it reads files, ``SELECT * FROM default.`/etc/hostname```.
READ_DATABASES = frozenset({"system", "information_schema", "INFORMATION_SCHEMA"})
#: A ``{name:Type}`` query parameter.
PLACEHOLDER = re.compile(r"\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*:")

_LINE = re.compile(r"^(?P<indent> *)(?P<node>\S+)(?: (?P<name>[^\s(]+))?")
_MULTI = "Multi-statements are not allowed"


class OneStatementOnly(PermissionError):
    """More than one statement in a text that runs one."""


def canonical(statement: str, fmt: Callable[[str], str]) -> str:
    """The engine's one-line text of ``statement`` (``fmt`` runs the formatter on it).

    Raises :class:`OneStatementOnly` when the text holds more than one statement; the
    engine's other parse errors (syntax) propagate as they are.
    """
    try:
        return fmt(statement)
    except Exception as exc:
        if _MULTI in str(exc):
            raise OneStatementOnly(
                "--sql runs one statement and this text holds more than one (a ';' between "
                "them); run them one at a time"
            ) from None
        raise


def placeholders(text: str) -> set[str]:
    """The ``{name:Type}`` parameters of ``text``, the formatter's output: string literals
    and quoted identifiers (``'..'``, ``".."``, backquotes) are skipped, so a placeholder
    written inside one (which binds nothing) is not counted.

    >>> sorted(placeholders("SELECT '{user:String}', {tenant:String} FROM t"))
    ['tenant']
    >>> sorted(placeholders("SELECT 'it\\\\'s {user:String}' AS `{x:String}`"))
    []
    """
    found: set[str] = set()
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in "'\"`":
            i = _end_of_quoted(text, i + 1, c)
            continue
        if c == "{":
            m = PLACEHOLDER.match(text, i)
            if m is not None:
                found.add(m[1])
        i += 1
    return found


def _end_of_quoted(text: str, i: int, quote: str) -> int:
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == quote:
            if i + 1 < n and text[i + 1] == quote:  # a doubled quote is one
                i += 2
                continue
            return i + 1
        i += 1
    return n


def problems(ast_lines: Iterable[str], database: str = "memgate") -> list[str]:
    """Why the statement of an ``EXPLAIN AST`` tree (one node per line) may not run here;
    ``database`` is the audit store's.

    >>> problems(["SelectWithUnionQuery", " ExpressionList", "  SelectQuery"])
    []
    >>> problems(["SelectWithUnionQuery", " ExpressionList", " Literal '/tmp/x'"])[0][:12]
    'INTO OUTFILE'
    >>> problems(["UseQuery system", " Identifier system"])[0][:8]
    'UseQuery'
    >>> problems(["SelectWithUnionQuery", " ExpressionList", "  SelectQuery", "   Set"])[0][:8]
    'SETTINGS'
    """
    lines = list(ast_lines)
    if not lines:
        return ["the statement did not parse"]
    root = _LINE.match(lines[0])
    kind = root["node"] if root is not None else lines[0]
    found: list[str] = []
    if kind not in READ_STATEMENTS:
        found.append(
            f"{kind} is not allowed here; --sql runs a SELECT or a DESCRIBE (the tables: "
            "SELECT name FROM system.tables WHERE database = currentDatabase())"
        )
    for line in lines[1:]:
        m = _LINE.match(line)
        if m is not None and m["node"] == "Set":  # the tree does not show what it sets
            found.append(
                "SETTINGS in the SQL is not allowed here (some settings run SQL of their own, "
                "unchecked: additional_result_filter, additional_table_filters)"
            )
        if m is None or len(m["indent"]) != 1 or kind not in READ_STATEMENTS:
            continue
        if m["node"] == "Literal":  # the root's literal children: INTO OUTFILE 'f' [COMPRESSION]
            found.append(_OUTFILE_PROBLEM)
        elif m["node"] == "Identifier":  # the root's identifier: FORMAT name
            found.append(_format_problem(m["name"]))
    others = sorted(_other_databases(lines, READ_DATABASES | {database}))
    if others:
        found.append(
            f"{', '.join(others)}: a table outside the audit store ({database}) and system; "
            "the default database reads files here"
        )
    calls = forbidden_calls(lines)
    if calls:
        names = ", ".join(sorted({f"{c}()" for c in calls}))
        found.append(
            f"{names} reads outside the audit store; query the memgate tables "
            "(journal, decisions, fact_history, disagreements) instead"
        )
    return list(dict.fromkeys(found))


_OUTFILE_PROBLEM = "INTO OUTFILE writes a file; --output FILE writes the result"


def _format_problem(name: str) -> str:
    return (
        f"FORMAT {name} in the SQL: choose the output with --format "
        "(table, csv, json, parquet) instead"
    )


def _other_databases(lines: list[str], allowed: frozenset[str]) -> set[str]:
    """Tables of databases not ``allowed``, and names under ``default`` (``x IN default.t``).

    >>> sorted(_other_databases([" TableIdentifier default./etc/hostname",
    ...     " TableIdentifier system.one", " Identifier j.tenant_id",
    ...     " Identifier default./x"], frozenset({"system"})))
    ['default./etc/hostname', 'default./x']
    """
    found: set[str] = set()
    for line in lines:
        m = _LINE.match(line)
        if m is None or not m["name"] or "." not in m["name"]:
            continue
        first = m["name"].split(".", 1)[0]
        if (m["node"] == "TableIdentifier" and first not in allowed) or (
            m["node"] == "Identifier" and first == "default"
        ):
            found.add(m["name"])
    return found


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
        elif name.lower() in UNSAFE_SCALAR_FUNCTIONS:
            found.append(name)
    return found


def _parent(lines: list[str], i: int, indent: int) -> str | None:
    for j in range(i - 1, -1, -1):
        m = _LINE.match(lines[j])
        if m is not None and len(m["indent"]) < indent:
            return m["node"]
    return None


def check_statement(
    statement: str, explain: Callable[[str], list[str]], database: str = "memgate"
) -> str:
    """The kind of ``statement`` (one statement, the formatter's text: the root of its tree,
    one of :data:`READ_STATEMENTS`); :class:`PermissionError` when it may not run here
    (:func:`problems`)."""
    tree = explain(statement)
    found = problems(tree, database)
    if found:
        raise PermissionError("; ".join(found))
    return tree[0].split()[0]
