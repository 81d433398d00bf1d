"""The worker's consolidation timer: ``memgate consolidate`` for the users it has read.

Every ``consolidate_every_minutes`` (``0``: never) the worker runs the lifecycle
jobs (settle, merge, fold, retention: :mod:`memgate.lifecycle`) for each user
whose turns it has read, one user at a time, each in a thread, off the event
path. The jobs are idempotent, so a user with nothing to do costs one read.

* **Which users.** The triage agent notes each turn's tenant and user (and the
  partition it came from). A rebalance keeps only the users of the partitions
  this worker still owns (another worker now writes the others' facts); at most
  :data:`MAX_TRACKED_USERS` are kept, the least recently active dropped first
  (``memgate consolidate`` from cron covers the rest).
* **Beside the dedupe stage.** Consolidation reads and rewrites a user's facts, as
  the dedupe stage does: one lock serialises the two, held by consolidation for
  one user at a time. A user whose facts it changed is dropped from the dedupe
  stage's cache of recent writes (:mod:`memgate.streams.recent`), whose copies
  are stale now.
* **Failures.** A user whose run fails is logged on one line (the error's type
  and place, never its message, which could quote stored text; no traceback),
  counted in ``memgate_consolidation_failures_total{error}`` and run again at the
  next tick; the other users go on and the worker never stops for it. A tick
  counts in ``memgate_consolidation_runs_total{outcome}`` (``ok`` or ``failed``),
  its changes in ``memgate_consolidation_changes_total{verdict}``.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime

from memgate.core.events import utcnow
from memgate.streams.metrics import Metrics
from memgate.streams.recent import RecentFacts

__all__ = ["MAX_TRACKED_USERS", "Consolidator", "RunUser", "Tick"]

log = logging.getLogger("memgate.worker.consolidate")

#: The most users one worker remembers for its timer (least recently active dropped).
MAX_TRACKED_USERS = 50_000

#: Consolidates one user (tenant, user, now) and returns its decisions by verdict.
RunUser = Callable[[str, str, datetime], Mapping[str, int]]


@dataclass(frozen=True)
class Tick:
    """What one tick did."""

    users: int
    changed: int
    failed: int
    changes: dict[str, int]
    seconds: float


def _where(exc: BaseException) -> str:
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return f"{tb.tb_frame.f_code.co_filename}:{tb.tb_lineno}" if tb is not None else "?"


@dataclass
class Consolidator:
    """The users a worker has read, and the tick that consolidates them."""

    run_user: RunUser
    metrics: Metrics
    every_minutes: float
    #: held while a user is consolidated; the dedupe stage holds it too
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    recent: RecentFacts | None = None
    max_users: int = MAX_TRACKED_USERS
    clock: Callable[[], datetime] = utcnow
    #: (tenant, user) -> the partition of the input topic its turns came from
    users: OrderedDict[tuple[str, str], int] = field(default_factory=OrderedDict)
    _running: bool = field(default=False, repr=False)

    @property
    def enabled(self) -> bool:
        return self.every_minutes > 0

    @property
    def interval_s(self) -> float:
        return self.every_minutes * 60.0

    def saw(self, tenant_id: str, user_id: str, partition: int = -1) -> None:
        """Note a user whose turn this worker read (the most recently active last)."""
        key = (tenant_id, user_id)
        self.users.pop(key, None)
        self.users[key] = partition
        while len(self.users) > self.max_users:
            self.users.popitem(last=False)

    def keep_partitions(self, partitions: Iterable[int]) -> None:
        """After a rebalance: keep only the users of the input partitions still ours."""
        mine = set(partitions)
        for key in [k for k, p in self.users.items() if p >= 0 and p not in mine]:
            del self.users[key]

    async def tick(self) -> Tick:
        """Consolidate every user noted, one at a time; never raises for a user's failure."""
        if self._running:  # a tick that outlasts the interval: the next one waits its turn
            return Tick(0, 0, 0, {}, 0.0)
        self._running = True
        t0 = time.monotonic()
        now = self.clock()
        changes: dict[str, int] = {}
        changed = failed = 0
        todo = list(self.users)
        try:
            for tenant, user in todo:
                try:
                    async with self.lock:
                        counts = await asyncio.to_thread(self.run_user, tenant, user, now)
                        if counts and self.recent is not None:
                            self.recent.forget(tenant, user)
                except Exception as exc:  # logged and counted; tried again next tick
                    failed += 1
                    self.metrics.consolidation_failures.labels(error=type(exc).__name__).inc()
                    log.error(
                        "event=consolidation_failed tenant=%s user=%s error=%s at=%s "
                        "hint='tried again at the next tick (in %g min); by hand: "
                        "memgate consolidate -t TENANT -u USER'",
                        tenant, user, type(exc).__name__, _where(exc), self.every_minutes,
                    )  # fmt: skip
                    continue
                if counts:
                    changed += 1
                    for verdict, n in counts.items():
                        changes[verdict] = changes.get(verdict, 0) + n
                        self.metrics.consolidation_changes.labels(verdict=verdict).inc(n)
        finally:
            self._running = False
        outcome = "failed" if failed else "ok"
        self.metrics.consolidation_runs.labels(outcome=outcome).inc()
        done = Tick(len(todo), changed, failed, changes, time.monotonic() - t0)
        log.info(
            "event=consolidation_tick users=%d changed=%d failed=%d changes=%s seconds=%.2f",
            done.users, done.changed, done.failed,
            ",".join(f"{k}:{v}" for k, v in sorted(changes.items())) or "-", done.seconds,
        )  # fmt: skip
        return done
