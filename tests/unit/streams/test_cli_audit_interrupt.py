"""Ctrl-C during a long ``memgate audit --sql`` query: one line and exit 130, at once.

Session 22 (attack22): the query ran inside the engine, in the main thread, where no
Python signal handler runs until the engine returns; Ctrl-C did nothing until then.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

SLOW = "SELECT count() AS n FROM numbers(100000000000000)"  # hours


@pytest.mark.usefixtures("sigint_default")
@pytest.mark.parametrize("fmt", ["table", "csv"])
def test_ctrl_c_stops_a_long_query_at_once(tmp_path: Path, fmt: str) -> None:
    env = {**os.environ, "MEMGATE_EMBEDDER": "hashing"}
    cmd = [sys.executable, "-m", "memgate.cli", "--data-dir", str(tmp_path / "d"), "audit",
           "--sql", SLOW, "--format", fmt]  # fmt: skip
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True)
    try:
        # the engine is at work once the process has used a few seconds of CPU past its start
        deadline = time.monotonic() + 120
        while _cpu_seconds(proc.pid) < 6 and time.monotonic() < deadline:
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.2)
        proc.send_signal(signal.SIGINT)
        sent = time.monotonic()
        out, errs = proc.communicate(timeout=30)
        took = time.monotonic() - sent
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, (out, errs)
    assert "Traceback" not in errs
    assert errs.strip().splitlines() == [
        "interrupted by SIGINT: the command stopped before it finished; run it again"
    ]
    assert took < 10, took


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
