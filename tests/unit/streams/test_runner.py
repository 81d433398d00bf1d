"""InProcessRunner: audit rows land with their facts, one bad turn stops nothing,
replays change nothing, a reused turn id is refused, signals save what was done."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest

from memgate.core.errors import PermanentError
from memgate.core.events import (
    CandidateFact,
    FactStatus,
    RedactedCandidate,
    Resolution,
    StoredFact,
    TriagedTurn,
    TurnEvent,
    content_hmac,
)
from memgate.sinks.embedded import EmbeddedIndex
from memgate.stages.extract import RuleExtractor
from memgate.streams.runner import InProcessRunner, Interrupted
from memgate.streams.turns import TurnIdConflict
from tests.unit.streams.conftest import KEY, Gate, turn

THREE_FACTS = (
    "I prefer four-space indentation in every Python file. I work as a backend engineer "
    "on the payments team. We deploy with Jenkins and Helm charts."
)


class FailingOn(RuleExtractor):
    """The rule extractor, raising a plain bug-like error on the turns named."""

    def __init__(self, *turn_ids: str) -> None:
        super().__init__()
        self.fail = set(turn_ids)

    def extract(self, turn: TurnEvent) -> list[CandidateFact]:
        if turn.turn_id in self.fail:
            raise ZeroDivisionError("a bug in a rule")
        return super().extract(turn)


def _facts(gate: Gate, user: str = "alice") -> list[StoredFact]:
    return gate.retrieval.list_facts("acme", user, include_inactive=True)


def _audit_turns(gate: Gate) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    cols = (("journal", "turn_id"), ("decisions", "turn_id"), ("fact_history", "source_turn_id"))
    for table, col in cols:
        out[table] = {r[0] for r in gate.rows(f"SELECT {col} FROM {table}")}
    return out


# -- the per-turn error boundary --------------------------------------------------------


def test_a_failing_turn_is_reported_and_the_next_turns_go_on(gate: Gate) -> None:
    errors: list[str] = []
    runner = InProcessRunner(
        gate.pipeline(FailingOn("t2")), gate.retrieval, gate.audit, on_error=errors.append
    )
    summary = runner.run(
        [
            turn("t1", "We deploy with Jenkins and Helm charts."),
            turn("t2", "I prefer dark mode in every editor.", minutes=1),
            turn("t3", "I prefer Python for scripting.", minutes=2),
        ]
    )
    assert len(errors) == 1 and errors[0].startswith("turn acme/t2: could not be processed")
    assert "ZeroDivisionError" in errors[0] and "\n" not in errors[0]
    assert summary.failed == {"processing_failed": 1}
    assert [d.reason for d in runner.dead_letters] == ["processing_failed"]
    assert runner.dead_letters[0].key == "acme/alice"
    cited = {t for f in _facts(gate) for t in f.source_turn_ids}
    assert cited == {"t1", "t3"}
    # nothing of the failed turn reached the audit store, and it is not marked applied
    assert all("t2" not in turns for turns in _audit_turns(gate).values())
    assert gate.retrieval.seen_turns("acme", ["t1", "t2", "t3"]).keys() == {"t1", "t3"}


def test_a_turn_failing_after_some_of_its_facts_were_written_is_undone_whole(
    gate: Gate, tmp_path: Path
) -> None:
    # Find the fact ids the turn's three candidates get, in a scratch store ...
    p = gate.pipeline()
    t = turn("t1", THREE_FACTS)
    ids: list[str] = []
    with EmbeddedIndex(tmp_path / "scratch.db", dim=gate.embedder.dim) as scratch:
        for kept in p.triage(t):
            if not isinstance(kept, TriagedTurn):
                continue
            for cand in (c for c in p.extract(kept) if isinstance(c, CandidateFact)):
                for red in (r for r in p.redact(cand) if isinstance(r, RedactedCandidate)):
                    for res in (r for r in p.dedupe(red, scratch) if isinstance(r, Resolution)):
                        ids.append(res.writes[0].fact_id)
                        scratch.upsert(res.writes)
    assert len(ids) == 3
    # ... and plant the third one under another tenant: its upsert is refused for real
    intruder = scratch_fact(ids[2])
    gate.retrieval.upsert([intruder])
    errors: list[str] = []
    runner = InProcessRunner(p, gate.retrieval, gate.audit, on_error=errors.append)
    runner.run([t, turn("t2", "I prefer Python for scripting.", minutes=1)])
    assert len(errors) == 1 and "PermanentError" in errors[0] and "acme/t1" in errors[0]
    # the two facts written before the failure were rolled back with it
    assert [f.source_turn_ids for f in _facts(gate)] == [["t2"]]
    assert all("t1" not in turns for turns in _audit_turns(gate).values())
    assert gate.retrieval.get("globex", "mallory", ids[2]) is not None  # untouched


def scratch_fact(fact_id: str) -> StoredFact:
    now = datetime(2024, 1, 1, tzinfo=UTC)
    return StoredFact(
        fact_id=fact_id,
        tenant_id="globex",
        user_id="mallory",
        key="globex/mallory/user/x",
        type="fact",
        subject="user",
        predicate="x",
        value="y",
        text="user x y",
        status=FactStatus.ACTIVE,
        confidence=0.9,
        valid_from=now,
        recorded_at=now,
        first_seen=now,
        last_seen=now,
        source_turn_ids=["m1"],
        extractor="rules",
        extractor_version="1",
        policy_version="balanced-1",
    )


def test_store_failures_stop_the_run_after_saving_the_turns_done(gate: Gate) -> None:
    runner = InProcessRunner(gate.pipeline(), gate.retrieval, gate.audit)

    def turns() -> list[TurnEvent]:
        return [turn("t1", "We deploy with Jenkins and Helm charts.")]

    runner.run(turns())
    gate.audit.close()  # the audit store goes away mid-run
    with pytest.raises(Exception, match="closed"):
        runner.run([turn("t2", "I prefer Python for scripting.", minutes=1)])
    # t2's fact is not committed without its audit rows
    assert not gate.retrieval.in_batch
    assert {t for f in _facts(gate) for t in f.source_turn_ids} == {"t1"}


def test_the_year_one_turn_of_the_issue_no_longer_aborts_the_file(tmp_path: Path) -> None:
    """`memgate ingest`: a turn dated year 1 saying "yesterday" (the rule extractor's
    date arithmetic overflowed) and the lines after it."""
    path = tmp_path / "turns.jsonl"
    line = (
        '{{"tenant_id": "acme", "user_id": "alice", "session_id": "s1", "turn_id": "{}", '
        '"role": "user", "content": "{}", "ts": "{}"}}\n'
    )
    path.write_text(
        line.format("a-1", "We deploy with Jenkins and Helm charts.", "2024-03-01T09:01:00Z")
        + line.format("a-2", "Yesterday I switched my editor to Neovim.", "0001-01-01T00:00:00Z")
        + line.format("a-3", "I prefer dark mode in every editor.", "2024-03-01T09:02:00Z"),
        encoding="utf-8",
    )
    data = tmp_path / "data"
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "from memgate.cli import run; run()",
            "--embedder",
            "hashing",
            "--data-dir",
            str(data),
            "ingest",
            str(path),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "MEMGATE_HMAC_KEY": KEY},
    )
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    assert "a-2" in done.stderr or ":2:" in done.stderr  # named by turn id or line
    with sqlite3.connect(data / "retrieval.sqlite3") as conn:
        docs = [r[0] for r in conn.execute("SELECT doc FROM facts")]
    assert any('"a-3"' in d for d in docs) and any('"a-1"' in d for d in docs)


# -- replays and turn-id conflicts --------------------------------------------------------


def test_a_replay_is_skipped_and_changes_nothing(gate: Gate) -> None:
    runner = InProcessRunner(gate.pipeline(), gate.retrieval, gate.audit)
    t = turn("t1", THREE_FACTS)
    runner.run([t, t])  # twice in one batch
    before = [f.model_dump() for f in _facts(gate)]
    rows = gate.rows("SELECT event_id FROM decisions ORDER BY event_id")
    summary = runner.run([t])  # and once more after it was committed
    assert summary.replayed == 2 and not summary.failed
    assert [f.model_dump() for f in _facts(gate)] == before
    assert all(f.occurrences == 1 for f in _facts(gate))
    # no "redelivered" decision: the audit is what one delivery wrote
    assert gate.rows("SELECT event_id FROM decisions ORDER BY event_id") == rows


@pytest.mark.parametrize("flush_between", [False, True])
def test_a_turn_id_reused_for_other_content_is_refused(gate: Gate, flush_between: bool) -> None:
    errors: list[str] = []
    runner = InProcessRunner(gate.pipeline(), gate.retrieval, gate.audit, on_error=errors.append)
    first = turn("t1", "We deploy with Jenkins and Helm charts.")
    other = turn("t1", "My password is hunter2 and I prefer vim.", minutes=5)
    bob = turn("t1", first.content, user="bob")  # same content, another user
    if flush_between:
        runner.run([first])
        runner.run([other, bob])
    else:
        runner.run([first, other, bob])
    assert len(errors) == 2
    assert all(e.startswith("turn acme/t1: turn_id conflict") for e in errors)
    assert "hunter2" not in "".join(errors)
    assert runner.summary.failed == {"turn_id_conflict": 2}
    assert [d.reason for d in runner.dead_letters] == ["turn_id_conflict"] * 2
    assert all("hunter2" not in d.payload for d in runner.dead_letters)
    # the journal keeps the first turn, and every fact cites a turn that holds its text
    ((text, digest),) = gate.rows("SELECT redacted_text, content_hmac FROM journal")
    assert text == first.content
    assert digest == content_hmac(KEY.encode(), first.content)
    assert [f.value for f in _facts(gate)] == ["Jenkins and Helm charts"]
    assert _facts(gate, "bob") == []


def test_process_raises_what_run_reports(gate: Gate) -> None:
    """One turn at a time (the evaluation harness): failures raise, after the undo."""
    runner = InProcessRunner(gate.pipeline(FailingOn("t2")), gate.retrieval, gate.audit)
    runner.process(turn("t1", "We deploy with Jenkins and Helm charts."))
    with pytest.raises(TurnIdConflict):
        runner.process(turn("t1", "We deploy with ArgoCD."))
    with pytest.raises(ZeroDivisionError):
        runner.process(turn("t2", "I prefer Python for scripting."))
    runner.flush()
    assert gate.retrieval.seen_turns("acme", ["t1", "t2"]).keys() == {"t1"}
    assert {r[0] for r in gate.rows("SELECT turn_id FROM journal")} == {"t1"}


def test_turn_id_conflict_is_a_permanent_error_named_for_the_dead_letter_topic() -> None:
    exc = TurnIdConflict(turn("t9", "x"))
    assert isinstance(exc, PermanentError) and exc.reason == "turn_id_conflict"


# -- what the audit holds -------------------------------------------------------------------


def test_event_ids_are_the_same_on_every_run(gate: Gate, tmp_path: Path) -> None:
    turns = [turn("t1", THREE_FACTS), turn("t2", "Actually we deploy with ArgoCD now.", minutes=1)]
    InProcessRunner(gate.pipeline(), gate.retrieval, gate.audit).run(turns)
    tables = ("journal", "decisions", "fact_history")
    first = {t: gate.rows(f"SELECT event_id FROM {t} ORDER BY event_id") for t in tables}
    gate.audit.close()
    from memgate.sinks.audit import ClickHouseAudit

    other = tmp_path / "other"
    with (
        EmbeddedIndex(other / "r.db", dim=gate.embedder.dim) as retrieval,
        ClickHouseAudit.embedded(other / "audit") as audit,
    ):
        InProcessRunner(gate.pipeline(), retrieval, audit).run(turns)
        second = {t: audit.query(f"SELECT event_id FROM {t} ORDER BY event_id")[1] for t in first}
    assert second == first
    assert all(first.values())


def test_facts_are_committed_only_with_their_audit_rows(gate: Gate, tmp_path: Path) -> None:
    """Until the batch is flushed, another connection sees neither facts nor turns."""
    runner = InProcessRunner(gate.pipeline(), gate.retrieval, gate.audit)
    runner.process(turn("t1", THREE_FACTS))
    assert len(_facts(gate)) == 3  # visible to the runner's own connection (next candidate)

    def outside() -> tuple[int, int]:
        with sqlite3.connect(gate.settings.retrieval_path) as conn:
            return (
                conn.execute("SELECT count(*) FROM facts").fetchone()[0],
                conn.execute("SELECT count(*) FROM turns").fetchone()[0],
            )

    assert outside() == (0, 0)
    assert gate.rows("SELECT count() FROM journal") == [(0,)]
    runner.flush()
    assert outside() == (3, 1)
    assert gate.rows("SELECT count() FROM fact_history") == [(3,)]


# -- signals --------------------------------------------------------------------------------


def _signalled(
    gate: Gate, at: dict[int, int]
) -> tuple[list[TurnEvent], InProcessRunner, Callable[[int], None]]:
    """Six turns, a runner, and a progress callback that sends this process the signal
    ``at[n]`` once ``n`` turns are done."""
    turns = [turn(f"t{i}", f"I prefer tool number {i} for scripting.", minutes=i) for i in range(6)]
    runner = InProcessRunner(gate.pipeline(), gate.retrieval, gate.audit)
    done = 0

    def progress(n: int) -> None:
        nonlocal done
        done += n
        if done in at:
            os.kill(os.getpid(), at[done])

    return turns, runner, progress


@pytest.mark.usefixtures("sigint_default")
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_finishes_the_turn_saves_and_raises_interrupted(gate: Gate, sig: int) -> None:
    turns, runner, progress = _signalled(gate, {2: sig})
    before = signal.getsignal(sig)
    with pytest.raises(Interrupted) as info:
        runner.run(turns, progress)
    assert info.value.exit_code == 128 + sig
    assert signal.getsignal(sig) is before  # restored
    applied = gate.retrieval.seen_turns("acme", [t.turn_id for t in turns])
    assert set(applied) == {"t0", "t1"}
    assert {r[0] for r in gate.rows("SELECT turn_id FROM journal")} == {"t0", "t1"}
    assert not gate.retrieval.in_batch
    # a second run picks up where it stopped
    summary = InProcessRunner(gate.pipeline(), gate.retrieval, gate.audit).run(turns)
    assert summary.replayed == 2
    assert len(gate.rows("SELECT turn_id FROM journal")) == 6


def test_an_ignored_sigint_stays_ignored_and_sigterm_still_stops_the_run(gate: Gate) -> None:
    """A run started with SIGINT ignored (nohup, ``cmd &`` in a script) is not stopped by
    it, as the caller asked; SIGTERM still finishes the turn and stops."""
    turns, runner, progress = _signalled(gate, {2: signal.SIGINT, 4: signal.SIGTERM})
    before = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with pytest.raises(Interrupted) as info:
            runner.run(turns, progress)
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, before)
    assert info.value.exit_code == 128 + signal.SIGTERM
    assert set(gate.retrieval.seen_turns("acme", [t.turn_id for t in turns])) == {
        "t0",
        "t1",
        "t2",
        "t3",
    }


# -- a retrieval store without transactions (OpenSearch) -------------------------------------


class NoBatches:
    """The embedded index seen through the plain RetrievalStore interface (as OpenSearch
    is: no batches, no ledger); on every upsert it notes which of the facts written had
    no history row in the audit store yet."""

    def __init__(self, inner: EmbeddedIndex, gate: Gate) -> None:
        self.inner, self.gate = inner, gate
        self.unexplained: list[str] = []
        self.journaled: set[str] = set()  # turns journaled before one of the upserts
        self.upserts = 0

    def upsert(self, facts: list[StoredFact], *, wait: bool = False) -> None:
        self.upserts += 1
        logged = {r[0] for r in self.gate.rows("SELECT fact_id FROM fact_history")}
        self.unexplained += [f.fact_id for f in facts if f.fact_id not in logged]
        self.journaled |= {r[0] for r in self.gate.rows("SELECT turn_id FROM journal")}
        self.inner.upsert(facts, wait=wait)

    def __getattr__(self, name: str) -> object:
        if name in {
            "begin",
            "commit",
            "rollback",
            "savepoint",
            "release",
            "rollback_to",
            "seen_turns",
            "record_turns",
            "in_batch",
        }:
            raise AttributeError(name)
        return getattr(self.inner, name)


def test_without_transactions_audit_rows_are_written_before_the_facts(gate: Gate) -> None:
    store = NoBatches(gate.retrieval, gate)
    errors: list[str] = []
    runner = InProcessRunner(gate.pipeline(), store, gate.audit, on_error=errors.append)  # type: ignore[arg-type]
    first = turn("t1", THREE_FACTS)
    runner.run([first])
    assert store.upserts == 3 and store.unexplained == []
    # the journal row (the ledger) lands after all the turn's facts: a journaled turn is whole
    assert store.journaled == set() and gate.rows("SELECT turn_id FROM journal") == [("t1",)]
    runner.run([turn("t2", "We deploy with Jenkins and Helm charts.", minutes=1)])
    assert store.upserts == 4 and store.unexplained == [] and store.journaled == {"t1"}
    # the journal is the ledger: a reused turn id is refused, a replay is skipped
    before = [f.model_dump() for f in _facts(gate)]
    runner.run([turn("t1", "Something else entirely, I prefer emacs."), first])
    assert len(errors) == 1 and "turn_id conflict" in errors[0]
    assert runner.summary.replayed == 1
    assert [f.model_dump() for f in _facts(gate)] == before
