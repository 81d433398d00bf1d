"""The pipeline benchmark's CPU accounting: the local services found by their marker,
each process's CPU a turn, and the ceiling those costs allow on the machine's cores."""

from __future__ import annotations

import importlib
import subprocess
import sys
import time
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[3] / "benchmarks"

BUSY = "import time\nt = time.process_time()\nwhile time.process_time() - t < 0.6: pass\n" \
    "time.sleep(60)\n"  # fmt: skip


@pytest.fixture
def service_cpu(monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    monkeypatch.syspath_prepend(str(BENCH))
    sys.modules.pop("service_cpu", None)
    return importlib.import_module("service_cpu")


def test_a_marked_process_is_found_and_its_cpu_counted(service_cpu, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    marker = f"-Dmemgate.service=kafka@{tmp_path}"
    proc = subprocess.Popen([sys.executable, "-c", BUSY, marker])
    try:
        deadline = time.monotonic() + 30
        while service_cpu.service_pids(tmp_path).get("kafka") != proc.pid:
            assert time.monotonic() < deadline, "the marked process was not found"
            time.sleep(0.05)
        meter = service_cpu.Meter(tmp_path)
        meter.start(workers=10.0)
        time.sleep(1.2)  # the child burns 0.6 CPU-s, then sleeps
        costs = meter.stop(workers=12.0, turns=100)
    finally:
        proc.kill()
        proc.wait()
    assert costs.ms_per_turn("workers") == pytest.approx(20.0)
    assert 3.0 <= costs.ms_per_turn("kafka") <= 6.5  # 0.6 CPU-s at most, over 100 turns
    assert "opensearch not a local service" in costs.describe()


def test_an_unmarked_process_is_not_a_service(service_cpu) -> None:  # type: ignore[no-untyped-def]
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)",
                             "-Dmemgate.service=zookeeper@/x"])  # fmt: skip
    try:
        time.sleep(0.2)
        assert proc.pid not in service_cpu.service_pids().values()
    finally:
        proc.kill()
        proc.wait()


def test_the_ceiling_is_the_cores_over_the_whole_cost(service_cpu) -> None:  # type: ignore[no-untyped-def]
    costs = service_cpu.Costs(
        turns=400,
        cores=2,
        cpu_s={"workers": 6.0, "kafka": 0.8, "opensearch": 2.4, "benchmark": 0.8},
    )
    assert costs.total_ms() == pytest.approx(25.0)
    assert costs.ceiling() == pytest.approx(80.0)
    text = costs.describe()
    assert "workers 15.0, kafka 2.0, opensearch 6.0, benchmark 2.0; all 25.0" in text
    assert "not counted" not in text and "at most 80 turns/s" in text


def test_the_examples_in_the_module_hold(service_cpu) -> None:  # type: ignore[no-untyped-def]
    import doctest

    result = doctest.testmod(service_cpu)
    assert result.attempted >= 5 and result.failed == 0
