"""The in-process benchmark's repeats: the median turns/s with its min–max range and the
median turns per CPU-second, in the result rows and in the RESULTS.md table row."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

BENCH = Path(__file__).resolve().parents[3] / "benchmarks"


def _module(name: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> ModuleType:
    monkeypatch.setenv("MEMGATE_LOCOMO_DEV", str(tmp_path / "no-locomo.json"))
    monkeypatch.syspath_prepend(str(BENCH))
    sys.modules.pop(name, None)
    return importlib.import_module(name)


def _run(turns: int, wall: float, cpu: float, stored: int, rss: float) -> dict[str, Any]:
    return {
        "turns": turns, "wall_s": wall, "cpu_s": cpu, "window": 64, "embedder_threads": 2,
        "extractor": "hybrid", "candidates": 10, "stored": stored, "dropped": 5,
        "extract_calls": 600, "rss_mib": rss,
        "stages": [{"stage": "triage", "events": turns, "seconds": wall / 4}],
    }  # fmt: skip


def test_median_range_and_cpu_median_of_three_runs(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    bench = _module("bench_inprocess", monkeypatch, tmp_path)
    # 1000 turns: 100, 250 and 200 turns/s; 50, 80 and 40 turns per CPU-second
    runs = [
        _run(1000, 10.0, 20.0, 1, 500.0),
        _run(1000, 4.0, 12.5, 2, 700.0),
        _run(1000, 5.0, 25.0, 3, 600.0),
    ]
    f = bench.chain_figures(runs)
    assert (f["median"], f["min"], f["max"]) == (200.0, 100.0, 250.0)
    assert (f["cpu_median"], f["cpu_min"], f["cpu_max"]) == (50.0, 40.0, 80.0)
    assert bench.median_run(runs)["stored"] == 3  # the 200 turns/s run
    rows = bench.rows_of(runs, "onnx-int8")
    chain = rows[0]
    assert chain["figure"] == "200.0"
    assert chain["range"] == [100.0, 250.0]
    assert chain["runs"] == 3
    assert chain["turns_per_cpu_s"] == 50.0
    assert "range 100.0–250.0 turns/s" in chain["note"]
    assert "50.0 turns per CPU-second (median; range 40.0–80.0)" in chain["note"]
    assert "3 facts stored" in chain["note"]  # the median run's counts
    stage = rows[1]
    assert stage["what"] == "stage triage, onnx-int8"
    assert stage["figure"] == "800.0"  # 1000 events in 1.25 s: the median run's
    assert rows[-1]["figure"] == "700"  # peak RSS: the largest run's


def test_an_even_count_takes_the_lower_middle_run_and_one_run_has_no_range(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    bench = _module("bench_inprocess", monkeypatch, tmp_path)
    runs = [_run(100, 1.0, 2.0, 1, 1.0), _run(100, 0.5, 1.0, 2, 1.0)]
    assert bench.chain_figures(runs)["median"] == 150.0
    assert bench.median_run(runs)["stored"] == 1
    (one,) = bench.rows_of([runs[0]], "numpy")[:1]
    assert one["runs"] == 1 and "range" not in one["note"]
    assert one["note"].startswith("50.0 turns per CPU-second;")
    with pytest.raises(ValueError):
        bench.chain_figures([])


def test_report_row_shows_median_range_and_run_count(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    report = _module("report", monkeypatch, tmp_path)
    row = {
        "what": "in-process chain", "figure": "200.0", "unit": "turns/s (wall)",
        "note": "a | b", "command": "x", "runs": 3, "range": [100.0, 250.0],
    }  # fmt: skip
    line = report.table_row(row, "at")
    assert line == (
        "| in-process chain | 200.0 (100.0–250.0, median of 3) | turns/s (wall) | a / b | "
        "`x` | at |"
    )
    single = {k: v for k, v in row.items() if k not in ("runs", "range")}
    assert "| 200.0 |" in report.table_row(single, "at")
