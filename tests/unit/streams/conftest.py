"""A gate on fresh embedded stores (SQLite index, chDB audit), hashing embedder."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from memgate.backends import build_pipeline
from memgate.core.embedding import HashingEmbedder
from memgate.core.events import TurnEvent
from memgate.core.settings import Settings, load_settings
from memgate.sinks.audit import ClickHouseAudit
from memgate.sinks.embedded import EmbeddedIndex
from memgate.stages.extract import Extractor
from memgate.streams.pipeline import Pipeline

KEY = "unit-test-hmac-key-0123456789abcdef0123"
T0 = datetime(2024, 3, 1, 9, 0, tzinfo=UTC)


def turn(
    turn_id: str, content: str, *, user: str = "alice", minutes: int = 0, **kw: Any
) -> TurnEvent:
    return TurnEvent(
        tenant_id=kw.pop("tenant_id", "acme"),
        user_id=user,
        session_id=kw.pop("session_id", "s1"),
        turn_id=turn_id,
        role="user",
        content=content,
        ts=kw.pop("ts", T0 + timedelta(minutes=minutes)),
        **kw,
    )


@dataclass
class Gate:
    settings: Settings
    retrieval: EmbeddedIndex
    audit: ClickHouseAudit
    embedder: HashingEmbedder

    def pipeline(self, extractor: Extractor | None = None) -> Pipeline:
        return build_pipeline(self.settings, self.embedder, extractor)

    def rows(self, sql: str) -> list[tuple[Any, ...]]:
        return self.audit.query(sql)[1]


@pytest.fixture
def gate(tmp_path: Path) -> Iterator[Gate]:
    s = load_settings(data_dir=tmp_path / "data", embedder="hashing", hmac_key=KEY)
    s.data_dir.mkdir(parents=True)
    embedder = HashingEmbedder()
    retrieval = EmbeddedIndex(s.retrieval_path, dim=embedder.dim)
    audit = ClickHouseAudit.embedded(s.audit_path)
    try:
        yield Gate(s, retrieval, audit, embedder)
    finally:
        retrieval.close()
        audit.close()


@pytest.fixture
def sigint_default() -> Iterator[None]:
    """SIGINT raises KeyboardInterrupt here and in child processes, whatever was inherited.

    A test run started in the background by a non-interactive shell (``make test &``,
    nohup, some CI runners) inherits SIGINT as *ignored*; Python then installs no
    handler, the gate leaves an ignored SIGINT ignored (as it should), and a test that
    sends SIGINT would measure the shell, not the gate. A child inherits ``SIG_DFL``
    from this (a Python handler is reset on exec), so its Python raises on SIGINT too.
    """
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)
