"""The Faust triage step refuses a turn id reused for other content (dead letter
``turn_id_conflict``), looking it up in the audit journal; a replay of a journaled
turn is skipped (its journal row is sent after its triaged turn was delivered)."""

from __future__ import annotations

import asyncio

import pytest

from memgate.core.events import JournalRecord
from memgate.streams.app import Worker, failure_reason, triage_turn
from memgate.streams.metrics import Metrics
from memgate.streams.turns import JournalLedger, TurnIdConflict, TurnState, check_turn
from tests.unit.streams.conftest import Gate, turn


def _worker(gate: Gate) -> Worker:
    return Worker(
        settings=gate.settings,
        pipeline=gate.pipeline(),
        retrieval=gate.retrieval,
        audit=gate.audit,
        metrics=Metrics(),
    )


def test_the_triage_step_refuses_a_reused_turn_id_and_skips_a_replay(gate: Gate) -> None:
    worker = _worker(gate)
    ledger = JournalLedger(gate.audit)
    first = turn("t1", "We deploy with Jenkins and Helm charts.")
    out = asyncio.run(triage_turn(worker, ledger, first))
    again = asyncio.run(triage_turn(worker, ledger, first))  # not journaled yet: triaged again
    assert [type(e) for e in again] == [type(e) for e in out] and again[0] == out[0]
    # the audit agent writes the journal row (here at once)
    gate.audit.write([e for e in out if isinstance(e, JournalRecord)])
    assert asyncio.run(triage_turn(worker, ledger, first)) == []  # a replay: nothing
    other = turn("t1", "We deploy with ArgoCD now.")
    with pytest.raises(TurnIdConflict) as info:
        asyncio.run(triage_turn(worker, ledger, other))
    assert failure_reason(info.value) == "turn_id_conflict"
    # other tenants may use the same id
    assert asyncio.run(triage_turn(worker, ledger, turn("t1", "x", tenant_id="globex")))


def test_the_journal_ledger_reads_user_and_digest_by_tenant_and_turn_id(gate: Gate) -> None:
    p = gate.pipeline()
    turns = [turn("t1", "one"), turn("t2", "two", user="bob"), turn("t1", "1", tenant_id="g")]
    gate.audit.write([e for t in turns for e in p.triage(t) if isinstance(e, JournalRecord)])
    ledger = JournalLedger(gate.audit)
    assert ledger.seen_turns("acme", ["t1", "t2", "t3"]) == {
        "t1": ("alice", p.triage.digest(turns[0])),
        "t2": ("bob", p.triage.digest(turns[1])),
    }
    assert ledger.seen_turns("acme", []) == {}
    assert check_turn(ledger, turns[0], p.triage.digest(turns[0])) is TurnState.REPLAY
    assert check_turn(ledger, turn("t3", "three"), "d") is TurnState.NEW


def test_other_permanent_failures_keep_their_reason() -> None:
    from memgate.core.errors import PermanentError

    assert failure_reason(PermanentError("mapping conflict")) == (
        "permanent failure: mapping conflict"
    )


def test_a_store_call_is_retried_while_it_fails_transiently(gate: Gate) -> None:
    """The worker's retry (memgate.core.retry): transient errors wait and retry, counted."""
    from memgate.core.errors import TransientError

    worker = _worker(gate)
    fails = [TransientError("busy", retry_after=0.001), ConnectionError("reset")]

    def call() -> str:
        if fails:
            raise fails.pop(0)
        return "written"

    assert asyncio.run(worker.retry("audit", call)) == "written"
    counted = worker.metrics.registry.get_sample_value(
        "memgate_store_retries_total", {"store": "audit"}
    )
    assert counted == 2

    def bad() -> str:
        raise ValueError("bad row")

    with pytest.raises(ValueError, match="bad row"):  # not transient: raised at once
        asyncio.run(worker.retry("audit", bad))


def test_the_journal_ledger_asks_the_audit_engine_once_per_check(
    gate: Gate, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The triage step checks every turn: one engine query each, not three (no EXPLAIN of
    the ledger's own fixed statement, no column probe of an empty answer)."""
    p = gate.pipeline()
    known = turn("t1", "one")
    gate.audit.write([e for e in p.triage(known) if isinstance(e, JournalRecord)])
    ledger = JournalLedger(gate.audit)
    client = gate.audit.client
    asked: list[str] = []
    real = client.query

    def counted(sql: str, *args: object, **kwargs: object) -> object:
        asked.append(sql)
        return real(sql, *args, **kwargs)

    monkeypatch.setattr(client, "query", counted)
    assert check_turn(ledger, turn("t9", "new"), "d") is TurnState.NEW  # an empty answer
    assert check_turn(ledger, known, p.triage.digest(known)) is TurnState.REPLAY
    assert len(asked) == 2, asked
    # tenant-scoped: another tenant's turn of the same id is new
    assert ledger.seen_turns("globex", ["t1"]) == {}
