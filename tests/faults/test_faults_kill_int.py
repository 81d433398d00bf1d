"""A worker killed with SIGKILL at random points under load (issue 15), reconciled exactly.

Bounded form under ``make test`` (3 kills); ``make faults`` kills it 10 times. Two variants:
the restarted worker keeps the data dir (its embedded audit store and ledger), or starts
on a fresh one each time (a replaced container): the second leaves the old static member
to time out of the group before its partitions move, and spreads the journal over
several audit stores, each of which must hold a turn at most once.

The random points come from ``MEMGATE_FAULTS_SEED`` (default: the clock); the seed and
the points are printed, so a failing run can be repeated.
"""

from __future__ import annotations

import asyncio
import os
import random
import time
from pathlib import Path
from typing import TypeVar

import pytest

from memgate.core.embedding import MiniLMEmbedder
from memgate.inputs import load_locomo
from memgate.sinks.opensearch import OpenSearchStore
from memgate.streams.producer import produce_turns
from tests.datasets import locomo_file
from tests.faults.reconcile import FULL, metric, reconcile, wait_for
from tests.integration.conftest import KAFKA, WorkerProcess, settings_for, worker_env
from tests.integration.kafka_helpers import wait_drained

pytestmark = pytest.mark.integration

N_TURNS = 400 if FULL else 160
KILLS = 10 if FULL else 3
T = TypeVar("T")


def chunks(items: list[T], n: int) -> list[list[T]]:
    """``items`` in ``n`` consecutive shares of nearly equal size, in order."""
    size, extra = divmod(len(items), n)
    out, at = [], 0
    for k in range(n):
        step = size + (1 if k < extra else 0)
        out.append(items[at : at + step])
        at += step
    return out


@pytest.fixture(scope="module")
def embedder() -> MiniLMEmbedder:
    return MiniLMEmbedder()


@pytest.mark.parametrize("data_dir", ["same", "fresh"])
def test_a_worker_killed_at_random_points_loses_and_duplicates_nothing(
    data_dir: str,
    services: dict[str, str],
    run_id: str,
    tmp_path: Path,
    embedder: MiniLMEmbedder,
) -> None:
    seed = int(os.environ.get("MEMGATE_FAULTS_SEED") or time.time())
    rng = random.Random(seed)
    turns = load_locomo(locomo_file())[0].turns[:N_TURNS]
    dirs = [tmp_path / "d0"]
    env = worker_env(run_id, dirs[0])
    s = settings_for(env)
    log = tmp_path / "worker.log"
    w = WorkerProcess(env, log)
    w.start()
    store = OpenSearchStore.from_settings(s, dim=embedder.dim)
    points: list[tuple[float, int, int]] = []  # (s after its first event, events in, facts)
    # the turns go in one share per life of the worker, each produced once that life has
    # started: a life always has events of its own to take in, however fast the lives
    # before it drained theirs (all produced up front, two quick lives could finish them
    # and the next would wait for events that never come)
    shares = chunks(turns, KILLS + 1)
    print(f"seed {seed} (MEMGATE_FAULTS_SEED={seed} repeats this run)")
    try:
        t0 = time.monotonic()
        port = env["MEMGATE_METRICS_PORT"]  # every (re)start serves /metrics there
        for i in range(KILLS):
            asyncio.run(produce_turns(s, shares[i]))
            # a random point under load: once the (re)started worker has its partition and
            # takes events in (a fresh member waits out the old one's session first), a
            # random moment while it reads, writes or commits
            try:
                wait_for(lambda: metric(port, "memgate_events_in_total") > 0, 120,
                         f"the worker to take events in before kill {i + 1}")  # fmt: skip
            except AssertionError as e:
                raise AssertionError(f"{e}; kills so far {points}; worker log:\n{w.log()}") from e
            wait = round(rng.uniform(0.0, 4.0), 2)
            time.sleep(wait)
            events = int(metric(port, "memgate_events_in_total"))
            w.kill()
            points.append((wait, events, store.stats().get("active", 0)))
            if data_dir == "fresh":
                dirs.append(tmp_path / f"d{i + 1}")
                w = WorkerProcess(worker_env(run_id, dirs[-1]), log)
            w.start()
        asyncio.run(produce_turns(s, shares[KILLS]))
        print(f"seed {seed}; kills (s after first event, events in, active facts): {points}")
        wait_drained(KAFKA, s.worker_id, s.topic_prefix, timeout=900, stall=180, describe=w.log)
        took = time.monotonic() - t0
        assert w.proc is not None and w.proc.poll() is None, "the worker died:\n" + w.log()
    finally:
        w.stop()
    reconcile(turns, store, dirs, tmp_path / "ref", embedder,
              case=f"worker SIGKILL x{KILLS}, {data_dir} data dir", drained_s=took,
              seed=seed, kills=points)  # fmt: skip
    store.client.indices.delete(index=store.index, ignore_unavailable=True)
    store.close()
