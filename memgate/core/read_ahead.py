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

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol, cast, runtime_checkable

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
    "nearest_excluding",
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
    #: fact ids left out: the ``k`` nearest of the others (:func:`nearest_excluding`)
    exclude: frozenset[str] = frozenset()
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
        exclude: Iterable[str] = (),
    ) -> Nearest:
        """The request of ``view.nearest(...)`` (with ``exclude``: of
        :func:`nearest_excluding`) called with the same arguments (the vector is copied:
        a later change to the caller's array changes nothing here)."""
        vec = np.array(vector, copy=True)
        return cls(tenant_id, user_id, vec, k, _statuses(statuses), predicate, frozenset(exclude))


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


def nearest_excluding(
    view: FactView,
    tenant_id: str,
    user_id: str,
    vector: np.ndarray,
    *,
    k: int,
    statuses: Sequence[FactStatus] = _CURRENT,
    predicate: str | None = None,
    exclude: frozenset[str] = frozenset(),
) -> list[tuple[StoredFact, float]]:
    """The ``k`` nearest facts of ``view.nearest`` but for the ids in ``exclude``: the
    view's own ``nearest_excluding`` when it has one (OpenSearch leaves the ids out in the
    query, so that a read returns ``k`` facts, not ``k`` more per id left out); otherwise
    ``k + len(exclude)`` nearest read, the excluded ids dropped and ``k`` kept."""
    own = getattr(view, "nearest_excluding", None)
    if own is not None and exclude:
        return cast(
            list[tuple[StoredFact, float]],
            own(tenant_id, user_id, vector, k=k, statuses=statuses, predicate=predicate,
                exclude=exclude),
        )  # fmt: skip
    found = view.nearest(
        tenant_id, user_id, vector, k=k + len(exclude), statuses=statuses, predicate=predicate
    )
    return [(f, s) for f, s in found if f.fact_id not in exclude][: max(k, 0)]


class Prefetched:
    """A :class:`FactView` for one resolution: the reads answered ahead (``answers``, by
    request) served from those answers, every other read sent to ``store``.

    ``served`` and ``passed`` count the reads served here and those sent to the store.
    A read sent to the store is kept, and the same read asked again is served its answer
    (several steps of a resolution scan the same subject; nothing is written while the
    view lives, so the store would answer alike).
    """

    def __init__(self, store: FactView, answers: Mapping[ReadRequest, Answer]) -> None:
        self.store = store
        self._answers = dict(answers)
        self._memo: dict[ReadRequest, Answer] = {}
        self.served = 0
        self.passed = 0

    def __len__(self) -> int:
        """How many planned reads were answered ahead."""
        return len(self._answers)

    def _get(self, request: ReadRequest) -> Answer | None:
        got = self._answers.get(request)
        if got is None:
            got = self._memo.get(request)
        if got is None:
            self.passed += 1
        else:
            self.served += 1
        return got

    def _kept(self, request: ReadRequest, answer: list[Any]) -> list[Any]:
        self._memo[request] = tuple(answer)
        return answer

    def by_key(self, tenant_id: str, user_id: str, key: str) -> list[StoredFact]:
        request = ByKey(tenant_id, user_id, key)
        got = self._get(request)
        if got is None:
            return self._kept(request, self.store.by_key(tenant_id, user_id, key))
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
            return self._kept(request, self.store.by_subject(
                tenant_id, user_id, subject, statuses=statuses, qualified=qualified,
                limit=limit, vectors=vectors,
            ))  # fmt: skip
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
            return self._kept(request, self.store.nearest(
                tenant_id, user_id, vector, k=k, statuses=statuses, predicate=predicate
            ))  # fmt: skip
        return list(cast(tuple[tuple[StoredFact, float], ...], got))

    def nearest_excluding(
        self,
        tenant_id: str,
        user_id: str,
        vector: np.ndarray,
        *,
        k: int,
        statuses: Sequence[FactStatus] = _CURRENT,
        predicate: str | None = None,
        exclude: frozenset[str] = frozenset(),
    ) -> list[tuple[StoredFact, float]]:
        """:func:`nearest_excluding` served from the read-ahead when planned (as such, or
        as the ``k + len(exclude)`` nearest read it falls back to), else from the store."""
        request = Nearest.of(
            tenant_id, user_id, vector, k=k, statuses=statuses, predicate=predicate,
            exclude=exclude,
        )  # fmt: skip
        wide = replace(request, k=k + len(exclude), exclude=frozenset())
        if wide in self._answers and request not in self._answers:
            found = self.nearest(
                tenant_id, user_id, vector, k=wide.k, statuses=statuses, predicate=predicate
            )
            return [(f, s) for f, s in found if f.fact_id not in exclude][: max(k, 0)]
        got = self._get(request)
        if got is not None:
            return list(cast(tuple[tuple[StoredFact, float], ...], got))
        return self._kept(request, nearest_excluding(
            self.store, tenant_id, user_id, vector, k=k, statuses=statuses,
            predicate=predicate, exclude=exclude,
        ))  # fmt: skip
