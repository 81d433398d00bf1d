"""The interpreter's switch interval, set once per process at the entry point
(``switch_interval_us``, issue 14)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from memgate.core.settings import load_settings


def _interval_after_cli(env: dict[str, str]) -> float:
    """The switch interval a CLI command leaves in force in its process."""
    code = (
        "import sys, json\n"
        "from typer.testing import CliRunner\n"
        "from memgate.cli import app\n"
        "r = CliRunner().invoke(app, ['--data-dir', sys.argv[1], 'facts', '-t', 't', '-u', 'u'])\n"
        "print(json.dumps([r.exit_code, sys.getswitchinterval()]))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, env.pop("DATA")],
        capture_output=True, text=True, timeout=120, check=True,
        env={**os.environ, **env},
    )  # fmt: skip
    code_, interval = json.loads(out.stdout.strip().splitlines()[-1])
    assert code_ == 0, out.stdout + out.stderr
    return float(interval)


def test_the_default_is_200_microseconds_and_zero_leaves_python_s() -> None:
    assert load_settings().switch_interval_us == 200
    assert load_settings(switch_interval_us=0).switch_interval_us == 0


def test_a_command_sets_the_interval_of_its_process(tmp_path: Path) -> None:
    base = {"MEMGATE_HMAC_KEY": "k" * 32}
    assert _interval_after_cli({**base, "DATA": str(tmp_path / "a")}) == pytest.approx(0.0002)
    left = _interval_after_cli(
        {**base, "DATA": str(tmp_path / "b"), "MEMGATE_SWITCH_INTERVAL_US": "0"}
    )
    assert left == pytest.approx(0.005)  # Python's own, left as it was
    assert _interval_after_cli(
        {**base, "DATA": str(tmp_path / "c"), "MEMGATE_SWITCH_INTERVAL_US": "1000"}
    ) == pytest.approx(0.001)
