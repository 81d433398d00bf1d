"""The whole in-process chain (``memgate ingest``) on the LoCoMo dev file, embedded store:
turns/s overall and per stage, extraction calls per 1,000 turns, peak RSS.

    .venv/bin/python benchmarks/bench_inprocess.py [--runtime numpy|onnx-int8] [--limit N]
        [--window W] [--embedder-threads T] [--repeat N]

Per stage: events the stage took, divided by the time spent in its step (the dedupe step
includes the embedding of each candidate and its reads of the store). Wall-clock figures
on a shared machine move with the load: each row also gives turns per CPU-second.

``--repeat N`` (default 3) runs the chain N times, each in a fresh process with a fresh
data dir: nothing warm carries over from one run to the next (the embedder's vector
cache, the stages' text memos, the imported modules), only the operating system's file
cache. The chain row gives the median turns/s with the min–max range and the median
turns per CPU-second; the stage rows are those of the median run; peak RSS is the
largest of the runs.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from common import LOCOMO, rss_mib, throwaway_settings, write

from memgate.core.embedding import limit_blas_threads
from memgate.core.events import Stage
from memgate.core.settings import Settings
from memgate.core.threads import set_switch_interval
from memgate.inputs import ReadErrors, read_turns
from memgate.runtime import Runtime


def bench_settings(tmp: Path, runtime: str, embedder_threads: int) -> Settings:
    """The settings of a run: a throwaway data dir in ``tmp``, keyed in memory
    (``embedder_threads`` 0: the setting's)."""
    own = {"embedder_threads": embedder_threads} if embedder_threads else {}
    return throwaway_settings(tmp / "data", embedder_runtime=runtime, **own)


def one_run(runtime: str, limit: int, window: int, embedder_threads: int) -> dict[str, Any]:
    """One run of the chain in a fresh data dir: what it measured (a JSON-able dict)."""
    from memgate.backends import build_pipeline
    from memgate.streams.runner import InProcessRunner

    with tempfile.TemporaryDirectory(prefix="memgate-bench-") as tmp:
        s = bench_settings(Path(tmp), runtime, embedder_threads)
        limit_blas_threads(s.blas_threads)
        set_switch_interval(s.switch_interval_us)
        rt = Runtime(s)
        rt.embedder.embed(["warm up"])  # load the model outside the timing
        # and what the audit client imports on its first write (pandas, about half a
        # second of CPU once a process), as a worker does before it joins its group
        warm_audit = getattr(rt.audit, "warm", None)
        if callable(warm_audit):
            warm_audit()
        turns = list(read_turns(LOCOMO, ReadErrors()))
        if limit:
            turns = turns[:limit]
        window = window or s.ingest_window
        pipeline = build_pipeline(s, rt.embedder)
        # resolution's multilingual similarity (usem, when on) loads outside the timing too,
        # as the worker's warm-up loads it (its per-text encodings stay inside)
        warm_meaning = getattr(pipeline.resolve.meaning, "load", None)
        if callable(warm_meaning):
            warm_meaning()
        runner = InProcessRunner(pipeline, rt.retrieval, rt.audit, window=window)
        t0, c0, m0 = time.perf_counter(), time.process_time(), time.thread_time()
        summary = runner.run(turns)
        runner.close()
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        main_cpu = time.thread_time() - m0
        m = runner.metrics
        stages = []
        for stage in Stage:
            n = m.events_in.labels(stage=stage.value)._value.get()
            spent = _latency_sum(m, stage.value)
            if n and spent:
                stages.append({"stage": stage.value, "events": int(n), "seconds": spent})
        run = {
            "turns": len(turns),
            "wall_s": wall,
            "cpu_s": cpu,
            "main_cpu_s": main_cpu,
            "window": window,
            "embedder_threads": s.embedder_threads,
            "switch_interval_us": s.switch_interval_us,
            "extractor": str(s.extractor),
            "candidates": summary.candidates,
            "stored": summary.stored,
            "dropped": sum(summary.dropped.values()),
            "extract_calls": int(m.events_in.labels(stage=Stage.EXTRACT.value)._value.get()),
            "stages": stages,
            "rss_mib": rss_mib(),
        }
        rt.close()
    return run


def median_run(runs: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The run whose turns/s is the median (of an even count: the lower of the middle two)."""
    ranked = sorted(runs, key=lambda r: r["turns"] / r["wall_s"])
    return ranked[(len(ranked) - 1) // 2]


def chain_figures(runs: Sequence[dict[str, Any]]) -> dict[str, float]:
    """Median, min and max turns/s (wall) and median turns per CPU-second over ``runs``."""
    if not runs:
        raise ValueError("no run to summarise")
    rates = [r["turns"] / r["wall_s"] for r in runs]
    per_cpu = [r["turns"] / r["cpu_s"] for r in runs]
    return {
        "median": statistics.median(rates),
        "min": min(rates),
        "max": max(rates),
        "cpu_median": statistics.median(per_cpu),
        "cpu_min": min(per_cpu),
        "cpu_max": max(per_cpu),
    }


def rows_of(runs: Sequence[dict[str, Any]], runtime: str) -> list[dict[str, Any]]:
    """The result rows of ``runs`` (one or more runs of the same chain)."""
    f = chain_figures(runs)
    mid = median_run(runs)
    n = len(runs)
    spread = (
        f"median of {n} runs (fresh process and data dir each), range "
        f"{f['min']:.1f}–{f['max']:.1f} turns/s; "
        if n > 1
        else ""
    )
    cpu = (
        f"{f['cpu_median']:.1f} turns per CPU-second (median; range "
        f"{f['cpu_min']:.1f}–{f['cpu_max']:.1f})"
        if n > 1
        else f"{f['cpu_median']:.1f} turns per CPU-second"
    )
    rows: list[dict[str, Any]] = [
        {
            "what": f"in-process chain, {runtime}, window {mid['window']}, "
            f"embedder threads {mid['embedder_threads']}, "
            f"switch interval {mid.get('switch_interval_us', 0) or 5000} µs",
            "figure": f"{f['median']:.1f}",
            "unit": "turns/s (wall)",
            "note": f"{spread}{cpu}; {mid['turns']} turns, "
            f"{mid['candidates']} candidates, {mid['stored']} facts stored",
            "runs": n,
            "range": [round(f["min"], 1), round(f["max"], 1)],
            "turns_per_cpu_s": round(f["cpu_median"], 1),
            "per_run": [
                {
                    "turns_per_s": round(r["turns"] / r["wall_s"], 1),
                    "turns_per_cpu_s": round(r["turns"] / r["cpu_s"], 1),
                    "main_thread_cpu_ms_per_turn": round(
                        1000 * r.get("main_cpu_s", 0.0) / r["turns"], 2
                    ),
                }
                for r in runs
            ],
        }
    ]
    of_median = " (the median run)" if n > 1 else ""
    for st in mid["stages"]:
        rows.append(
            {
                "what": f"stage {st['stage']}, {runtime}",
                "figure": f"{st['events'] / st['seconds']:.1f}",
                "unit": "events/s",
                "note": f"{st['events']} events, {st['seconds']:.1f} s in the step{of_median}",
            }
        )
    rows.append(
        {
            "what": "extraction calls per 1,000 turns",
            "figure": f"{1000 * mid['extract_calls'] / mid['turns']:.0f}",
            "unit": "calls",
            "note": f"extractor {mid['extractor']}; triage dropped {mid['dropped']}",
        }
    )
    rows.append(
        {
            "what": f"peak RSS, in-process chain, {runtime}",
            "figure": f"{max(r['rss_mib'] for r in runs):.0f}",
            "unit": "MiB",
            "note": f"the largest of {n} runs" if n > 1 else "",
        }
    )
    return rows


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
    ap.add_argument(
        "--repeat",
        type=int,
        default=3,
        help="runs, each in a fresh process and data dir (1: this process only)",
    )
    ap.add_argument(
        "--against",
        metavar="CHECKOUT",
        help="another checkout's folder: its runs and this one's alternated, --repeat of each, "
        "each in a fresh process (the machine's speed drifts: only runs side by side compare)",
    )
    ap.add_argument("--one-run", metavar="JSON", help=argparse.SUPPRESS)  # a child's output
    a = ap.parse_args()
    if a.repeat < 1:
        ap.error("--repeat must be >= 1")
    own = (a.runtime, a.limit, a.window, a.embedder_threads)
    if a.one_run:
        Path(a.one_run).write_text(json.dumps(one_run(*own)), encoding="utf-8")
        return
    if a.against:
        other = Path(a.against).resolve()
        if not (other / "benchmarks" / "bench_inprocess.py").is_file():
            ap.error(f"--against {a.against}: no benchmarks/bench_inprocess.py there")
        alternate(a, [Path(__file__).resolve().parent.parent, other])
        return
    if a.repeat == 1:
        runs = [one_run(*own)]
    else:
        runs = []
        with tempfile.TemporaryDirectory(prefix="memgate-bench-runs-") as tmp:
            for i in range(a.repeat):
                out = Path(tmp) / f"run{i}.json"
                argv = [
                    sys.executable,
                    str(Path(__file__).resolve()),
                    *("--runtime", a.runtime, "--limit", str(a.limit)),
                    *("--window", str(a.window), "--embedder-threads", str(a.embedder_threads)),
                    *("--one-run", str(out)),
                ]
                subprocess.run(argv, check=True)
                runs.append(json.loads(out.read_text(encoding="utf-8")))
                r = runs[-1]
                print(
                    f"run {i + 1} of {a.repeat}: {r['turns'] / r['wall_s']:.1f} turns/s, "
                    f"{r['turns'] / r['cpu_s']:.1f} turns per CPU-second "
                    f"({1000 * r['cpu_s'] / r['turns']:.2f} CPU-ms a turn, main thread "
                    f"{1000 * r['main_cpu_s'] / r['turns']:.2f})",
                    flush=True,
                )
    write(f"inprocess-{a.runtime}", rows_of(runs, a.runtime))


def _child(root: Path, a: argparse.Namespace, out: Path) -> dict[str, Any]:
    """One run of ``root``'s benchmark in a fresh process that imports ``root``'s code."""
    argv = [
        sys.executable,
        str(root / "benchmarks" / "bench_inprocess.py"),
        *("--runtime", a.runtime, "--limit", str(a.limit)),
        *("--window", str(a.window), "--embedder-threads", str(a.embedder_threads)),
        *("--one-run", str(out)),
    ]
    env = {**os.environ, "PYTHONPATH": str(root)}
    subprocess.run(argv, check=True, cwd=root, env=env)
    run: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    return run


def alternate(a: argparse.Namespace, roots: list[Path]) -> None:
    """``--repeat`` rounds, each one run of every checkout in turn; the medians side by side."""
    runs: dict[Path, list[dict[str, Any]]] = {r: [] for r in roots}
    with tempfile.TemporaryDirectory(prefix="memgate-bench-against-") as tmp:
        for i in range(a.repeat):
            for j, root in enumerate(roots):
                r = _child(root, a, Path(tmp) / f"run{i}-{j}.json")
                runs[root].append(r)
                print(
                    f"round {i + 1} of {a.repeat}, {root}: {r['turns'] / r['wall_s']:.1f} turns/s, "
                    f"main thread {r['main_cpu_s']:.2f} CPU-s",
                    flush=True,
                )
    rate = {r: statistics.median(x["turns"] / x["wall_s"] for x in runs[r]) for r in roots}
    main_cpu = {r: statistics.median(x["main_cpu_s"] for x in runs[r]) for r in roots}
    for root in roots:
        print(
            f"{root}: {rate[root]:.1f} turns/s (median of {a.repeat}), main thread "
            f"{main_cpu[root]:.2f} CPU-s, {runs[root][0]['stored']} facts stored"
        )
    this, other = roots
    print(
        f"this checkout against the other: {rate[this] / rate[other]:.3f}x turns/s, "
        f"{main_cpu[this] / main_cpu[other]:.3f}x the main thread's CPU"
    )


def _latency_sum(m: object, stage: str) -> float:
    hist = m.latency.labels(stage=stage)  # type: ignore[attr-defined]
    for metric in hist.collect():
        for sample in metric.samples:
            if sample.name.endswith("_sum"):
                return float(sample.value)
    return 0.0


if __name__ == "__main__":
    main()
