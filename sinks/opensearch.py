"""A retrieval store on OpenSearch: BM25 and Lucene HNSW k-NN over each fact and its context.

:class:`OpenSearchStore` keeps one document per fact (``_id`` = fact id, no
custom routing) in one index, whose template and mapping
:meth:`OpenSearchStore.ensure_index` installs. It has the semantics of
:class:`memgate.sinks.embedded.EmbeddedIndex`:

* every read is scoped by tenant and user *inside* the query: term filters in
  a ``bool`` filter for BM25 and lookups, and the same filters inside the
  ``knn`` clause for vector search (Lucene filters while it walks the graph,
  so the k nearest are the k nearest *of that user*, never a post-filter);
* :meth:`~OpenSearchStore.search` runs both retrievers in one ``_msearch``,
  each returning ``query.candidates`` ids, fuses them in the client with
  :func:`memgate.sinks.base.rrf_fuse` (k=60), then fetches the best ``query.k``
  documents with a query that repeats the same scope
  (:mod:`memgate.sinks.opensearch_search`);
* default search serves active facts only; with ``as_of`` it serves facts
  whose valid time contains that instant (``valid_from <= as_of < valid_to``
  or open-ended), active or superseded, never pending;
* a fact id already held by another tenant or user is refused with
  :class:`memgate.core.errors.PermanentError` and nothing of the batch is written:
  writes are conditional on the ``_seq_no``/``_primary_term`` read just before
  (``create`` for new ids), so a concurrent write cannot slip in between.

The first write to a missing index calls :meth:`OpenSearchStore.ensure_index`
(so an index is never created with a dynamic mapping); reads of a missing
index raise :class:`memgate.core.errors.StoreError`.

Writes and retries, and how this store differs from the embedded index:
:mod:`memgate.sinks.opensearch_mapping`.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import numpy.typing as npt
from pydantic import ValidationError

from memgate.core.closing import Closing
from memgate.core.errors import (
    ConfigError,
    MissingExtra,
    PermanentError,
    StoreError,
    TransientError,
)
from memgate.core.events import FactStatus, StoredFact
from memgate.core.retry import Backoff, retry_call
from memgate.core.settings import mask_secrets
from memgate.core.stores import SUBJECT_SCAN_LIMIT
from memgate.core.text import MAX_QUERY_TERMS
from memgate.sinks.opensearch_client import (
    PermissionRefused,
    connection_reason,
    opensearch_client,
    refusal,
    tls_refusal,
)
from memgate.sinks.opensearch_erasure import OpenSearchErasure
from memgate.sinks.opensearch_mapping import (
    _INDEX_RE,
    BULK_MAX_BYTES,
    BULK_MAX_DOCS,
    MAPPING_VERSION,
    MAX_BACKOFF_S,
    PAGE_SIZE,
    RETRIEVAL_VECTOR_FIELD,
    SEARCH_TEXT_FIELD,
    SUPPORTED_MAPPING_VERSIONS,
    BulkItemError,
    FloatVector,
    Json,
    T,
    _Doc,
    _exc_reason,
    _item_reason,
    _Retryable,
    _transient_status,
    _Version,
    document,
    index_body,
    mapping_version,
    match_text,
    unpacked,
)
from memgate.sinks.opensearch_queries import (
    knn_query,
    owner_filters,
    scope_filters,
    subject_filters,
)
from memgate.sinks.opensearch_reads import (
    OpenSearchReads,
    key_filters,
    nearest_body,
    scan_body,
    scores,
)
from memgate.sinks.opensearch_search import OpenSearchSearch
from memgate.sinks.opensearch_template import (
    SETUP_COMMAND,
    not_installable,
    template_body,
    template_meta,
    template_problem,
)

try:
    from opensearchpy import OpenSearch
    from opensearchpy.exceptions import ConnectionError as OSConnectionError
    from opensearchpy.exceptions import NotFoundError, RequestError, TransportError
except ImportError as exc:
    raise MissingExtra("opensearch", "the OpenSearch retrieval store", exc.name) from exc

if TYPE_CHECKING:
    from memgate.core.settings import Settings

__all__ = [
    "BULK_MAX_BYTES", "BULK_MAX_DOCS", "MAPPING_VERSION", "MAX_QUERY_TERMS",
    "RETRIEVAL_VECTOR_FIELD", "SEARCH_TEXT_FIELD", "BulkItemError", "OpenSearchStore",
    "index_body", "match_text",
]  # fmt: skip

log = logging.getLogger(__name__)


class OpenSearchStore(OpenSearchErasure, OpenSearchSearch, OpenSearchReads, Closing):
    """A :class:`memgate.core.stores.RetrievalStore` in one OpenSearch index.

    * ``client``: an :class:`opensearchpy.OpenSearch` client (thread-safe;
      the store may be shared by threads). Give it ``max_retries=0``: this
      store does the retrying.
    * ``index``: the index (or an alias of one); :meth:`ensure_index` creates
      it and the template ``<index>-template`` for ``<index>*``.
    * ``dim``: the embedding dimension of every fact and query vector.
    * ``refresh_on_write``: every write waits until it is searchable, as if
      ``wait=True`` were passed.
    * ``max_retries``, ``backoff_s``: retries after the first attempt and the
      first backoff (doubled each time, jittered, at most 30 s).
    * ``shards``, ``replicas``: of the index that :meth:`ensure_index` creates.
    * ``close_client``: :meth:`close` also closes the client
      (:meth:`from_settings` sets it, since it made the client).
    * ``url``, ``username``: named in the error of a refused login or permission and of
      a failed TLS handshake (:meth:`from_settings` passes them; the URL's password masked).
    """

    def __init__(
        self,
        client: OpenSearch,
        index: str,
        dim: int,
        *,
        refresh_on_write: bool = False,
        max_retries: int = 8,
        backoff_s: float = 0.2,
        shards: int = 1,
        replicas: int = 0,
        close_client: bool = False,
        url: str | None = None,
        username: str | None = None,
    ) -> None:
        if dim <= 0:
            raise ConfigError(f"OpenSearchStore dim must be positive, got {dim}")
        if not _INDEX_RE.match(index):
            raise ConfigError(
                f"opensearch index name {index!r} is invalid: use 1-200 lowercase letters, "
                "digits and . _ + -, starting with a letter or digit"
            )
        if max_retries < 0 or backoff_s < 0:
            raise ConfigError("max_retries and backoff_s must not be negative")
        if shards < 1 or replicas < 0:
            raise ConfigError("an index needs at least one shard and no negative replicas")
        self._client = client
        self.index = index
        self.dim = dim
        self.refresh_on_write = refresh_on_write
        self.max_retries = max_retries
        self.backoff_s = backoff_s
        self._backoff = Backoff(base=min(backoff_s, MAX_BACKOFF_S), cap=MAX_BACKOFF_S, jitter=True)
        self.shards = shards
        self.replicas = replicas
        self._close_client = close_client
        self.url = mask_secrets(url) if url is not None else None
        self.username = username
        self._where = f"OpenSearch at {self.url}" if self.url else "OpenSearch"
        self._closed = False
        #: the mapping version of the index (read once; None: not read yet)
        self._layout: int | None = None
        #: called with the operation's name on every retried attempt (the worker counts them)
        self.on_retry: Callable[[str], None] | None = None

    @classmethod
    def from_settings(cls, settings: Settings, dim: int, **kwargs: Any) -> OpenSearchStore:
        """A store (and its own client) from the ``opensearch_*`` settings.

        Retries follow ``retry_max_attempts`` (attempts in all) and
        ``retry_base_delay_s``; ``kwargs`` go to the constructor. Does not touch
        the server: call :meth:`ensure_index` once at start-up.
        """
        client = opensearch_client(settings)
        kwargs.setdefault("max_retries", max(0, settings.retry_max_attempts - 1))
        kwargs.setdefault("backoff_s", settings.retry_base_delay_s)
        kwargs.setdefault("close_client", True)
        kwargs.setdefault("url", settings.opensearch_url)
        kwargs.setdefault("username", settings.opensearch_username)
        return cls(client, settings.opensearch_index, dim, **kwargs)

    # -- lifecycle -----------------------------------------------------------------

    @property
    def client(self) -> OpenSearch:
        """The OpenSearch client (for administration: deleting a test index, say)."""
        return self._client

    @property
    def template_name(self) -> str:
        return f"{self.index}-template"

    def ensure_index(self) -> None:
        """Install the index template and create the index if missing (idempotent).

        A user whose role may not put index templates (HTTP 403, as memgate's role in
        deploy/compose.yaml) goes on if the template installed (by ``memgate setup
        opensearch``, :mod:`memgate.sinks.opensearch_template`) is the one it would have put,
        else raises :class:`memgate.core.errors.ConfigError` naming that command. An existing
        index whose ``embedding`` field is not a ``knn_vector`` of this store's dimension,
        or whose mapping version is not one of ``SUPPORTED_MAPPING_VERSIONS``, raises
        :class:`memgate.core.errors.ConfigError`; a version-2 index is used as it is.
        """
        body = index_body(self.dim, shards=self.shards, replicas=self.replicas)
        template = template_body(self.index, self.dim, body)
        try:
            self._call(
                "put index template",
                lambda: self._client.indices.put_index_template(
                    name=self.template_name, body=template
                ),
            )
        except PermissionRefused:  # a role that may not shape indices: an admin installed it?
            self._require_template()

        def create() -> None:
            if self._client.indices.exists(index=self.index):
                return
            try:
                self._client.indices.create(index=self.index, body=body)
            except RequestError as exc:  # another process won the race
                if exc.error != "resource_already_exists_exception":
                    raise

        self._call("create index", create)
        self._check_mapping()

    def _require_template(self) -> None:
        """The installed template is the one :meth:`ensure_index` would put, else ConfigError.
        With the index in place, an older (version-2) template is only logged: it shapes
        new indices alone, and this store writes its index in that index's own version."""

        def get() -> Json | None:
            try:
                return cast(Json, self._client.indices.get_index_template(name=self.template_name))
            except NotFoundError:
                return None

        try:
            got = self._call("get index template", get)
        except PermissionRefused as exc:
            raise PermissionRefused(
                exc.refused,
                "grant the role indices:admin/index_template/get and have an administrator "
                f"run `{SETUP_COMMAND}` once",
            ) from None
        meta, name = template_meta(got, self.template_name), self.template_name
        problem = template_problem(meta, name, self.dim)
        if problem is None:
            return
        older = template_problem(meta, name, self.dim, SUPPORTED_MAPPING_VERSIONS) is None
        if older and self._call(
            "index exists", lambda: self._client.indices.exists(index=self.index)
        ):
            log.warning(
                "event=old_index_template %s; index %s exists and is used as it is; an "
                "administrator runs `%s` to put version %d for new indices",
                problem, self.index, SETUP_COMMAND, MAPPING_VERSION,
            )  # fmt: skip
        else:
            raise not_installable(self._where, self.username, problem)

    def _check_mapping(self, *, check_dim: bool = True) -> int:
        """The index's mapping version (:func:`mapping_version`: ConfigError if unusable);
        kept for the documents this store writes. Every index behind an alias must share it."""
        got = self._call("get mapping", lambda: self._client.indices.get_mapping(index=self.index))
        versions = {
            name: mapping_version(name, spec.get("mappings", {}), self.dim if check_dim else None)
            for name, spec in cast(Json, got).items()
        }
        if len(set(versions.values())) > 1:
            raise ConfigError(
                f"the OpenSearch indices behind {self.index} have mapping versions {versions}; "
                "point opensearch_index at indices of one version"
            )
        self._layout = next(iter(versions.values()), MAPPING_VERSION)
        return self._layout

    @property
    def mapping_version(self) -> int:
        """The mapping version this store writes: its index's (read once), or that of the
        index it would create (:data:`MAPPING_VERSION`) while there is none. Without
        :meth:`ensure_index`, only the version is read (the server refuses another dim)."""
        if self._layout is not None:
            return self._layout
        if not self._call("index exists", lambda: self._client.indices.exists(index=self.index)):
            return MAPPING_VERSION
        return self._check_mapping(check_dim=False)

    def close(self) -> None:
        """Stop serving (idempotent); closes the client if the store made it."""
        if self._closed:
            return
        self._closed = True
        if self._close_client:
            self._client.close()

    def __repr__(self) -> str:
        return f"OpenSearchStore(index={self.index!r}, dim={self.dim})"

    # -- plumbing ------------------------------------------------------------------

    def _call(self, what: str, fn: Callable[[], T]) -> T:
        """``fn()``, retried on 429, 5xx and connection errors; other errors mapped."""
        if self._closed:
            raise StoreError(f"{self!r} is closed")
        attempts = self.max_retries + 1

        def once() -> T:
            try:
                return fn()
            except OSConnectionError as exc:
                refused = tls_refusal(exc, self._where, self.url or "")
                if refused is not None:  # retrying cannot help
                    raise refused from None
                raise _Retryable(connection_reason(exc, self._where, self.url or "")) from exc
            except TransportError as exc:
                if not _transient_status(exc.status_code):
                    raise self._mapped(what, exc) from exc
                raise _Retryable(f"HTTP {exc.status_code}: {_exc_reason(exc)}") from exc

        def warn(failures: int, exc: BaseException, _wait: float = 0.0) -> None:
            msg = "opensearch %s on %s failed (attempt %d of %d): %s"
            log.warning(msg, what, self.index, failures, attempts, exc)
            if self.on_retry is not None:
                self.on_retry(what)

        try:
            return retry_call(
                once,
                attempts=attempts,
                backoff=self._backoff,
                on_retry=warn,
                retryable=lambda exc: isinstance(exc, _Retryable),
            )
        except _Retryable as exc:
            warn(attempts, exc)
            raise TransientError(
                f"OpenSearch {what} on index {self.index} still failing after {attempts} "
                f"attempts: {exc}",
                retry_after=self._backoff.delay(attempts),
            ) from None

    def _mapped(self, what: str, exc: Any) -> Exception:
        status = exc.status_code
        reason = _exc_reason(exc)
        refused = refusal(status, reason, what, self.index, self._where, self.username)
        if refused is not None:
            return refused
        if exc.error == "security_exception":
            return ConfigError(
                f"OpenSearch refused {what} on index {self.index} (HTTP {status}: {reason}); "
                "check opensearch_username / opensearch_password and the user's permissions"
            )
        if status == 404 and exc.error == "index_not_found_exception":
            return StoreError(
                f"OpenSearch index {self.index} does not exist; call ensure_index() first"
            )
        return StoreError(f"OpenSearch {what} on index {self.index}: HTTP {status}: {reason}")

    @staticmethod
    def _check_response(resp: Json, what: str) -> Json:
        shards = resp.get("_shards") or {}
        if resp.get("timed_out") or shards.get("failed", 0):
            raise _Retryable(f"{what}: partial result ({shards.get('failed', 0)} shards failed)")
        return resp

    def _search(self, body: Json, what: str) -> Json:
        def run() -> Json:
            resp = cast(Json, self._client.search(index=self.index, body=body))
            return self._check_response(resp, what)

        return self._call(what, run)

    def _msearch(self, bodies: Sequence[Json], what: str) -> list[Json]:
        lines: list[Json] = []
        for b in bodies:
            lines += [{}, b]

        def run() -> list[Json]:
            resp = cast(Json, self._client.msearch(index=self.index, body=lines))
            out: list[Json] = []
            for r in resp["responses"]:
                if "error" in r:
                    status = r.get("status")
                    reason = _item_reason(r["error"])
                    if _transient_status(status):
                        raise _Retryable(f"{what}: HTTP {status}: {reason}")
                    if status == 404:
                        raise StoreError(
                            f"OpenSearch index {self.index} does not exist; "
                            "call ensure_index() first"
                        )
                    raise StoreError(f"OpenSearch {what} on {self.index}: HTTP {status}: {reason}")
                out.append(self._check_response(r, what))
            return out

        return self._call(what, run)

    def _vector(self, vector: npt.ArrayLike) -> FloatVector:
        v = np.asarray(vector, dtype=np.float32).ravel()
        if v.shape != (self.dim,):
            raise ValueError(f"query vector has {v.size} values; the index has dim={self.dim}")
        if not np.all(np.isfinite(v)):
            raise ValueError("query vector has non-finite values")
        return v

    def _check_fact(self, fact: StoredFact) -> StoredFact:
        if fact.embedding is not None:
            self._check_vector(fact, "embedding", fact.embedding)
            if fact.search_embedding is not None:
                self._check_vector(fact, "search_embedding", fact.search_embedding)
        return fact

    def _doc(self, fact: StoredFact, version: int) -> _Doc:
        """The document of a checked fact for an index of mapping ``version``."""
        if fact.embedding is not None:
            doc = document(fact, version)
            source = json.dumps(doc, ensure_ascii=False, separators=(",", ":"))
        else:
            source = fact.model_dump_json(exclude={"embedding", "search_embedding"})
        return _Doc(fact.fact_id, (fact.tenant_id, fact.user_id), source)

    def _check_vector(self, fact: StoredFact, name: str, values: list[float]) -> None:
        if len(values) != self.dim:
            raise PermanentError(
                f"fact {fact.fact_id}: {name} has {len(values)} values, "
                f"the index has dim={self.dim}"
            )
        arr = np.asarray(values, dtype=np.float64)
        if not np.all(np.isfinite(arr)):
            raise PermanentError(f"fact {fact.fact_id}: {name} has non-finite values")
        if not np.any(arr):
            raise PermanentError(
                f"fact {fact.fact_id}: a zero {name} has no cosine similarity; "
                f"store the fact without {name} instead"
            )

    def _fact(self, hit: Json) -> StoredFact:
        try:
            return StoredFact.model_validate(unpacked(hit["_source"], self.dim))
        except (ValidationError, ValueError) as exc:
            raise StoreError(
                f"OpenSearch index {self.index}: document {hit.get('_id')} is not a valid "
                f"StoredFact: {exc}"
            ) from exc

    _owner = staticmethod(owner_filters)
    _scope = staticmethod(scope_filters)
    _knn = staticmethod(knn_query)

    def _scan(self, filters: list[Json], what: str, *, vectors: bool = True) -> list[StoredFact]:
        """Every matching fact, oldest recorded first (exact order: re-sorted here);
        without their embeddings (two 384-float lists, most of a document) unless
        ``vectors``."""
        out: list[StoredFact] = []
        after: list[Any] | None = None
        while True:
            body = scan_body(filters, vectors=vectors, after=after)
            hits = self._search(body, what)["hits"]["hits"]
            out += [self._fact(h) for h in hits]
            if len(hits) < PAGE_SIZE:
                break
            after = hits[-1]["sort"]
        out.sort(key=lambda f: (f.recorded_at, f.fact_id))
        return out

    # -- writes --------------------------------------------------------------------

    def _versions(self, ids: Sequence[str]) -> dict[str, _Version]:
        """Owner and sequence number of the ids that exist (real-time ``_mget``)."""
        out: dict[str, _Version] = {}
        for start in range(0, len(ids), BULK_MAX_DOCS):
            chunk = list(ids[start : start + BULK_MAX_DOCS])
            resp = cast(
                Json,
                self._call(
                    "read versions",
                    lambda chunk=chunk: self._client.mget(  # type: ignore[misc]
                        index=self.index,
                        body={"ids": chunk},
                        params={"_source_includes": "tenant_id,user_id"},
                    ),
                ),
            )
            for d in resp["docs"]:
                if "error" in d and _item_reason(d["error"]).startswith("index_not_found"):
                    # first write: create the index with its mapping (never a dynamic one)
                    self.ensure_index()
                    return {}
                if "error" in d:
                    raise StoreError(
                        f"OpenSearch read of {d.get('_id')} on {self.index}: "
                        f"{_item_reason(d['error'])}"
                    )
                if d.get("found"):
                    src = d.get("_source") or {}
                    out[d["_id"]] = _Version(
                        (src.get("tenant_id", ""), src.get("user_id", "")),
                        int(d["_seq_no"]),
                        int(d["_primary_term"]),
                    )
        return out

    def _chunks(self, docs: Sequence[_Doc]) -> Iterator[list[_Doc]]:
        chunk: list[_Doc] = []
        size = 0
        for d in docs:
            if chunk and (len(chunk) >= BULK_MAX_DOCS or size + len(d.source) > BULK_MAX_BYTES):
                yield chunk
                chunk, size = [], 0
            chunk.append(d)
            size += len(d.source) + 128
        if chunk:
            yield chunk

    def _bulk_body(self, docs: Sequence[_Doc], versions: dict[str, _Version]) -> str:
        lines: list[str] = []
        for d in docs:
            v = versions.get(d.fact_id)
            if v is None:
                action: Json = {"create": {"_index": self.index, "_id": d.fact_id}}
            else:
                action = {
                    "index": {
                        "_index": self.index,
                        "_id": d.fact_id,
                        "if_seq_no": v.seq_no,
                        "if_primary_term": v.primary_term,
                    }
                }
            lines += [json.dumps(action, separators=(",", ":")), d.source]
        return "\n".join(lines) + "\n"

    def _foreign(self, docs: Sequence[_Doc], versions: dict[str, _Version]) -> list[str]:
        return [
            d.fact_id
            for d in docs
            if d.fact_id in versions and versions[d.fact_id].owner != d.owner
        ]

    def upsert(self, facts: Sequence[StoredFact], *, wait: bool = False) -> None:
        """Index facts by fact id (a rewrite replaces); see the module notes on retries.

        ``wait`` (or ``refresh_on_write``): return only once the facts are
        searchable. A fact id held by another tenant or user raises
        :class:`memgate.core.errors.PermanentError` before anything is written.
        """
        if not facts:
            return
        latest = {f.fact_id: self._check_fact(f) for f in facts}  # the last copy of an id wins
        versions = self._versions(list(latest))  # creates a missing index
        layout = self.mapping_version
        docs = [self._doc(f, layout) for f in latest.values()]
        foreign = self._foreign(docs, versions)
        if foreign:
            raise PermanentError(
                f"fact id {', '.join(foreign[:10])} already belongs to another tenant or user; "
                "refusing to overwrite it (nothing of the batch was written)"
            )
        params = {"refresh": "wait_for"} if (wait or self.refresh_on_write) else {}
        failures: dict[str, str] = {}
        for chunk in self._chunks(docs):
            self._write(chunk, versions, params, failures)
        if failures:
            shown = "; ".join(f"fact {fid}: {why}" for fid, why in list(failures.items())[:10])
            more = f" (and {len(failures) - 10} more)" if len(failures) > 10 else ""
            raise BulkItemError(
                f"OpenSearch refused {len(failures)} of {len(docs)} facts on index "
                f"{self.index}: {shown}{more}",
                failures,
            )

    def _write(
        self,
        chunk: list[_Doc],
        versions: dict[str, _Version],
        params: dict[str, str],
        failures: dict[str, str],
    ) -> None:
        """One bulk chunk, retrying the items rejected with 429/5xx or a version conflict."""
        pending = {d.fact_id: d for d in chunk}
        rounds = 0
        while True:
            body = self._bulk_body(list(pending.values()), versions)
            resp = cast(
                Json,
                self._call(
                    "bulk write",
                    lambda body=body: self._client.bulk(  # type: ignore[misc]
                        body=body, index=self.index, params=params
                    ),
                ),
            )
            throttled: list[str] = []
            conflicts: list[str] = []
            for item in resp["items"]:
                (result,) = item.values()
                fid = result["_id"]
                status = result.get("status", 500)
                if 200 <= status < 300:
                    pending.pop(fid, None)
                elif status == 409:  # changed since we read its version: read again
                    conflicts.append(fid)
                elif _transient_status(status):
                    throttled.append(f"{fid} (HTTP {status}: {_item_reason(result.get('error'))})")
                else:
                    failures[fid] = _item_reason(result.get("error"))
                    pending.pop(fid, None)
            if not pending:
                return
            rounds += 1
            if rounds > self.max_retries:
                raise TransientError(
                    f"OpenSearch bulk write on index {self.index}: {len(pending)} facts still "
                    f"not written after {rounds} attempts: "
                    + ", ".join(throttled or conflicts)[:500],
                    retry_after=self._backoff.delay(self.max_retries + 1),
                )
            log.warning(
                "opensearch bulk write on %s: retrying %d items (%d throttled, %d conflicts)",
                self.index,
                len(pending),
                len(throttled),
                len(conflicts),
            )
            if conflicts:
                fresh = self._versions(conflicts)
                for fid in conflicts:
                    versions.pop(fid, None)
                versions.update(fresh)
                for fid in self._foreign([pending[f] for f in conflicts], versions):
                    failures[fid] = "fact id now belongs to another tenant or user"
                    pending.pop(fid)
                if not pending:
                    return
            if throttled:
                time.sleep(self._backoff.delay(rounds))

    # -- reads ---------------------------------------------------------------------

    def get(self, tenant_id: str, user_id: str, fact_id: str) -> StoredFact | None:
        body = {
            "size": 1,
            "query": {
                "bool": {
                    "filter": [{"ids": {"values": [fact_id]}}, *self._owner(tenant_id, user_id)]
                }
            },
        }
        hits = self._search(body, "get")["hits"]["hits"]
        return self._fact(hits[0]) if hits else None

    def by_key(self, tenant_id: str, user_id: str, key: str) -> list[StoredFact]:
        """Every fact with this key, any status, oldest recorded first."""
        return self._scan(key_filters(tenant_id, user_id, key), "by_key")

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
        """Facts about ``subject`` (a prefix of the keyword key), oldest recorded first."""
        wanted = sorted({FactStatus(s).value for s in statuses})
        if not wanted or limit <= 0:
            return []
        filters = subject_filters(tenant_id, user_id, subject, wanted, qualified=qualified)
        return self._scan(filters, "by_subject", vectors=vectors)[-limit:]

    def list_facts(
        self, tenant_id: str, user_id: str, *, include_inactive: bool = False
    ) -> list[StoredFact]:
        """The user's facts, oldest recorded first; active only unless ``include_inactive``."""
        filters = self._owner(tenant_id, user_id)
        if not include_inactive:
            filters.append({"term": {"status": FactStatus.ACTIVE.value}})
        return self._scan(filters, "list_facts")

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
        if not wanted or k <= 0 or not np.any(q):
            return []
        body = nearest_body(tenant_id, user_id, q, k, wanted, predicate)
        hits = self._search(body, "nearest")["hits"]["hits"]
        return list(zip([self._fact(h) for h in hits], scores(hits), strict=True))

    # -- deletion and accounting ----------------------------------------------------

    def forget(self, tenant_id: str, user_id: str) -> int:
        """Delete every fact of a user (``_delete_by_query``, then refresh); returns the count.

        Documents changed concurrently (version conflicts) are deleted in a
        further pass. If a request is retried after a lost response, the
        documents it deleted are not in the count.
        """
        body = {"query": {"bool": {"filter": self._owner(tenant_id, user_id)}}}
        params: Json = {"refresh": "true", "conflicts": "proceed", "request_timeout": 300}
        deleted = 0
        for _ in range(self.max_retries + 1):
            resp = cast(
                Json,
                self._call(
                    "forget",
                    lambda: self._client.delete_by_query(
                        index=self.index, body=body, params=dict(params)
                    ),
                ),
            )
            deleted += int(resp.get("deleted", 0))
            failures = resp.get("failures") or []
            if not failures and not resp.get("version_conflicts"):
                self._forget_usage(tenant_id, user_id)
            if failures:
                reason = _item_reason(failures[0].get("cause", failures[0]))
                if not all(_transient_status(f.get("status")) for f in failures):
                    raise StoreError(f"OpenSearch forget on {self.index}: {reason}")
                log.warning("opensearch forget on %s: retrying after %s", self.index, reason)
            elif not resp.get("version_conflicts"):
                return deleted
        raise TransientError(
            f"OpenSearch forget of {tenant_id}/{user_id} on index {self.index} did not "
            f"complete after {self.max_retries + 1} passes"
        )

    def refresh(self) -> None:
        """Make every acknowledged write searchable now (:mod:`memgate.streams.recent`)."""
        self._call("refresh", lambda: self._client.indices.refresh(index=self.index))

    def stats(self) -> dict[str, int]:
        """Counts by status across the store (every status present, zeros included)."""
        body = {
            "size": 0,
            "track_total_hits": False,
            "aggs": {"by_status": {"terms": {"field": "status", "size": 20}}},
        }
        resp = self._search(body, "stats")
        counts = {s.value: 0 for s in FactStatus}
        for b in resp["aggregations"]["by_status"]["buckets"]:
            counts[str(b["key"])] = int(b["doc_count"])
        return counts
