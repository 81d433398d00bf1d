"""The store views: what the stages read through and every store implements.

A retrieval store holds :class:`StoredFact` documents (one per fact id) and
answers hybrid queries; an audit store holds the journal, the decisions of
every stage and the history of every fact. Both are scoped by tenant and
user *inside* the store: every read takes them and filters in the query.
:class:`FactView` is the read side the dedupe stage needs; the stores in
:mod:`memgate.sinks` implement :class:`RetrievalStore` and :class:`AuditStore`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from memgate.core.events import (
    AuditEvent,
    AwareDatetime,
    FactStatus,
    FactType,
    Ident,
    StoredFact,
    normalise,
)


class SearchQuery(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    tenant_id: Ident
    user_id: Ident
    text: str = Field(min_length=1)
    k: int = Field(default=10, ge=1, le=1000)
    as_of: AwareDatetime | None = Field(
        default=None,
        description="Valid-time instant: return what was true then, superseded or not.",
    )
    types: tuple[FactType, ...] | None = Field(default=None, min_length=1)
    candidates: int = Field(
        default=50, ge=1, le=2000, description="How many hits each retriever contributes."
    )
    vectors: bool = Field(
        default=True,
        description="Hits carry their facts' vectors. False: a store may leave them out of "
        "the hits whose ``vector_score`` it set (the read path needs a fact's retrieval "
        "vector only for the relevance of a hit the dense retriever did not score), and "
        "so move less.",
    )


class SearchHit(BaseModel):
    model_config = ConfigDict(frozen=True)

    fact: StoredFact
    score: float = Field(description="Reciprocal-rank-fusion score (after decay, if applied).")
    bm25_rank: int | None = None
    vector_rank: int | None = None
    vector_score: float | None = Field(
        default=None,
        description="Cosine similarity in [-1, 1] of the query vector and the fact's "
        "retrieval vector, when the dense retriever ranked it (the relevance the read path "
        "filters on).",
    )


class FactUsage(BaseModel):
    """How often a fact was served, and when last (recorded in batches by the read path)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    tenant_id: Ident
    user_id: Ident
    fact_id: str = Field(min_length=1)
    served_count: int = Field(ge=0)
    last_served: AwareDatetime


#: The most facts :meth:`FactView.by_subject` returns (the most recently recorded).
SUBJECT_SCAN_LIMIT = 500


class FactView(Protocol):
    """The read side of a retrieval store that resolution (the dedupe stage) needs."""

    def by_key(self, tenant_id: str, user_id: str, key: str) -> list[StoredFact]:
        """Every fact with this key, any status, oldest recorded first."""
        ...

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
        ...

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
        """Facts about ``subject`` (its normalised form in the key), oldest recorded first.

        With ``qualified``, also the facts about the subject's things ("user's dog" for
        ``user``). Filtered by tenant, user, status and key prefix inside the store
        (:func:`subject_key_prefixes`); at most ``limit`` facts, the most recent ones.
        With ``vectors=False`` a store may leave the facts' embeddings out (a read that
        only looks at the text: OpenSearch then sends far less); such a fact must never
        be written back, read it again by key first.
        """
        ...


def subject_key_prefixes(
    tenant_id: str, user_id: str, subject: str, *, qualified: bool = False
) -> tuple[str, ...]:
    """The key prefixes of a subject's facts (keys are ``tenant/user/subject/predicate``).

    >>> subject_key_prefixes("acme", "u1", "User", qualified=True)
    ('acme/u1/user/', 'acme/u1/users ')
    """
    subj = normalise(subject)
    own = f"{tenant_id}/{user_id}/{subj}/"
    return (own, f"{tenant_id}/{user_id}/{subj}s ") if qualified else (own,)


@runtime_checkable
class RetrievalStore(FactView, Protocol):
    """Facts with their embeddings; hybrid search fused by reciprocal rank."""

    def upsert(self, facts: Sequence[StoredFact], *, wait: bool = False) -> None:
        """Write facts (document id = fact id; a rewrite replaces).

        ``wait``: the facts are searchable when this returns.
        """

    def get(self, tenant_id: str, user_id: str, fact_id: str) -> StoredFact | None: ...

    def search(self, query: SearchQuery, vector: np.ndarray) -> list[SearchHit]:
        """BM25 and k-NN, each filtered inside the store, fused with RRF (k=60)."""
        ...

    def list_facts(
        self, tenant_id: str, user_id: str, *, include_inactive: bool = False
    ) -> list[StoredFact]: ...

    def forget(self, tenant_id: str, user_id: str) -> int:
        """Delete every fact of a user; returns how many were deleted."""
        ...

    def stats(self) -> dict[str, int]:
        """Counts by status across the store (for reports)."""
        ...

    def close(self) -> None: ...


@runtime_checkable
class ListsActive(Protocol):
    """A view that lists a user's active facts cheaply (the embedded index: one local
    query). Resolution reads them for their text alone before it embeds a probe
    (:func:`memgate.stages.resolve_probe.may_restate`); a view without it (OpenSearch) is
    read by the probe's vector, as before."""

    def active_facts(self, tenant_id: str, user_id: str) -> list[StoredFact]:
        """Every active fact of the user, without its vectors, oldest recorded first."""
        ...


@runtime_checkable
class Refreshable(Protocol):
    """A store whose searches see a write only after a refresh (OpenSearch); the
    embedded index reads its own writes at once and is not one."""

    def refresh(self) -> None:
        """Make every acknowledged write searchable now."""
        ...


@runtime_checkable
class UsageStore(Protocol):
    """What the read path needs beyond search: usage counts and deleting one fact."""

    def record_usage(self, entries: Sequence[FactUsage]) -> None:
        """Add each entry's ``served_count`` to the fact's count and keep the later
        ``last_served``; one write for the whole batch."""
        ...

    def usage(self, tenant_id: str, user_id: str, fact_ids: Sequence[str]) -> dict[str, FactUsage]:
        """The recorded usage of those facts of that user (facts never served are absent)."""
        ...

    def delete_fact(self, tenant_id: str, user_id: str, fact_id: str) -> StoredFact | None:
        """Delete one fact of that user (and its usage); the deleted fact, or ``None``
        when that user has no such fact (a fact of another tenant is not found)."""
        ...


@runtime_checkable
class AuditStore(Protocol):
    """Journal, decisions and fact history; rows deduplicated by event id."""

    def write(self, records: Sequence[AuditEvent]) -> None: ...

    def query(
        self, sql: str, parameters: dict[str, Any] | None = None
    ) -> tuple[list[str], list[tuple[Any, ...]]]:
        """Raw SQL (read-only use); returns column names and rows."""
        ...

    def report(
        self, name: str, tenant_id: str | None = None
    ) -> tuple[list[str], list[tuple[Any, ...]]]:
        """A named report (see ``memgate.sinks.audit.REPORTS``), optionally for one tenant."""
        ...

    def forget(self, tenant_id: str, user_id: str) -> int: ...

    def close(self) -> None: ...


@runtime_checkable
class AnswerCache(Protocol):
    """Answers of a model extractor, found again by what was sent (never by raw text).

    ``request`` is the exact masked request material (model, prompt version and the
    masked turn as sent); an implementation keys its rows by a *keyed* digest of it
    (HMAC with the deployment's secret), scoped to the tenant and user, so that a
    user's answers can be erased (:meth:`forget`) and no key reveals the text. A
    failing cache is a miss, never an error of the turn.
    """

    def get(self, tenant_id: str, user_id: str, request: str) -> str | None:
        """The cached answer, or None."""
        ...

    def put(self, tenant_id: str, user_id: str, request: str, answer: str) -> None:
        """Keep ``answer``; the oldest-used answers beyond the bound are evicted."""
        ...

    def forget(self, tenant_id: str, user_id: str) -> int:
        """Delete every answer of a user; returns how many."""
        ...

    def count(self, tenant_id: str | None = None, user_id: str | None = None) -> int:
        """Answers held (of one user, when both ids are given)."""
        ...


@runtime_checkable
class ErasableRetrieval(Protocol):
    """A retrieval store that erases from the disk and counts what it removed, per table
    (the deletion receipt). A store without it erases through ``forget``/``delete_fact``."""

    def erase_user(self, tenant_id: str, user_id: str) -> dict[str, int]: ...

    def erase_fact(
        self, tenant_id: str, user_id: str, fact_id: str
    ) -> tuple[StoredFact, dict[str, int]] | None: ...


@runtime_checkable
class ExpungingRetrieval(Protocol):
    """A retrieval store whose deletes stay on disk until its segments are merged
    (OpenSearch): after an erasure, :meth:`expunge_deleted` has them rewritten now."""

    def expunge_deleted(self) -> list[dict[str, str]]:
        """One record per index for the deletion receipt (index, action, outcome,
        seconds); bounded, and never raises (the documents are deleted already)."""
        ...


@runtime_checkable
class ErasableAudit(Protocol):
    """An audit store that erases content but keeps a pseudonymous skeleton of each row."""

    def erase_user(
        self, tenant_id: str, user_id: str, pseudonym: Callable[[str], str]
    ) -> dict[str, int]: ...

    def erase_fact(
        self, tenant_id: str, user_id: str, fact_id: str, turn_ids: Sequence[str]
    ) -> dict[str, int]: ...
