"""Fixtures shared by the resolution tests of the stages."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from memgate.sinks.embedded import EmbeddedIndex
from tests.unit.stages.resolver_kit import EMB


@pytest.fixture
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[EmbeddedIndex]:
    """An empty embedded index of the resolution tests' embedder, or of the embedder that
    the module's ``STORE_EMBEDDER`` returns (``resolver_kit.minilm``)."""
    embedder = getattr(request.module, "STORE_EMBEDDER", lambda: EMB)()
    s = EmbeddedIndex(tmp_path / "r.sqlite3", dim=embedder.dim)
    yield s
    s.close()
