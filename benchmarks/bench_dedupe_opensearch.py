"""The dedupe stage on OpenSearch, through the worker's agent bodies (``Worker.handle``,
the messages passed in memory instead of Kafka): candidates/s with every fact write
waiting for a refresh (``dedupe_wait_for_refresh``, the old path) and with the
read-your-writes cache (writes return once durable), on a fresh index each.

    MEMGATE_OPENSEARCH_URL=http://127.0.0.1:19200 .venv/bin/python \\
        benchmarks/bench_dedupe_opensearch.py [--turns 400]

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

from common import LOCOMO, NOT_RUN, reachable, write

from memgate.core.embedding import limit_blas_threads
from memgate.core.events import Stage
from memgate.core.settings import load_settings
from memgate.inputs import ReadErrors, read_turns
from memgate.streams.app import Origin, Worker
from memgate.streams.metrics import Metrics
from memgate.streams.topology import AUDIT_TOPIC, ROUTES


def run(wait: bool, turns: int, url: str) -> tuple[float, float, int]:
    from memgate.backends import build_pipeline, open_retrieval
    from memgate.runtime import Runtime

    index = f"memgate-bench-{uuid.uuid4().hex[:8]}"
    with tempfile.TemporaryDirectory(prefix="memgate-bench-") as tmp:
        s = load_settings(data_dir=Path(tmp) / "data", retrieval_backend="opensearch",
                          opensearch_url=url, opensearch_index=index,
                          dedupe_wait_for_refresh=wait)
        limit_blas_threads(s.blas_threads)
        rt = Runtime(s)
        retrieval = open_retrieval(s, rt.embedder.dim)
        retrieval.ensure_index()  # type: ignore[attr-defined]
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
    return n / dedupe_s if dedupe_s else 0.0, turns / wall, n


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--turns", type=int, default=400)
    a = ap.parse_args()
    url = os.environ.get("MEMGATE_OPENSEARCH_URL", "http://127.0.0.1:19200")
    rows = []
    for wait in (True, False):
        what = ("dedupe on OpenSearch, " + ("refresh=wait_for per write (before)" if wait
                else "read-your-writes cache, no wait (after)"))
        if not reachable(url.split("//")[-1]):
            rows.append({"what": what, "figure": NOT_RUN, "unit": "", "note": url})
            continue
        cands, turns_s, n = run(wait, a.turns, url)
        rows.append({"what": what, "figure": f"{cands:.1f}", "unit": "candidates/s",
                     "note": f"{n} candidates of {a.turns} LoCoMo turns; whole chain "
                             f"{turns_s:.1f} turns/s (audit agent not measured)"})
    write("dedupe-opensearch", rows)


if __name__ == "__main__":
    main()
