"""Reading ahead for the in-process runner: the front of the chain a window early, the
dedupe stage's embeddings in a background thread.

:class:`memgate.streams.runner.InProcessRunner` applies turns one at a time, in order,
each through every stage. Most of a turn's CPU goes to two things that do not depend on
what the turns before it wrote: the front stages (triage → extract → redact, functions
of the turn alone) and the embedding of each candidate's texts for the dedupe stage (a
function of the texts). :class:`ReadAhead` reads the input ``window`` turns at a time,
one window ahead of the runner: it reads a window before the runner applies the first
turn of the window before it, so that the background thread has that window's forward
passes to run while the runner applies the one before (read a window at a time only, the
thread sat idle while the next window's front stages ran, and the runner then waited for
its vectors: 1.7 s of 20.5 on the LoCoMo dev file). For each window it:

1. predicts which of them the runner will apply (not a replay or a conflict, against
   the turn ledger, the batch being written, the turns the window before predicted and
   the window's earlier turns), so that what the runner will skip is not computed (nor
   sent to an extraction API);
2. runs those turns' front stages now, keeping each step's outputs, or the exception it
   raised, for the runner to take when it reaches that step (:meth:`ReadAhead.take`);
3. queues the texts of the embedding calls the dedupe stage will make for each
   candidate (:meth:`memgate.stages.dedupe.Resolver.embed_calls`), in the order the
   calls will come, on one background thread that tokenises them and runs their forward
   passes (the tokenizer's ``encode_batch``, ONNX Runtime and numpy's matrix products
   release the GIL: the second core works while this one goes on with the stateful
   steps). The thread gets them a few at a time
   (:data:`PASSES_PER_JOB`) and does little but that: every time it needs
   the GIL back, the thread running Python must give it up, and on a loaded machine
   waits to get it again, so the fewer hand-overs the better.

Nothing here decides anything, and nothing the runner computes differs. A call of the
embedder is handed the vectors computed ahead only for exactly the texts it would encode
itself (:class:`memgate.core.embedding.EncodesAhead`), computed by the same function;
the embedder's cache is written by the calls only, in the same order as without reading
ahead. A prediction that turns out wrong (a turn that failed, so that its repeat is new
after all; a turn the fairness gate defers past the window; a reference that is not
resolved) only costs the work done ahead: the runner computes what it does not find.
What the background raised is raised by the embedder call that takes it, in the dedupe
step of the candidate it belongs to, as the call would have raised it itself.
"""

from __future__ import annotations

import itertools
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field

from memgate.core.embedding import EncodesAhead, FloatArray
from memgate.core.events import RedactedCandidate, Stage, TurnEvent
from memgate.core.stores import FactView
from memgate.stages.dedupe import Resolver
from memgate.streams.topology import ROUTES, Route, admit, effects, next_route
from memgate.streams.turns import Seen, classify_turn

__all__ = ["DEFAULT_WINDOW", "Ahead", "ReadAhead"]

#: Input turns read ahead at a time (setting ``ingest_window``; 1: none).
DEFAULT_WINDOW = 64
#: Embedding calls handed to the background thread at once (the first ones of a window go
#: as soon as there are this many, so that the thread starts early).
PASSES_PER_JOB = 4

Job = list[tuple[tuple[str, ...], Future[FloatArray]]]

Step = Callable[[object], Sequence[object]]


@dataclass(frozen=True)
class Ahead:
    """One step computed ahead: its outputs, or what it raised, and the time it took."""

    item: object  # kept, so that its id() keys it until it is taken
    outputs: Sequence[object] | None
    error: Exception | None
    seconds: float

    def result(self) -> Sequence[object]:
        if self.error is not None:
            raise self.error
        assert self.outputs is not None
        return self.outputs


class ReadAhead:
    """The read-ahead of one :meth:`InProcessRunner.run`: :meth:`turns` yields the input
    turns, each window read ahead before its first turn is yielded; :meth:`close` after.

    * ``steps``: the runner's stage steps (the front ones are run ahead);
    * ``resolver``: the dedupe stage's resolver (its embedder, its embedding calls);
    * ``digest``: a turn's ledger digest; ``seen``: what the ledger and the batch being
      written hold for a tenant's turn ids (as the runner classifies turns);
    * ``fatal``: errors that stop the run: a window is not read further ahead after one;
    * ``stopped``: whether the run was asked to stop (a signal): nothing more is read ahead;
    * ``view``: what the dedupe stage reads (a probe read against a view that lists a
      speaker's active facts is embedded only if the resolution needs it:
      :meth:`~memgate.stages.dedupe.Resolver.embed_calls`).
    """

    def __init__(
        self,
        steps: Mapping[Stage, Step],
        resolver: Resolver,
        *,
        window: int,
        digest: Callable[[TurnEvent], str],
        seen: Callable[[str, list[str]], Mapping[str, Seen]],
        fatal: tuple[type[BaseException], ...] = (),
        stopped: Callable[[], bool] = lambda: False,
        view: FactView | None = None,
    ) -> None:
        if window < 1:
            raise ValueError("window must be >= 1")
        self.window = window
        self._view = view
        self._steps = steps
        self._resolver = resolver
        self._digest = digest
        self._seen = seen
        self._fatal = fatal
        self._stopped = stopped
        emb = resolver.embedder
        self._embedder: EncodesAhead | None = emb if isinstance(emb, EncodesAhead) else None
        self._pool: ThreadPoolExecutor | None = None
        self._done: dict[int, Ahead] = {}
        self._windows: list[_Window] = []  # read ahead, not yet cleared (at most two)
        self._job: Job = []  # planned, not handed to the thread yet
        self._halted = False  # a fatal error or a stop: no window is read after it

    def turns(self, source: Iterable[TurnEvent]) -> Iterator[TurnEvent]:
        """The turns of ``source`` in order, read ``window`` at a time, one window ahead:
        the next window is read before the first turn of this one is yielded, so that the
        background thread has its forward passes to run while this window is applied."""
        it = iter(source)
        cur = self._read(it)
        while cur is not None:
            nxt = self._read(it)
            yield from cur.turns
            self._clear(cur)
            cur = nxt

    def take(self, stage: Stage, item: object) -> Ahead | None:
        """What ``stage``'s step did ahead on ``item`` (taken: asked once), or None."""
        got = self._done.pop(id(item), None)
        return got if got is not None and got.item is item else None

    def close(self) -> None:
        """Drop what was not taken; stop the background thread (after its current call)."""
        for window in list(self._windows):
            self._clear(window)
        self._cancel_job()
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    # ------------------------------------------------------------- internals

    def _read(self, it: Iterator[TurnEvent]) -> _Window | None:
        """The next window of ``it`` (None at its end), read ahead unless reading ahead
        has halted (its turns are then computed by the runner as it reaches them)."""
        chunk = list(itertools.islice(it, self.window))
        if not chunk:
            return None
        window = _Window(chunk)
        self._windows.append(window)
        if not self._halted:
            self._fill(window)
        return window

    def _fill(self, window: _Window) -> None:
        ids: dict[str, list[str]] = defaultdict(list)
        for turn in window.turns:
            ids[turn.tenant_id].append(turn.turn_id)
        seen: dict[tuple[str, str], Seen] = {}
        for tenant, turn_ids in ids.items():
            for turn_id, s in self._seen(tenant, sorted(set(turn_ids))).items():
                seen[(tenant, turn_id)] = s
        # the window before, not applied yet: the turns it predicted the runner applies
        # are in the ledger by the time this window's turns come
        for earlier in self._windows[:-1]:
            seen.update(earlier.admitted)
        for turn in window.turns:
            if self._stopped():
                self._halted = True
                self._cancel_job()
                return
            key = (turn.tenant_id, turn.turn_id)
            digest = self._digest(turn)
            if not admit(classify_turn(turn, digest, seen.get(key))):
                continue  # a replay or a conflict: the runner will not run it
            seen[key] = window.admitted[key] = (turn.user_id, digest)
            if not self._front(ROUTES[0], turn, window):
                self._halted = True
                break  # a fatal error: the run stops at this turn
        self._submit()

    def _front(self, route: Route, item: object, window: _Window) -> bool:
        """``item`` through ``route`` and the front stages after it, depth first as the
        runner goes; False after a fatal error."""
        if route.stage is Stage.DEDUPE:
            if isinstance(item, RedactedCandidate):
                self._embed_ahead(item, window)
            return True
        t0 = time.perf_counter()
        window.items.append(id(item))
        try:
            out = self._steps[route.stage](item)
        except Exception as exc:  # the runner raises it when it reaches this step
            self._done[id(item)] = Ahead(item, None, exc, time.perf_counter() - t0)
            return not isinstance(exc, self._fatal)
        self._done[id(item)] = Ahead(item, out, None, time.perf_counter() - t0)
        nxt = next_route(route)
        if nxt is None:
            return True
        return all(self._front(nxt, o, window) for o in effects(route.stage, out).forward)

    def _embed_ahead(self, item: RedactedCandidate, window: _Window) -> None:
        emb = self._embedder
        if emb is None:
            return
        # texts the embedder will have cached by the time this call comes: those of the
        # calls before it, in this window and in the one before it (applied first)
        known: set[str] = set().union(*(w.known for w in self._windows))
        for texts in self._resolver.embed_calls(item, self._view):
            todo = emb.misses(texts, known)
            if not todo:
                continue
            fut: Future[FloatArray] = Future()
            emb.encode_ahead(todo, fut)
            window.keys.append(todo)
            window.known.update(todo)
            known.update(todo)
            self._job.append((todo, fut))
            if len(self._job) >= PASSES_PER_JOB:
                self._submit()

    def _submit(self) -> None:
        if not self._job or self._embedder is None:
            return
        if self._pool is None:
            self._pool = ThreadPoolExecutor(1, thread_name_prefix="memgate-embed-ahead")
        self._pool.submit(run_job, self._embedder, self._job)
        self._job = []

    def _clear(self, window: _Window) -> None:
        """Drop what ``window`` computed ahead and the runner did not take (its turns are
        applied: a deferred one is computed when the runner reaches it)."""
        for key in window.items:
            self._done.pop(key, None)
        if self._embedder is not None and window.keys:
            self._embedder.forget_ahead(window.keys)  # cancels its passes not yet run
        if window in self._windows:
            self._windows.remove(window)

    def _cancel_job(self) -> None:
        for _plan, fut in self._job:
            fut.cancel()
        self._job = []


@dataclass
class _Window:
    """One window read ahead: its turns, the ids of the items computed ahead for it, the
    encodings it registered with the embedder, the texts they will have cached, and the
    turns it predicted the runner applies (their ledger entries)."""

    turns: list[TurnEvent]
    items: list[int] = field(default_factory=list)
    keys: list[tuple[str, ...]] = field(default_factory=list)
    known: set[str] = field(default_factory=set)
    admitted: dict[tuple[str, str], Seen] = field(default_factory=dict)


def run_job(emb: EncodesAhead, job: Job) -> None:
    """The background thread's work: each call's texts tokenised and their forward passes
    run, its future set as soon as they are done (a future cancelled meanwhile is skipped);
    what either raised is raised by the call that takes it, as it would be."""
    for texts, fut in job:
        if not fut.set_running_or_notify_cancel():
            continue
        try:
            fut.set_result(emb.run_encoding(emb.plan_encoding(texts, release_gil=True)))
        except BaseException as exc:  # the call that takes it raises it
            fut.set_exception(exc)
