"""Per-user fairness on a real worker: a burst of one user on the input topic, other users'
turns behind it on the same partition, a SIGKILL while the burst still waits on the
deferred topic, a restart on the same data dir.

* the other users' facts are searchable while the burst is still deferred (they did not
  wait for its stage work);
* after the restart the worker rebuilds the backlog markers from the deferred topic
  (``event=deferred_markers_rebuilt`` with the burst's user waiting);
* in the end every fact-bearing turn of the burst is the source of a fact, nothing is
  dead-lettered, the deferred topic's lag drains.

Small: 1,000 burst turns at 10 turns/s (the burst waits about 100 s on the deferred topic).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from memgate.sinks.opensearch import OpenSearchStore
from tests.integration.conftest import (
    KAFKA,
    WorkerProcess,
    running_worker,
    settings_for,
    worker_env,
)
from tests.integration.kafka_helpers import _lag, produce_raw, read_topic, wait_drained

pytestmark = pytest.mark.integration

BURST, OTHERS = 1_000, 10
FAIR = {"MEMGATE_FAIR_TURNS_PER_S": "10", "MEMGATE_FAIR_BURST": "20"}


def _turn(user: str, i: int, text: str) -> bytes:
    return json.dumps({
        "tenant_id": "acme", "user_id": user, "session_id": "s1", "turn_id": f"{user}-{i}",
        "role": "user", "content": text, "ts": "2024-05-01T10:00:00Z",
    }).encode()  # fmt: skip


def _messages() -> list[tuple[bytes, bytes]]:
    out = []
    for i in range(BURST):
        text = f"I use tool number {i} for scripting." if i % 10 == 0 else "ok thanks"
        out.append((b"acme/mallory", _turn("mallory", i, text)))
        if i % (BURST // OTHERS) == 50:
            out.append((b"acme/ann", _turn("ann", i, f"I live in city number {i}.")))
    return out


@pytest.fixture
def worker(services: dict[str, str], run_id: str, tmp_path: Path) -> Iterator[WorkerProcess]:
    env = worker_env(run_id, tmp_path / "data", **FAIR)
    with running_worker(env, tmp_path / "worker.log") as w:
        yield w


def test_a_burst_waits_on_the_deferred_topic_and_survives_a_kill(worker: WorkerProcess) -> None:
    s = settings_for(worker.env)
    messages = _messages()
    asyncio.run(produce_raw(s, messages))
    store = OpenSearchStore.from_settings(s, dim=384)
    deferred = f"{s.topic_prefix}.deferred"
    ann = {f"ann-{i}" for key, value in messages if key == b"acme/ann"
           for i in [json.loads(value)["turn_id"].split("-", 1)[1]]}  # fmt: skip
    assert len(ann) == OTHERS

    def ann_done() -> set[str]:
        # each of ann's turns is a new home city: it supersedes the one before, so her
        # turns are read from every fact, current or superseded
        store.refresh()
        return {t for f in store.list_facts("acme", "ann", include_inactive=True)
                for t in f.source_turn_ids}  # fmt: skip

    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not ann <= ann_done():
        time.sleep(0.5)  # ann's turns go on while mallory's still wait
    assert ann <= ann_done(), worker.log()
    assert asyncio.run(_lag(KAFKA, s.worker_id, [deferred])) > 0, "the burst was not deferred"
    worker.kill()
    worker.start()
    wait_drained(KAFKA, s.worker_id, s.topic_prefix, timeout=300)
    assert "event=deferred_markers_rebuilt" in worker.log_path.read_text(errors="replace")
    store.refresh()
    sources = {t for f in store.list_facts("acme", "mallory", include_inactive=True)
               for t in f.source_turn_ids}  # fmt: skip
    store.close()
    assert {f"mallory-{i}" for i in range(0, BURST, 10)} <= sources
    assert read_topic(KAFKA, f"{s.topic_prefix}.dlq", timeout_ms=5_000) == []
