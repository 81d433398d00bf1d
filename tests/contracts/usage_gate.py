"""A store's ``record_usage`` behind a gate, to see who writes the usage and when (the
usage buffer's tests, on the embedded store and on OpenSearch)."""

from __future__ import annotations

import threading
from collections.abc import Sequence

from memgate.core.errors import TransientError
from memgate.core.stores import FactUsage, UsageStore

#: Longest a gate holds a write, and longest a test waits for one.
WAIT = 10.0


class Gate:
    """The store's real ``record_usage``, behind a gate: it notes the thread that
    called it, can hold the write until :meth:`open` (at most ``WAIT`` seconds, so
    that code that writes inline fails the test instead of hanging it) and can fail
    the first ``fail`` calls."""

    def __init__(self, store: UsageStore, *, hold: bool = False, fail: int = 0) -> None:
        self.real = store.record_usage
        self.threads: list[int] = []
        self.entered = threading.Event()
        self.released = threading.Event()
        if not hold:
            self.released.set()
        self.fail = fail
        self.calls = 0
        store.record_usage = self  # type: ignore[method-assign]

    def __call__(self, entries: Sequence[FactUsage]) -> None:
        self.calls += 1
        self.threads.append(threading.get_ident())
        self.entered.set()
        self.released.wait(WAIT)
        if self.fail > 0:
            self.fail -= 1
            raise TransientError("record usage: the store did not answer (test)")
        self.real(entries)

    def open(self) -> None:
        self.released.set()
