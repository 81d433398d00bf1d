"""A bounded memo of a pure function of one text, for work the stages repeat on a turn.

One turn's sentences are read several times on the way through the chain: triage's
durable-sentence check, the moment check, the keep classifier and the statement
extractor all ask for a sentence's structural cues; triage and the extractor both read
a turn's references; triage, the final check and the redactor scan the same text for
secrets. :class:`TextMemo` keeps the last ``maxsize`` answers of such a function, keyed
by a digest of the text keyed by a random secret of the process (so no raw text is kept as
a key, and a key confirms no guess of a text: an unkeyed digest of "my PIN is 4711" would),
least recently used first out. A value that quotes the text (a reference's topic) is kept
only when the caller says so (``keep``): a turn's raw words are not held for later turns.

Only for functions whose answer depends on the text alone (and on constants read once):
the memo never changes what the function returns, only how often it runs. The caller
stores an immutable value (a tuple, a frozen record, a read-only array) or copies it out.

>>> calls = []
>>> memo = TextMemo(2)
>>> def length(text: str) -> int:
...     calls.append(text)
...     return len(text)
>>> [memo.get(t, length) for t in ("ab", "ab", "abc", "d", "ab")]
[2, 2, 3, 1, 2]
>>> calls  # "ab" ran again: the memo held two texts and "ab" was the oldest
['ab', 'abc', 'd', 'ab']
>>> len(memo), memo.hits, memo.misses
(2, 1, 4)
"""

from __future__ import annotations

import hashlib
import os
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable
from functools import lru_cache
from typing import Any, Generic, Protocol, TypeVar

__all__ = ["Clearable", "TextMemo", "clear_memos", "reading_cache", "register", "text_key"]

V = TypeVar("V")


#: The process's memo key: drawn at start, never stored, never logged.
_SECRET: bytes = os.urandom(32)


def text_key(text: str) -> bytes:
    """The memo key of ``text``: a digest keyed by the process's random secret, so a key
    held in memory (a core dump, a heap snapshot) confirms no guess of the text."""
    return hashlib.blake2b(
        text.encode("utf-8", "surrogatepass"), digest_size=16, key=_SECRET
    ).digest()


_key = text_key


class Clearable(Protocol):
    """A memo of the process that an erasure empties (:func:`clear_memos`)."""

    def __len__(self) -> int: ...

    def clear(self) -> None: ...


#: Every memo of the process, so an erasure can empty them all (:func:`clear_memos`).
_ALL: weakref.WeakSet[Clearable] = weakref.WeakSet()
_ALL_LOCK = threading.Lock()


def register(memo: Clearable) -> None:
    """Have :func:`clear_memos` empty ``memo`` too (a cache that is no :class:`TextMemo`:
    the embedder's vectors); held weakly."""
    with _ALL_LOCK:
        _ALL.add(memo)


def clear_memos() -> int:
    """Empty every :class:`TextMemo` of the process (an erasure calls it: no answer
    derived from an erased user's words outlives the erasure in a long-running server or
    worker); the texts are read again when they come again. Returns the entries dropped."""
    with _ALL_LOCK:
        memos = list(_ALL)
    dropped = 0
    for memo in memos:
        dropped += len(memo)
        memo.clear()
    return dropped


class _LruHandle:
    """An ``lru_cache`` seen as a :class:`Clearable` (its size, its ``cache_clear``)."""

    def __init__(self, cached: Any) -> None:
        self._cached = cached

    def __len__(self) -> int:
        return int(self._cached.cache_info().currsize)

    def clear(self) -> None:
        self._cached.cache_clear()


F = TypeVar("F", bound=Callable[..., Any])


def reading_cache(maxsize: int) -> Callable[[F], F]:
    """``functools.lru_cache(maxsize)`` that an erasure empties (:func:`clear_memos`).

    For resolution's readings of redacted texts (the values and contexts that reach the
    stores: an active fact's value is read again for every candidate of its speaker). Its
    keys are those texts themselves, so an erasure must drop them with the facts.

    >>> @reading_cache(8)
    ... def words(text: str) -> int:
    ...     return len(text.split())
    >>> words("a b"), words.cache_info().currsize
    (2, 1)
    >>> clear_memos() >= 1, words.cache_info().currsize
    (True, 0)
    """

    def wrap(fn: F) -> F:
        cached = lru_cache(maxsize=maxsize)(fn)
        handle = _LruHandle(cached)
        cached.memgate_handle = handle  # type: ignore[attr-defined]  # held: the set is weak
        register(handle)
        return cached  # type: ignore[return-value]

    return wrap


class TextMemo(Generic[V]):
    """The last ``maxsize`` values of a function of one text (``maxsize`` 0: none kept).

    Thread-safe; the function runs outside the lock (two threads may both compute a
    missing value; the answers are equal)."""

    def __init__(self, maxsize: int) -> None:
        if maxsize < 0:
            raise ValueError("maxsize must be >= 0")
        self.maxsize = maxsize
        self._data: OrderedDict[bytes, V] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0
        register(self)

    def __len__(self) -> int:
        return len(self._data)

    def get(self, text: str, fn: Callable[[str], V], keep: Callable[[V], bool] | None = None) -> V:
        """``fn(text)``, from the memo when it holds the text; a value for which ``keep``
        says False is returned without being kept."""
        if self.maxsize == 0:
            return fn(text)
        key = _key(text)
        with self._lock:
            try:
                value = self._data[key]
            except KeyError:
                self.misses += 1
            else:
                self._data.move_to_end(key)
                self.hits += 1
                return value
        value = fn(text)
        if keep is not None and not keep(value):
            return value
        with self._lock:
            self._data[key] = value
            self._data.move_to_end(key)
            while len(self._data) > self.maxsize:
                self._data.popitem(last=False)
        return value

    def clear(self) -> None:
        with self._lock:
            self._data.clear()
