"""The dedupe stage on OpenSearch, through the worker's agent bodies (``Worker.handle``,
the messages passed in memory instead of Kafka): candidates/s with every fact write
waiting for a refresh (``dedupe_wait_for_refresh``, the old path) and with the
read-your-writes cache (writes return once durable), on a fresh index each. Each row
also gives the store's search round trips per candidate (``_search`` and ``_msearch``
requests; the dedupe stage is the only reader here, and a read-ahead is one request) and
the wall-clock milliseconds spent in them.

    MEMGATE_OPENSEARCH_URL=http://127.0.0.1:19200 .venv/bin/python \\
        benchmarks/bench_dedupe_opensearch.py [--turns 400] [--cache-only]

``--cache-only``: the read-your-writes row alone (the wait_for row takes minutes).
``--batch N`` (with ``--cache-only``): the turns of the conversations interleaved (as
``bench_pipeline.py`` sends them), carried up to the dedupe topic first, then the dedupe
agent's body on N waiting candidates at a time (``streams.dedupe_batch``; 1: one at a
time, ``Worker.handle``); ``--widen``: k-nearest reads widened by the cache's size
instead of leaving its ids out (the store's ``nearest_excluding`` hidden).

Runs only when OpenSearch is reachable; otherwise the rows say so.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
import time
import uuid
from collections import defaultdict
from pathlib import Path
from typing import Any

from common import LOCOMO, NOT_RUN, reachable, throwaway_settings, write

from memgate.core.embedding import limit_blas_threads
from memgate.core.events import Stage
from memgate.core.settings import Settings
from memgate.inputs import ReadErrors, read_turns
from memgate.streams.app import Origin, Worker
from memgate.streams.metrics import Metrics
from memgate.streams.topology import AUDIT_TOPIC, ROUTES


def _count_trips(store: object) -> list[float]:
    """Count the store's search requests (one per ``_search`` or ``_msearch``) and the
    seconds spent in them: ``[requests, seconds]``."""
    trips = [0.0, 0.0]
    for name in ("_search", "_msearch"):
        fn = getattr(store, name)

        def counted(*a: object, _fn: object = fn, **k: object) -> object:
            t0 = time.perf_counter()
            try:
                return _fn(*a, **k)  # type: ignore[operator]
            finally:
                trips[0] += 1
                trips[1] += time.perf_counter() - t0

        setattr(store, name, counted)
    return trips


def bench_settings(tmp: Path, url: str, index: str, **overrides: Any) -> Settings:
    """The settings of a run: a throwaway data dir in ``tmp``, keyed in memory."""
    return throwaway_settings(
        tmp / "data", retrieval_backend="opensearch", opensearch_url=url,
        opensearch_index=index, **overrides,
    )  # fmt: skip


def run(wait: bool, turns: int, url: str) -> tuple[float, float, int, list[float]]:
    from memgate.backends import build_pipeline, open_retrieval
    from memgate.runtime import Runtime

    index = f"memgate-bench-{uuid.uuid4().hex[:8]}"
    with tempfile.TemporaryDirectory(prefix="memgate-bench-") as tmp:
        s = bench_settings(Path(tmp), url, index, dedupe_wait_for_refresh=wait)
        limit_blas_threads(s.blas_threads)
        rt = Runtime(s)
        retrieval = open_retrieval(s, rt.embedder.dim)
        retrieval.ensure_index()  # type: ignore[attr-defined]
        trips = _count_trips(retrieval)
        worker = Worker(s, build_pipeline(s, rt.embedder), retrieval, rt.audit, Metrics())
        queues: dict[str, list[tuple[bytes, bytes]]] = defaultdict(list)

        async def send(name: str, key: str, payload: bytes) -> None:
            queues[name].append((key.encode(), payload))

        async def go() -> tuple[float, float]:
            dedupe_s = 0.0
            for t in list(read_turns(LOCOMO, ReadErrors()))[:turns]:
                await send("turns", t.partition_key, t.model_dump_json().encode())
                while any(queues[r.source] for r in ROUTES):
                    for route in ROUTES:
                        while queues[route.source]:
                            key, raw = queues[route.source].pop(0)
                            t0 = time.perf_counter()
                            await worker.handle(route, raw, Origin(route.source, 0, 0, key), send)
                            if route.stage is Stage.DEDUPE:
                                dedupe_s += time.perf_counter() - t0
                queues[AUDIT_TOPIC].clear()  # the audit agent is not measured here
            return dedupe_s, 0.0

        t0 = time.perf_counter()
        dedupe_s, _ = asyncio.run(go())
        wall = time.perf_counter() - t0
        n = int(worker.metrics.events_in.labels(stage=Stage.DEDUPE.value)._value.get())
        retrieval.client.indices.delete(index=index)  # type: ignore[attr-defined]
        retrieval.close()
        rt.close()
    return n / dedupe_s if dedupe_s else 0.0, turns / wall, n, trips


def run_batched(
    turns: int, url: str, batch: int, widen: bool
) -> tuple[float, int, list[float], int]:
    """The dedupe stage alone on ``batch`` waiting candidates at a time: candidates/s,
    candidates, search ``[requests, seconds]``, fact writes (``upsert`` calls)."""
    from memgate.backends import build_pipeline, open_retrieval
    from memgate.inputs import load_locomo
    from memgate.runtime import Runtime
    from memgate.streams.dedupe_batch import handle_dedupe_batch

    convs = load_locomo(LOCOMO)
    pool = [t for group in zip(*(c.turns for c in convs), strict=False) for t in group]
    index = f"memgate-bench-{uuid.uuid4().hex[:8]}"
    with tempfile.TemporaryDirectory(prefix="memgate-bench-") as tmp:
        s = bench_settings(Path(tmp), url, index)
        limit_blas_threads(s.blas_threads)
        rt = Runtime(s)
        retrieval = open_retrieval(s, rt.embedder.dim)
        retrieval.ensure_index()  # type: ignore[attr-defined]
        if widen:
            retrieval.nearest_excluding = None  # type: ignore[attr-defined]
        trips = _count_trips(retrieval)
        writes = [0]
        upsert = retrieval.upsert

        def counted(*a: object, **k: object) -> None:
            writes[0] += 1
            upsert(*a, **k)  # type: ignore[arg-type]

        retrieval.upsert = counted  # type: ignore[method-assign]
        worker = Worker(s, build_pipeline(s, rt.embedder), retrieval, rt.audit, Metrics())
        queues: dict[str, list[tuple[bytes, bytes]]] = defaultdict(list)

        async def send(name: str, key: str, payload: bytes) -> None:
            queues[name].append((key.encode(), payload))

        async def enqueue(name: str, key: str, payload: bytes) -> asyncio.Future[int]:
            await send(name, key, payload)
            done: asyncio.Future[int] = asyncio.get_running_loop().create_future()
            done.set_result(0)
            return done

        async def go() -> float:
            for t in pool[:turns]:
                await send("turns", t.partition_key, t.model_dump_json().encode())
            for route in ROUTES[:3]:
                while queues[route.source]:
                    key, raw = queues[route.source].pop(0)
                    await worker.handle(route, raw, Origin(route.source, 0, 0, key), send)
            dedupe = ROUTES[3]
            waiting = queues.pop(dedupe.source)
            trips[0] = trips[1] = 0.0
            t0 = time.perf_counter()
            for i in range(0, len(waiting), batch):
                msgs = [
                    (raw, Origin(dedupe.source, 0, 0, key)) for key, raw in waiting[i : i + batch]
                ]
                if batch <= 1:
                    await worker.handle(dedupe, msgs[0][0], msgs[0][1], send, enqueue)
                else:
                    await handle_dedupe_batch(worker, dedupe, msgs, send, enqueue, lambda _i: None)
            return time.perf_counter() - t0

        writes[0] = 0
        dedupe_s = asyncio.run(go())
        n = int(worker.metrics.events_in.labels(stage=Stage.DEDUPE.value)._value.get())
        retrieval.client.indices.delete(index=index)  # type: ignore[attr-defined]
        retrieval.close()
        rt.close()
    return n / dedupe_s if dedupe_s else 0.0, n, trips, writes[0]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--turns", type=int, default=400)
    ap.add_argument("--cache-only", action="store_true", help="the read-your-writes row alone")
    ap.add_argument("--batch", type=int, default=0, help="dedupe N waiting candidates at a time")
    ap.add_argument("--widen", action="store_true", help="widen k-nearest reads (with --batch)")
    a = ap.parse_args()
    url = os.environ.get("MEMGATE_OPENSEARCH_URL", "http://127.0.0.1:19200")
    rows = []
    if a.batch:
        if not reachable(url.split("//")[-1]):
            return
        cands, n, trips, writes = run_batched(a.turns, url, a.batch, a.widen)
        print(
            f"dedupe alone, batch {a.batch}{', widened k' if a.widen else ''}: {cands:.1f} "
            f"candidates/s ({n} candidates of {a.turns} interleaved LoCoMo turns); "
            f"{trips[0] / max(n, 1):.2f} search round trips and {1000 * trips[1] / max(n, 1):.0f}"
            f" ms in them per candidate; {writes / max(n, 1):.2f} writes per candidate; "
            f"load {os.getloadavg()[0]:.1f}"
        )
        return
    for wait in (False,) if a.cache_only else (True, False):
        what = "dedupe on OpenSearch, " + (
            "refresh=wait_for per write (before)"
            if wait
            else "read-your-writes cache, no wait (after)"
        )
        if not reachable(url.split("//")[-1]):
            rows.append({"what": what, "figure": NOT_RUN, "unit": "", "note": url})
            continue
        cands, turns_s, n, trips = run(wait, a.turns, url)
        rows.append(
            {
                "what": what,
                "figure": f"{cands:.1f}",
                "unit": "candidates/s",
                "note": f"{n} candidates of {a.turns} LoCoMo turns; whole chain "
                f"{turns_s:.1f} turns/s (audit agent not measured); "
                f"{trips[0] / max(n, 1):.2f} search round trips and "
                f"{1000 * trips[1] / max(n, 1):.0f} ms in them per candidate",
            }
        )
    write("dedupe-opensearch", rows)


if __name__ == "__main__":
    main()
