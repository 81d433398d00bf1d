"""Read-ahead for resolution: the reads a resolution will make, asked for together.

The dedupe stage (:class:`memgate.stages.dedupe.Resolver`) reads what is stored through
a :class:`~memgate.core.stores.FactView`. On a store where each read is a round trip
(OpenSearch), most of a candidate's time is spent waiting; yet most of its reads are
known as soon as the candidate's key, subject and vector are. The resolver lists them
in a :class:`ReadPlan`; a view that can answer several reads at once (:class:`ReadAhead`)
returns, for that resolution alone, a view (:class:`Prefetched`) that serves those reads
from the answers it got together and sends every other read to the store.

What it keeps:

* **The same answers.** A read is served from the read-ahead only when its arguments
  equal a planned read's exactly (tenant and user included, the vector by value); any
  other read, and a planned read the store did not answer at once (OpenSearch: one
  needing a second page), goes to the store as before.
* **The same freshness.** The planned reads are made at the start of the resolution,
  which writes nothing while it reads; the view it got is dropped when it ends, so no
  answer outlives its resolution.
* **Tenant scoping.** Every request names its tenant and user, and the store filters by
  them inside each query, as for a single read.

A store that reads locally (the embedded index) has no :class:`ReadAhead`: the resolver
then reads it directly.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol, cast, runtime_checkable

import numpy as np

from memgate.core.events import FactStatus, StoredFact
from memgate.core.stores import SUBJECT_SCAN_LIMIT, FactView

__all__ = [
    "ByKey",
    "BySubject",
    "Nearest",
    "Prefetched",
    "ReadAhead",
    "ReadPlan",
    "ReadRequest",
    "read_ahead",
]

_CURRENT = (FactStatus.ACTIVE, FactStatus.PENDING)


def _statuses(statuses: Sequence[FactStatus | str]) -> tuple[FactStatus, ...]:
    return tuple(FactStatus(s) for s in statuses)


@dataclass(frozen=True)
class ByKey:
    """:meth:`FactView.by_key` with these arguments."""

    tenant_id: str
    user_id: str
    key: str


@dataclass(frozen=True)
class BySubject:
    """:meth:`FactView.by_subject` with these arguments (build with :meth:`of`)."""

    tenant_id: str
    user_id: str
    subject: str
    statuses: tuple[FactStatus, ...]
    qualified: bool
    limit: int
    vectors: bool

    @classmethod
    def of(
        cls,
        tenant_id: str,
        user_id: str,
        subject: str,
        *,
        statuses: Sequence[FactStatus | str] = _CURRENT,
        qualified: bool = False,
        limit: int = SUBJECT_SCAN_LIMIT,
        vectors: bool = True,
    ) -> BySubject:
        """The request of ``view.by_subject(...)`` called with the same arguments."""
        return cls(tenant_id, user_id, subject, _statuses(statuses), qualified, limit, vectors)


@dataclass(frozen=True)
class Nearest:
    """:meth:`FactView.nearest` with these arguments (build with :meth:`of`); two
    requests are equal when their vectors are equal value for value, dtype and shape
    included."""

    tenant_id: str
    user_id: str
    vector: np.ndarray = field(compare=False, repr=False)
    k: int
    statuses: tuple[FactStatus, ...]
    predicate: str | None
    digest: bytes = field(init=False, repr=False)

    def __post_init__(self) -> None:
        v = self.vector
        object.__setattr__(self, "digest", f"{v.dtype.str}{v.shape}".encode() + v.tobytes())

    @classmethod
    def of(
        cls,
        tenant_id: str,
        user_id: str,
        vector: np.ndarray,
        *,
        k: int = 5,
        statuses: Sequence[FactStatus | str] = _CURRENT,
        predicate: str | None = None,
    ) -> Nearest:
        """The request of ``view.nearest(...)`` called with the same arguments (the
        vector is copied: a later change to the caller's array changes nothing here)."""
        vec = np.array(vector, copy=True)
        return cls(tenant_id, user_id, vec, k, _statuses(statuses), predicate)


ReadRequest = ByKey | BySubject | Nearest
#: What a planned read answered: the facts (by key or subject) or the (fact, cosine)
#: pairs (nearest), as the store's own read returns them.
Answer = tuple[StoredFact, ...] | tuple[tuple[StoredFact, float], ...]


@dataclass(frozen=True)
class ReadPlan:
    """The reads a resolution expects to make (duplicates are asked once)."""

    reads: tuple[ReadRequest, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "reads", tuple(dict.fromkeys(self.reads)))

    def __len__(self) -> int:
        return len(self.reads)


@runtime_checkable
class ReadAhead(Protocol):
    """A view that can answer a plan's reads together (in one round trip)."""

    def read_ahead(self, plan: ReadPlan) -> FactView:
        """A view for one resolution: the plan's reads answered now, every other read as
        this view answers it."""
        ...


def read_ahead(view: FactView, plan: ReadPlan) -> FactView:
    """``view.read_ahead(plan)`` when the view can read ahead and the plan has reads;
    otherwise ``view`` itself."""
    if plan.reads and isinstance(view, ReadAhead):
        return view.read_ahead(plan)
    return view


class Prefetched:
    """A :class:`FactView` for one resolution: the reads answered ahead (``answers``, by
    request) served from those answers, every other read sent to ``store``.

    ``served`` and ``passed`` count the reads served here and those sent to the store.
    """

    def __init__(self, store: FactView, answers: Mapping[ReadRequest, Answer]) -> None:
        self.store = store
        self._answers = dict(answers)
        self.served = 0
        self.passed = 0

    def __len__(self) -> int:
        """How many planned reads were answered ahead."""
        return len(self._answers)

    def _get(self, request: ReadRequest) -> Answer | None:
        got = self._answers.get(request)
        if got is None:
            self.passed += 1
        else:
            self.served += 1
        return got

    def by_key(self, tenant_id: str, user_id: str, key: str) -> list[StoredFact]:
        got = self._get(ByKey(tenant_id, user_id, key))
        if got is None:
            return self.store.by_key(tenant_id, user_id, key)
        return list(cast(tuple[StoredFact, ...], got))

    def by_subject(
        self,
        tenant_id: str,
        user_id: str,
        subject: str,
        *,
        statuses: Sequence[FactStatus] = _CURRENT,
        qualified: bool = False,
        limit: int = SUBJECT_SCAN_LIMIT,
        vectors: bool = True,
    ) -> list[StoredFact]:
        request = BySubject.of(
            tenant_id, user_id, subject, statuses=statuses, qualified=qualified, limit=limit,
            vectors=vectors,
        )  # fmt: skip
        got = self._get(request)
        if got is None:
            return self.store.by_subject(
                tenant_id, user_id, subject, statuses=statuses, qualified=qualified,
                limit=limit, vectors=vectors,
            )  # fmt: skip
        return list(cast(tuple[StoredFact, ...], got))

    def nearest(
        self,
        tenant_id: str,
        user_id: str,
        vector: np.ndarray,
        *,
        k: int = 5,
        statuses: Sequence[FactStatus] = _CURRENT,
        predicate: str | None = None,
    ) -> list[tuple[StoredFact, float]]:
        request = Nearest.of(
            tenant_id, user_id, vector, k=k, statuses=statuses, predicate=predicate
        )
        got = self._get(request)
        if got is None:
            return self.store.nearest(
                tenant_id, user_id, vector, k=k, statuses=statuses, predicate=predicate
            )
        return list(cast(tuple[tuple[StoredFact, float], ...], got))
