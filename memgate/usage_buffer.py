"""Served facts' usage, written to the store in the background, in batches.

A search counts the facts it served with :meth:`UsageBuffer.add`: the counts add up
in memory per fact (a fact served twice is one entry, count 2), and the search goes
on. One flusher thread per buffer writes them in one
:meth:`~memgate.core.stores.UsageStore.record_usage` call when ``max_facts`` facts
are pending or ``interval_s`` passed since the first of them; a search never writes
them itself, so the write's latency is off the search path (it set the search's
p99 when the search that filled the buffer wrote it inline).

Guarantees:

* **Nothing dropped.** A failed write puts its entries back (merged with what was
  served meanwhile) and the flusher retries after a backoff (``retry_s``, doubling
  up to ``interval_s``); the counts are written once, never twice, never lost.
* **Counted until written.** :meth:`UsageBuffer.pending` and ``len()`` count the
  entries being written as well as the buffered ones, until the store has them.
* **Bounded.** Past ``max_pending`` distinct facts (the store slower than the
  searches, or failing) :meth:`UsageBuffer.add` waits up to ``full_wait_s`` for the
  flusher to make room (back-pressure on the searches), then keeps the counts
  anyway: a search is slowed, never failed, and no count is dropped.
* **Synchronous on demand.** :meth:`UsageBuffer.flush` waits for the write in
  flight and writes the rest on the caller's thread (its error, if any, is
  raised and the entries are kept); :meth:`UsageBuffer.close` stops the flusher
  and flushes. The flusher runs only while something is pending (a buffer left
  idle holds no thread).
* **Read through.** :meth:`UsageBuffer.read_through` reads the store with no
  write in flight and adds what is still buffered, so a reader sees each
  serving once, whether the flusher has written it yet or not (a background
  write landing between two reads changes nothing they return).
* **Per owner.** Entries are keyed by tenant, user and fact, and written with
  their tenant and user (the stores record only an owner's own facts).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable
from datetime import datetime

from memgate.core.errors import StoreError
from memgate.core.stores import FactUsage, UsageStore

log = logging.getLogger("memgate.usage")

Key = tuple[str, str, str]
Entry = tuple[int, datetime]

#: Attempts :meth:`UsageBuffer.close` makes before it gives up and says so.
CLOSE_ATTEMPTS = 3


def _merge(into: dict[Key, Entry], other: dict[Key, Entry]) -> None:
    for key, (n, at) in other.items():
        m, last = into.get(key, (0, at))
        into[key] = (n + m, max(at, last))


class UsageBuffer:
    """Served facts' usage, written to the store in batches by a background flusher
    (see the module notes). Thread-safe."""

    def __init__(
        self,
        store: UsageStore,
        *,
        max_facts: int = 256,
        interval_s: float = 30.0,
        max_pending: int | None = None,
        retry_s: float = 1.0,
        full_wait_s: float = 5.0,
    ) -> None:
        self.store = store
        self.max_facts = max_facts
        self.interval_s = interval_s
        self.max_pending = max_pending or 16 * max_facts
        self.retry_s = retry_s
        self.full_wait_s = full_wait_s
        self.flushes = 0
        """Batches written."""
        self.failures = 0
        """Writes that failed (their entries kept and retried)."""
        self.last_error: BaseException | None = None
        self._pending: dict[Key, Entry] = {}
        self._inflight: dict[Key, Entry] = {}
        self._since: float | None = None
        self._retry_at: float | None = None
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._io = threading.Lock()  # one write at a time, by the flusher or by flush()
        self._thread: threading.Thread | None = None
        self._closed = False

    # -- the search side ---------------------------------------------------------------

    def add(self, tenant_id: str, user_id: str, fact_ids: list[str], at: datetime) -> None:
        """Count one serving of each fact; returns at once (the write is the flusher's)."""
        with self._changed:
            if len(self._pending) >= self.max_pending and not self._closed:
                self._make_room()
            for fid in fact_ids:
                n, last = self._pending.get((tenant_id, user_id, fid), (0, at))
                self._pending[(tenant_id, user_id, fid)] = (n + 1, max(last, at))
            if not self._pending:
                return
            if self._since is None:
                self._since = time.monotonic()
            if self._closed:  # no flusher after close(): kept for flush()
                return
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name="memgate-usage-flush", daemon=True
                )
                self._thread.start()
            elif len(self._pending) >= self.max_facts:
                self._changed.notify_all()

    def _make_room(self) -> None:
        """Wait (lock held) up to ``full_wait_s`` for the flusher to take the pending
        entries; then go on over the bound rather than drop or fail (module notes)."""
        self._changed.notify_all()
        deadline = time.monotonic() + self.full_wait_s
        while len(self._pending) >= self.max_pending and not self._closed:
            left = deadline - time.monotonic()
            if left <= 0:
                log.warning(
                    "usage buffer over its bound: pending=%d max_pending=%d; the store "
                    "writes slower than searches serve (or fails: %s)",
                    len(self._pending), self.max_pending,
                    type(self.last_error).__name__ if self.last_error else "no error",
                )  # fmt: skip
                return
            self._changed.wait(left)

    # -- what is not written yet -------------------------------------------------------

    def __len__(self) -> int:
        """Distinct facts buffered or being written."""
        with self._lock:
            return len(self._pending.keys() | self._inflight.keys())

    def pending(self, tenant_id: str, user_id: str, fact_id: str) -> Entry | None:
        """What is counted for one fact and not yet written (buffered or being written):
        the count and the last time served; ``None`` when nothing is."""
        key = (tenant_id, user_id, fact_id)
        with self._lock:
            a, b = self._pending.get(key), self._inflight.get(key)
        if a is None or b is None:
            return a or b
        return (a[0] + b[0], max(a[1], b[1]))

    def read_through(
        self,
        tenant_id: str,
        user_id: str,
        fact_ids: Iterable[str],
        read: Callable[[], dict[str, FactUsage]],
    ) -> dict[str, FactUsage]:
        """The usage of an owner's facts as the store will hold it once everything
        counted is written: ``read()`` (the store's usage of those facts) runs while no
        write is in flight, and what is still buffered is added to it."""
        wanted = set(fact_ids)
        with self._io:  # no write starts or ends while the store is read
            stored = read()
            with self._lock:
                extra = {
                    k[2]: e
                    for k, e in self._pending.items()
                    if k[:2] == (tenant_id, user_id) and k[2] in wanted
                }
        out = dict(stored)
        for fid, (n, at) in extra.items():
            was = out.get(fid)
            out[fid] = FactUsage(
                tenant_id=tenant_id, user_id=user_id, fact_id=fid,
                served_count=n + (was.served_count if was else 0),
                last_served=max(at, was.last_served) if was else at,
            )  # fmt: skip
        return out

    # -- writing -----------------------------------------------------------------------

    def _write_once(self) -> bool:
        """Write what is pending in one batch (``_io`` held); ``True`` when written or
        nothing was pending. On failure the entries go back and the error is raised."""
        with self._lock:
            if not self._pending:
                return True
            batch, self._pending, self._since = self._pending, {}, None
            self._inflight = batch
            self._changed.notify_all()  # room for a waiting add()
        entries = [
            FactUsage(tenant_id=t, user_id=u, fact_id=f, served_count=n, last_served=at)
            for (t, u, f), (n, at) in batch.items()
        ]
        try:
            self.store.record_usage(entries)
        except BaseException as exc:
            with self._lock:  # kept for the next attempt, with what came meanwhile
                _merge(self._pending, batch)
                self._inflight = {}
                self._since = self._since or time.monotonic()
                self.failures += 1
                self.last_error = exc
            raise
        with self._lock:
            self._inflight = {}
            self.flushes += 1
            self.last_error = None
            self._retry_at = None  # the store answers again: no backoff
            self._changed.notify_all()
        return True

    def flush(self) -> None:
        """Write everything counted so far, now, on this thread: waits for the write in
        flight, then writes the rest. Raises the store's error (the entries are kept)."""
        with self._io:
            self._write_once()

    def _due(self, now: float) -> float | None:
        """Seconds until the flusher should write (0: now); ``None``: nothing pending."""
        if not self._pending:
            return None
        if self._retry_at is not None:
            return max(0.0, self._retry_at - now)
        if len(self._pending) >= self.max_facts:
            return 0.0
        assert self._since is not None
        return max(0.0, self._since + self.interval_s - now)

    def _run(self) -> None:
        """The flusher: writes when due, retries a failed write after a backoff, and
        ends when nothing is pending (the next :meth:`add` starts another)."""
        try:
            self._loop()
        finally:
            with self._lock:
                self._thread = None

    def _loop(self) -> None:
        backoff = self.retry_s
        while True:
            with self._changed:
                while True:
                    wait = None if self._closed else self._due(time.monotonic())
                    if wait is None:  # nothing pending, or close() writes what is left
                        return
                    if wait <= 0:
                        break
                    self._changed.wait(wait)
            try:
                with self._io:
                    self._write_once()
            except Exception as exc:  # kept and retried: never dropped
                log.warning(
                    "usage flush failed: error=%s facts=%d; retrying in %.1f s",
                    type(exc).__name__, len(self), backoff,
                )  # fmt: skip
                with self._lock:
                    self._retry_at = time.monotonic() + backoff
                backoff = min(backoff * 2, max(self.retry_s, self.interval_s))
            else:
                backoff = self.retry_s
                with self._lock:
                    self._retry_at = None

    def close(self) -> None:
        """Stop the flusher (after its write in flight) and write what is left, with a
        few attempts; if the store still fails, raise a :class:`StoreError` that says
        how many facts' counts could not be written (idempotent)."""
        with self._changed:
            self._closed = True
            thread = self._thread
            self._changed.notify_all()
        if thread is not None and thread is not threading.current_thread():
            thread.join()
        for attempt in range(CLOSE_ATTEMPTS):
            try:
                self.flush()
                return
            except Exception as exc:
                if attempt == CLOSE_ATTEMPTS - 1:
                    raise StoreError(
                        f"the usage counts of {len(self)} served facts could not be written "
                        f"on close ({type(exc).__name__}); they decay from when the "
                        "facts were last seen. Check that the retrieval store answers."
                    ) from exc
                time.sleep(self.retry_s * (attempt + 1))

    def drop(self, tenant_id: str, user_id: str, fact_id: str | None = None) -> None:
        """Forget what is counted for a user (or one fact): it is being deleted. Waits for
        the write in flight, so the erasure that follows deletes what it wrote."""
        with self._io, self._lock:
            for key in [k for k in self._pending if k[:2] == (tenant_id, user_id)]:
                if fact_id is None or key[2] == fact_id:
                    del self._pending[key]
