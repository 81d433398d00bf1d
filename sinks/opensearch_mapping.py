"""The OpenSearch index of :mod:`memgate.sinks.opensearch`: its mapping, and the small
helpers its requests share (query text, dates, error reasons).

The mapping analyses ``text`` and ``context`` like the embedded index (lowercase,
ASCII folding, Porter stemming), copies both into one ``search_text`` field for
BM25, and indexes the statement and search vectors on the Lucene HNSW engine
(the only engine whose jars Maven Central ships), cosine similarity.

Writes are ``_bulk`` requests of at most :data:`BULK_MAX_DOCS` documents. A
whole request failing with 429, 5xx or a connection error is retried with
exponential backoff (jittered); so are the items that a bulk response rejects
with 429/5xx (only those). Items rejected with another 4xx (a mapping error)
raise :class:`memgate.core.errors.PermanentError` naming each fact id and the
reason, after the other items are written. When retries run out the store
raises :class:`memgate.core.errors.TransientError`: a fact is never dropped
silently. Reads retry the same way.

Differences from the embedded index, by design or by OpenSearch:

* Near-real-time: a write is searchable after the next refresh (1 s by
  default); ``upsert(..., wait=True)`` or ``refresh_on_write`` make the write
  request wait for it (``refresh=wait_for``; with ``refresh_interval: -1``
  such a write would wait until something else refreshes). Every read, ``get``
  included, is a search (so that it can be scoped), hence near-real-time.
* ``date`` fields hold milliseconds: ``as_of`` comparisons and the
  ``recorded_at`` order are exact only to the millisecond inside the index
  (``by_key`` and ``list_facts`` re-sort with full precision in the
  client). The ``_source`` keeps the exact fact.
* BM25 runs on ``search_text`` (``text`` and ``context`` copied into one
  field), analysed like the embedded index's FTS5 column: standard tokens,
  lower-cased, accents folded, Porter-stemmed ("deploy" finds "deploys").
  k-NN search runs on ``retrieval_embedding`` (the fact's
  :attr:`~memgate.core.events.StoredFact.retrieval_vector`, indexed but left out
  of ``_source``); ``nearest`` (dedupe) on ``embedding``, the statement's.
* A batch is not atomic across items: when some items fail permanently the
  others are written (each write is idempotent, so re-sending is safe).
* Cosine is undefined for a zero vector: a zero embedding is refused with
  :class:`memgate.core.errors.PermanentError`; a zero query vector finds nothing
  on the vector side.
* ``forget`` deletes the documents; their bytes stay in Lucene segments
  until merged: an erasure then asks for that merge
  (``expunge_deleted``, :mod:`memgate.sinks.opensearch_erasure`).

Mapping versions (``_meta.memgate_mapping_version``; the store reads it from the index and
builds documents for that version, and reads either):

* 3 (new indices, "packed"): ``embedding`` and ``retrieval_embedding`` are ``knn_vector``
  fields indexed from the request document but left out of the stored ``_source``
  (``_source.excludes``; OpenSearch's fetch phase no longer parses and filters two
  384-number arrays per hit). The fact's vectors are kept in ``_source`` as ``binary``
  fields (:data:`PACKED_FIELDS`: ``embedding_f32``, ``search_embedding_f32``; not indexed,
  no doc values): base64 (standard alphabet, padded) of the vector's values as IEEE-754
  float32, little-endian, in order (``dim * 4`` bytes; ``numpy`` dtype ``<f4``). The
  embedder's vectors are float32 (the embedded index keeps the same bytes in SQLite); a
  vector with a value that is not exactly a float32 is kept as float64 instead (``dim * 8``
  bytes, ``<f8``; told apart by the length), so a fact reads back exactly as written, as
  the JSON arrays of version 2 did. The store decodes them back to
  :attr:`StoredFact.embedding` / ``search_embedding``; a field absent means ``None``. (The
  ``knn_vector`` holds float32 in both versions.)
* 2: ``embedding`` (``knn_vector``) and ``search_embedding`` (``float``, not indexed) as
  JSON number arrays in ``_source``; ``retrieval_embedding`` indexed, not kept. Still read
  and written as such; to move to 3, point ``opensearch_index`` at a new index and
  re-ingest (or copy the facts with the store: read with vectors, upsert into the new one).
  ``_reindex`` cannot: it does not build the packed fields. Nor can it copy a version-3
  index: its ``embedding`` arrays are not in ``_source`` (copy through the store instead).
"""

from __future__ import annotations

import base64
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt

from memgate.core.errors import ConfigError, PermanentError
from memgate.core.text import MAX_QUERY_TERMS, query_terms

#: ``_meta.memgate_mapping_version`` of the mapping this module writes for a new index.
MAPPING_VERSION = 3
#: The versions of an existing index the store reads and writes (see the module notes).
SUPPORTED_MAPPING_VERSIONS: tuple[int, ...] = (2, 3)
#: The analysed field BM25 searches (``text`` and ``context`` are copied into it).
SEARCH_TEXT_FIELD = "search_text"
#: Mapping version 3: each vector of the fact -> the ``binary`` field keeping its float32 bytes.
PACKED_FIELDS: dict[str, str] = {
    "embedding": "embedding_f32",
    "search_embedding": "search_embedding_f32",
}
#: The fact's own vectors in ``_source`` (JSON arrays in version 2, packed in version 3): most
#: of a document; a read that needs only the text leaves them out (of either version).
VECTOR_FIELDS: tuple[str, ...] = ("embedding", "search_embedding", *PACKED_FIELDS.values())
#: The k-NN field search() queries: the fact's retrieval vector (not kept in ``_source``).
RETRIEVAL_VECTOR_FIELD = "retrieval_embedding"
#: Documents per ``_bulk`` request (and ids per ``_mget``).
BULK_MAX_DOCS = 500
#: Bytes per ``_bulk`` request (a request is cut at whichever limit comes first).
BULK_MAX_BYTES = 8 * 1024 * 1024
#: Page size of :meth:`OpenSearchStore.by_key` and :meth:`OpenSearchStore.list_facts`.
PAGE_SIZE = 1000
#: k-NN ``k`` and result windows are capped here (``index.max_result_window``).
MAX_WINDOW = 10_000
#: Priority of the index template (above OpenSearch's built-in templates).
TEMPLATE_PRIORITY = 100
#: Longest single backoff sleep.
MAX_BACKOFF_S = 30.0

_INDEX_RE = re.compile(r"^[a-z0-9][a-z0-9._+\-]{0,199}$")

FloatVector = npt.NDArray[np.float32]
Json = dict[str, Any]
T = TypeVar("T")

_KEYWORD_FIELDS = (
    "fact_id",
    "tenant_id",
    "user_id",
    "key",
    "type",
    "predicate",
    "status",
    "superseded_by",
    "supersedes",
    "session_ids",
    "source_turn_ids",
    "extractor",
    "extractor_version",
    "policy_version",
)
_DATE_FIELDS = (
    "valid_from",
    "valid_to",
    "recorded_at",
    "superseded_at",
    "first_seen",
    "last_seen",
)
# kept in _source only: not searched, not aggregated
_STORED_ONLY_FIELDS = ("subject", "value", "rationale")


def index_body(
    dim: int, *, shards: int = 1, replicas: int = 0, version: int = MAPPING_VERSION
) -> Json:
    """Settings and mappings of a facts index (also the body of its template), of mapping
    ``version`` (3, or 2: the older layout, for tests and probes of existing indices).

    ``dynamic: strict``: every field of :class:`StoredFact` is listed (its vectors in
    version 3 as :data:`PACKED_FIELDS` besides ``embedding``), and a document with any other
    field is refused (a mapping error, permanent).

    >>> body = index_body(384)
    >>> body["mappings"]["properties"]["embedding"]["method"]["engine"]
    'lucene'
    >>> from memgate.core.events import StoredFact
    >>> fields = set(StoredFact.model_fields) | {SEARCH_TEXT_FIELD, RETRIEVAL_VECTOR_FIELD}
    >>> set(index_body(384, version=2)["mappings"]["properties"]) == fields
    True
    >>> packed = fields - {"search_embedding"} | set(PACKED_FIELDS.values())
    >>> set(body["mappings"]["properties"]) == packed
    True
    """
    if version not in SUPPORTED_MAPPING_VERSIONS:
        raise ValueError(f"no mapping version {version}: {SUPPORTED_MAPPING_VERSIONS}")

    def knn() -> Json:
        return {
            "type": "knn_vector",
            "dimension": dim,
            "method": {
                "name": "hnsw",
                "engine": "lucene",
                "space_type": "cosinesimil",
                "parameters": {"m": 16, "ef_construction": 128},
            },
        }

    props: Json = {
        "schema_version": {"type": "integer"},
        # BM25 runs on search_text: the statement and its source context, as one field
        "text": {"type": "text", "analyzer": "memgate_text", "copy_to": SEARCH_TEXT_FIELD},
        "context": {"type": "text", "analyzer": "memgate_text", "copy_to": SEARCH_TEXT_FIELD},
        SEARCH_TEXT_FIELD: {"type": "text", "analyzer": "memgate_text"},
        # nearest() (dedupe) compares statements; search() the statement with its context
        "embedding": knn(),
        "search_embedding": {"type": "float", "index": False, "doc_values": False},
        RETRIEVAL_VECTOR_FIELD: knn(),
        "confidence": {"type": "float"},
        "occurrences": {"type": "integer"},
    }
    props.update({f: {"type": "keyword"} for f in _KEYWORD_FIELDS})
    props.update({f: {"type": "date"} for f in _DATE_FIELDS})
    props.update(
        {f: {"type": "keyword", "index": False, "doc_values": False} for f in _STORED_ONLY_FIELDS}
    )
    excludes = [RETRIEVAL_VECTOR_FIELD]
    if version >= 3:  # the vectors as float32 bytes in _source, the arrays indexed only
        del props["search_embedding"]
        props.update({f: {"type": "binary", "doc_values": False} for f in PACKED_FIELDS.values()})
        excludes = ["embedding", "search_embedding", RETRIEVAL_VECTOR_FIELD]
    return {
        "settings": {
            "index": {"knn": True, "number_of_shards": shards, "number_of_replicas": replicas},
            # the embedded index's FTS5 tokenizer (porter, unicode61 remove_diacritics)
            "analysis": {
                "analyzer": {
                    "memgate_text": {
                        "type": "custom",
                        "tokenizer": "standard",
                        "filter": ["lowercase", "asciifolding", "porter_stem"],
                    }
                }
            },
        },
        "mappings": {
            "dynamic": "strict",
            "_meta": {"memgate_mapping_version": version},
            # indexed for k-NN, never returned: _source holds the StoredFact exactly
            "_source": {"excludes": excludes},
            "properties": props,
        },
    }


def pack_vector(values: list[float]) -> str:
    """A vector as a version-3 ``binary`` field: base64 of its little-endian float32 bytes
    (float64 when a value is not exactly a float32).

    >>> pack_vector([1.0, -0.5])
    'AACAPwAAAL8='
    >>> len(base64.b64decode(pack_vector([0.1, -0.5])))
    16
    """
    f32 = np.asarray(values, dtype="<f4")
    exact = np.array_equal(f32.astype(np.float64), np.asarray(values, dtype=np.float64))
    raw = f32.tobytes() if exact else np.asarray(values, dtype="<f8").tobytes()
    return base64.b64encode(raw).decode("ascii")


def unpack_vector(packed: str, dim: int) -> list[float]:
    """The values of a :func:`pack_vector` field of a ``dim``-dimensional vector.

    >>> unpack_vector('AACAPwAAAL8=', 2)
    [1.0, -0.5]
    >>> unpack_vector(pack_vector([0.1, -0.5]), 2)
    [0.1, -0.5]
    """
    raw = base64.b64decode(packed)
    if len(raw) not in (4 * dim, 8 * dim):
        raise ValueError(f"a packed vector of {len(raw)} bytes is not of dim {dim}")
    dtype = "<f4" if len(raw) == 4 * dim else "<f8"
    values: list[float] = np.frombuffer(raw, dtype=dtype).astype(np.float64).tolist()
    return values


def document(fact: Any, version: int) -> Json:
    """The document of a :class:`StoredFact` (with vectors) for an index of mapping
    ``version``: the fact as JSON, its retrieval vector for k-NN and, in version 3, its
    vectors packed (``embedding`` stays an array: indexed, not kept)."""
    if version < 3:
        doc: Json = fact.model_dump(mode="json")
    else:
        doc = fact.model_dump(mode="json", exclude={"search_embedding"})
        for name, field in PACKED_FIELDS.items():
            values = getattr(fact, name)
            if values is not None:
                doc[field] = pack_vector(values)
    doc[RETRIEVAL_VECTOR_FIELD] = fact.retrieval_vector
    return doc


def unpacked(source: Json, dim: int) -> Json:
    """A hit's ``_source`` as StoredFact fields: packed vectors (version 3) decoded in place
    (``ValueError`` for one of another dimension). A version-2 source (arrays, no packed
    field) is returned as it is."""
    for name, field in PACKED_FIELDS.items():
        packed = source.pop(field, None)
        if packed is not None:
            source[name] = unpack_vector(packed, dim)
    return source


def mapping_version(name: str, mappings: Json, dim: int | None) -> int:
    """The mapping version of index ``name`` (its ``GET _mapping`` ``mappings``), checked:
    :class:`ConfigError` for an index memgate did not create, an older or newer version than
    :data:`SUPPORTED_MAPPING_VERSIONS` or another dimension than ``dim`` (None: unchecked)."""
    props = mappings.get("properties", {})
    emb = props.get("embedding", {})
    if emb.get("type") != "knn_vector":
        raise ConfigError(
            f"OpenSearch index {name} has no knn_vector field 'embedding'; it was not "
            "created by memgate: point opensearch_index at another index"
        )
    version = (mappings.get("_meta") or {}).get("memgate_mapping_version")
    if version is None and props.get(RETRIEVAL_VECTOR_FIELD, {}).get("type") == "knn_vector":
        version = 2  # an index that lost its _meta but has the version-2 fields
    if not isinstance(version, int) or version < SUPPORTED_MAPPING_VERSIONS[0]:
        raise ConfigError(
            f"OpenSearch index {name} has an older memgate mapping (version {version}, no "
            f"'{RETRIEVAL_VECTOR_FIELD}' field; this memgate reads versions "
            f"{SUPPORTED_MAPPING_VERSIONS[0]}-{MAPPING_VERSION}); "
            "point opensearch_index at a new index and re-ingest, or reindex into one"
        )
    if version > MAPPING_VERSION:
        raise ConfigError(
            f"OpenSearch index {name} has mapping version {version}, newer than this "
            f"memgate's {MAPPING_VERSION}: upgrade memgate or point opensearch_index at "
            "another index"
        )
    if dim is not None and emb.get("dimension") != dim:
        raise ConfigError(
            f"OpenSearch index {name} holds {emb.get('dimension')}-dimensional "
            f"embeddings but the store was opened with dim={dim}; use the same "
            "embedder or another index"
        )
    return version


def match_text(text: str, *, max_terms: int = MAX_QUERY_TERMS) -> str | None:
    """The words of free text for a ``match`` query: distinct, at most ``max_terms``.

    A ``match`` query never parses query syntax; this only bounds the number
    of terms (each is a clause) and returns ``None`` when there is no word.

    >>> match_text('NEAR(editor* "vim") OR -emacs: x_y vim')
    'NEAR editor vim OR emacs x_y'
    >>> match_text('"*" -- :') is None
    True
    """
    terms = query_terms(text, max_terms)
    return " ".join(terms) if terms else None


def _iso(dt: datetime) -> str:
    if dt.tzinfo is None:
        raise ValueError(f"datetime {dt.isoformat()} must carry a time zone")
    return dt.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _transient_status(status: object) -> bool:
    """429 and 5xx are worth retrying; so is a status-less failure (connection)."""
    return not isinstance(status, int) or status == 429 or status >= 500


def _item_reason(error: object) -> str:
    if not isinstance(error, dict):
        return str(error)
    reason = f"{error.get('type', 'error')}: {error.get('reason', '')}"
    cause = error.get("caused_by")
    if isinstance(cause, dict):
        reason += f" (caused by {cause.get('type', 'error')}: {cause.get('reason', '')})"
    return reason


def _exc_reason(exc: Any) -> str:
    info = getattr(exc, "info", None)
    if isinstance(info, dict) and isinstance(info.get("error"), dict):
        return _item_reason(info["error"])
    return str(getattr(exc, "error", exc))


class BulkItemError(PermanentError):
    """Some facts of a write were refused for good; ``failures`` maps fact id to reason."""

    def __init__(self, message: str, failures: dict[str, str]) -> None:
        super().__init__(message)
        self.failures = failures


class _Retryable(Exception):
    """A response that succeeded at HTTP level but must be retried (shard failures)."""


@dataclass(frozen=True)
class _Doc:
    fact_id: str
    owner: tuple[str, str]
    source: str  # the fact as JSON


@dataclass(frozen=True)
class _Version:
    owner: tuple[str, str]
    seq_no: int
    primary_term: int
