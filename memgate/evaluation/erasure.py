"""Erasure check of the leak suite: after ``forget``, nothing of the user is left.

After the leak check has ingested its corpus, :func:`check` forgets some
users whose turns carry secrets (per tenant, the one with the most secret
cases) from both stores, as ``memgate forget`` does, and searches every store
again (facts, SQLite rows, audit tables, and every byte of every file,
ClickHouse parts decoded: :func:`memgate.evaluation.leaks.scan_workspace`)
for everything of theirs:

* their user id;
* their raw secrets (which should never have been stored at all);
* the words of 6 characters or more that their stored rows hold (journal
  text, facts, decisions, history) and that belong to no one else: found in
  no other user's stored rows or corpus turns, in none of the files the
  stores hold when empty, after an erasure of a user who does not exist
  (:func:`baseline`: engine metadata, mutation text), and in none of the
  metadata files of the parts (column names and kinds: ``*.txt``, ``*.json``,
  ``*.sql`` but mutation files), so a hit can only be a residue of the
  forgotten user. Another user's rows are compared as read back and as the
  SQLite file lays them out too (:func:`_record_texts`): a record's body
  writes its values back to back, so one that ends a column and the next
  column's value can spell a word that neither holds (``…im Dashboard`` then
  ``superseded`` spell ``dashboards`` on disk).

Words not found before the forget are dropped (there is nothing to erase);
ids and secrets are always searched. A forgotten user of whom nothing was
found before the forget fails the check (the search would be blind), and so
does a file whose compressed blocks cannot be decoded.
"""

from __future__ import annotations

import re
import sqlite3
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memgate.core.events import TurnEvent
from memgate.evaluation.bytescan import ScannedFile, read_file, secret_in
from memgate.evaluation.common import Workspace
from memgate.sinks.audit import TABLES

__all__ = ["MIN_WORD", "ErasureResult", "baseline", "check", "choose_users"]

MIN_WORD = 6
_WORD_RE = re.compile(rf"\w{{{MIN_WORD},}}", re.UNICODE)
_BASELINE_SCOPE = ("memgate-eval", "erasure-baseline")

Scope = tuple[str, str]


@dataclass
class ErasureResult:
    users: list[str] = field(default_factory=list)
    """``tenant/user`` of every forgotten user."""
    strings: int = 0
    """Values searched after the forget (ids, secrets, unique words)."""
    found_before: int = 0
    """Of those, how many the stores held before the forget."""
    residues: list[str] = field(default_factory=list)
    """``tenant/user: <label> in <stores>``: labels and stores, never the value."""
    blind: list[str] = field(default_factory=list)
    """Forgotten users of whom nothing was found before the forget."""
    undecoded: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.residues and not self.blind and not self.undecoded

    def summary(self) -> str:
        text = (
            f"{len(self.residues)} residue{'s' if len(self.residues) != 1 else ''} over "
            f"{len(self.users)} forgotten user{'s' if len(self.users) != 1 else ''} "
            f"({self.strings} strings searched, {self.found_before} found before the forget)"
        )
        if self.blind:
            text += f"; nothing found before the forget for {', '.join(self.blind)}"
        if self.undecoded:
            text += f"; {len(self.undecoded)} file(s) not decodable"
        return text

    def row(self) -> tuple[str, str, str, str]:
        """The leak table's line: what, users forgotten, residues, details."""
        details = "; ".join([f"erasure: {self.summary()}", *self.residues[:10]])
        return ("erasure (users, residues)", str(len(self.users)), str(len(self.residues)), details)

    def failures(self) -> list[str]:
        """One line for ``memgate eval``'s failures, or none."""
        return [] if self.ok else ["; ".join([f"erasure: {self.summary()}", *self.residues[:5]])]

    def as_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "users": self.users,
            "strings": self.strings,
            "found_before": self.found_before,
            "residues": self.residues,
            "blind": self.blind,
            "undecoded": self.undecoded,
            "summary": self.summary(),
        }


def _forget(ws: Workspace, tenant_id: str, user_id: str) -> None:
    ws.store.forget(tenant_id, user_id)
    ws.audit_store.forget(tenant_id, user_id)


def baseline(ws: Workspace) -> list[ScannedFile]:
    """Every file of the (still empty) stores after forgetting a user who does not exist.

    Call it before ingesting: whatever these files hold is the engines' own
    (metadata, the text of an erasure's mutation), never a user's.
    """
    _forget(ws, *_BASELINE_SCOPE)
    out: list[ScannedFile] = []
    for p in ws.files():
        try:
            out.append(read_file(p))
        except OSError:
            continue
    return out


def _metadata(ws: Workspace) -> list[ScannedFile]:
    """The engines' metadata files now under the workspace (no user value in them)."""
    out: list[ScannedFile] = []
    for p in ws.files():
        if p.suffix in (".txt", ".json", ".sql") and not p.name.startswith("mutation_"):
            try:
                out.append(read_file(p))
            except OSError:
                continue
    return out


def choose_users(secret_turns: Iterable[TurnEvent]) -> list[Scope]:
    """Per tenant, the user with the most turns carrying a secret (ties: smallest id)."""
    counts: Counter[Scope] = Counter((t.tenant_id, t.user_id) for t in secret_turns)
    best: dict[str, Scope] = {}
    for (tenant, user), n in sorted(counts.items()):
        if tenant not in best or n > counts[best[tenant]]:
            best[tenant] = (tenant, user)
    return [best[t] for t in sorted(best)]


def _stored_texts(ws: Workspace) -> dict[Scope, list[str]]:
    """Everything the stores return for each tenant and user, as text."""
    out: dict[Scope, list[str]] = {}
    for tenant, user in ws.scopes:
        for f in ws.store.list_facts(tenant, user, include_inactive=True):
            out.setdefault((tenant, user), []).append(
                f.model_dump_json(exclude={"embedding", "search_embedding"})
            )
    for table in TABLES:
        _, rows = ws.audit_store.query(f"SELECT tenant_id, user_id, * FROM `{table.name}`")
        for tenant, user, *values in rows:
            out.setdefault((str(tenant), str(user)), []).append(" ".join(map(str, values)))
    return out


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _record_body(values: Iterable[object]) -> str:
    """The text values of one record as its body holds them: adjacent ones run together.

    A body has no separator (the lengths are in the record's header). A value written
    with bytes of its own (a number but 0 and 1, a blob) parts two runs; NULL, 0 and 1
    take no byte of the body."""
    runs: list[list[str]] = [[]]
    for v in values:
        if isinstance(v, str):
            runs[-1].append(v)
        elif not (v is None or (type(v) is int and v in (0, 1))):
            runs.append([])
    return " ".join("".join(run) for run in runs if run)


def _record_texts(path: Path) -> dict[Scope, list[str]]:
    """Each row of the SQLite file at ``path`` that names its owner (``tenant_id`` and
    ``user_id`` columns), as the file writes it (:func:`_record_body`): in the table's
    column order (an ``INTEGER PRIMARY KEY`` is the rowid, not in the record) and in each
    index's (which for a ``WITHOUT ROWID`` table is the table itself)."""
    out: dict[Scope, list[str]] = {}
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        for table in tables:
            # cid, name, type, notnull, default, pk, hidden (a virtual or generated column)
            info = [c for c in conn.execute(f"PRAGMA table_xinfo({_quote(table)})") if not c[6]]
            if not {"tenant_id", "user_id"} <= {c[1] for c in info}:
                continue
            keys = [c for c in info if c[5]]
            rowid = keys[0][1] if len(keys) == 1 and keys[0][2].upper() == "INTEGER" else None
            layouts = [[c[1] for c in info if c[1] != rowid]]
            for index in conn.execute(f"PRAGMA index_list({_quote(table)})").fetchall():
                xinfo = conn.execute(f"PRAGMA index_xinfo({_quote(index[1])})").fetchall()
                layouts.append([c[2] for c in xinfo if c[1] >= 0])  # cid -1: the rowid
            for columns in layouts:
                listed = ", ".join(map(_quote, columns))
                query = f"SELECT tenant_id, user_id, {listed} FROM {_quote(table)}"
                for tenant, user, *values in conn.execute(query):
                    out.setdefault((str(tenant), str(user)), []).append(_record_body(values))
    finally:
        conn.close()
    return out


def _needles(
    scope: Scope,
    turns: Sequence[TurnEvent],
    secrets: Mapping[Scope, Sequence[str]],
    stored: Mapping[Scope, list[str]],
    engine_files: Sequence[ScannedFile],
    records: Mapping[Scope, list[str]] | None = None,
) -> dict[str, tuple[str, bool]]:
    """label -> (value, always searched) for one forgotten user.

    ``records`` are the users' rows as the SQLite file lays them out
    (:func:`_record_texts`): compared against, never a source of the user's words."""
    tenant, user = scope
    others = [
        t.casefold()
        for texts_by_scope in (stored, records or {})
        for s, texts in texts_by_scope.items()
        if s != scope
        for t in texts
    ] + [
        f"{t.content} {t.session_id} {t.turn_id}".casefold()
        for t in turns
        if (t.tenant_id, t.user_id) != scope
    ]

    def unique(value: str) -> bool:
        folded = value.casefold()
        if any(secret_in(o, folded) for o in others):
            return False
        encoded = value.encode("utf-8")
        return not any(f.find_secret(encoded) for f in engine_files)

    out: dict[str, tuple[str, bool]] = {}
    if unique(user):
        out["user id"] = (user, True)
    for t in turns:
        if (t.tenant_id, t.user_id) != scope:
            continue
        for i, secret in enumerate(secrets.get((t.tenant_id, t.turn_id), ())):
            if unique(secret):
                out[f"secret {i + 1} of turn {t.turn_id}"] = (secret, True)
    words = sorted(
        {
            w
            for text in stored.get(scope, [])
            for w in _WORD_RE.findall(text)
            if not w.isupper() and not w.isdigit()
        }
    )
    n = 0
    for w in words:
        if unique(w):
            n += 1
            out[f"stored word {n}"] = (w, False)
    return {f"{tenant}/{user}: {label}": v for label, v in out.items()}


def check(
    ws: Workspace,
    turns: Sequence[TurnEvent],
    secrets: Mapping[Scope, Sequence[str]],
    baseline_files: Sequence[ScannedFile],
    scan: Callable[[Workspace], Any],
) -> ErasureResult:
    """Forget the chosen users from ``ws`` and search every store for what was theirs.

    ``secrets`` maps (tenant id, turn id) to the raw secrets of that turn; ``scan``
    reads every store back (:func:`memgate.evaluation.leaks.scan_workspace`)
    into an object with ``find(value) -> [stores]`` and ``undecoded``.
    """
    users = choose_users(t for t in turns if secrets.get((t.tenant_id, t.turn_id)))
    result = ErasureResult(users=[f"{t}/{u}" for t, u in users])
    if not users:
        return result
    stored = _stored_texts(ws)
    records = _record_texts(ws.settings.retrieval_path)
    engine_files = [*baseline_files, *_metadata(ws)]
    before = scan(ws)
    needles: dict[str, str] = {}
    for scope in users:
        found = 0
        for label, (value, always) in _needles(
            scope, turns, secrets, stored, engine_files, records
        ).items():
            seen = bool(before.find(value))
            found += seen
            if seen or always:
                needles[label] = value
                result.found_before += seen
        if not found:
            result.blind.append(f"{scope[0]}/{scope[1]}")
    for tenant, user in users:
        _forget(ws, tenant, user)
    after = scan(ws)
    result.strings = len(needles)
    result.undecoded = list(after.undecoded)
    for label, value in needles.items():
        where = after.find(value)
        if where:
            result.residues.append(f"{label} in {', '.join(sorted(set(where)))}")
    return result
