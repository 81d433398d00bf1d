"""The worker's dedupe embeddings computed ahead, in a background thread.

In the worker, the dedupe agent resolves one candidate at a time, and most of a
candidate's time is the embedding of its texts and the store's round trips. A candidate's
embedding calls are known as soon as the redact stage forwards it
(:meth:`memgate.stages.dedupe.Resolver.embed_calls`): :class:`EmbedAhead` tokenises them
then and queues their forward passes on one background thread (ONNX Runtime and numpy's
matrix products release the GIL), so that they run while the dedupe agent waits for the
store on the candidates before it.

Nothing here decides anything, and no vector differs: a call of the embedder is handed
the vectors computed ahead only for exactly the texts it would encode itself, by the same
function (:class:`memgate.core.embedding.EncodesAhead`, as for the in-process read-ahead,
:mod:`memgate.streams.prefetch`). A prediction that turns out wrong (the candidate went
to another worker after a rebalance; its text was cached meanwhile) only costs the work
done ahead. At most ``limit`` encodings wait for their call: the oldest is dropped first.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from concurrent.futures import Future, ThreadPoolExecutor

from memgate.core.embedding import EncodesAhead, FloatArray
from memgate.core.events import RedactedCandidate
from memgate.stages.dedupe import Resolver
from memgate.streams.prefetch import Job, run_job

__all__ = ["EmbedAhead"]

#: encodings waiting for their call at most (a candidate makes one or two calls)
DEFAULT_LIMIT = 256


class EmbedAhead:
    """Queue the dedupe embedding calls of forwarded candidates on a background thread."""

    def __init__(self, resolver: Resolver, *, limit: int = DEFAULT_LIMIT) -> None:
        if limit < 1:
            raise ValueError("limit must be >= 1")
        emb = resolver.embedder
        self._embedder: EncodesAhead | None = emb if isinstance(emb, EncodesAhead) else None
        self._resolver = resolver
        self.limit = limit
        self._keys: deque[tuple[str, ...]] = deque()  # registered, oldest first
        self._pool: ThreadPoolExecutor | None = None

    @property
    def enabled(self) -> bool:
        return self._embedder is not None

    def candidates(self, items: Iterable[object]) -> int:
        """Queue the embedding calls of the candidates among ``items``; how many."""
        emb = self._embedder
        if emb is None:
            return 0
        job: Job = []
        known = {t for key in self._keys for t in key}  # cached by the time they come
        for item in items:
            if not isinstance(item, RedactedCandidate):
                continue
            for texts in self._resolver.embed_calls(item):
                todo = emb.misses(texts, known)
                if not todo:
                    continue
                fut: Future[FloatArray] = Future()
                emb.encode_ahead(todo, fut)
                self._keys.append(todo)
                known.update(todo)
                job.append((todo, fut))  # tokenised and encoded on the thread (run_job)
        if len(self._keys) > self.limit:
            old = [self._keys.popleft() for _ in range(len(self._keys) - self.limit)]
            emb.forget_ahead(old)
        if job:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(1, thread_name_prefix="memgate-embed-ahead")
            self._pool.submit(run_job, emb, job)
        return len(job)

    def close(self) -> None:
        """Drop what no call took; stop the thread (after its current pass)."""
        if self._embedder is not None and self._keys:
            self._embedder.forget_ahead(list(self._keys))
        self._keys.clear()
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
