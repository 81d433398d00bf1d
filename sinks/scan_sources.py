"""Every stored record with its text, for the leak watch (``memgate scan``).

Each reader yields :class:`ScanRecord` s: the store, the owner, the record's
id and the text fields a detector should read. They read whole stores, across
tenants, in pages: the retrieval facts (statement, value, subject, context,
rationale, key) of the embedded index or of OpenSearch, the audit journal,
decisions, fact history and shadow disagreements, and the Claude extractor's
answer cache. The dead letters are not stored by memgate (they are a Kafka
topic), so no reader reads them.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from memgate.core.stores import AuditStore

__all__ = ["AUDIT_TABLES", "ScanRecord", "audit_records", "cache_records", "fact_records"]

PAGE = 5_000


@dataclass(frozen=True)
class ScanRecord:
    store: str
    tenant_id: str
    user_id: str
    record_id: str
    texts: tuple[str, ...]


def _fact_texts(doc: dict[str, Any]) -> tuple[str, ...]:
    fields = ("text", "value", "subject", "context", "rationale")
    texts = [str(doc.get(f) or "") for f in fields]
    texts.append(str(doc.get("key") or "").replace("/", " "))
    return tuple(t for t in texts if t)


def fact_records(store: object) -> Iterator[ScanRecord]:
    """Every fact of the retrieval store (embedded SQLite or OpenSearch), any status."""
    from memgate.sinks.embedded import EmbeddedIndex

    if isinstance(store, EmbeddedIndex):
        last = 0
        while True:
            with store._locked() as conn:  # the same package: the store's own connection
                rows = conn.execute(
                    "SELECT rid, fact_id, tenant_id, user_id, doc FROM facts WHERE rid > ? "
                    "ORDER BY rid LIMIT ?",
                    (last, PAGE),
                ).fetchall()
            if not rows:
                return
            for rid, fact_id, tenant, user, doc in rows:
                yield ScanRecord("facts", tenant, user, fact_id, _fact_texts(json.loads(doc)))
                last = rid
        return
    from memgate.sinks.opensearch import OpenSearchStore
    from memgate.sinks.opensearch_mapping import RETRIEVAL_VECTOR_FIELD, VECTOR_FIELDS

    if isinstance(store, OpenSearchStore):
        from opensearchpy import helpers

        for hit in helpers.scan(
            store.client,
            index=store.index,
            query={"query": {"match_all": {}}},
            _source_excludes=[*VECTOR_FIELDS, RETRIEVAL_VECTOR_FIELD],
            size=1000,
        ):
            src = hit["_source"]
            yield ScanRecord(
                "facts", str(src.get("tenant_id")), str(src.get("user_id")), str(hit["_id"]),
                _fact_texts(src),
            )  # fmt: skip
        return
    raise TypeError(f"cannot scan a {type(store).__name__}")


#: table -> the text columns (each an SQL expression) the scan reads.
AUDIT_TABLES: dict[str, tuple[str, ...]] = {
    "journal": ("redacted_text",),
    "decisions": ("replaceAll(key, '/', ' ')", "arrayStringConcat(mapValues(details), ' ')"),
    "fact_history": ("replaceAll(key, '/', ' ')", "value"),
    "disagreements": (
        "arrayStringConcat(only_primary, ' ')",
        "arrayStringConcat(only_shadow, ' ')",
    ),
}


def audit_records(audit: AuditStore) -> Iterator[ScanRecord]:
    """Every row of the audit tables (deduplicated with FINAL), in pages by event id."""
    for table, columns in AUDIT_TABLES.items():
        last = ""
        while True:
            _, rows = audit.query(
                f"SELECT event_id, tenant_id, user_id, {', '.join(columns)} FROM {table} FINAL "
                "WHERE event_id > {last:String} ORDER BY event_id LIMIT {page:UInt32}",
                {"last": last, "page": PAGE},
            )
            if not rows:
                break
            for event_id, tenant, user, *texts in rows:
                yield ScanRecord(
                    table, str(tenant), str(user), str(event_id),
                    tuple(str(t) for t in texts if t),
                )  # fmt: skip
                last = str(event_id)


def cache_records(cache: object) -> Iterator[ScanRecord]:
    """Every answer held by the Claude extractor's cache (keyed digests as ids)."""
    from memgate.sinks.extract_cache import SQLiteAnswerCache

    if cache is None:
        return
    if not isinstance(cache, SQLiteAnswerCache):
        raise TypeError(f"cannot scan a {type(cache).__name__}")
    for digest, tenant, user, answer in cache.entries():
        yield ScanRecord("answer_cache", tenant, user, digest, (answer,))
