"""Usage counts and single-fact deletion of :class:`memgate.sinks.opensearch.OpenSearchStore`.

Usage lives in its own small index, ``usage.<index>`` (outside the facts
template's ``<index>*`` pattern), one document per fact id: tenant, user,
``served_count`` and ``last_served_us`` (microseconds since the epoch). The
read path sends a batch as one ``_bulk`` of scripted upserts (count added,
the later time kept), never one request per search; a fact rewritten by the
pipeline (an ``index`` of the whole fact document) keeps its usage, since
usage is not part of that document. :meth:`OpenSearchUsage.usage` reads by
id (``_mget``, real time); ``forget`` and ``delete_fact`` refresh the usage
index and delete the user's documents in it by query.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, cast

from memgate.core.errors import StoreError, TransientError
from memgate.core.events import StoredFact
from memgate.core.stores import FactUsage
from memgate.sinks.opensearch_mapping import (
    Json,
    T,
    _item_reason,
    _transient_status,
)
from memgate.sinks.opensearch_queries import owner_filters

if TYPE_CHECKING:
    from opensearchpy import OpenSearch

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICRO = timedelta(microseconds=1)

USAGE_MAPPING: Json = {
    "settings": {"number_of_shards": 1, "number_of_replicas": 0},
    "mappings": {
        "dynamic": "strict",
        "properties": {
            "tenant_id": {"type": "keyword"},
            "user_id": {"type": "keyword"},
            "fact_id": {"type": "keyword"},
            "served_count": {"type": "long"},
            "last_served_us": {"type": "long"},
        },
    },
}
_SCRIPT = (
    "ctx._source.served_count += params.n; "
    "ctx._source.last_served_us = Math.max(ctx._source.last_served_us, params.at);"
)


def usage_doc_id(tenant_id: str, user_id: str, fact_id: str) -> str:
    """The usage document of one owner's fact: the owner is part of the id, so a claim
    under another tenant or user can never add to this owner's counts.

    >>> usage_doc_id("acme", "u1", "f1") != usage_doc_id("acme", "U1", "f1")
    True
    """
    raw = "\x1f".join((tenant_id, user_id, fact_id)).encode()
    return hashlib.sha256(raw).hexdigest()


def usage_index_name(index: str) -> str:
    """``usage.<index>``: outside ``<index>*``, so the facts template never shapes it."""
    return f"usage.{index}"


class OpenSearchUsage:
    """The :class:`memgate.core.stores.UsageStore` half of the OpenSearch store (a mixin)."""

    _client: OpenSearch
    index: str
    _usage_ready: bool = False

    def _call(self, what: str, fn: Callable[[], T]) -> T:  # provided by the store
        raise NotImplementedError

    def get(self, tenant_id: str, user_id: str, fact_id: str) -> StoredFact | None:
        raise NotImplementedError

    @property
    def usage_index(self) -> str:
        return usage_index_name(self.index)

    def _ensure_usage_index(self) -> None:
        if self._usage_ready:
            return

        def create() -> None:
            if self._client.indices.exists(index=self.usage_index):
                return
            try:
                self._client.indices.create(index=self.usage_index, body=USAGE_MAPPING)
            except Exception as exc:  # another process won the race
                if getattr(exc, "error", None) != "resource_already_exists_exception":
                    raise

        self._call("create usage index", create)
        self._usage_ready = True

    def record_usage(self, entries: Sequence[FactUsage]) -> None:
        """One ``_bulk`` of scripted upserts for the whole batch."""
        entries = self._owned(entries)
        if not entries:
            return
        self._ensure_usage_index()
        lines: list[Json] = []
        for e in entries:
            at = (e.last_served - _EPOCH) // _MICRO
            doc_id = usage_doc_id(e.tenant_id, e.user_id, e.fact_id)
            lines.append({"update": {"_index": self.usage_index, "_id": doc_id,
                                     "retry_on_conflict": 5}})
            lines.append({
                "script": {"lang": "painless", "source": _SCRIPT,
                           "params": {"n": e.served_count, "at": at}},
                "upsert": {"tenant_id": e.tenant_id, "user_id": e.user_id, "fact_id": e.fact_id,
                           "served_count": e.served_count, "last_served_us": at},
            })  # fmt: skip
        resp = cast(Json, self._call("record usage", lambda: self._client.bulk(body=lines)))
        if resp.get("errors"):
            failed = [i["update"] for i in resp["items"] if "error" in i.get("update", {})]
            reason = _item_reason(failed[0]["error"])
            if all(_transient_status(f.get("status")) for f in failed):
                raise TransientError(f"OpenSearch record usage on {self.usage_index}: {reason}")
            raise StoreError(f"OpenSearch record usage on {self.usage_index}: {reason}")

    def _owned(self, entries: Sequence[FactUsage]) -> list[FactUsage]:
        """Only the entries whose fact belongs to the tenant and user that claim it: a
        claim on another owner's fact (a bug or a hostile caller) records nothing."""
        ids = list(dict.fromkeys(e.fact_id for e in entries))
        if not ids:
            return []
        body: Json = {
            "size": len(ids),
            "_source": ["tenant_id", "user_id"],
            "query": {"ids": {"values": ids}},
        }
        resp = cast(
            Json,
            self._call("usage owners", lambda: self._client.search(index=self.index, body=body)),
        )
        owner = {
            h["_id"]: (h["_source"]["tenant_id"], h["_source"]["user_id"])
            for h in resp["hits"]["hits"]
        }
        return [e for e in entries if owner.get(e.fact_id) == (e.tenant_id, e.user_id)]

    def usage(self, tenant_id: str, user_id: str, fact_ids: Sequence[str]) -> dict[str, FactUsage]:
        wanted = list(dict.fromkeys(fact_ids))
        if not wanted:
            return {}
        ids = [usage_doc_id(tenant_id, user_id, f) for f in wanted]
        self._ensure_usage_index()
        resp = cast(
            Json,
            self._call(
                "usage",
                lambda: self._client.mget(index=self.usage_index, body={"ids": ids}),
            ),
        )
        out: dict[str, FactUsage] = {}
        for doc in resp.get("docs", []):
            src = doc.get("_source") if doc.get("found") else None
            if src is None or (src["tenant_id"], src["user_id"]) != (tenant_id, user_id):
                continue
            out[src["fact_id"]] = FactUsage(
                tenant_id=tenant_id,
                user_id=user_id,
                fact_id=src["fact_id"],
                served_count=int(src["served_count"]),
                last_served=_EPOCH + int(src["last_served_us"]) * _MICRO,
            )
        return out

    def _delete_usage(self, filters: list[Json]) -> None:
        params: Json = {"ignore_unavailable": "true"}
        self._call(
            "refresh usage",
            lambda: self._client.indices.refresh(index=self.usage_index, params=params),
        )
        body = {"query": {"bool": {"filter": filters}}}
        params = {"refresh": "true", "conflicts": "proceed", "ignore_unavailable": "true"}
        self._call(
            "forget usage",
            lambda: self._client.delete_by_query(index=self.usage_index, body=body, params=params),
        )

    def _forget_usage(self, tenant_id: str, user_id: str) -> None:
        self._delete_usage(owner_filters(tenant_id, user_id))

    def delete_fact(self, tenant_id: str, user_id: str, fact_id: str) -> StoredFact | None:
        """Delete one fact of that user and its usage; ``None`` if that user has no such fact."""
        fact = self.get(tenant_id, user_id, fact_id)
        if fact is None:
            return None
        body = {"query": {"bool": {"filter": [{"ids": {"values": [fact_id]}},
                                              *owner_filters(tenant_id, user_id)]}}}
        params: Json = {"refresh": "true", "conflicts": "proceed"}
        self._call(
            "delete fact",
            lambda: self._client.delete_by_query(index=self.index, body=body, params=params),
        )
        self._delete_usage([{"term": {"fact_id": fact_id}}, *owner_filters(tenant_id, user_id)])
        return fact
