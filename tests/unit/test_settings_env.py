"""A list setting from the environment that is not JSON is one error line, not a traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def test_a_list_setting_that_is_not_json_is_one_clear_line(tmp_path: Path) -> None:
    memgate = Path(sys.executable).parent / "memgate"
    env = {**os.environ, "MEMGATE_TRUSTED_SOURCES": "acme:system_of_record",
           "MEMGATE_DATA_DIR": str(tmp_path / "d")}
    proc = subprocess.run([str(memgate), "config"], env=env, capture_output=True, text=True)
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and "trusted_sources" in lines[0] and "JSON" in lines[0], proc.stderr
