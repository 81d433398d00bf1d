"""The whole in-process chain (``memgate ingest``) on the LoCoMo dev file, embedded store:
turns/s overall and per stage, extraction calls per 1,000 turns, peak RSS.

    .venv/bin/python benchmarks/bench_inprocess.py [--runtime numpy|onnx-int8] [--limit N]
        [--window W] [--embedder-threads T]

Per stage: events the stage took, divided by the time spent in its step (the dedupe step
includes the embedding of each candidate and its reads of the store). Wall-clock figures
on a shared machine move with the load: each row also gives turns per CPU-second.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from common import LOCOMO, rss_mib, throwaway_settings, write

from memgate.core.embedding import limit_blas_threads
from memgate.core.events import Stage
from memgate.core.settings import Settings
from memgate.inputs import ReadErrors, read_turns
from memgate.runtime import Runtime


def bench_settings(tmp: Path, runtime: str, embedder_threads: int) -> Settings:
    """The settings of a run: a throwaway data dir in ``tmp``, keyed in memory
    (``embedder_threads`` 0: the setting's)."""
    own = {"embedder_threads": embedder_threads} if embedder_threads else {}
    return throwaway_settings(tmp / "data", embedder_runtime=runtime, **own)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runtime", choices=["numpy", "onnx-int8"], default="numpy")
    ap.add_argument("--limit", type=int, default=0, help="first N turns only (0: all)")
    ap.add_argument(
        "--window",
        type=int,
        default=0,
        help="turns read ahead at a time (0: the ingest_window setting; 1: none)",
    )
    ap.add_argument(
        "--embedder-threads",
        type=int,
        default=0,
        help="ONNX Runtime intra-op threads of the int8 embedder (0: the embedder_threads setting)",
    )
    a = ap.parse_args()
    from memgate.backends import build_pipeline
    from memgate.streams.runner import InProcessRunner

    with tempfile.TemporaryDirectory(prefix="memgate-bench-") as tmp:
        s = bench_settings(Path(tmp), a.runtime, a.embedder_threads)
        limit_blas_threads(s.blas_threads)
        rt = Runtime(s)
        rt.embedder.embed(["warm up"])  # load the model outside the timing
        turns = list(read_turns(LOCOMO, ReadErrors()))
        if a.limit:
            turns = turns[: a.limit]
        window = a.window or s.ingest_window
        runner = InProcessRunner(
            build_pipeline(s, rt.embedder), rt.retrieval, rt.audit, window=window
        )
        t0, c0 = time.perf_counter(), time.process_time()
        summary = runner.run(turns)
        runner.close()
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        m = runner.metrics
        rows = [
            {
                "what": f"in-process chain, {a.runtime}, window {window}, "
                f"embedder threads {s.embedder_threads}",
                "figure": f"{len(turns) / wall:.1f}",
                "unit": "turns/s (wall)",
                "note": f"{len(turns) / cpu:.1f} turns per CPU-second; {len(turns)} turns, "
                f"{summary.candidates} candidates, {summary.stored} facts stored",
            }
        ]
        for stage in Stage:
            n = m.events_in.labels(stage=stage.value)._value.get()
            spent = _latency_sum(m, stage.value)
            if n and spent:
                rows.append(
                    {
                        "what": f"stage {stage.value}, {a.runtime}",
                        "figure": f"{n / spent:.1f}",
                        "unit": "events/s",
                        "note": f"{int(n)} events, {spent:.1f} s in the step",
                    }
                )
        calls = m.events_in.labels(stage=Stage.EXTRACT.value)._value.get()
        rows.append(
            {
                "what": "extraction calls per 1,000 turns",
                "figure": f"{1000 * calls / len(turns):.0f}",
                "unit": "calls",
                "note": f"extractor {s.extractor}; triage dropped {sum(summary.dropped.values())}",
            }
        )
        rows.append(
            {
                "what": f"peak RSS, in-process chain, {a.runtime}",
                "figure": f"{rss_mib():.0f}",
                "unit": "MiB",
            }
        )
        rt.close()
    write(f"inprocess-{a.runtime}", rows)


def _latency_sum(m: object, stage: str) -> float:
    hist = m.latency.labels(stage=stage)  # type: ignore[attr-defined]
    for metric in hist.collect():
        for sample in metric.samples:
            if sample.name.endswith("_sum"):
                return float(sample.value)
    return 0.0


if __name__ == "__main__":
    main()
