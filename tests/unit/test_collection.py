"""`make test` runs the integration tier first, on its own: it must collect cleanly.

Twice a contract module under tests/contracts imported ``tests.*`` before pytest's
importlib mode could import that package, which failed only when the integration tier
was collected alone (the unit tier had imported ``tests`` first).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_integration_tier_collects_on_its_own() -> None:
    proc = subprocess.run(
        # the console script, as make test runs it (``python -m pytest`` would put the
        # working directory on sys.path and hide the failure)
        [str(Path(sys.executable).parent / "pytest"), "--collect-only", "-q", "-m",
         "integration", "-p", "no:cacheprovider"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert " collected" in proc.stdout or "tests collected" in proc.stdout
