"""benchmarks/search_latency.py on the embedded store: several sizes, the phases of each,
and the JSON of one size still at the top level."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[3] / "benchmarks" / "search_latency.py"
ONE_SIZE_KEYS = {"facts", "users", "k", "embedder", "backend", "seed_s", "library", "http"}
FIGURES = {"p50_ms", "p99_ms", "mean_ms", "n"}
PHASES = {"embedding", "lexical", "dense", "fusion", "fetch", "usage", "packing", "usage_record"}


def bench(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), "--embedder", "hashing", "--warmup", "1", *args],
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_several_sizes_each_with_its_phases_and_the_first_at_the_top_level() -> None:
    done = bench("--facts", "60,120", "--queries", "6")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert set(out) >= ONE_SIZE_KEYS
    assert [r["facts"] for r in out["runs"]] == [60, 120]
    assert {k: v for k, v in out.items() if k != "runs"} == out["runs"][0]
    for run in out["runs"]:
        lib = run["library"]
        assert set(lib) >= FIGURES and set(run["http"]) >= FIGURES
        assert set(lib["phases"]) == PHASES
        assert all(set(p) >= FIGURES and p["n"] == 6 for p in lib["phases"].values())
        assert lib["server"] == {}  # the embedded store has no server
        assert sum(p["mean_ms"] for p in lib["phases"].values()) <= lib["mean_ms"] + 0.05
        # what the phases leave of each search's time: the total's mean less the phases'
        # (each mean rounded to 0.01 ms: each of the phases, the total and the remainder
        # may be off by half of that, so the bound is their count times 0.005 ms)
        accounted = sum(p["mean_ms"] for p in lib["phases"].values())
        bound = 0.005 * (len(lib["phases"]) + 2) + 1e-9
        assert lib["unaccounted"]["mean_ms"] == pytest.approx(lib["mean_ms"] - accounted, abs=bound)
        assert lib["unaccounted"]["n"] == 6
    assert "| fetch |" in done.stderr and "120 facts p50 / p99 ms" in done.stderr


def test_a_bad_size_is_one_line_of_usage() -> None:
    done = bench("--facts", "1000,zero")
    assert done.returncode == 2
    assert "expected counts like 1000,10000, got '1000,zero'" in done.stderr
    assert "Traceback" not in done.stderr
