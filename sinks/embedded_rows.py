"""Facts read from the embedded index, kept by their stored row (issue 14).

Resolution reads every active fact of a speaker for each candidate
(:meth:`memgate.sinks.embedded.EmbeddedIndex.by_subject`): parsing the same JSON
documents and turning the same vector blobs into lists of floats again was about a
tenth of the ingest's CPU time. A row's parsed fact is kept, keyed by the row's
exact bytes (document and both vectors), so a changed row is a new key and can
never be answered with an old fact; least recently used out first, and emptied
when facts are erased, and a fact's entries dropped when it is written again, so no
erased or overwritten content stays in memory. A fact read without its vectors
(``by_subject(vectors=False)``) is a row of its own (no blobs) kept beside the one
with them: the two readings of one stored version do not push each other out.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable

import numpy as np

from memgate.core.events import StoredFact

__all__ = ["ROW_CACHE", "RowCache", "parse_fact"]

#: Parsed facts kept per index (a few users' active facts).
ROW_CACHE = 8_192

_Key = tuple[str, bytes | None, bytes | None]


def parse_fact(doc: str, blob: bytes | None, search_blob: bytes | None = None) -> StoredFact:
    """The fact of one stored row: its document with its vectors (float32 blobs)."""
    fact = StoredFact.model_validate_json(doc)
    update: dict[str, list[float]] = {}
    if blob is not None:
        update["embedding"] = np.frombuffer(blob, dtype="<f4").astype(np.float64).tolist()
    if search_blob is not None:
        update["search_embedding"] = (
            np.frombuffer(search_blob, dtype="<f4").astype(np.float64).tolist()
        )
    return fact.model_copy(update=update) if update else fact


def _readings(a: _Key, b: _Key) -> bool:
    """Whether two kept rows are one stored version read with and without its vectors."""
    return a[0] == b[0] and a[1:] != b[1:] and (a[1:] == (None, None) or b[1:] == (None, None))


class RowCache:
    """Parsed facts by their row's bytes, bounded (``size`` 0: nothing kept)."""

    def __init__(self, size: int = ROW_CACHE) -> None:
        self.size = size
        self._facts: OrderedDict[_Key, StoredFact] = OrderedDict()
        self._keys: dict[str, set[_Key]] = {}  # the kept rows of each fact id
        self._lock = threading.Lock()

    def fact(self, doc: str, blob: bytes | None, search_blob: bytes | None = None) -> StoredFact:
        key = (doc, blob, search_blob)
        with self._lock:
            got = self._facts.get(key)
            if got is not None:
                self._facts.move_to_end(key)
                return got
        fact = parse_fact(doc, blob, search_blob)
        if self.size > 0:
            with self._lock:
                kept = self._keys.setdefault(fact.fact_id, set())
                # another version of the fact goes; the same one read with(out) vectors stays
                for old in [k for k in kept if not _readings(k, key)]:
                    kept.discard(old)
                    self._facts.pop(old, None)
                self._facts[key] = fact
                kept.add(key)
                while len(self._facts) > self.size:
                    gone_key, gone = self._facts.popitem(last=False)
                    rest = self._keys.get(gone.fact_id)
                    if rest is not None:
                        rest.discard(gone_key)
                        if not rest:
                            del self._keys[gone.fact_id]
        return fact

    def drop(self, fact_ids: Iterable[str]) -> None:
        """Forget the kept rows of these facts (they are being rewritten)."""
        with self._lock:
            for fact_id in fact_ids:
                for key in self._keys.pop(fact_id, ()):
                    self._facts.pop(key, None)

    def clear(self) -> None:
        with self._lock:
            self._facts.clear()
            self._keys.clear()

    def __len__(self) -> int:
        with self._lock:
            return len(self._facts)
