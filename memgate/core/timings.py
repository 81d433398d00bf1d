"""Where one search spends its time: an opt-in recorder of its phases.

A search records nothing unless the caller asks, with :func:`recording`::

    with recording() as t:
        memory.search("which editor?", "acme", "alice")
    t.total, t.phases, t.server

The recorder is held in a context variable, so no signature between the
library, the read path and the stores changes, and each layer marks its own
phases with :func:`phase` (the store: ``lexical``, ``dense``, ``fusion``,
``fetch``; the read path: ``embedding``, ``usage`` (reading the served
counts), ``packing``, ``usage_record`` (counting the served facts into the
usage buffer, whose writes run in the background)). Without a
recorder :func:`phase` returns one shared no-op context manager: a context
variable lookup is all it costs.

``phases`` are wall-clock seconds of disjoint stretches of the search, so
they add up to at most ``total``. ``server`` holds times a store's server
reported for work inside one of those phases (OpenSearch: the ``took`` of
the BM25 and k-NN responses of the one ``_msearch`` whose round trip is the
``retrieve`` phase); they overlap the phases and are not added to them.

>>> with recording() as t:
...     with phase("fusion"):
...         pass
>>> list(t.phases), t.total >= t.phases["fusion"]
(['fusion'], True)
>>> with phase("fusion"):  # no recorder: nothing recorded, nothing raised
...     pass
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from contextvars import ContextVar
from dataclasses import dataclass, field
from types import TracebackType

__all__ = ["SearchTimings", "active", "phase", "recording", "server_time"]


@dataclass
class SearchTimings:
    """Seconds one search spent: in all, per phase, and as its store's server reported."""

    total: float = 0.0
    phases: dict[str, float] = field(default_factory=dict)
    server: dict[str, float] = field(default_factory=dict)

    def add(self, name: str, seconds: float) -> None:
        """Count ``seconds`` to phase ``name`` (a phase run twice adds up)."""
        self.phases[name] = self.phases.get(name, 0.0) + seconds


_current: ContextVar[SearchTimings | None] = ContextVar("memgate_search_timings", default=None)
_NOTHING: AbstractContextManager[None] = nullcontext()


class _Phase:
    __slots__ = ("_name", "_start", "_timings")

    def __init__(self, timings: SearchTimings, name: str) -> None:
        self._timings, self._name, self._start = timings, name, 0.0

    def __enter__(self) -> None:
        self._start = time.perf_counter()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._timings.add(self._name, time.perf_counter() - self._start)


def active() -> SearchTimings | None:
    """The recorder of the search running in this context, if one is recording."""
    return _current.get()


def phase(name: str) -> AbstractContextManager[None]:
    """Time the ``with`` block as phase ``name`` of the search being recorded (if any)."""
    t = _current.get()
    return _NOTHING if t is None else _Phase(t, name)


def server_time(name: str, seconds: float) -> None:
    """Note ``seconds`` that the store's server reported for ``name`` (if recording)."""
    t = _current.get()
    if t is not None:
        t.server[name] = t.server.get(name, 0.0) + seconds


@contextmanager
def recording() -> Iterator[SearchTimings]:
    """Record the phases of what runs in the ``with`` block (one search); ``total`` is
    the block's wall-clock time."""
    t = SearchTimings()
    token = _current.set(t)
    start = time.perf_counter()
    try:
        yield t
    finally:
        t.total = time.perf_counter() - start
        _current.reset(token)
