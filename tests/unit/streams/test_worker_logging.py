"""The worker logs at the level it is given and builds no record below it: Faust's
terminal spinner set the root logger to DEBUG for the worker's life, so that every debug
call of aiokafka and Faust (several per message) built a record no handler wrote."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest

from memgate.streams.app import Worker, create_app, faust_worker
from memgate.streams.metrics import Metrics
from tests.unit.streams.conftest import Gate


@pytest.fixture
def restored_logging() -> Iterator[None]:
    root = logging.getLogger()
    level, handlers = root.level, list(root.handlers)
    try:
        yield
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)


def test_the_worker_builds_no_debug_record_at_warning(gate: Gate, restored_logging: None) -> None:
    worker = Worker(gate.settings, gate.pipeline(), gate.retrieval, gate.audit, Metrics())
    fw = faust_worker(create_app(worker), "warning")
    fw._setup_logging()  # what the worker does on its first start
    for name in ("aiokafka.producer.producer", "aiokafka.conn", "faust.topics", "mode"):
        assert not logging.getLogger(name).isEnabledFor(logging.DEBUG), name
    assert logging.getLogger("faust").isEnabledFor(logging.WARNING)
