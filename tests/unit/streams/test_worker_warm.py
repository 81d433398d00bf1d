"""A worker about to join its group loads, before the first message, what its first
messages would otherwise load in the middle of the stream: the embedding model and the
audit client's lazy import of pandas (about half a second of CPU holding the GIL, which
stalls the event loop and every agent on it)."""

from __future__ import annotations

import subprocess
import sys

from memgate.streams.app import Worker
from memgate.streams.metrics import Metrics
from tests.unit.streams.conftest import Gate


def test_the_audit_store_imports_on_warm_what_its_first_insert_would() -> None:
    code = (
        "import sys\n"
        "from memgate.sinks.audit import ClickHouseAudit\n"
        "assert 'pandas' not in sys.modules, 'imported already'\n"
        "ClickHouseAudit.warm()\n"
        "assert 'pandas' in sys.modules\n"
        "from clickhouse_connect.driver import options\n"
        "assert 'pd' in vars(options)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_worker_warm_warms_the_audit_store(gate: Gate) -> None:
    warmed: list[str] = []

    class Audit:
        def __getattr__(self, name: str) -> object:
            return getattr(gate.audit, name)

        def warm(self) -> None:
            warmed.append("audit")

    worker = Worker(gate.settings, gate.pipeline(), gate.retrieval, Audit(), Metrics())  # type: ignore[arg-type]
    worker.warm()
    assert warmed == ["audit"]
