"""An embedded retrieval store: one SQLite file, FTS5 for BM25, numpy for cosine.

No server: :class:`EmbeddedIndex` keeps every fact of every tenant in one
SQLite database (WAL mode) at a path the caller chooses. Lexical search is
SQLite's FTS5 ranked by ``bm25()``; dense search is an exact cosine scan,
in numpy, over the float32 embeddings of the rows of *one* tenant and user.
Both retrievers filter by tenant, user, status and valid time in their SQL
``WHERE`` clause, and their rankings are fused with reciprocal rank fusion
(:func:`memgate.sinks.base.rrf_fuse`, k=60).

>>> import tempfile
>>> from datetime import UTC, datetime
>>> from memgate.core.events import FactStatus, FactType, StoredFact
>>> from memgate.core.stores import SearchQuery
>>> now = datetime(2024, 5, 1, tzinfo=UTC)
>>> fact = StoredFact(
...     fact_id="f1", tenant_id="acme", user_id="u1", key="acme/u1/user/editor",
...     type=FactType.PREFERENCE, subject="user", predicate="editor", value="vim",
...     text="user editor vim", status=FactStatus.ACTIVE, confidence=0.9,
...     valid_from=now, recorded_at=now, first_seen=now, last_seen=now,
...     source_turn_ids=["t1"], extractor="rules", extractor_version="1",
...     policy_version="balanced-1", embedding=[1.0, 0.0, 0.0, 0.0])
>>> with tempfile.TemporaryDirectory() as d, EmbeddedIndex(Path(d) / "facts.db", dim=4) as store:
...     store.upsert([fact], wait=True)
...     hits = store.search(SearchQuery(tenant_id="acme", user_id="u1", text="which editor?"),
...                         np.array([1.0, 0.0, 0.0, 0.0]))
...     [(h.fact.value, h.bm25_rank, h.vector_rank) for h in hits]
[('vim', 1, 1)]

Notes:

* ``wait`` on :meth:`EmbeddedIndex.upsert` is accepted for the protocol; a
  committed SQLite transaction is searchable at once.
* :meth:`EmbeddedIndex.begin` opens a batch: every write until
  :meth:`EmbeddedIndex.commit` (or :meth:`EmbeddedIndex.rollback`) is one
  transaction, visible to this instance's reads at once and to other
  connections only after the commit; :meth:`EmbeddedIndex.savepoint` and its
  ``rollback_to``/``release`` undo part of a batch. The in-process runner
  commits a batch only after the audit rows that explain it were written, so
  a crash loses facts and audit rows together, never one without the other.
* The ``turns`` table is the runner's ledger of applied turns
  (:meth:`EmbeddedIndex.seen_turns`, :meth:`EmbeddedIndex.record_turns`):
  tenant, turn id, user and the keyed digest of the content, never text.
* BM25 statistics (document frequencies, average length) are those of the
  whole FTS index, all tenants together: they shape scores, never which rows
  can match, since the tenant and user filter is in the same SQL statement.
* :meth:`EmbeddedIndex.forget` also rewrites the FTS index and checkpoints the
  WAL, and ``secure_delete`` is on, so a forgotten fact's text does not linger
  in the file's free pages or index segments.
"""

from __future__ import annotations

import re
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from memgate.core.closing import Closing
from memgate.core.errors import ConfigError, PermanentError, StoreError, TransientError
from memgate.core.events import FactStatus, StoredFact
from memgate.core.stores import (
    SUBJECT_SCAN_LIMIT,
    FactUsage,
    SearchHit,
    SearchQuery,
    subject_key_prefixes,
)
from memgate.core.text import MAX_QUERY_TERMS, query_terms
from memgate.core.timings import phase
from memgate.sinks import embedded_erasure as erasure
from memgate.sinks import embedded_usage as usage_sql
from memgate.sinks.base import RRF_K, fused_hits, rrf_fuse
from memgate.sinks.embedded_rows import RowCache

__all__ = ["MAX_QUERY_TERMS", "SCHEMA_VERSION", "EmbeddedIndex", "fts_query"]

#: ``PRAGMA user_version`` of the file layout this module writes (3: the turns ledger;
#: 4: the usage counts, :mod:`memgate.sinks.embedded_usage`).
SCHEMA_VERSION = 4

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICRO = timedelta(microseconds=1)
_ID_CHUNK = 500  # bound parameters per IN (...) list
# a row's vector columns, read or left out (NULL: a fact without vectors)
_VECTORS = "g.embedding, g.search_embedding"  # of the row read by rowid (by_subject)
_NO_VECTORS = "NULL, NULL"

_DDL = (
    # rid is the rowid alias: stable under VACUUM, so the FTS rows can key on it.
    """
    CREATE TABLE IF NOT EXISTS facts (
        rid           INTEGER PRIMARY KEY,
        fact_id       TEXT    NOT NULL UNIQUE,
        tenant_id     TEXT    NOT NULL,
        user_id       TEXT    NOT NULL,
        key           TEXT    NOT NULL,
        status        TEXT    NOT NULL,
        predicate     TEXT    NOT NULL,
        type          TEXT    NOT NULL,
        valid_from    INTEGER NOT NULL,
        valid_to      INTEGER,
        recorded_at   INTEGER NOT NULL,
        superseded_at INTEGER,
        doc           TEXT    NOT NULL,
        embedding     BLOB,
        search_embedding BLOB
    )
    """,
    "CREATE INDEX IF NOT EXISTS facts_by_key ON facts (tenant_id, user_id, key)",
    "CREATE INDEX IF NOT EXISTS facts_by_status ON facts (tenant_id, user_id, status)",
    """
    CREATE VIRTUAL TABLE IF NOT EXISTS facts_fts USING fts5(
        text, tokenize = 'porter unicode61 remove_diacritics 2'
    )
    """,
    # the turns the in-process runner has applied, committed with their facts: a replay
    # is skipped, a turn id reused for other content is refused (keyed digest, no text)
    """
    CREATE TABLE IF NOT EXISTS turns (
        tenant_id    TEXT NOT NULL,
        turn_id      TEXT NOT NULL,
        user_id      TEXT NOT NULL,
        content_hmac TEXT NOT NULL,
        PRIMARY KEY (tenant_id, turn_id)
    ) WITHOUT ROWID
    """,
    usage_sql.USAGE_DDL,
)

_COLUMNS = (
    "fact_id, tenant_id, user_id, key, status, predicate, type, valid_from, valid_to, "
    "recorded_at, superseded_at, doc, embedding, search_embedding"
)
_UPSERT = f"""
    INSERT INTO facts ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
    ON CONFLICT (fact_id) DO UPDATE SET
        tenant_id = excluded.tenant_id, user_id = excluded.user_id, key = excluded.key,
        status = excluded.status, predicate = excluded.predicate, type = excluded.type,
        valid_from = excluded.valid_from, valid_to = excluded.valid_to,
        recorded_at = excluded.recorded_at, superseded_at = excluded.superseded_at,
        doc = excluded.doc, embedding = excluded.embedding,
        search_embedding = excluded.search_embedding
    RETURNING rid
"""

FloatVector = npt.NDArray[np.float32]


def fts_query(text: str, *, max_terms: int = MAX_QUERY_TERMS) -> str | None:
    """An FTS5 ``MATCH`` expression for free text: each word quoted, ORed together.

    Quoting makes every term a plain string, so user text cannot use FTS5
    syntax (``NEAR(``, ``*``, ``-``, ``:``, ``OR``, column filters). Returns
    ``None`` when the text has no word at all: the BM25 side then finds nothing.

    >>> fts_query('NEAR(editor* "vim") OR -emacs: x_y')
    '"NEAR" OR "editor" OR "vim" OR "OR" OR "emacs" OR "x_y"'
    >>> fts_query('"*" -- :') is None
    True
    """
    terms = ['"' + t.replace('"', '""') + '"' for t in query_terms(text, max_terms)]
    return " OR ".join(terms) if terms else None


_SAVEPOINT_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")


def _savepoint_name(name: str) -> str:
    if not _SAVEPOINT_RE.match(name):
        raise ValueError(f"savepoint name {name!r} must be a plain identifier")
    return name


def _micros(dt: datetime) -> int:
    if dt.tzinfo is None:
        raise ValueError(f"datetime {dt.isoformat()} must carry a time zone")
    return (dt - _EPOCH) // _MICRO


def _opt_micros(dt: datetime | None) -> int | None:
    return None if dt is None else _micros(dt)


class EmbeddedIndex(Closing):
    """A :class:`memgate.core.stores.RetrievalStore` in one SQLite file (no server).

    * ``path``: the database file (created with its parent directory if
      missing); the WAL and shared-memory files sit beside it.
    * ``dim``: the embedding dimension; every stored embedding and every
      query vector must have it. Opening a file whose embeddings have another
      dimension raises :class:`memgate.core.errors.ConfigError`.
    * ``busy_timeout``: seconds to wait for another process's write lock
      before a write fails with :class:`memgate.core.errors.TransientError`.

    One connection per instance, serialised by a lock: an instance may be
    shared by threads. Use it as a context manager or call :meth:`close`.
    """

    def __init__(self, path: Path, dim: int, *, busy_timeout: float = 5.0) -> None:
        if dim <= 0:
            raise ConfigError(f"EmbeddedIndex dim must be positive, got {dim}")
        self.path = Path(path)
        self.dim = dim
        self._lock = threading.Lock()
        self._rows = RowCache()  # parsed facts by their row (memgate.sinks.embedded_rows)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            conn = sqlite3.connect(
                self.path,
                timeout=busy_timeout,
                isolation_level=None,  # autocommit; transactions are explicit
                check_same_thread=False,
            )
        except sqlite3.Error as exc:
            raise ConfigError(f"cannot open the embedded index at {self.path}: {exc}") from exc
        self._conn: sqlite3.Connection | None = conn
        try:
            self._init_schema(conn)
        except sqlite3.Error as exc:
            conn.close()
            self._conn = None
            raise ConfigError(f"cannot open the embedded index at {self.path}: {exc}") from exc
        except BaseException:
            conn.close()
            self._conn = None
            raise

    # -- lifecycle ---------------------------------------------------------------

    def _init_schema(self, conn: sqlite3.Connection) -> None:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise ConfigError(
                f"{self.path} has schema version {version}; this memgate reads up to "
                f"{SCHEMA_VERSION}. Upgrade memgate or point the index at another path."
            )
        mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        if str(mode).lower() != "wal":
            raise ConfigError(f"{self.path}: SQLite refused WAL mode (got {mode!r})")
        conn.execute("PRAGMA synchronous = FULL")
        conn.execute("PRAGMA cache_size = -65536")  # 64 MiB: a user's vectors stay cached
        conn.execute("PRAGMA secure_delete = ON")
        conn.execute("PRAGMA foreign_keys = ON")
        with self._tx(conn):
            for stmt in _DDL:
                conn.execute(stmt)
            if 0 < version < 2:
                # v1 had no search_embedding: its facts had no context and are found by
                # their statement vector (the column stays NULL)
                conn.execute("ALTER TABLE facts ADD COLUMN search_embedding BLOB")
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        row = conn.execute(
            "SELECT length(embedding) FROM facts WHERE embedding IS NOT NULL LIMIT 1"
        ).fetchone()
        if row is not None and row[0] != 4 * self.dim:
            raise ConfigError(
                f"{self.path} holds {row[0] // 4}-dimensional embeddings but the index was "
                f"opened with dim={self.dim}; use the same embedder or another path."
            )

    def close(self) -> None:
        """Close the connection (idempotent); an open batch is rolled back, not committed."""
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def __repr__(self) -> str:
        return f"EmbeddedIndex(path={str(self.path)!r}, dim={self.dim})"

    # -- plumbing ------------------------------------------------------------------

    @contextmanager
    def _locked(self) -> Iterator[sqlite3.Connection]:
        """The connection, under the lock, with SQLite errors mapped to memgate's."""
        with self._lock:
            if self._conn is None:
                raise StoreError(f"{self!r} is closed")
            try:
                yield self._conn
            except sqlite3.OperationalError as exc:
                msg = str(exc)
                if "locked" in msg or "busy" in msg:
                    raise TransientError(f"embedded index {self.path}: {msg}") from exc
                raise StoreError(f"embedded index {self.path}: {msg}") from exc
            except sqlite3.Error as exc:
                raise StoreError(f"embedded index {self.path}: {exc}") from exc

    @staticmethod
    @contextmanager
    def _tx(conn: sqlite3.Connection) -> Iterator[None]:
        """One write transaction: all or nothing.

        Inside a batch (:meth:`begin`) it is a savepoint: all or nothing too, but
        committed with the batch.
        """
        if conn.in_transaction:
            conn.execute("SAVEPOINT memgate_tx")
            try:
                yield
            except BaseException:
                conn.execute("ROLLBACK TO memgate_tx")
                conn.execute("RELEASE memgate_tx")
                raise
            conn.execute("RELEASE memgate_tx")
            return
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    # -- batches (transaction support) -----------------------------------------------

    @property
    def in_batch(self) -> bool:
        """True between :meth:`begin` and :meth:`commit` / :meth:`rollback`."""
        conn = self._conn
        return conn is not None and conn.in_transaction

    def begin(self) -> None:
        """Open a batch: the writes that follow are committed together by :meth:`commit`.

        Takes SQLite's write lock (other writers wait, readers are not blocked).
        A batch belongs to the thread that drives it.
        """
        with self._locked() as conn:
            if conn.in_transaction:
                raise StoreError(f"{self!r}: a batch is already open")
            conn.execute("BEGIN IMMEDIATE")

    def commit(self) -> None:
        """Commit the open batch (no-op when none is open)."""
        with self._locked() as conn:
            if conn.in_transaction:
                conn.execute("COMMIT")

    def rollback(self) -> None:
        """Undo the open batch (no-op when none is open)."""
        with self._locked() as conn:
            if conn.in_transaction:
                conn.execute("ROLLBACK")

    def savepoint(self, name: str) -> None:
        """Mark a point inside the open batch that :meth:`rollback_to` returns to."""
        with self._locked() as conn:
            if not conn.in_transaction:
                raise StoreError(f"{self!r}: savepoint {name!r} needs an open batch")
            conn.execute(f'SAVEPOINT "{_savepoint_name(name)}"')

    def release(self, name: str) -> None:
        """Keep what was written since the savepoint (it commits with the batch)."""
        with self._locked() as conn:
            conn.execute(f'RELEASE "{_savepoint_name(name)}"')

    def rollback_to(self, name: str) -> None:
        """Undo what was written since the savepoint, and drop the savepoint."""
        with self._locked() as conn:
            sp = _savepoint_name(name)
            conn.execute(f'ROLLBACK TO "{sp}"')
            conn.execute(f'RELEASE "{sp}"')

    # -- the turns ledger ------------------------------------------------------------

    def seen_turns(self, tenant_id: str, turn_ids: Sequence[str]) -> dict[str, tuple[str, str]]:
        """turn id -> (user id, content digest) for the given turns already applied."""
        out: dict[str, tuple[str, str]] = {}
        ids = list(dict.fromkeys(turn_ids))
        with self._locked() as conn:
            for start in range(0, len(ids), _ID_CHUNK):
                chunk = ids[start : start + _ID_CHUNK]
                marks = ", ".join("?" * len(chunk))
                for turn_id, user_id, digest in conn.execute(
                    "SELECT turn_id, user_id, content_hmac FROM turns "
                    f"WHERE tenant_id = ? AND turn_id IN ({marks})",
                    [tenant_id, *chunk],
                ):
                    out[turn_id] = (user_id, digest)
        return out

    def record_turns(self, turns: Sequence[tuple[str, str, str, str]]) -> None:
        """Record applied turns as (tenant id, turn id, user id, content digest)."""
        if not turns:
            return
        with self._locked() as conn, self._tx(conn):
            conn.executemany(
                "INSERT INTO turns (tenant_id, turn_id, user_id, content_hmac) "
                "VALUES (?, ?, ?, ?) ON CONFLICT (tenant_id, turn_id) DO UPDATE SET "
                "user_id = excluded.user_id, content_hmac = excluded.content_hmac",
                list(turns),
            )

    def _vector(self, vector: npt.ArrayLike) -> FloatVector:
        v = np.asarray(vector, dtype=np.float32).ravel()
        if v.shape != (self.dim,):
            raise ValueError(f"query vector has {v.size} values; the index has dim={self.dim}")
        return v

    def _blob(self, fact: StoredFact, name: str, values: list[float] | None) -> bytes | None:
        if values is None:
            return None
        if len(values) != self.dim:
            raise PermanentError(
                f"fact {fact.fact_id}: {name} has {len(values)} values, "
                f"the index has dim={self.dim}"
            )
        return np.asarray(values, dtype="<f4").tobytes()

    def _row(self, fact: StoredFact) -> tuple[Any, ...]:
        return (
            fact.fact_id,
            fact.tenant_id,
            fact.user_id,
            fact.key,
            fact.status.value,
            fact.predicate,
            fact.type.value,
            _micros(fact.valid_from),
            _opt_micros(fact.valid_to),
            _micros(fact.recorded_at),
            _opt_micros(fact.superseded_at),
            fact.model_dump_json(exclude={"embedding", "search_embedding"}),
            self._blob(fact, "embedding", fact.embedding),
            self._blob(fact, "search_embedding", fact.search_embedding),
        )

    def _fact(self, doc: str, blob: bytes | None, search_blob: bytes | None = None) -> StoredFact:
        return self._rows.fact(doc, blob, search_blob)

    def _facts_by_id(self, conn: sqlite3.Connection, ids: Sequence[str]) -> dict[str, StoredFact]:
        out: dict[str, StoredFact] = {}
        for start in range(0, len(ids), _ID_CHUNK):
            chunk = list(ids[start : start + _ID_CHUNK])
            marks = ", ".join("?" * len(chunk))
            for fact_id, doc, blob, sblob in conn.execute(
                "SELECT fact_id, doc, embedding, search_embedding FROM facts "
                f"WHERE fact_id IN ({marks})",
                chunk,
            ):
                out[fact_id] = self._fact(doc, blob, sblob)
        return out

    def _cosine_top(
        self,
        conn: sqlite3.Connection,
        where: str,
        params: Sequence[Any],
        vector: FloatVector,
        k: int,
        *,
        retrieval: bool = False,
    ) -> list[tuple[str, float]]:
        """Exact cosine k-NN over the rows selected by ``where`` (which scopes tenant and user).

        ``retrieval``: compare the vector of the fact's search text (statement and
        context) where it has one, else the statement's; otherwise the statement's.
        """
        col = "coalesce(f.search_embedding, f.embedding)" if retrieval else "f.embedding"
        rows = conn.execute(
            f"SELECT fact_id, {col} AS v FROM facts AS f WHERE {where} AND v IS NOT NULL",
            params,
        ).fetchall()
        if not rows or k <= 0:
            return []
        ids = [r[0] for r in rows]
        matrix = np.frombuffer(b"".join(r[1] for r in rows), dtype="<f4").reshape(len(rows), -1)
        # einsum, not BLAS: a single-threaded pass is faster and steadier at this size
        # than a BLAS thread pool competing with the rest of the process.
        norms = np.sqrt(np.einsum("ij,ij->i", matrix, matrix)) * float(np.sqrt(vector @ vector))
        dots = np.einsum("ij,j->i", matrix, vector)
        sims = np.divide(dots, norms, out=np.zeros_like(dots), where=norms > 0)
        n = min(k, len(ids))
        top = np.argpartition(-sims, n - 1)[:n] if n < len(ids) else np.arange(len(ids))
        # best first; ties by fact id so the ranking is deterministic
        order = sorted(top.tolist(), key=lambda i: (-float(sims[i]), ids[i]))
        return [(ids[i], float(sims[i])) for i in order]

    @staticmethod
    def _scope(query: SearchQuery) -> tuple[str, list[Any]]:
        """The WHERE clause shared by both retrievers: tenant, user, status, valid time, type."""
        clauses = ["f.tenant_id = ?", "f.user_id = ?"]
        params: list[Any] = [query.tenant_id, query.user_id]
        if query.as_of is None:
            clauses.append("f.status = ?")
            params.append(FactStatus.ACTIVE.value)
        else:
            t = _micros(query.as_of)
            clauses.append(
                "f.status IN (?, ?) AND f.valid_from <= ? "
                "AND (f.valid_to IS NULL OR f.valid_to > ?)"
            )
            params += [FactStatus.ACTIVE.value, FactStatus.SUPERSEDED.value, t, t]
        if query.types is not None:
            types = sorted({t.value for t in query.types})
            if not types:
                clauses.append("0")  # an empty type filter admits nothing
            else:
                clauses.append(f"f.type IN ({', '.join('?' * len(types))})")
                params += types
        return " AND ".join(clauses), params

    # -- RetrievalStore ------------------------------------------------------------

    def upsert(self, facts: Sequence[StoredFact], *, wait: bool = False) -> None:
        """Insert or replace facts by fact id, all in one transaction.

        A fact id already held by another tenant or user is refused with
        :class:`memgate.core.errors.PermanentError` (and nothing of the batch is
        written): one tenant's write can never overwrite another's document.
        ``wait`` is accepted for the protocol: a commit is searchable at once.
        """
        if not facts:
            return
        rows = [self._row(f) for f in facts]
        owners = {f.fact_id: (f.tenant_id, f.user_id) for f in facts}
        self._rows.drop(owners)  # an old version's content is not kept past its rewrite
        with self._locked() as conn, self._tx(conn):
            ids = list(owners)
            for start in range(0, len(ids), _ID_CHUNK):
                chunk = ids[start : start + _ID_CHUNK]
                marks = ", ".join("?" * len(chunk))
                for fact_id, tenant_id, user_id in conn.execute(
                    f"SELECT fact_id, tenant_id, user_id FROM facts WHERE fact_id IN ({marks})",
                    chunk,
                ):
                    if owners[fact_id] != (tenant_id, user_id):
                        raise PermanentError(
                            f"fact id {fact_id} already belongs to another tenant or user; "
                            "refusing to overwrite it"
                        )
            for row, fact in zip(rows, facts, strict=True):
                rid = conn.execute(_UPSERT, row).fetchone()[0]
                conn.execute("DELETE FROM facts_fts WHERE rowid = ?", (rid,))
                conn.execute(
                    "INSERT INTO facts_fts (rowid, text) VALUES (?, ?)", (rid, fact.search_text)
                )

    def get(self, tenant_id: str, user_id: str, fact_id: str) -> StoredFact | None:
        with self._locked() as conn:
            row = conn.execute(
                "SELECT doc, embedding, search_embedding FROM facts "
                "WHERE fact_id = ? AND tenant_id = ? AND user_id = ?",
                (fact_id, tenant_id, user_id),
            ).fetchone()
        return None if row is None else self._fact(row[0], row[1], row[2])

    def by_key(self, tenant_id: str, user_id: str, key: str) -> list[StoredFact]:
        """Every fact with this key, any status, oldest recorded first."""
        with self._locked() as conn:
            rows = conn.execute(
                "SELECT doc, embedding, search_embedding FROM facts "
                "WHERE tenant_id = ? AND user_id = ? AND key = ? "
                "ORDER BY recorded_at, fact_id",
                (tenant_id, user_id, key),
            ).fetchall()
        return [self._fact(doc, blob, sblob) for doc, blob, sblob in rows]

    def nearest(
        self,
        tenant_id: str,
        user_id: str,
        vector: np.ndarray,
        *,
        k: int = 5,
        statuses: Sequence[FactStatus] = (FactStatus.ACTIVE, FactStatus.PENDING),
        predicate: str | None = None,
    ) -> list[tuple[StoredFact, float]]:
        """k nearest facts by cosine similarity, best first, within tenant and user."""
        q = self._vector(vector)
        wanted = sorted({FactStatus(s).value for s in statuses})
        if not wanted or k <= 0:
            return []
        where = (
            f"f.tenant_id = ? AND f.user_id = ? AND f.status IN ({', '.join('?' * len(wanted))})"
        )
        params: list[Any] = [tenant_id, user_id, *wanted]
        if predicate is not None:
            where += " AND f.predicate = ?"
            params.append(predicate)
        with self._locked() as conn:
            top = self._cosine_top(conn, where, params, q, k)
            facts = self._facts_by_id(conn, [fid for fid, _ in top])
        return [(facts[fid], sim) for fid, sim in top]

    def by_subject(
        self,
        tenant_id: str,
        user_id: str,
        subject: str,
        *,
        statuses: Sequence[FactStatus] = (FactStatus.ACTIVE, FactStatus.PENDING),
        qualified: bool = False,
        limit: int = SUBJECT_SCAN_LIMIT,
        vectors: bool = True,
    ) -> list[StoredFact]:
        """Facts about ``subject`` (key prefix ranges on the key index), oldest recorded first;
        with ``vectors=False`` without their vectors (resolution's paraphrase check reads
        every active fact of the speaker for each candidate, for their text alone: their
        two vector blobs were most of what SQLite read and Python copied)."""
        wanted = sorted({FactStatus(s).value for s in statuses})
        if not wanted or limit <= 0:
            return []
        prefixes = subject_key_prefixes(tenant_id, user_id, subject, qualified=qualified)
        # a prefix as a range: key >= p AND key < p + U+10FFFF uses the (tenant, user, key) index
        ranges = " OR ".join("(key >= ? AND key < ?)" for _ in prefixes)
        params: list[Any] = [tenant_id, user_id, *wanted]
        for p in prefixes:
            params += [p, p + "\U0010ffff"]
        marks = ", ".join("?" * len(wanted))
        # the newest ``limit`` rows chosen and sorted on their ids alone, then their
        # documents read by rowid: sorting whole rows (a document of about 1.3 kB each) took
        # more than half of the query (issue 14: 0.55 against 0.18 to 0.31 ms for a
        # speaker's 100 active facts)
        cols = _VECTORS if vectors else _NO_VECTORS
        with self._locked() as conn:
            rows = conn.execute(
                f"SELECT s.recorded_at, s.fact_id, g.doc, {cols} FROM ("
                "SELECT rid, recorded_at, fact_id FROM facts "
                f"WHERE tenant_id = ? AND user_id = ? AND status IN ({marks}) "
                f"AND ({ranges}) ORDER BY recorded_at DESC, fact_id DESC LIMIT ?"
                ") AS s CROSS JOIN facts AS g ON g.rid = s.rid",
                [*params, limit],
            ).fetchall()
        # oldest recorded first, as the subquery chose them (the join's order is not
        # promised): text ids compare as SQLite's BINARY collation does (UTF-8 bytes sort
        # as code points), and no two rows share an id
        rows.sort(key=lambda r: (r[0], r[1]))
        return [self._fact(doc, blob, sblob) for _, _, doc, blob, sblob in rows]

    def search(self, query: SearchQuery, vector: np.ndarray) -> list[SearchHit]:
        """BM25 and cosine k-NN, each filtered in SQL, fused with RRF (k=60).

        Default: active facts only. With ``query.as_of``: facts whose valid
        time contains that instant, active or superseded (never pending).
        """
        q = self._vector(vector)
        where, params = self._scope(query)
        match = fts_query(query.text)
        with self._locked() as conn:
            lexical: list[str] = []
            if match is not None:
                with phase("lexical"):
                    lexical = [
                        r[0]
                        for r in conn.execute(
                            "SELECT f.fact_id FROM facts_fts "
                            "JOIN facts AS f ON f.rid = facts_fts.rowid "
                            f"WHERE facts_fts MATCH ? AND {where} "
                            "ORDER BY bm25(facts_fts), f.fact_id LIMIT ?",
                            [match, *params, query.candidates],
                        )
                    ]
            with phase("dense"):
                sims = dict(
                    self._cosine_top(conn, where, params, q, query.candidates, retrieval=True)
                )
            with phase("fusion"):
                fused = rrf_fuse([lexical, list(sims)], k=RRF_K)[: query.k]
            with phase("fetch"):
                facts = self._facts_by_id(conn, [fid for fid, _, _ in fused])
                return fused_hits(fused, facts, sims)

    def list_facts(
        self, tenant_id: str, user_id: str, *, include_inactive: bool = False
    ) -> list[StoredFact]:
        """The user's facts, oldest recorded first; active only unless ``include_inactive``."""
        sql = (
            "SELECT doc, embedding, search_embedding FROM facts WHERE tenant_id = ? AND user_id = ?"
        )
        params: list[Any] = [tenant_id, user_id]
        if not include_inactive:
            sql += " AND status = ?"
            params.append(FactStatus.ACTIVE.value)
        with self._locked() as conn:
            rows = conn.execute(sql + " ORDER BY recorded_at, fact_id", params).fetchall()
        return [self._fact(doc, blob, sblob) for doc, blob, sblob in rows]

    def active_facts(self, tenant_id: str, user_id: str) -> list[StoredFact]:
        """:class:`~memgate.core.stores.ListsActive`: the user's active facts, no vectors."""
        with self._locked() as conn:
            rows = conn.execute(
                "SELECT doc FROM facts WHERE tenant_id = ? AND user_id = ? AND status = ? "
                "ORDER BY recorded_at, fact_id",
                (tenant_id, user_id, FactStatus.ACTIVE.value),
            ).fetchall()
        return [self._fact(doc, None, None) for (doc,) in rows]

    def forget(self, tenant_id: str, user_id: str) -> int:
        """Delete every fact of a user, from the table, the FTS index and the disk.

        Returns how many facts were deleted. With ``secure_delete`` on (set
        when the file is opened) every freed page and cell is zeroed; the FTS
        index is then merged (``optimize``: the segments holding the deleted
        terms are rewritten and freed) and the WAL checkpointed and truncated,
        so no old copy of a page is left in the WAL either. Both steps run
        even when nothing is deleted, so a forget that failed after the
        delete is completed by running it again.

        If another connection still reads an older snapshot, the checkpoint
        cannot finish (after ``busy_timeout``): the facts are deleted, but old
        copies remain in the WAL, and :class:`memgate.core.errors.TransientError`
        says so.
        """
        return self.erase_user(tenant_id, user_id)["facts"]

    def erase_user(self, tenant_id: str, user_id: str) -> dict[str, int]:
        """:meth:`forget`, with the rows deleted per table (the deletion receipt)."""
        self._rows.clear()
        with self._locked() as conn:
            with self._tx(conn):
                counts = erasure.erase_user_rows(conn, tenant_id, user_id)
            self._scrub(conn, f"the {counts['facts']} facts of {tenant_id}/{user_id} are", "forget")
        return counts

    def erase_fact(
        self, tenant_id: str, user_id: str, fact_id: str
    ) -> tuple[StoredFact, dict[str, int]] | None:
        """Delete one fact of that user from every table and from the disk (as
        :meth:`forget` does); the fact and the rows deleted, or ``None`` if it has none."""
        fact = self.get(tenant_id, user_id, fact_id)
        if fact is None:
            return None
        self._rows.clear()
        with self._locked() as conn:
            with self._tx(conn):
                counts = erasure.erase_fact_rows(
                    conn, tenant_id, user_id, fact_id, fact.source_turn_ids
                )
            self._scrub(conn, f"fact {fact_id} of {tenant_id}/{user_id} is", "the deletion")
        return fact, counts or {}

    def _scrub(self, conn: sqlite3.Connection, what: str, again: str) -> None:
        vacuumed, checkpointed = erasure.scrub(conn)
        if not (vacuumed and checkpointed):
            raise TransientError(
                f"embedded index {self.path}: {what} deleted, but another connection is "
                "still reading an older snapshot, so old copies stay on disk (write-ahead log, "
                f"unused pages); stop the other memgate processes using this data dir and run "
                f"{again} again"
            )

    # -- UsageStore (memgate.sinks.embedded_usage) -------------------------------------

    def record_usage(self, entries: Sequence[FactUsage]) -> None:
        """Add a batch of usage counts in one transaction."""
        if entries:
            with self._locked() as conn, self._tx(conn):
                usage_sql.record_usage(conn, entries)

    def usage(self, tenant_id: str, user_id: str, fact_ids: Sequence[str]) -> dict[str, FactUsage]:
        with self._locked() as conn:
            return usage_sql.read_usage(conn, tenant_id, user_id, fact_ids)

    def delete_fact(self, tenant_id: str, user_id: str, fact_id: str) -> StoredFact | None:
        """Delete one fact of that user; the fact deleted, or ``None`` if it has none."""
        fact = self.get(tenant_id, user_id, fact_id)
        if fact is None:
            return None
        self._rows.clear()
        with self._locked() as conn, self._tx(conn):
            usage_sql.delete_one(conn, tenant_id, user_id, fact_id)
        return fact

    def stats(self) -> dict[str, int]:
        """Counts by status across the store (every status present, zeros included)."""
        counts = {s.value: 0 for s in FactStatus}
        with self._locked() as conn:
            for status, n in conn.execute("SELECT status, count(*) FROM facts GROUP BY status"):
                counts[status] = int(n)
        return counts
