"""Where the in-process chain's wall time goes between its two threads (issue 14).

The runner applies turns on the main thread; the read-ahead's forward passes run on one
background thread (:mod:`memgate.streams.prefetch`). This probe runs the chain once on
the LoCoMo dev file (int8 embedder, a throwaway data dir) and reports:

* the wall time and the main thread's CPU time;
* how long the main thread waited for vectors computed ahead (the embedder's
  ``_take_ahead``: a future not done yet);
* the background thread's CPU time in its jobs and the wall time they took: the
  difference is time it wanted the interpreter lock back after a pass and waited for it,
  or was preempted.

It wraps those two functions in this process only (nothing of memgate is changed).

    .venv/bin/python benchmarks/probe_read_ahead.py [--limit N] [--switch-interval-us US]
        [--embedder-threads T] [--window W]

``--switch-interval-us 0`` leaves Python's 5 ms; the other flags default to the settings.
With ``PYTHONPATH`` set to another checkout, it probes that checkout's chain (from before
the ``switch_interval_us`` setting: Python's 5 ms).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from common import LOCOMO, throwaway_settings

from memgate.core import embedding
from memgate.core.embedding import limit_blas_threads
from memgate.inputs import ReadErrors, read_turns
from memgate.runtime import Runtime
from memgate.streams import prefetch


def probe(limit: int, overrides: dict[str, Any]) -> dict[str, Any]:
    """One run of the chain with the two threads' times (a JSON-able dict)."""
    from memgate.backends import build_pipeline
    from memgate.streams.runner import InProcessRunner

    waited = [0.0]
    background = [0.0, 0.0]
    take = embedding.MiniLMEmbedder._take_ahead
    run_job = prefetch.run_job

    def timed_take(self: embedding.MiniLMEmbedder, texts: list[str]) -> Any:
        t0 = time.perf_counter()
        try:
            return take(self, texts)
        finally:
            waited[0] += time.perf_counter() - t0

    def timed_job(emb: Any, job: Any) -> None:
        c0, t0 = time.thread_time(), time.perf_counter()
        try:
            run_job(emb, job)
        finally:
            background[0] += time.thread_time() - c0
            background[1] += time.perf_counter() - t0

    embedding.MiniLMEmbedder._take_ahead = timed_take  # type: ignore[method-assign]
    prefetch.run_job = timed_job
    with tempfile.TemporaryDirectory(prefix="memgate-probe-") as tmp:
        s = throwaway_settings(Path(tmp) / "data", embedder_runtime="onnx-int8", **overrides)
        limit_blas_threads(s.blas_threads)
        # as the entry points set it (memgate.core.threads); read with getattr so that the
        # probe also runs on a checkout from before the setting (PYTHONPATH=that checkout)
        interval_us = getattr(s, "switch_interval_us", 0)
        if interval_us > 0:
            sys.setswitchinterval(interval_us / 1_000_000)
        rt = Runtime(s)
        rt.embedder.embed(["warm up"])
        turns = list(read_turns(LOCOMO, ReadErrors()))[: limit or None]
        runner = InProcessRunner(
            build_pipeline(s, rt.embedder), rt.retrieval, rt.audit, window=s.ingest_window
        )
        t0, c0 = time.perf_counter(), time.thread_time()
        runner.run(turns)
        runner.close()
        wall, main_cpu = time.perf_counter() - t0, time.thread_time() - c0
        rt.close()
    return {
        "turns": len(turns),
        "switch_interval_us": interval_us or 5000,
        "embedder_threads": s.embedder_threads,
        "window": s.ingest_window,
        "wall_s": round(wall, 2),
        "turns_per_s": round(len(turns) / wall, 1),
        "main_cpu_s": round(main_cpu, 2),
        "main_waited_for_vectors_s": round(waited[0], 2),
        "background_cpu_s": round(background[0], 2),
        "background_wall_s": round(background[1], 2),
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--limit", type=int, default=0, help="first N turns only (0: all)")
    ap.add_argument("--switch-interval-us", type=int, default=None)
    ap.add_argument("--embedder-threads", type=int, default=None)
    ap.add_argument("--window", type=int, default=None)
    a = ap.parse_args()
    own = {
        k: v
        for k, v in (
            ("switch_interval_us", a.switch_interval_us),
            ("embedder_threads", a.embedder_threads),
            ("ingest_window", a.window),
        )
        if v is not None
    }
    print(json.dumps(probe(a.limit, own)))


if __name__ == "__main__":
    main()
