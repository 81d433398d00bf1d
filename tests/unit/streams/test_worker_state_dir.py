"""Faust keeps its table state in ``datadir``, by default ``<app id>-data`` in the current
folder: every worker (and every integration test run) left an empty ``<worker_id>-data``
folder wherever it was started. The worker's own state goes under its data dir."""

from __future__ import annotations

from pathlib import Path

from memgate.streams.app import Worker, create_app
from memgate.streams.metrics import Metrics
from tests.unit.streams.conftest import Gate


def test_the_worker_keeps_faust_state_under_its_data_dir(gate: Gate) -> None:
    worker = Worker(gate.settings, gate.pipeline(), gate.retrieval, gate.audit, Metrics())
    app = create_app(worker)
    data_dir = gate.settings.data_dir.resolve()
    for folder in (Path(app.conf.datadir), Path(app.conf.tabledir)):
        assert folder.resolve().is_relative_to(data_dir), folder
    assert not Path(app.conf.datadir).resolve().is_relative_to(Path.cwd().resolve())
