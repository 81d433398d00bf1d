"""Ctrl-C at any point of a ``memgate`` command: one line and exit 130, no traceback.

Session 19 (attack19): Ctrl-C in the first fraction of a second (while the command line
imports its modules) printed an import traceback; Ctrl-C after that but before a run
installs its own handler (settings, stores, models loading) exited 130 with nothing
said (typer turns KeyboardInterrupt into a silent exit 130).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

# a meta-path hook sends the process SIGINT when the module named in argv[1] is imported
_AT_IMPORT = """
import os, signal, sys
target = sys.argv.pop(1)
class Hook:
    def find_spec(self, name, path=None, target_=None):
        if name == target:
            os.kill(os.getpid(), signal.SIGINT)
        return None
sys.meta_path.insert(0, Hook())
from memgate.cli import run
sys.argv[0] = "memgate"
run()
"""


def _memgate(tmp_path: Path, at: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "MEMGATE_EMBEDDER": "hashing", "MEMGATE_RESOLUTION_MEANING": "off"}
    return subprocess.run(
        [sys.executable, "-c", _AT_IMPORT, at, "--data-dir", str(tmp_path / "d"), *args],
        capture_output=True, text=True, timeout=120, env=env,
    )  # fmt: skip


@pytest.mark.usefixtures("sigint_default")
def test_ctrl_c_while_the_command_line_imports_is_one_line(tmp_path: Path) -> None:
    done = _memgate(tmp_path, "memgate.cli.ingest", "--version")
    assert done.returncode == 130
    assert "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines() == [
        "interrupted by SIGINT: the command stopped before it finished; run it again"
    ]


@pytest.mark.usefixtures("sigint_default")
def test_ctrl_c_before_a_run_takes_over_is_said(tmp_path: Path) -> None:
    """SIGINT while ``ingest`` builds its pipeline (the backends are imported then)."""
    turns = tmp_path / "turns.jsonl"
    row = {"tenant_id": "acme", "user_id": "alice", "session_id": "s1", "turn_id": "t1",
           "role": "user", "content": "I use Neovim.", "ts": "2024-03-01T09:00:00Z"}  # fmt: skip
    turns.write_text(json.dumps(row) + "\n", encoding="utf-8")
    done = _memgate(tmp_path, "memgate.streams.runner", "ingest", str(turns))
    assert done.returncode == 130
    assert "Traceback" not in done.stderr
    assert "interrupted by SIGINT" in done.stderr
