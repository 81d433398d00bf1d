"""The in-process runner: the same stage steps as the Faust agents, chained in one process.

Turns go through triage → extract → redact → dedupe → persist synchronously,
one turn at a time, each event's outputs doing what
:mod:`memgate.streams.topology` says (forwarded to the next stage's call, then
audit rows, then fact writes), and are applied in batches:

* **Facts and audit rows land together.** With a retrieval store that has
  batches (:class:`memgate.streams.turns.BatchStore`, the embedded SQLite index), a
  batch's fact writes happen inside one open transaction (visible at once to
  the next candidate, which reads through the same connection), and the
  transaction is committed only after the batch's audit rows were written.
  Audit rows are idempotent (deterministic event ids, collapsed by the audit
  store), so a crash at any point leaves either the whole batch or none of
  its facts, and a re-run writes exactly what the clean run would have. With
  a store without transactions (OpenSearch), each resolution's audit rows are
  written *before* its facts, and the turn's journal row (its ledger entry)
  after all of them.
* **Replays and conflicts.** A turn already applied (same tenant, turn id,
  user and content digest) is skipped; a turn id reused for a different turn
  is refused (:mod:`memgate.streams.turns`).
* **One bad turn never stops the run.** A failure while processing one turn
  undoes that turn's writes, is recorded as a :class:`memgate.core.events.DeadLetter`
  (reason, error type, the turn with secrets masked) and reported through
  ``on_error``; the next turn goes on. Store failures stop the run (after the
  turns done so far are saved).
* **Fairness** (``fairness``, :mod:`memgate.streams.fairness`): a turn of a user over
  its quota, or behind that user's deferred turns, waits in a queue in memory (the
  deferred topic of the worker); the queue's head goes on as soon as its user has a
  token again (checked after every input turn), and what is left when the input ends
  goes on then, in order. So a burst of one user in a file delays the other users'
  turns by at most the user's ``burst`` turns (and the quota's share since), and every
  user's turns are still applied in their order.
* **Reading ahead** (``window``, setting ``ingest_window``,
  :mod:`memgate.streams.prefetch`): the front stages of the next ``window`` input turns
  run before the first of them is applied, and their candidates' embeddings are
  computed in a background thread while the turns are applied in order; what is
  stored, audited and reported is the same as one turn at a time (``window=1``).
* **Signals.** During :meth:`InProcessRunner.run` (in the main thread) the
  first SIGINT or SIGTERM lets the current turn finish, saves what was done
  and raises :class:`Interrupted`; a second one abandons the current turn
  (rolled back) and does the same.
"""

from __future__ import annotations

import collections
import logging
import signal
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import FrameType
from typing import Any

from memgate.core.errors import ConfigError, FatalError, MemgateError, StoreError, TransientError
from memgate.core.events import (
    AuditEvent,
    DeadLetter,
    DecisionRecord,
    JournalRecord,
    RedactedCandidate,
    ResolutionAction,
    Stage,
    StoredFact,
    TurnEvent,
    utcnow,
)
from memgate.core.stores import AuditStore, FactView, Refreshable, RetrievalStore
from memgate.stages.redact import mask_all
from memgate.stages.seal import seal
from memgate.streams.fairness import FairGate
from memgate.streams.metrics import Metrics
from memgate.streams.pipeline import Pipeline
from memgate.streams.prefetch import DEFAULT_WINDOW, ReadAhead
from memgate.streams.recent import RecentFacts
from memgate.streams.topology import ROUTES, Effects, Route, admit, effects, next_route
from memgate.streams.turns import (
    BatchStore,
    JournalLedger,
    Seen,
    TurnIdConflict,
    TurnLedger,
    TurnState,
)
from memgate.streams.turns import classify_turn as _classify

log = logging.getLogger("memgate.runner")

#: Failures of a store or of the settings: they stop the run (every turn would fail).
FATAL_ERRORS: tuple[type[BaseException], ...] = (
    StoreError,
    TransientError,
    ConfigError,
    FatalError,  # a refused API key, an unknown model: every further turn would fail too
    MemoryError,
)
_TURN_SAVEPOINT = "memgate_turn"
_MAX_ERROR_CHARS = 500


class Interrupted(MemgateError):
    """The run was stopped by a signal after saving the turns processed so far."""

    def __init__(self, signum: int) -> None:
        self.signum = int(signum)
        self.exit_code = 128 + self.signum
        try:
            name = signal.Signals(self.signum).name
        except ValueError:
            name = f"signal {self.signum}"
        super().__init__(
            f"interrupted by {name}: the turns processed so far are saved; run the same "
            "command again to ingest the rest (turn ids make it idempotent)"
        )


@dataclass
class RunSummary:
    """What one run did, for the CLI's table and for reports."""

    turns: int = 0
    kept: int = 0
    dropped: Counter[str] = field(default_factory=Counter)
    candidates: int = 0
    redacted: int = 0
    redaction_kinds: Counter[str] = field(default_factory=Counter)
    rejected: Counter[str] = field(default_factory=Counter)
    actions: Counter[str] = field(default_factory=Counter)
    facts_written: int = 0
    #: turns already applied (same turn id and content), skipped
    replayed: int = 0
    #: turns refused or failed, by reason (``turn_id_conflict``, ``processing_failed``)
    failed: Counter[str] = field(default_factory=Counter)
    #: turns the extractor handed to its fallback (the offline extractor), by reason
    fallbacks: Counter[str] = field(default_factory=Counter)

    @property
    def stored(self) -> int:
        """New fact rows: adds, supersessions and promotions."""
        return self.actions["ADD"] + self.actions["SUPERSEDE"]

    @property
    def write_amplification(self) -> float:
        return self.stored / self.turns if self.turns else 0.0

    def merge(self, other: RunSummary) -> None:
        """Add another summary's counts (one applied turn's) to this one."""
        self.turns += other.turns
        self.kept += other.kept
        self.dropped.update(other.dropped)
        self.candidates += other.candidates
        self.redacted += other.redacted
        self.redaction_kinds.update(other.redaction_kinds)
        self.rejected.update(other.rejected)
        self.actions.update(other.actions)
        self.facts_written += other.facts_written
        self.replayed += other.replayed
        self.failed.update(other.failed)
        self.fallbacks.update(other.fallbacks)

    def as_dict(self) -> dict[str, object]:
        return {
            "turns": self.turns,
            "kept": self.kept,
            "dropped": dict(self.dropped),
            "candidates": self.candidates,
            "redacted": self.redacted,
            "redaction_kinds": dict(self.redaction_kinds),
            "rejected": dict(self.rejected),
            "actions": dict(self.actions),
            "stored": self.stored,
            "write_amplification": round(self.write_amplification, 4),
            "replayed": self.replayed,
            "failed": dict(self.failed),
            "fallbacks": dict(self.fallbacks),
        }


class InProcessRunner:
    """Runs turns through a :class:`Pipeline` into a retrieval and an audit store.

    * ``audit_batch``: a batch is written once it holds this many audit rows,
    * ``batch_seconds``: ... or once it is this old (it also bounds how long the
      embedded store's write lock is held);
    * ``on_error``: called with one line per refused or failed turn (also kept
      in :attr:`dead_letters` and logged);
    * ``window``: input turns read ahead at a time (:mod:`memgate.streams.prefetch`; 1:
      none).
    """

    def __init__(
        self,
        pipeline: Pipeline,
        retrieval: RetrievalStore,
        audit: AuditStore,
        *,
        metrics: Metrics | None = None,
        audit_batch: int = 1000,
        batch_seconds: float = 5.0,
        on_error: Callable[[str], None] | None = None,
        fairness: FairGate | None = None,
        window: int = DEFAULT_WINDOW,
    ) -> None:
        if window < 1:
            raise ConfigError(f"the read-ahead window must be at least 1 turn, not {window}")
        self.pipeline = pipeline
        self.window = window
        self.fairness = fairness
        #: turns over their user's quota, in the order they came, with their sequence number
        self.deferred: collections.deque[tuple[int, TurnEvent]] = collections.deque()
        self._deferred_seq = 0
        self.retrieval = retrieval
        self.audit = audit
        self.metrics = metrics or Metrics()
        self.audit_batch = audit_batch
        self.batch_seconds = batch_seconds
        self.on_error = on_error
        self.summary = RunSummary()
        self.dead_letters: list[DeadLetter] = []
        self._batch: BatchStore | None = retrieval if isinstance(retrieval, BatchStore) else None
        # a store whose searches see a write only after a refresh (OpenSearch): dedupe reads
        # this run's recent writes from memory too (memgate.streams.recent)
        self._recent = (
            RecentFacts(retrieval, retrieval.refresh)
            if self._batch is None and isinstance(retrieval, Refreshable)
            else None
        )
        view: FactView = self._recent if self._recent is not None else retrieval
        self._view = view
        self._steps = {r.stage: pipeline.step(r.stage, view) for r in ROUTES}
        self._ledger: TurnLedger = self._batch or JournalLedger(audit)
        self._buf: list[AuditEvent] = []  # audit rows of applied turns, not yet written
        self._pending: dict[tuple[str, str], tuple[str, str]] = {}  # their ledger entries
        self._batch_t0: float | None = None
        self._stop: int | None = None
        self._ahead: ReadAhead | None = None

    # ------------------------------------------------------------------ API

    def run(
        self, turns: Iterable[TurnEvent], progress: Callable[[int], None] | None = None
    ) -> RunSummary:
        """Process every turn and save them; raises :class:`Interrupted` after a signal."""
        self._stop = None
        if self.window > 1:
            self._ahead = ReadAhead(
                self._steps,
                self.pipeline.resolve,
                window=self.window,
                digest=self.pipeline.triage.digest,
                seen=self._seen,
                fatal=FATAL_ERRORS,
                stopped=lambda: self._stop is not None,
                view=self._view,
            )
            turns = self._ahead.turns(turns)
        try:
            self._run(turns, progress)
        finally:
            if self._ahead is not None:
                self._ahead.close()
                self._ahead = None
        if self._stop is not None:
            raise Interrupted(self._stop)
        return self.summary

    def _run(self, turns: Iterable[TurnEvent], progress: Callable[[int], None] | None) -> None:
        with self._signals():
            try:
                for turn in turns:
                    self._admit(turn)
                    if progress is not None:
                        progress(1)
                    if self._stop is not None:
                        break
                    if self._batch_due():
                        self.flush()
                if self._stop is None:
                    self._read_deferred(drain=True)
                self.flush()
            except KeyboardInterrupt:
                # a second signal (or a plain KeyboardInterrupt): the current turn was
                # rolled back; what was done before it is saved
                self._stop = self._stop or int(signal.SIGINT)
                self._save_what_is_done()
            except BaseException:
                self._save_what_is_done()
                raise

    def process(self, turn: TurnEvent) -> None:
        """One turn through the gate: applied, or skipped as a replay.

        Raises :class:`memgate.streams.turns.TurnIdConflict` for a turn id reused for
        another turn, and whatever processing the turn raised, after undoing the
        turn's writes where the store allows (:meth:`run` reports those and goes on).
        """
        self.summary.turns += 1
        self.metrics.record_turn()
        digest = self.pipeline.triage.digest(turn)
        state = self._classify(turn, digest)
        if state is TurnState.CONFLICT:
            raise TurnIdConflict(turn)
        if not admit(state):
            self.summary.replayed += 1
            return
        store = self._batch
        if store is not None:
            if not store.in_batch:
                store.begin()
            store.savepoint(_TURN_SAVEPOINT)
        if self._batch_t0 is None:
            self._batch_t0 = time.monotonic()
        events: list[AuditEvent] = []
        delta = RunSummary()
        mark = len(self._buf)
        key = (turn.tenant_id, turn.turn_id)
        try:
            self._through(ROUTES[0], turn, events, delta)
            if store is not None:
                store.record_turns([(turn.tenant_id, turn.turn_id, turn.user_id, digest)])
            # the rows join the batch before the turn's writes do (release): whatever
            # interrupts us, the batch never holds facts without the rows explaining them
            self._buf.extend(events)
            self._pending[key] = (turn.user_id, digest)
            if store is not None:
                store.release(_TURN_SAVEPOINT)
        except BaseException:
            self._undo_turn(mark, key)
            raise
        self.summary.merge(delta)

    def _admit(self, turn: TurnEvent) -> None:
        """One input turn: applied now, or queued behind its user's quota (then the
        queue's head goes on as far as the quota allows)."""
        gate = self.fairness
        if gate is None:
            self._process_one(turn)
            return
        key = turn.partition_key
        if gate.defers(key):
            gate.deferring(key)
            gate.deferred(key, self._deferred_seq)
            self.deferred.append((self._deferred_seq, turn))
            self._deferred_seq += 1
            self.metrics.turns_deferred.inc()
        else:
            self._process_one(turn)
        self._read_deferred(drain=False)

    def _read_deferred(self, *, drain: bool) -> None:
        """The deferred queue's head turns whose user has a token (``drain``: all of them:
        once the input has ended nobody else waits)."""
        gate = self.fairness
        while gate is not None and self.deferred and self._stop is None:
            seq, turn = self.deferred[0]
            key = turn.partition_key
            if not drain and gate.wait_s(key) > 0:
                break
            self.deferred.popleft()
            self._process_one(turn)
            gate.undeferred(key, seq)
            if self._batch_due():
                self.flush()
        if gate is not None:
            self.metrics.deferred_users.set(gate.users_waiting)

    def _process_one(self, turn: TurnEvent) -> None:
        """:meth:`process`, with a turn's own failure reported instead of raised."""
        try:
            self.process(turn)
        except FATAL_ERRORS:
            raise
        except TurnIdConflict as exc:
            self._reject(turn, TurnIdConflict.reason, exc)
        except Exception as exc:
            self._reject(turn, "processing_failed", exc)

    def flush(self) -> None:
        """Write the buffered audit rows, then commit the facts they explain."""
        if self._buf:
            self.audit.write(self._buf)
        if self._batch is not None and self._batch.in_batch:
            self._batch.commit()
        self._buf = []
        self._pending.clear()
        self._batch_t0 = None

    def close(self) -> None:
        self.flush()

    # ------------------------------------------------------------- internals

    def _batch_due(self) -> bool:
        if len(self._buf) >= self.audit_batch:
            return True
        return self._batch_t0 is not None and time.monotonic() - self._batch_t0 >= (
            self.batch_seconds
        )

    def _seen(self, tenant_id: str, turn_ids: list[str]) -> dict[str, Seen]:
        """What :meth:`_classify` reads for these turn ids (for reading ahead)."""
        seen = dict(self._ledger.seen_turns(tenant_id, turn_ids))
        for turn_id in turn_ids:
            if (got := self._pending.get((tenant_id, turn_id))) is not None:
                seen[turn_id] = got
        return seen

    def _classify(self, turn: TurnEvent, digest: str) -> TurnState:
        seen = self._pending.get((turn.tenant_id, turn.turn_id))
        if seen is None:
            seen = self._ledger.seen_turns(turn.tenant_id, [turn.turn_id]).get(turn.turn_id)
        return _classify(turn, digest, seen)

    def _undo_turn(self, mark: int, key: tuple[str, str]) -> None:
        """Undo the current turn's writes and drop its audit rows (batch stores)."""
        store = self._batch
        if store is None or not store.in_batch:
            return
        del self._buf[mark:]
        self._pending.pop(key, None)
        try:
            store.rollback_to(_TURN_SAVEPOINT)
        except MemgateError as exc:
            log.warning("event=turn_rollback_failed error=%r hint='the batch is dropped'", exc)
            store.rollback()  # the batch cannot be trusted: drop it (a re-run redoes it)
            self._buf = []
            self._pending.clear()

    def _save_what_is_done(self) -> None:
        """After a fatal error: save the turns applied before it, or drop the whole batch."""
        try:
            self.flush()
        except BaseException as exc:
            log.warning(
                "event=flush_failed error=%r hint='nothing of this batch was committed; "
                "run again to redo it'",
                exc,
            )
            if self._batch is not None:
                try:
                    self._batch.rollback()
                except BaseException as again:
                    log.warning("event=rollback_failed error=%r", again)
            self._buf = []
            self._pending.clear()

    def _reject(self, turn: TurnEvent, reason: str, exc: BaseException) -> None:
        detector = self.pipeline.redact.detector
        what = mask_all(detector, f"{type(exc).__name__}: {exc}").text[:_MAX_ERROR_CHARS]
        if isinstance(exc, TurnIdConflict):
            line = str(exc)
        else:
            line = (
                f"turn {turn.tenant_id}/{turn.turn_id}: could not be processed ({what}); "
                "the turn was skipped"
            )
        self.summary.failed[reason] += 1
        self.metrics.dead_letters.labels(source="ingest", reason=reason).inc()
        self.dead_letters.append(
            DeadLetter(
                reason=reason,
                error_type=type(exc).__name__,
                source_topic="ingest",
                key=turn.partition_key,
                payload=mask_all(detector, turn.model_dump_json()).text[:100_000],
                failed_at=utcnow(),
            )
        )
        self.dead_letters[-1] = seal(detector, self.dead_letters[-1])  # the final check
        if self.on_error is not None:
            log.info("event=turn_rejected reason=%s error=%r", reason, line)
            self.on_error(line)
        else:
            log.warning("event=turn_rejected reason=%s error=%r", reason, line)

    def _through(self, route: Route, item: object, events: list[AuditEvent], s: RunSummary) -> None:
        """One event through its stage, then what it forwards through the next (depth first)."""
        m = self.metrics
        m.events_in.labels(stage=route.stage.value).inc()
        ahead = self._ahead.take(route.stage, item) if self._ahead is not None else None
        if ahead is not None:  # computed ahead: its outputs, or what it raised
            done = effects(route.stage, ahead.result())
            m.latency.labels(stage=route.stage.value).observe(ahead.seconds)
        else:
            t0 = time.perf_counter()
            done = effects(route.stage, self._steps[route.stage](item))
            m.latency.labels(stage=route.stage.value).observe(time.perf_counter() - t0)
        nxt = next_route(route)
        for out in done.forward:
            assert nxt is not None  # only a stage with a next one forwards
            self._through(nxt, out, events, s)
        events.extend(done.audit)
        if done.facts:
            self._write_facts(done.facts, events, s)
        m.record_effects(route.stage, done)
        _account(route.stage, done, s)

    def _write_facts(
        self, facts: Sequence[StoredFact], events: list[AuditEvent], s: RunSummary
    ) -> None:
        if self._batch is None:
            # no transaction to hold the facts back: the rows that explain them go first
            self.audit.write([*self._buf, *events])
            self._buf = []
            events.clear()
        self.retrieval.upsert(list(facts))
        if self._recent is not None:
            self._recent.remember(facts)
        s.facts_written += len(facts)

    @contextmanager
    def _signals(self) -> Iterator[None]:
        """SIGINT/SIGTERM: finish the current turn and stop (a second one: stop now)."""
        if threading.current_thread() is not threading.main_thread():
            yield
            return

        def handler(signum: int, frame: FrameType | None) -> None:
            if self._stop is None:
                self._stop = signum
                log.info("event=stop_requested signal=%d hint='finishing this turn'", signum)
                return
            raise KeyboardInterrupt

        previous: dict[int, Any] = {}
        for sig in (int(signal.SIGINT), int(signal.SIGTERM)):
            try:
                if signal.getsignal(sig) is signal.SIG_IGN:
                    continue  # the caller chose to ignore it
                previous[sig] = signal.signal(sig, handler)
            except (ValueError, OSError):
                continue
        try:
            yield
        finally:
            for sig, old in previous.items():
                signal.signal(sig, old)


def _account(stage: Stage, done: Effects, s: RunSummary) -> None:
    """Count one event's effects into the run's summary."""
    if stage is Stage.TRIAGE:  # a probe is no kept turn, nor a candidate (resolve_probe)
        s.kept += sum(1 for t in done.forward if not getattr(t, "probe", False))
    elif stage is Stage.EXTRACT:
        s.candidates += sum(1 for c in done.forward if not getattr(c, "probe", False))
    elif stage is Stage.REDACT:
        s.redacted += sum(
            1 for r in done.forward if isinstance(r, RedactedCandidate) and r.redaction.counts
        )
    for rec in done.audit:
        if isinstance(rec, JournalRecord):
            if rec.verdict.value == "drop":
                s.dropped[rec.reason] += 1
            s.redaction_kinds.update(rec.redaction_counts)
        elif isinstance(rec, DecisionRecord) and rec.stage is Stage.EXTRACT:
            if rec.details.get("fallback"):
                s.fallbacks[str(rec.details["fallback"])] += 1
        elif isinstance(rec, DecisionRecord) and rec.stage is Stage.REDACT:
            if rec.verdict == "rejected":
                s.rejected[f"redact:{rec.reason}"] += 1
        elif isinstance(rec, DecisionRecord) and rec.stage is Stage.DEDUPE:
            s.actions[rec.verdict] += 1
            if rec.verdict == ResolutionAction.REJECT.value:
                s.rejected[f"policy:{rec.reason}"] += 1
