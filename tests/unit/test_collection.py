"""`make test` runs the integration tier first, on its own: it must collect cleanly.

Twice a contract module under tests/contracts imported ``tests.*`` before pytest's
importlib mode could import that package, which failed only when the integration tier
was collected alone (the unit tier had imported ``tests`` first).
"""

from __future__ import annotations

import re
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
    # the tier is not empty, and every test it lists is one of its own (an import error
    # would list none, a marker lost would list unit tests)
    m = re.search(r"(\d+)/\d+ tests collected", proc.stdout)
    assert m is not None, proc.stdout[-2000:]
    ids = [line for line in proc.stdout.splitlines() if "::" in line]
    assert int(m.group(1)) == len(ids) > 0
    assert all(i.split("::")[0].endswith("_int.py") for i in ids), ids[:5]
