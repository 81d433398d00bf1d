"""Erasure everywhere, with a deletion receipt: a user, or one fact.

:func:`erase_user` and :func:`erase_fact` run the erasure on every store and
return an :class:`ErasureReceipt`: what was removed where (rows per store and
table), what was kept (the audit skeleton), how the disk was cleaned, and the
bound on Kafka. The receipt holds no content and no raw id: the user appears
as its pseudonym (``erased:<keyed digest>``, the id the audit skeleton
carries), the fact by its id (a digest).

* **retrieval store**: the facts, their vectors, the FTS5 rows (and the index
  merged), the usage counts and the turn ledger; SQLite's freed pages zeroed
  (``secure_delete``), the file vacuumed and the WAL truncated
  (:mod:`memgate.sinks.embedded_erasure`). On OpenSearch the documents are
  deleted (and their usage), then the segments holding them are rewritten at
  once (``_forcemerge?only_expunge_deletes=true`` on the facts and usage indices,
  bounded, each index's outcome in the receipt's ``compaction``:
  :mod:`memgate.sinks.opensearch_erasure`).
* **audit store**: a user's rows are replaced by skeletons (pseudonymous ids,
  content columns cleared) so that every count still adds up; one fact's rows
  have their content cleared in place, as has the redacted text of the turns
  it came from (:mod:`memgate.sinks.audit_skeleton`); the replaced parts are
  gone from the disk when this returns.
* **answer cache**: the user's cached extractor answers (a user's erasure).
* **Kafka**: no topic is compacted; every topic memgate creates deletes its
  records after ``kafka_retention_hours`` (:func:`memgate.streams.app.topic_configs`),
  the bound on how long a turn (raw on the input topic) outlives its erasure.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from memgate.core.errors import ConfigError
from memgate.core.events import (
    ERASED_ID_PREFIX,
    FactHistoryRecord,
    StoredFact,
    content_hmac,
    stable_id,
    utcnow,
)
from memgate.core.memo import clear_memos
from memgate.core.settings import Settings
from memgate.core.stores import (
    AnswerCache,
    AuditStore,
    ErasableAudit,
    ErasableRetrieval,
    ExpungingRetrieval,
    RetrievalStore,
    UsageStore,
)
from memgate.keys import hmac_key
from memgate.streams.proposals import forget_user as forget_held
from memgate.streams.tentatives import forget_user as forget_tentative

ERASED_PREFIX = ERASED_ID_PREFIX  # refused as an input id (memgate.core.events)
_DISK = {
    "embedded": "secure_delete on, FTS5 index merged, file vacuumed, WAL truncated",
    "opensearch": "documents deleted, then the segments holding them rewritten "
    "(forcemerge only_expunge_deletes: see compaction)",
    "chdb": "mutations finished and replaced parts removed from disk",
    "clickhouse": "mutations finished and replaced parts removed from disk",
}


class ErasureReceipt(BaseModel):
    """What an erasure removed, where; no content, no raw id."""

    model_config = ConfigDict(frozen=True)

    kind: Literal["user", "fact"]
    tenant_id: str
    user: str = Field(description="The user's pseudonym (the id the audit skeleton carries).")
    fact_id: str | None = None
    at: datetime
    removed: dict[str, dict[str, int]] = Field(description="Rows removed, per store and table.")
    kept: dict[str, dict[str, int]] = Field(
        description="Rows kept as skeletons (ids pseudonymised, content cleared)."
    )
    disk: dict[str, str] = Field(description="How each store made the removal final on disk.")
    compaction: list[dict[str, str]] = Field(
        default_factory=list,
        description="Merges run after the deletion so that deleted documents leave the "
        "segments (OpenSearch: forcemerge only_expunge_deletes per index, with its outcome).",
    )
    kafka: dict[str, object]


def pseudonym(settings: Settings, tenant_id: str) -> Callable[[str], str]:
    """The keyed pseudonym function of one tenant's ids."""
    return _Pseudonym(hmac_key(settings), tenant_id)


class _Pseudonym:
    def __init__(self, key: bytes, tenant_id: str) -> None:
        self.key, self.tenant = key, tenant_id

    def __call__(self, value: str) -> str:
        if value.startswith(ERASED_PREFIX):
            return value
        return ERASED_PREFIX + content_hmac(self.key, f"{self.tenant}\x1f{value}")[:24]


def _kafka(settings: Settings) -> dict[str, object]:
    return {
        "used": settings.write_mode == "kafka",
        "compacted_topics": 0,
        "tombstones": 0,
        "retention_hours": settings.kafka_retention_hours,
        "note": "no memgate topic is compacted; records are deleted by retention",
    }


def erase_user_audit(
    settings: Settings, audit: AuditStore, tenant_id: str, user_id: str
) -> tuple[dict[str, int], dict[str, int]]:
    """The audit step of a user's erasure: (rows removed, rows kept as skeletons) per table."""
    if isinstance(audit, ErasableAudit):
        rows = audit.erase_user(tenant_id, user_id, pseudonym(settings, tenant_id))
        return rows, dict(rows)
    return {"rows": audit.forget(tenant_id, user_id)}, {}


def erase_user_facts(retrieval: RetrievalStore, tenant_id: str, user_id: str) -> dict[str, int]:
    """The retrieval step of a user's erasure: rows removed per table (``facts`` or
    ``documents`` first)."""
    if isinstance(retrieval, ErasableRetrieval):
        return retrieval.erase_user(tenant_id, user_id)
    return {"documents": retrieval.forget(tenant_id, user_id)}


def expunge(retrieval: RetrievalStore) -> list[dict[str, str]]:
    """After an erasure: on a store whose deletes stay in its segments until merged
    (OpenSearch), merge them away now; the records for the receipt (none elsewhere)."""
    if isinstance(retrieval, ExpungingRetrieval):
        return retrieval.expunge_deleted()
    return []


def user_receipt(
    settings: Settings,
    tenant_id: str,
    user_id: str,
    removed: dict[str, dict[str, int]],
    kept: dict[str, dict[str, int]],
    compaction: list[dict[str, str]] | None = None,
) -> ErasureReceipt:
    return ErasureReceipt(
        kind="user", tenant_id=tenant_id, user=pseudonym(settings, tenant_id)(user_id),
        at=utcnow(), removed=removed, kept=kept, disk=_disk(settings),
        compaction=compaction or [], kafka=_kafka(settings),
    )  # fmt: skip


def erase_user(
    settings: Settings,
    retrieval: RetrievalStore,
    audit: AuditStore,
    cache: AnswerCache | None,
    tenant_id: str,
    user_id: str,
) -> ErasureReceipt:
    """Erase a user from every store (cache, audit, retrieval, in that order)."""
    hmac_key(settings)  # it names the skeletons: another key than the stores' stops here
    removed: dict[str, dict[str, int]] = {}
    kept: dict[str, dict[str, int]] = {}
    if cache is not None:
        removed["answer_cache"] = {"answers": cache.forget(tenant_id, user_id)}
    removed["audit"], kept_rows = erase_user_audit(settings, audit, tenant_id, user_id)
    if kept_rows:
        kept["audit"] = kept_rows
    removed["retrieval"] = erase_user_facts(retrieval, tenant_id, user_id)
    clear_memos()  # nothing read from the user's words outlives the erasure in memory
    forget_held(tenant_id, user_id)  # nor an assistant turn held for the user's answer
    forget_tentative(tenant_id, user_id)  # nor a tentative statement held for its answer
    return user_receipt(settings, tenant_id, user_id, removed, kept, expunge(retrieval))


def erase_fact(
    settings: Settings,
    retrieval: RetrievalStore,
    audit: AuditStore,
    tenant_id: str,
    user_id: str,
    fact_id: str,
) -> tuple[StoredFact, ErasureReceipt] | None:
    """Erase one fact of a user from the retrieval store and its content from the audit
    store; ``None`` when that user has no such fact (nothing is touched)."""
    hmac_key(settings)  # it names the receipt's user: another key than the stores' stops here
    removed: dict[str, dict[str, int]] = {}
    if isinstance(retrieval, ErasableRetrieval):
        done = retrieval.erase_fact(tenant_id, user_id, fact_id)
        if done is None:
            return None
        fact, removed["retrieval"] = done
    elif isinstance(retrieval, UsageStore):
        gone = retrieval.delete_fact(tenant_id, user_id, fact_id)
        if gone is None:
            return None
        fact, removed["retrieval"] = gone, {"documents": 1}
    else:
        raise ConfigError(f"the {settings.retrieval_backend} store cannot delete a fact")
    compaction = expunge(retrieval)
    clear_memos()  # nothing read from the fact's words outlives the erasure in memory
    at = utcnow()
    # the deletion itself is history, without content (no key, no value)
    audit.write([
        FactHistoryRecord(
            event_id=stable_id("delete", tenant_id, fact.fact_id, at.isoformat()),
            tenant_id=tenant_id, user_id=user_id, fact_id=fact.fact_id, key="",
            action="delete", value="", confidence=fact.confidence,
            occurrences=fact.occurrences, source_turn_id=fact.source_turn_ids[-1],
            policy_version=fact.policy_version, at=at,
        )
    ])  # fmt: skip
    if isinstance(audit, ErasableAudit):
        removed["audit_content"] = audit.erase_fact(
            tenant_id, user_id, fact.fact_id, fact.source_turn_ids
        )
    receipt = ErasureReceipt(
        kind="fact", tenant_id=tenant_id, user=pseudonym(settings, tenant_id)(user_id),
        fact_id=fact.fact_id, at=at, removed=removed, kept={}, disk=_disk(settings),
        compaction=compaction, kafka=_kafka(settings),
    )  # fmt: skip
    return fact, receipt


def _disk(settings: Settings) -> dict[str, str]:
    return {
        "retrieval": _DISK[settings.retrieval_backend],
        "audit": _DISK[settings.audit_backend],
    }
