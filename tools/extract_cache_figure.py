"""Requests the Claude extractor makes with and without its answer cache.

Runs ``memgate bench locomo`` (every write policy preset, the first development
conversation, no pollution, hashing embedder) with ``--extractor anthropic``
against the local stand-in of the Messages API (tests/unit/stages/anthropic_standin.py,
which counts requests and answers "no facts"), three times: cache off, cache on
(first run), cache on again (a re-run). Prints the requests of each run.

    .venv/bin/python tools/extract_cache_figure.py [WORKDIR]
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.unit.stages.anthropic_standin import AnthropicStandIn  # noqa: E402

ARGS = ["bench", "locomo", "--split", "dev", "--limit", "1", "--pollution", "0",
        "--all-presets", "--embedder", "hashing", "--extractor", "anthropic", "--json"]


def main() -> None:
    work = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp())
    memgate = str(Path(sys.executable).with_name("memgate"))
    runs = [
        ("cache off", work / "off", {"MEMGATE_EXTRACT_CACHE_ENTRIES": "0"}),
        ("cache on, first run", work / "on", {}),
        ("cache on, second run", work / "on", {}),
    ]
    with AnthropicStandIn() as api:
        env = {
            **os.environ,
            "MEMGATE_ANTHROPIC_API_KEY": "test-key-standin-0123456789",
            "MEMGATE_ANTHROPIC_BASE_URL": api.base_url,
            "MEMGATE_HMAC_KEY": "0123456789abcdef0123456789abcdef0123",
        }
        for label, data, extra in runs:
            before, start = len(api.requests), time.monotonic()
            done = subprocess.run(
                [memgate, "--data-dir", str(data), *ARGS],
                env={**env, **extra}, capture_output=True, text=True, cwd=ROOT, check=False,
            )
            print(f"{label}: exit {done.returncode}, {len(api.requests) - before} requests, "
                  f"{time.monotonic() - start:.0f} s", flush=True)
            if done.returncode:
                print(done.stderr[-2000:])
        print(f"protocol violations: {len(api.violations)}")


if __name__ == "__main__":
    main()
