"""Fixtures shared by the resolution tests of the stages."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from memgate.sinks.embedded import EmbeddedIndex
from tests.unit.stages.resolver_kit import EMB


@pytest.fixture
def store(tmp_path: Path) -> Iterator[EmbeddedIndex]:
    """An empty embedded index of the resolution tests' embedder (files that need another
    store define their own ``store``)."""
    s = EmbeddedIndex(tmp_path / "r.sqlite3", dim=EMB.dim)
    yield s
    s.close()
