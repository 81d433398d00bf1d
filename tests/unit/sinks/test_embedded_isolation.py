"""The hostile-tenant contract (tests/contracts/isolation.py) on the embedded index."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from memgate.sinks.embedded import EmbeddedIndex
from tests.contracts.isolation import IsolationContract


class TestEmbeddedIsolation(IsolationContract):
    @pytest.fixture
    def store(self, tmp_path: Path) -> Iterator[EmbeddedIndex]:
        with EmbeddedIndex(tmp_path / "facts.db", dim=self.DIM) as s:
            yield s
