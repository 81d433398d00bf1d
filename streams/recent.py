"""Read-your-writes for the dedupe stage: the facts this worker wrote lately, in front of a
store whose searches see a write only after a refresh (OpenSearch).

One worker owns a user's partition, so the facts it wrote for that user are the only
ones that can be missing from the store's searches. :class:`RecentFacts` is the
:class:`memgate.core.stores.FactView` the dedupe step reads: every read goes to the store
and the answer is merged with the user's recently written facts (a fact held here
replaces the store's copy of the same id; the store's copy may be an older version). So
the worker's writes no longer need ``refresh=wait_for``: a write is acknowledged once
the store has it durably (OpenSearch: in the translog), and the next candidate of the
partition sees it at once, here.

The guarantees:

* **Only durable writes are remembered**: :meth:`RecentFacts.remember` is called after
  the store confirmed the write; a write that failed leaves nothing here.
* **A replay after a crash finds its own writes**: the cache is in memory only, so a
  restarted worker (or one that was just assigned a partition another worker wrote to)
  starts empty; the first read after that, and after every rebalance
  (:meth:`RecentFacts.reset`), refreshes the store first, so that everything written
  before (durable, not yet searchable) is searchable.
* **Bounded**: at most ``per_user`` facts per user and ``users`` users (least recently
  written first out). An entry younger than ``ttl_s`` is never dropped silently: the
  store is refreshed first. An entry older than ``ttl_s`` (longer than the store's
  refresh interval) is searchable in the store and is dropped on the next read.

Over a store that reads ahead (:mod:`memgate.core.read_ahead`: OpenSearch answers a
resolution's known reads in one ``_msearch``), :meth:`RecentFacts.read_ahead` refreshes
first when cold, asks the plan of the store, and merges this cache over each answer as
over a single read; after a :meth:`RecentFacts.reset` the answers read ahead are not
served any more.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace

import numpy as np

from memgate.core.events import FactStatus, StoredFact
from memgate.core.read_ahead import Nearest, ReadAhead, ReadPlan, ReadRequest, nearest_excluding
from memgate.core.stores import SUBJECT_SCAN_LIMIT, FactView, subject_key_prefixes

__all__ = ["RecentFacts"]

_User = tuple[str, str]
#: for a user: the view a read asks, and the cached entries merged over its answer
_Source = Callable[[str, str], tuple[FactView, dict[str, StoredFact]]]


class _SourcedReads:
    """The :class:`FactView` reads of :class:`RecentFacts` and of its read-ahead view
    (:class:`_RecentOver`), written once: each asks the view's source (:meth:`_reads`:
    the cache that merges, and where a read asks and which entries it merges)."""

    def _reads(self) -> tuple[RecentFacts, _Source]:
        raise NotImplementedError

    def by_key(self, tenant_id: str, user_id: str, key: str) -> list[StoredFact]:
        recent, src = self._reads()
        return recent._by_key(src, tenant_id, user_id, key)

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
        recent, src = self._reads()
        return recent._by_subject(
            src, tenant_id, user_id, subject, statuses=statuses, qualified=qualified,
            limit=limit, vectors=vectors,
        )  # fmt: skip

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
        recent, src = self._reads()
        return recent._nearest(
            src, tenant_id, user_id, vector, k=k, statuses=statuses, predicate=predicate
        )


class RecentFacts(_SourcedReads):
    """A :class:`FactView` over ``store`` that also sees this worker's recent writes.

    * ``refresh``: makes every durable write searchable (``OpenSearchStore.refresh``);
      called on the first read after start or :meth:`reset`, and before an entry younger
      than ``ttl_s`` is dropped to keep the cache bounded.
    * ``ttl_s``: how long an entry is kept: longer than the store's refresh interval
      (OpenSearch: 1 s by default).
    """

    def __init__(
        self,
        store: FactView,
        refresh: Callable[[], None],
        *,
        per_user: int = 256,
        users: int = 10_000,
        ttl_s: float = 10.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if per_user < 1 or users < 1 or ttl_s <= 0:
            raise ValueError("per_user and users must be positive, ttl_s above 0")
        self.store = store
        self._refresh = refresh
        self.per_user = per_user
        self.users = users
        self.ttl_s = ttl_s
        self._clock = clock
        self._lock = threading.RLock()
        # (tenant, user) -> fact id -> (written at, fact); least recently written first
        self._facts: OrderedDict[_User, OrderedDict[str, tuple[float, StoredFact]]] = OrderedDict()
        self._cold = True
        self._epoch = 0  # counts resets: a read-ahead taken before one is not served
        self.refreshes = 0
        self.hits = 0

    # -- writes --------------------------------------------------------------------

    def remember(self, facts: Iterable[StoredFact]) -> None:
        """Keep facts the store has confirmed (durably written); the latest copy wins."""
        now = self._clock()
        with self._lock:
            for f in facts:
                user = (f.tenant_id, f.user_id)
                mine = self._facts.pop(user, None) or OrderedDict()
                mine.pop(f.fact_id, None)
                mine[f.fact_id] = (now, f)
                self._facts[user] = mine
                while len(mine) > self.per_user:
                    self._drop(mine, now)
            while len(self._facts) > self.users:
                _, oldest = next(iter(self._facts.items()))
                while oldest:
                    self._drop(oldest, now)
                self._facts.popitem(last=False)

    def reset(self) -> None:
        """Forget everything (a rebalance: another worker may have written since);
        the next read refreshes the store first."""
        with self._lock:
            self._facts.clear()
            self._cold = True
            self._epoch += 1

    def forget(self, tenant_id: str, user_id: str) -> None:
        """Drop one user's entries (their facts were rewritten elsewhere and the store,
        refreshed since, has the current versions)."""
        with self._lock:
            self._facts.pop((tenant_id, user_id), None)

    def __len__(self) -> int:
        with self._lock:
            return sum(len(m) for m in self._facts.values())

    def _drop(self, mine: OrderedDict[str, tuple[float, StoredFact]], now: float) -> None:
        """Drop the oldest entry of a user; refresh the store first if it may not be
        searchable yet."""
        _, (at, _) = next(iter(mine.items()))
        if now - at < self.ttl_s:
            self._do_refresh()
        mine.popitem(last=False)

    def _do_refresh(self) -> None:
        self._refresh()
        self.refreshes += 1

    def _mine(self, tenant_id: str, user_id: str) -> dict[str, StoredFact]:
        """The user's live entries (expired ones dropped); refreshes the store when cold."""
        with self._lock:
            if self._cold:
                self._do_refresh()
                self._cold = False
            mine = self._facts.get((tenant_id, user_id))
            if not mine:
                return {}
            now = self._clock()
            while mine and now - next(iter(mine.values()))[0] >= self.ttl_s:
                mine.popitem(last=False)
            if not mine:
                del self._facts[(tenant_id, user_id)]
            return {fid: f for fid, (_, f) in mine.items()}

    # -- reads (FactView: _SourcedReads, over _plain) ----------------------------------

    def _reads(self) -> tuple[RecentFacts, _Source]:
        return self, self._plain

    def _plain(self, tenant_id: str, user_id: str) -> tuple[FactView, dict[str, StoredFact]]:
        """A read now: the store, and the user's live entries (refreshing when cold)."""
        mine = self._mine(tenant_id, user_id)
        return self.store, mine

    # -- read-ahead (memgate.core.read_ahead) ----------------------------------------

    def read_ahead(self, plan: ReadPlan) -> FactView:
        """A view for one resolution: the plan's reads asked of the store together (when
        it can read ahead), this cache merged over every answer as over a single read.

        The cold refresh comes first (:meth:`_mine`), so the answers see every durable
        write; a k-nearest read asks the store for as many more as it would on its own
        (the cached facts replace the store's copies). Every read of the view merges the
        entries the cache held at the read-ahead (taken with the answers: all the reads
        happen at that moment; a dedupe step writes nothing while it reads, so no entry
        comes in meanwhile, and one that expires meanwhile is still merged, as it was
        then). After a :meth:`reset` the view reads as a fresh read again."""
        if not isinstance(self.store, ReadAhead):
            return self
        with self._lock:
            epoch = self._epoch
        owners = dict.fromkeys((r.tenant_id, r.user_id) for r in plan.reads)
        held = {o: self._mine(*o) for o in owners}
        # a k-nearest read leaves the cached ids out where the store can (their copies
        # there may be stale), else asks for that many more
        excludes = callable(getattr(self.store, "nearest_excluding", None))
        reads: list[ReadRequest] = []
        for r in plan.reads:
            mine = held[(r.tenant_id, r.user_id)]
            if isinstance(r, Nearest) and mine:
                r = (
                    replace(r, exclude=frozenset(mine))
                    if excludes
                    else replace(r, k=r.k + len(mine))
                )
            reads.append(r)
        return _RecentOver(self, self.store.read_ahead(ReadPlan(tuple(reads))), epoch, held)

    # -- reads over a given store ------------------------------------------------------

    def _by_key(self, src: _Source, tenant_id: str, user_id: str, key: str) -> list[StoredFact]:
        store, mine = src(tenant_id, user_id)
        found = store.by_key(tenant_id, user_id, key)
        return self._merge(found, mine, lambda f: f.key == key)

    def _by_subject(
        self,
        src: _Source,
        tenant_id: str,
        user_id: str,
        subject: str,
        *,
        statuses: Sequence[FactStatus] = (FactStatus.ACTIVE, FactStatus.PENDING),
        qualified: bool = False,
        limit: int = SUBJECT_SCAN_LIMIT,
        vectors: bool = True,
    ) -> list[StoredFact]:
        store, mine = src(tenant_id, user_id)
        found = store.by_subject(
            tenant_id, user_id, subject, statuses=statuses, qualified=qualified, limit=limit,
            vectors=vectors,
        )  # fmt: skip
        if not mine or limit <= 0:
            return found
        wanted = {FactStatus(s) for s in statuses}
        prefixes = subject_key_prefixes(tenant_id, user_id, subject, qualified=qualified)
        merged = self._merge(
            found, mine, lambda f: f.status in wanted and f.key.startswith(prefixes)
        )
        return merged[-limit:]

    def _nearest(
        self,
        src: _Source,
        tenant_id: str,
        user_id: str,
        vector: np.ndarray,
        *,
        k: int = 5,
        statuses: Sequence[FactStatus] = (FactStatus.ACTIVE, FactStatus.PENDING),
        predicate: str | None = None,
    ) -> list[tuple[StoredFact, float]]:
        store, mine = src(tenant_id, user_id)
        if not mine:
            return store.nearest(
                tenant_id, user_id, vector, k=k, statuses=statuses, predicate=predicate
            )
        # the store's copies of cached ids may be stale and are replaced: the k nearest
        # of the others (left out in the query where the store can, else that many more
        # asked for and dropped here)
        found = nearest_excluding(
            store, tenant_id, user_id, vector, k=k, statuses=statuses, predicate=predicate,
            exclude=frozenset(mine),
        )  # fmt: skip
        wanted = {FactStatus(s) for s in statuses}
        q = np.asarray(vector, dtype=np.float64).ravel()
        qn = float(np.linalg.norm(q))
        out = [(f, s) for f, s in found if f.fact_id not in mine]
        for f in mine.values():
            if f.status not in wanted or f.embedding is None:
                continue
            if predicate is not None and f.predicate != predicate:
                continue
            self.hits += 1
            out.append((f, _cosine(q, qn, f.embedding)))
        out.sort(key=lambda fs: (-fs[1], fs[0].fact_id))
        return out[: max(k, 0)]

    def _merge(
        self,
        found: list[StoredFact],
        mine: dict[str, StoredFact],
        keep: Callable[[StoredFact], bool],
    ) -> list[StoredFact]:
        if not mine:
            return found
        out = [f for f in found if f.fact_id not in mine]
        extra = [f for f in mine.values() if keep(f)]
        self.hits += len(extra)
        out += extra
        out.sort(key=lambda f: (f.recorded_at, f.fact_id))
        return out


class _RecentOver(_SourcedReads):
    """:class:`RecentFacts` merged over a read-ahead view of its store (``ahead``), for
    one resolution: a planned user's reads ask ``ahead`` and merge the entries the cache
    held for them at the read-ahead (``held``); after a reset of the cache (``epoch``
    moved), and for any other user, a read is a fresh read of the cache and the store."""

    def __init__(
        self,
        recent: RecentFacts,
        ahead: FactView,
        epoch: int,
        held: dict[tuple[str, str], dict[str, StoredFact]],
    ) -> None:
        self.recent = recent
        self.ahead = ahead
        self._epoch = epoch
        self._held = held

    def _source(self, tenant_id: str, user_id: str) -> tuple[FactView, dict[str, StoredFact]]:
        held = self._held.get((tenant_id, user_id))
        with self.recent._lock:
            fresh = self.recent._epoch == self._epoch
        if fresh and held is not None:
            return self.ahead, held
        return self.recent._plain(tenant_id, user_id)

    def _reads(self) -> tuple[RecentFacts, _Source]:
        return self.recent, self._source


def _cosine(q: np.ndarray, qn: float, v: Sequence[float]) -> float:
    b = np.asarray(v, dtype=np.float64)
    denom = qn * float(np.linalg.norm(b))
    if denom == 0.0:
        return 0.0
    return max(-1.0, min(1.0, float(np.dot(q, b)) / denom))
