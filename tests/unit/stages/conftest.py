"""Fixtures shared by the tests of the stages: the resolution tests' store, and the local
stand-in of the Anthropic API with the real SDK pointed at it (a module may define its own)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import anthropic
import pytest

from memgate.sinks.embedded import EmbeddedIndex
from tests.unit.stages.anthropic_kit import API_KEY
from tests.unit.stages.anthropic_standin import AnthropicStandIn, running_standin
from tests.unit.stages.resolver_kit import EMB


@pytest.fixture
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[EmbeddedIndex]:
    """An empty embedded index of the resolution tests' embedder, or of the embedder that
    the module's ``STORE_EMBEDDER`` returns (``resolver_kit.minilm``)."""
    embedder = getattr(request.module, "STORE_EMBEDDER", lambda: EMB)()
    s = EmbeddedIndex(tmp_path / "r.sqlite3", dim=embedder.dim)
    yield s
    s.close()


@pytest.fixture
def api() -> Iterator[AnthropicStandIn]:
    """The stand-in; it fails the test at teardown if the SDK sent anything the real API
    would reject."""
    with running_standin(api_key=API_KEY) as standin:
        yield standin


@pytest.fixture
def client(api: AnthropicStandIn) -> Iterator[anthropic.Anthropic]:
    """The real SDK pointed at the stand-in: no retries of its own, a 5 s timeout."""
    c = anthropic.Anthropic(api_key=API_KEY, base_url=api.base_url, max_retries=0, timeout=5)
    yield c
    c.close()
