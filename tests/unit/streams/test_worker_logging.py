"""The worker logs at the level it is given and builds no record below it (Faust's
terminal spinner set the root logger to DEBUG for the worker's life, so that every debug
call of aiokafka and Faust, several per message, built a record no handler wrote), and
runs on uvloop's event loop unless ``worker_uvloop`` is off."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator

import pytest

from memgate.streams.app import Worker, create_app
from memgate.streams.faust_worker import faust_worker
from memgate.streams.metrics import Metrics
from tests.unit.streams.conftest import Gate


@pytest.fixture
def restored_logging() -> Iterator[None]:
    root = logging.getLogger()
    level, handlers = root.level, list(root.handlers)
    policy = asyncio.get_event_loop_policy()
    try:
        yield
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)
        asyncio.set_event_loop_policy(policy)


def test_the_worker_builds_no_debug_record_at_warning(gate: Gate, restored_logging: None) -> None:
    worker = Worker(gate.settings, gate.pipeline(), gate.retrieval, gate.audit, Metrics())
    fw = faust_worker(create_app(worker), "warning")
    fw._setup_logging()  # what the worker does on its first start
    for name in ("aiokafka.producer.producer", "aiokafka.conn", "faust.topics", "mode"):
        assert not logging.getLogger(name).isEnabledFor(logging.DEBUG), name
    assert logging.getLogger("faust").isEnabledFor(logging.WARNING)


@pytest.mark.parametrize("on", [True, False])
def test_the_worker_runs_on_uvloop_unless_turned_off(
    gate: Gate, restored_logging: None, on: bool
) -> None:
    uvloop = pytest.importorskip("uvloop")
    worker = Worker(gate.settings, gate.pipeline(), gate.retrieval, gate.audit, Metrics())
    assert gate.settings.worker_uvloop  # the default
    faust_worker(create_app(worker), "warning", uvloop=on)
    loop = asyncio.new_event_loop()
    try:
        assert isinstance(loop, uvloop.Loop) is on
    finally:
        loop.close()
