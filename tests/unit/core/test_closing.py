"""The stores and the gate share one context-manager protocol (memgate.core.closing)."""

from __future__ import annotations

from pathlib import Path

import pytest

from memgate.core.closing import Closing
from memgate.sinks.embedded import EmbeddedIndex


class _Counted(Closing):
    def __init__(self) -> None:
        self.closed = 0

    def close(self) -> None:
        self.closed += 1


def test_the_block_gets_the_object_and_closes_it_however_it_ends() -> None:
    with _Counted() as c:
        assert isinstance(c, _Counted)
    assert c.closed == 1
    d = _Counted()
    with pytest.raises(ValueError), d:
        raise ValueError("boom")
    assert d.closed == 1


def test_a_store_closes_at_the_end_of_its_block(tmp_path: Path) -> None:
    with EmbeddedIndex(tmp_path / "facts.db", dim=4) as index:
        assert isinstance(index, EmbeddedIndex)
        index.stats()
    assert index._conn is None
