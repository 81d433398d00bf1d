"""A bounded memo of a pure function of one text, for work the stages repeat on a turn.

One turn's sentences are read several times on the way through the chain: triage's
durable-sentence check, the moment check, the keep classifier and the statement
extractor all ask for a sentence's structural cues; triage and the extractor both read
a turn's references; triage, the final check and the redactor scan the same text for
secrets. :class:`TextMemo` keeps the last ``maxsize`` answers of such a function, keyed
by a digest of the text (so no raw text is kept as a key), least recently used first out.

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
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Generic, TypeVar

__all__ = ["TextMemo"]

V = TypeVar("V")


def _key(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


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

    def __len__(self) -> int:
        return len(self._data)

    def get(self, text: str, fn: Callable[[str], V]) -> V:
        """``fn(text)``, from the memo when it holds the text."""
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
        with self._lock:
            self._data[key] = value
            self._data.move_to_end(key)
            while len(self._data) > self.maxsize:
                self._data.popitem(last=False)
        return value

    def clear(self) -> None:
        with self._lock:
            self._data.clear()
