"""The answer cache of the Claude extractor: one small SQLite file under the data dir.

Each row holds one answer (the JSON of a valid ``record_facts`` call), keyed by
HMAC-SHA256 under the deployment's secret (:func:`memgate.keys.hmac_key`) of the
tenant, the user and the request material (model, prompt version, masked turn as
sent). The key is keyed, so whoever reads the file cannot test a guessed text
against it, and scoped to the user, so that :meth:`SQLiteAnswerCache.forget`
erases a user's answers and no answer crosses tenants.

The size is bounded: past ``max_entries`` rows the least recently used go. The
file is opened per operation (a cache sits beside a network call; a millisecond
is nothing there, and no connection outlives a command). ``secure_delete`` is on
and the rollback journal is deleted after each commit, so an erased answer does
not linger in the file's free pages. A cache that cannot be read or written is a
miss (logged), never a failure of the turn; :meth:`SQLiteAnswerCache.forget`
raises :class:`~memgate.core.errors.StoreError`, since erasure must not fail
silently.

>>> import tempfile
>>> from pathlib import Path
>>> with tempfile.TemporaryDirectory() as d:
...     cache = SQLiteAnswerCache(Path(d) / "c.sqlite3", key=b"k" * 32, max_entries=2)
...     cache.put("acme", "u1", "request", '{"facts": []}')
...     (cache.get("acme", "u1", "request"), cache.get("acme", "u2", "request"))
('{"facts": []}', None)
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import logging
import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path

from memgate.core.errors import StoreError

__all__ = ["DEFAULT_MAX_ENTRIES", "SQLiteAnswerCache"]

log = logging.getLogger(__name__)

DEFAULT_MAX_ENTRIES = 10_000
_DDL = (
    "CREATE TABLE IF NOT EXISTS answers ("
    " digest TEXT PRIMARY KEY, tenant_id TEXT NOT NULL, user_id TEXT NOT NULL,"
    " answer TEXT NOT NULL, used INTEGER NOT NULL)",
    "CREATE INDEX IF NOT EXISTS answers_user ON answers (tenant_id, user_id)",
    "CREATE INDEX IF NOT EXISTS answers_used ON answers (used)",
)


class SQLiteAnswerCache:
    """An :class:`~memgate.core.stores.AnswerCache` in one SQLite file."""

    def __init__(self, path: Path, *, key: bytes, max_entries: int = DEFAULT_MAX_ENTRIES) -> None:
        if len(key) < 16:
            raise ValueError("the cache key must be the deployment's HMAC key (>= 16 bytes)")
        if max_entries < 1:
            raise ValueError(f"max_entries must be at least 1, got {max_entries}")
        self.path = path
        self.max_entries = max_entries
        self._key = key

    def digest(self, tenant_id: str, user_id: str, request: str) -> str:
        material = "\x00".join((tenant_id, user_id, request)).encode("utf-8")
        return hmac.new(self._key, material, hashlib.sha256).hexdigest()

    @contextlib.contextmanager
    def _conn(self) -> Iterator[sqlite3.Connection]:
        new = not self.path.exists()
        conn = sqlite3.connect(self.path, timeout=5.0, isolation_level=None)
        try:
            if new:
                os.chmod(self.path, 0o600)
            conn.execute("PRAGMA secure_delete = ON")
            conn.execute("PRAGMA journal_mode = DELETE")
            for stmt in _DDL:
                conn.execute(stmt)
            yield conn
        finally:
            conn.close()

    def get(self, tenant_id: str, user_id: str, request: str) -> str | None:
        digest = self.digest(tenant_id, user_id, request)
        try:
            with self._conn() as conn:
                row = conn.execute(
                    "SELECT answer FROM answers WHERE digest = ?", (digest,)
                ).fetchone()
                if row is None:
                    return None
                conn.execute(
                    "UPDATE answers SET used = (SELECT coalesce(max(used), 0) + 1 FROM answers) "
                    "WHERE digest = ?",
                    (digest,),
                )
                return str(row[0])
        except sqlite3.Error as exc:
            log.warning("extract cache %s unreadable, treated as a miss: %s", self.path, exc)
            return None

    def put(self, tenant_id: str, user_id: str, request: str, answer: str) -> None:
        digest = self.digest(tenant_id, user_id, request)
        try:
            with self._conn() as conn:
                conn.execute("BEGIN IMMEDIATE")
                try:
                    conn.execute(
                        "INSERT OR REPLACE INTO answers (digest, tenant_id, user_id, answer, used)"
                        " VALUES (?, ?, ?, ?, (SELECT coalesce(max(used), 0) + 1 FROM answers))",
                        (digest, tenant_id, user_id, answer),
                    )
                    conn.execute(
                        "DELETE FROM answers WHERE digest IN (SELECT digest FROM answers "
                        "ORDER BY used DESC LIMIT -1 OFFSET ?)",
                        (self.max_entries,),
                    )
                    conn.execute("COMMIT")
                except BaseException:
                    conn.execute("ROLLBACK")
                    raise
        except sqlite3.Error as exc:
            log.warning("extract cache %s not written: %s", self.path, exc)

    def forget(self, tenant_id: str, user_id: str) -> int:
        if not self.path.exists():
            return 0
        try:
            with self._conn() as conn:
                n = conn.execute(
                    "DELETE FROM answers WHERE tenant_id = ? AND user_id = ?", (tenant_id, user_id)
                ).rowcount
                return int(n)
        except sqlite3.Error as exc:
            raise StoreError(f"cannot erase from the extract cache {self.path}: {exc}") from exc

    def count(self, tenant_id: str | None = None, user_id: str | None = None) -> int:
        if not self.path.exists():
            return 0
        try:
            with self._conn() as conn:
                if tenant_id is None or user_id is None:
                    row = conn.execute("SELECT count(*) FROM answers").fetchone()
                else:
                    row = conn.execute(
                        "SELECT count(*) FROM answers WHERE tenant_id = ? AND user_id = ?",
                        (tenant_id, user_id),
                    ).fetchone()
                return int(row[0])
        except sqlite3.Error as exc:
            raise StoreError(f"cannot read the extract cache {self.path}: {exc}") from exc

    def entries(self) -> Iterator[tuple[str, str, str, str]]:
        """Every answer held, as (digest, tenant, user, answer), in pages (for the leak scan)."""
        if not self.path.exists():
            return
        last = ""
        while True:
            with self._conn() as conn:
                rows = conn.execute(
                    "SELECT digest, tenant_id, user_id, answer FROM answers WHERE digest > ? "
                    "ORDER BY digest LIMIT 1000",
                    (last,),
                ).fetchall()
            if not rows:
                return
            for digest, tenant, user, answer in rows:
                yield str(digest), str(tenant), str(user), str(answer)
                last = str(digest)
