"""The triage step holds a user's tentative statement outside the fact store, masked and
bounded, and reads a later turn of the user that confirms it as the user stating it
(streams/tentatives.py, stages/tentative.py); a withdrawal is dropped. The sentences are
written for these tests, in other words than the development files."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memgate.core.events import (
    DecisionRecord,
    FactStatus,
    Stage,
    StoredFact,
    TriagedTurn,
    TurnEvent,
)
from memgate.core.settings import Settings
from memgate.evaluation.common import Workspace
from memgate.keys import keyed_in_memory
from memgate.receipts import erase_user
from memgate.stages.detectors import Detector
from memgate.streams.pipeline import (
    CONFIRMED_TENTATIVE,
    TENTATIVE_PLAIN,
    WITHDRAWN_TENTATIVE,
    TriageStep,
)
from memgate.streams.tentatives import HeldTentatives
from tests.unit.stages.resolver_kit import minilm


def _turn(i: str, text: str, ts: str = "2025-04-01T10:00:00Z", **kw: Any) -> TurnEvent:
    fields: dict[str, Any] = {"tenant_id": "acme", "user_id": "alice", "session_id": "s1"}
    fields.update(kw)
    return TurnEvent(turn_id=i, role=kw.pop("role", "user"), content=text, ts=ts, **fields)


def _step() -> TriageStep:
    return TriageStep(detector=Detector(), hmac_key=b"k" * 32)


def _kept(out: list[Any]) -> list[TriagedTurn]:
    return [o for o in out if isinstance(o, TriagedTurn) and not o.probe]


def _decision(out: list[Any]) -> DecisionRecord:
    (d,) = [o for o in out if isinstance(o, DecisionRecord) and o.stage is Stage.TRIAGE]
    return d


def test_a_confirmation_naming_the_statement_is_the_user_stating_it() -> None:
    step = _step()
    step(_turn("u1", "I'm considering a switch to Neovim for work."))
    assert len(step.tentatives) == 1
    out = step(_turn("u2", "Neovim, decided.", ts="2025-04-03T09:00:00Z", session_id="s2"))
    (kept,) = _kept(out)
    assert kept.turn.content == "A switch to Neovim for work."
    assert kept.turn.confirmed is True
    assert kept.reason == CONFIRMED_TENTATIVE
    decision = _decision(out)
    assert decision.reason == CONFIRMED_TENTATIVE
    assert decision.details["tentative_turn"] == "u1"
    assert decision.turn_id == "u2"


def test_a_withdrawal_is_dropped_and_no_probe() -> None:
    step = _step()
    step(_turn("u1", "Wir ziehen vielleicht nach Bremen."))
    out = step(_turn("u2", "Der Umzug nach Bremen ist geplatzt.", ts="2025-04-05T10:00:00Z"))
    assert not [o for o in out if isinstance(o, TriagedTurn)]
    assert _decision(out).reason == WITHDRAWN_TENTATIVE


def test_a_confirmation_with_words_triage_keeps_goes_on_as_itself_beside_the_statement() -> None:
    """It names nothing: its extraction decides (the statement is read only when the turn
    yields no fact of its own)."""
    step = _step()
    step(_turn("u1", "Puede que empiece a correr por las mañanas."))
    out = step(_turn("u2", "Confirmado, ya me apunté.", ts="2025-04-01T12:00:00Z"))
    (kept,) = _kept(out)
    assert kept.turn.content == "Confirmado, ya me apunté."
    assert "correr" in str(kept.turn.metadata[TENTATIVE_PLAIN])


def test_the_held_statement_is_masked() -> None:
    step = _step()
    step(_turn("u1", "I might be switching my contact to jane.roe@example.org soon."))
    held = [h.statement.plain for hs in step.tentatives._held.values() for h in hs]
    assert held and all("jane.roe@example.org" not in p for p in held)


def test_another_user_and_a_second_answer_confirm_nothing() -> None:
    step = _step()
    step(_turn("u1", "Je vais peut-être adopter un lapin."))
    assert not _kept(step(_turn("b1", "C'est décidé !", user_id="bob")))
    assert _kept(step(_turn("u2", "C'est décidé !", ts="2025-04-01T10:05:00Z")))[0].turn.confirmed
    again = _kept(step(_turn("u3", "C'est décidé !", ts="2025-04-01T10:06:00Z")))
    assert not again or not again[0].turn.confirmed  # answered once
    # the same turn read twice is answered the same
    redo = _kept(step(_turn("u2", "C'est décidé !", ts="2025-04-01T10:05:00Z")))
    assert redo[0].turn.confirmed


def test_the_holder_is_bounded_per_user_in_all_and_in_time() -> None:
    held = HeldTentatives(per_user=2, total=3, max_age_s=3600)
    for n in range(4):
        held.hold(_turn(f"a{n}", "x"), f"p{n}")
    assert [s.plain for s in held.open(_turn("q", "x", ts="2025-04-01T10:30:00Z"))] == ["p2", "p3"]
    for n in range(3):
        held.hold(_turn(f"b{n}", "x", user_id=f"u{n}"), "p")
    assert len(held) == 3
    assert held.open(_turn("q", "x", ts="2025-04-01T12:00:00Z")) == []  # too old


def test_an_erasure_clears_what_is_held_of_the_user(tmp_path: Path) -> None:
    step = _step()
    step(_turn("u1", "Talvez eu comece aulas de violão."))
    step(_turn("b1", "Talvez eu comece aulas de piano.", user_id="bob"))
    assert len(step.tentatives) == 2

    class _Store:
        def forget(self, tenant_id: str, user_id: str) -> int:
            return 0

    settings = keyed_in_memory(Settings(), tmp_path)
    erase_user(settings, _Store(), _Store(), None, "acme", "alice")  # type: ignore[arg-type]
    assert len(step.tentatives) == 1
    out = _kept(step(_turn("u2", "Está fechado.", ts="2025-04-01T10:01:00Z")))
    assert all(not k.turn.confirmed and TENTATIVE_PLAIN not in k.turn.metadata for k in out)


# ------------------------------------------------------------------ through the gate


@pytest.fixture(scope="module")
def gate(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workspace]:
    settings = Settings(data_dir=tmp_path_factory.mktemp("tentative"))
    with Workspace(settings, minilm()) as ws:
        yield ws


def _facts(ws: Workspace, user: str, word: str) -> list[StoredFact]:
    found = ws.store.list_facts("acme", user, include_inactive=True)
    return [f for f in found if word.casefold() in f.text.casefold()]


def _status(ws: Workspace, user: str, word: str) -> list[FactStatus]:
    return [f.status for f in _facts(ws, user, word)]


def test_a_hedge_then_a_brief_confirmation_is_active_only_after_it(gate: Workspace) -> None:
    gate.process(_turn("g1", "Probablemente me cambie al equipo de datos.", user_id="gil"))
    assert FactStatus.ACTIVE not in _status(gate, "gil", "datos")
    gate.process(_turn("g2", "Listo, confirmado.", ts="2025-04-01T15:00:00Z", user_id="gil"))
    assert _status(gate, "gil", "datos") == [FactStatus.ACTIVE]


def test_a_chinese_hedge_confirmed_in_a_later_session_by_its_value(gate: Workspace) -> None:
    gate.process(_turn("z1", "我在考虑换到成都的分公司。", user_id="zhou"))
    assert not _facts(gate, "zhou", "成都")
    gate.process(
        _turn("z2", "成都那边确认了。", ts="2025-04-06T10:00:00Z", user_id="zhou", session_id="s2")
    )
    assert _status(gate, "zhou", "成都") == [FactStatus.ACTIVE]


def test_a_hedge_then_a_withdrawal_leaves_nothing_active(gate: Workspace) -> None:
    gate.process(_turn("w1", "We might be adopting Bazel for the monorepo.", user_id="wes"))
    gate.process(
        _turn(
            "w2", "Bazel got scrapped.", ts="2025-04-03T10:00:00Z", user_id="wes", session_id="s2"
        )
    )
    assert FactStatus.ACTIVE not in _status(gate, "wes", "Bazel")


def test_a_tentative_statement_the_extractor_reads_is_stored_pending(gate: Workspace) -> None:
    """ "Il est possible que ...": a belief, pending until confirmed (before: active)."""
    gate.process(_turn("p1", "Il est possible que je sois nommée à Nantes.", user_id="pia"))
    assert _status(gate, "pia", "Nantes") in ([], [FactStatus.PENDING])


def test_a_confirmation_with_a_fact_of_its_own_keeps_its_own_fact(gate: Workspace) -> None:
    gate.process(_turn("k1", "Maybe I'll learn Portuguese next year.", user_id="kim"))
    gate.process(
        _turn("k2", "Confirmed: I live in Porto now.", ts="2025-04-01T10:10:00Z", user_id="kim")
    )
    assert _status(gate, "kim", "Porto") == [FactStatus.ACTIVE]
    assert FactStatus.ACTIVE not in _status(gate, "kim", "Portuguese")
