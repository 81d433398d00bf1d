"""Faults on the real services, each reconciled exactly with the in-process result.

Bounded form under ``make test``; ``make faults`` (MEMGATE_FAULTS_FULL=1) runs the full
length: more turns, and the 60 s OpenSearch outage of issue 15.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from memgate.core.embedding import MiniLMEmbedder
from memgate.core.events import TurnEvent
from memgate.inputs import load_locomo
from memgate.sinks.opensearch import OpenSearchStore
from memgate.streams.producer import produce_turns
from tests.datasets import locomo_file
from tests.faults.reconcile import FULL, metric, reconcile, service, wait_for
from tests.integration.conftest import KAFKA, WorkerProcess, settings_for, worker_env
from tests.integration.kafka_helpers import wait_drained

pytestmark = pytest.mark.integration

N_TURNS = 400 if FULL else 160
OUTAGE_S = 60.0 if FULL else 15.0


@pytest.fixture(scope="module")
def embedder() -> MiniLMEmbedder:
    return MiniLMEmbedder()


@pytest.fixture
def restore_services(services: dict[str, str]) -> Iterator[None]:
    """Whatever a case stops, the next test finds every service up again."""
    yield
    service("up", "all")


def _turns(n: int) -> list[TurnEvent]:
    return load_locomo(locomo_file())[0].turns[:n]


def _progress(store: OpenSearchStore, at_least: int, timeout: float = 180) -> None:
    wait_for(lambda: store.stats().get("active", 0) >= at_least, timeout, f"{at_least} facts")


def _drop_index(store: OpenSearchStore) -> None:
    store.client.indices.delete(index=store.index, ignore_unavailable=True)
    store.close()


def test_the_broker_restarted_mid_stream_loses_and_duplicates_nothing(
    restore_services: None, run_id: str, tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    turns = _turns(N_TURNS)
    env = worker_env(run_id, tmp_path / "data")
    s = settings_for(env)
    w = WorkerProcess(env, tmp_path / "worker.log")
    w.start()
    store = OpenSearchStore.from_settings(s, dim=embedder.dim)
    try:
        t0 = time.monotonic()
        asyncio.run(produce_turns(s, turns))
        _progress(store, 5)
        service("down", "kafka")
        time.sleep(5)
        service("up", "kafka")
        wait_drained(KAFKA, s.worker_id, s.topic_prefix, timeout=600)
        took = time.monotonic() - t0
        assert w.proc is not None and w.proc.poll() is None, "the worker died:\n" + w.log()
    finally:
        w.stop()
    reconcile(turns, store, [tmp_path / "data"], tmp_path / "ref", embedder,
              case="broker restarted (5 s down)", drained_s=took)  # fmt: skip
    _drop_index(store)


def test_opensearch_stopped_and_brought_back_loses_nothing(
    restore_services: None, run_id: str, tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    turns = _turns(N_TURNS)
    env = worker_env(run_id, tmp_path / "data")
    s = settings_for(env)
    w = WorkerProcess(env, tmp_path / "worker.log")
    w.start()
    store = OpenSearchStore.from_settings(s, dim=embedder.dim)
    try:
        t0 = time.monotonic()
        asyncio.run(produce_turns(s, turns))
        _progress(store, 5)
        service("down", "opensearch")
        time.sleep(OUTAGE_S)
        retries_during = metric(env["MEMGATE_METRICS_PORT"], "memgate_store_retries_total")
        assert w.proc is not None and w.proc.poll() is None, "the worker died:\n" + w.log()
        service("up", "opensearch")
        wait_drained(KAFKA, s.worker_id, s.topic_prefix, timeout=600)
        took = time.monotonic() - t0
        assert w.proc.poll() is None, "the worker died:\n" + w.log()
        # the outage shows on /metrics as store retries
        assert retries_during > 0, "no store retry counted during the outage:\n" + w.log()
    finally:
        w.stop()
    reconcile(turns, store, [tmp_path / "data"], tmp_path / "ref", embedder,
              case=f"OpenSearch stopped {OUTAGE_S:.0f} s", drained_s=took,
              store_retries=retries_during)  # fmt: skip
    _drop_index(store)


def test_a_second_worker_joining_and_leaving_under_load(
    services: dict[str, str], run_id: str, tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    """Two partitions; a second worker (own metrics port, own data dir) joins under load
    and leaves with SIGTERM; the first takes its partition back; the result is exact."""
    turns = [t for conv in load_locomo(locomo_file())[:2] for t in conv.turns[: N_TURNS // 2]]
    extra = {"MEMGATE_TOPIC_PARTITIONS": "2"}
    env1 = worker_env(run_id, tmp_path / "w1", **extra)
    env2 = worker_env(run_id, tmp_path / "w2", **extra, MEMGATE_METRICS_PORT="19102")
    s = settings_for(env1)
    w1 = WorkerProcess(env1, tmp_path / "w1.log")
    w2 = WorkerProcess(env2, tmp_path / "w2.log")
    w1.start()
    store = OpenSearchStore.from_settings(s, dim=embedder.dim)
    try:
        t0 = time.monotonic()
        # half the turns before the second worker joins, half after it holds a partition:
        # whichever partition it takes has turns left for it (a worker that drains fast
        # finishes turns produced while the second one is still starting, before the
        # rebalance hands it anything)
        convs = [conv.turns[: N_TURNS // 2] for conv in load_locomo(locomo_file())[:2]]
        first = [t for c in convs for t in c[: len(c) // 2]]  # each user's turns in order
        asyncio.run(produce_turns(s, first))
        _progress(store, 5)
        w2.start()
        wait_for(lambda: "[^Worker]: Ready" in w2.log_path.read_text(errors="replace"), 180,
                 "worker 2 to join the group and hold a partition")  # fmt: skip
        asyncio.run(produce_turns(s, [t for c in convs for t in c[len(c) // 2 :]]))
        # the second worker takes a partition and processes events of it
        wait_for(lambda: metric("19102", "memgate_events_in_total") > 0, 240, "worker 2 to work")
        w2.stop()
        wait_drained(KAFKA, s.worker_id, s.topic_prefix, timeout=600)
        took = time.monotonic() - t0
        assert w1.proc is not None and w1.proc.poll() is None, "worker 1 died:\n" + w1.log()
    finally:
        w2.stop()
        w1.stop()
    reconcile(turns, store, [tmp_path / "w1", tmp_path / "w2"], tmp_path / "ref", embedder,
              case="second worker joins and leaves (2 partitions)", drained_s=took)  # fmt: skip
    _drop_index(store)
