"""Per-user fairness at the input stage: a token bucket per ``tenant/user`` and a
``deferred`` topic for the turns over the quota.

Every event is keyed ``tenant/user``, so a burst of one user sits in front of every
other user of its partition. The gate keeps each user within ``rate`` turns per second
(and ``burst`` at once) on the main path; a turn over the quota goes to the
``deferred`` topic under the same key, and so does *every later turn of that user*
until its deferred backlog has drained, so that a user's turns are still processed in
the order they came. The deferred agent feeds them through the same stage steps,
taking one of the user's tokens for each (it waits for one): the burst enters the
stage topics at the user's quota, and the other users' turns on the main partition
only wait for the burst's turns to be diverted (a parse and a produce each), never for
their stage work. :mod:`memgate.streams.topology` says where the gate sits; both
runners carry it out.

**The backlog marker** of a user is the offset, in the deferred partition, of its last
deferred turn: the user has a backlog until the deferred agent has processed the
message at that offset. It lives in memory and is rebuilt, whenever partitions are
assigned (a start, a restart, a rebalance), from the deferred partition itself: every
message from the group's committed offset to the log end (what the deferred agent
will read again) sets its key's marker (:meth:`FairGate.rebuild`). Until that is done
the input partition waits (:meth:`FairGate.ready`). A marker is therefore never
missing for a user whose deferred turns are still to be read; one too many (a
message processed but not yet committed) only diverts that user's next turn too,
which the deferred agent then processes in order.

>>> t = [0.0]
>>> gate = FairGate(rate=1.0, burst=2, clock=lambda: t[0])
>>> [gate.defers("acme/alice") for _ in range(3)]
[False, False, True]
>>> gate.deferring("acme/alice"); gate.deferred("acme/alice", offset=0)
>>> gate.defers("acme/bob"), gate.defers("acme/alice")     # alice keeps her order
(False, True)
>>> gate.wait_s("acme/alice")                              # the deferred agent waits 1 s
1.0
>>> t[0] = 1.0; gate.wait_s("acme/alice"), gate.processed("acme/alice", offset=0)
(0.0, True)
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field

__all__ = ["FairGate"]
#: how often the deferred agent looks again at a full backlog
_BACKLOG_POLL_S = 0.02
#: buckets kept before the full ones of users without a backlog are forgotten
_PRUNE_AT = 50_000


@dataclass
class _Bucket:
    tokens: float
    at: float


@dataclass
class FairGate:
    """The per-user quota of the input stage and the deferred backlog markers.

    ``rate``: turns per second each user gets on the main path (0: no gate, every turn
    goes on); ``burst``: how many at once (the bucket's size).
    """

    rate: float
    burst: int
    clock: Callable[[], float] = time.monotonic
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep
    #: messages waiting in the stages after the input (None: not checked); the deferred
    #: agent feeds the next turn only while it is at most ``max_backlog``
    backlog: Callable[[], int] | None = None
    max_backlog: int = 0
    _buckets: dict[str, _Bucket] = field(default_factory=dict, init=False, repr=False)
    #: user key -> offset of its last deferred turn in the deferred partition
    _marks: dict[str, int] = field(default_factory=dict, init=False, repr=False)
    #: user key -> its deferred turns sent but not acknowledged by the broker yet
    _inflight: dict[str, int] = field(default_factory=dict, init=False, repr=False)
    #: input partitions whose markers are rebuilt (absent: not assigned yet)
    _ready: dict[int, asyncio.Event] = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        if self.rate < 0 or self.burst < 0:
            raise ValueError("fair_turns_per_s and fair_burst are at least 0")
        if self.rate > 0 and self.burst < 1:
            raise ValueError("fair_burst must be at least 1 when fair_turns_per_s is set")

    @property
    def enabled(self) -> bool:
        return self.rate > 0

    @property
    def users_waiting(self) -> int:
        """Users with deferred turns still to be processed (on this worker)."""
        return len(self._marks)

    # ------------------------------------------------------------ the main path

    def defers(self, key: str) -> bool:
        """Whether the main path sends this turn of ``key`` to the deferred topic: the user
        has a deferred backlog, or no token left. A turn that goes on takes a token."""
        if key in self._marks:  # also with the quota off: the backlog still drains first
            return True
        return self.enabled and not self._take(key)

    def deferring(self, key: str) -> None:
        """A turn of ``key`` is being sent to the deferred topic: the user has a backlog
        from now on (until the broker's acknowledgement, its offset is unknown)."""
        self._inflight[key] = self._inflight.get(key, 0) + 1
        self._marks.setdefault(key, -1)

    def deferred(self, key: str, offset: int | None) -> None:
        """The broker acknowledged a deferred turn of ``key`` at ``offset`` (None: the send
        failed; the marker stays, which is safe: the user's next turn is deferred too)."""
        n = self._inflight.get(key, 0) - 1
        if n > 0:
            self._inflight[key] = n
        else:
            self._inflight.pop(key, None)
        if offset is not None:
            self._marks[key] = max(self._marks.get(key, -1), offset)

    def undeferred(self, key: str, offset: int) -> None:
        """The deferred turn at ``offset`` was processed: drop ``key``'s marker if it was
        the last deferred turn of that user (and none is on its way)."""
        mark = self._marks.get(key)
        if mark is not None and offset >= mark and key not in self._inflight:
            del self._marks[key]

    # ---------------------------------------------------------- the deferred agent

    def wait_s(self, key: str) -> float:
        """Seconds until ``key`` has a token (0: it took one now)."""
        if not self.enabled or self._take(key):
            return 0.0
        b = self._buckets[key]
        return max((1.0 - b.tokens) / self.rate, 1e-6)

    async def take(self, key: str) -> None:
        """Wait until the stages have room (``backlog`` at most ``max_backlog``), then for
        one of ``key``'s tokens, and take it (the deferred agent's pace): the burst goes
        on at its quota, or slower when the stages cannot keep up with it."""
        if self.backlog is not None:
            while self.backlog() > self.max_backlog:
                await self.sleep(_BACKLOG_POLL_S)
        while (s := self.wait_s(key)) > 0:
            await self.sleep(s)

    def processed(self, key: str, offset: int) -> bool:
        """:meth:`undeferred`; whether ``key`` has no backlog left."""
        self.undeferred(key, offset)
        return key not in self._marks

    # ------------------------------------------------------------ restarts

    def assigned(self, partitions: Iterable[int]) -> None:
        """Partitions were assigned: their markers are unknown until :meth:`rebuild`."""
        self._marks.clear()  # every assigned partition is read again from its commit
        self._inflight.clear()
        self._ready = {p: asyncio.Event() for p in partitions}

    def rebuild(self, partition: int, pending: Iterable[tuple[str, int]]) -> None:
        """Set the markers of one deferred partition from what it holds past the group's
        committed offset (``(key, offset)`` in offset order), and let its input go on."""
        for key, offset in pending:
            self._marks[key] = max(self._marks.get(key, -1), offset)
        self._ready.setdefault(partition, asyncio.Event()).set()

    async def ready(self, partition: int) -> None:
        """Wait until ``partition``'s markers are rebuilt (at once when it was never
        assigned through :meth:`assigned`: the in-process runner, the unit tests)."""
        ev = self._ready.get(partition)
        if ev is not None:
            await ev.wait()

    # ------------------------------------------------------------ internals

    def _take(self, key: str) -> bool:
        now = self.clock()
        b = self._buckets.get(key)
        if b is None:
            if len(self._buckets) >= _PRUNE_AT:
                self._prune(now)
            b = self._buckets[key] = _Bucket(float(self.burst), now)
        else:
            b.tokens = min(float(self.burst), b.tokens + (now - b.at) * self.rate)
            b.at = now
        if b.tokens >= 1.0:
            b.tokens -= 1.0
            return True
        return False

    def _prune(self, now: float) -> None:
        """Forget the buckets that are full again (a new one starts full: no change)."""
        full = [
            k
            for k, b in self._buckets.items()
            if k not in self._marks and b.tokens + (now - b.at) * self.rate >= self.burst
        ]
        for k in full:
            del self._buckets[k]
