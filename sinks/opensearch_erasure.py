"""After an erasure on OpenSearch: the deleted documents leave the segments.

A deleted document stays in its Lucene segment (marked deleted, its bytes on
disk) until a merge rewrites the segment. :meth:`OpenSearchErasure.expunge_deleted`
asks for that merge at once on the facts index and the usage index:
``POST <index>/_forcemerge?only_expunge_deletes=true``, which rewrites only the
segments holding deleted documents. OpenSearch merges a segment that way only
when more than ``index.merge.policy.expunge_deletes_allowed`` percent of it is
deleted (10 by default: one erased fact in a large segment would stay), so the
index setting is set to 0 first (a dynamic setting; idempotent). A merge also
keeps soft-deleted documents that the shard's retention leases still cover; the
leases move on at their sync, every 30 s (not an index setting), so a merge
right after the delete expunges nothing: the merge is asked again every few
seconds until the index reports no deleted document (measured on OpenSearch
2.19: 30 s after the delete).

Bounded: one request per index, each waiting at most ``expunge_timeout_s``; a
merge that takes longer goes on inside OpenSearch and the receipt says so; a
failure is logged and reported, never raised (the documents are already
deleted and no longer served). Each index gets one record for the deletion
receipt: the index, the action, the outcome (``done``, ``timed out ...``,
``failed: <error type>``) and the seconds it took.
"""

from __future__ import annotations

import logging
import time

from memgate.sinks.opensearch_mapping import Json
from memgate.sinks.opensearch_usage import OpenSearchUsage

__all__ = ["EXPUNGE_ACTION", "EXPUNGE_TIMEOUT_S", "OpenSearchErasure"]

log = logging.getLogger("memgate.sinks.opensearch")

#: How long one index's merge is waited for.
EXPUNGE_TIMEOUT_S = 120.0
EXPUNGE_ACTION = "forcemerge only_expunge_deletes"
#: Seconds between two merges of one index while deleted documents remain.
EXPUNGE_RETRY_S = 3.0


class OpenSearchErasure(OpenSearchUsage):
    """The compaction half of erasure on the OpenSearch store (a mixin)."""

    expunge_timeout_s: float = EXPUNGE_TIMEOUT_S

    def expunge_deleted(self) -> list[dict[str, str]]:
        """Rewrite the segments of the facts and usage indices that hold deleted
        documents; one record per index (see the module doc). Never raises."""
        return [self._expunge(index) for index in (self.index, self.usage_index)]

    def _expunge(self, index: str) -> dict[str, str]:
        t0 = time.monotonic()
        timeout = self.expunge_timeout_s
        params: Json = {"ignore_unavailable": "true", "request_timeout": timeout}
        try:
            self._client.indices.put_settings(
                index=index,
                body={"index": {"merge.policy.expunge_deletes_allowed": 0}},
                params=dict(params),
            )
            outcome = self._merge_until_clean(index, params, t0 + timeout)
        except Exception as exc:  # reported in the receipt; the deletion itself is done
            name = type(exc).__name__
            if "Timeout" in name or time.monotonic() - t0 >= timeout:
                outcome = (
                    f"timed out after {timeout:g} s; OpenSearch goes on merging on its own"
                )
            else:
                outcome = f"failed: {name}"
        seconds = time.monotonic() - t0
        level = logging.INFO if outcome == "done" else logging.WARNING
        log.log(
            level,
            "event=expunge_deletes index=%s outcome=%r seconds=%.2f%s",
            index, outcome, seconds,
            "" if outcome == "done" else
            f" hint='run: POST {index}/_forcemerge?only_expunge_deletes=true'",
        )  # fmt: skip
        return {
            "index": index,
            "action": EXPUNGE_ACTION,
            "outcome": outcome,
            "seconds": f"{seconds:.2f}",
        }

    def _merge_until_clean(self, index: str, params: Json, deadline: float) -> str:
        """Refresh (the deletes reach the segments), merge, read ``docs.deleted``; again
        every :data:`EXPUNGE_RETRY_S` until none is left or ``deadline``."""
        while True:
            self._client.indices.refresh(index=index, params=dict(params))
            self._client.indices.forcemerge(
                index=index, params={**params, "only_expunge_deletes": "true"}
            )
            self._client.indices.refresh(index=index, params=dict(params))
            stats = self._client.indices.stats(index=index, metric="docs", params=dict(params))
            primaries = stats.get("_all", {}).get("primaries", {})
            deleted = int(primaries.get("docs", {}).get("deleted", 0))
            if deleted == 0:
                return "done"
            if time.monotonic() + EXPUNGE_RETRY_S > deadline:
                return (
                    f"timed out: {deleted} deleted document(s) still in the segments; "
                    "OpenSearch merges them away on its own"
                )
            time.sleep(EXPUNGE_RETRY_S)
