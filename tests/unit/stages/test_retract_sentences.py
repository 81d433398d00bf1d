"""A retraction withdraws a fact the statement extractors stored as a sentence.

The hybrid extractor stores "I like jazz, especially Coltrane" as one sentence-valued
fact; "please forget that I like jazz" must withdraw it (not be stored as a new fact),
and must leave a fact that does not name the thing alone.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from memgate import Memory
from memgate.core.events import Role, TurnEvent
from memgate.stages.statements import HybridExtractor


def turn(tid: str, text: str, day: int) -> TurnEvent:
    return TurnEvent(
        tenant_id="acme", user_id="alice", session_id=f"s{day}", turn_id=tid,
        role=Role.USER, content=text, ts=datetime(2024, 2, day, 9, tzinfo=UTC),
    )


def test_the_hybrid_extractor_passes_a_retraction_on_instead_of_storing_it() -> None:
    out = HybridExtractor().extract(
        turn("t2", "Please forget that I like jazz; I mixed it up with my brother's taste.", 2)
    )
    assert out, "the retraction was dropped"
    assert all(c.retracts for c in out), [(c.predicate, c.object, c.retracts) for c in out]


@pytest.fixture
def mem(tmp_path: Path) -> Iterator[Memory]:
    with Memory(data_dir=tmp_path, embedder="hashing", extractor="hybrid") as m:
        yield m


def test_forget_that_withdraws_the_sentence_that_names_it_and_only_that(mem: Memory) -> None:
    mem.add([turn("t1", "I like jazz, especially Coltrane.", 1)], "acme", "alice")
    mem.add([turn("t2", "I like hiking in the Alps with my dog.", 2)], "acme", "alice")
    before = [f.value for f in mem.get_all("acme", "alice")]
    assert any("jazz" in v for v in before) and any("hiking" in v for v in before), before
    mem.add(
        [turn("t3", "Please forget that I like jazz; I mixed it up with my brother's taste.", 3)],
        "acme", "alice",
    )
    after = [f.value for f in mem.get_all("acme", "alice")]
    assert not any("jazz" in v for v in after), after
    assert any("hiking" in v for v in after), after
    assert not any("forget" in v.lower() for v in after), after
