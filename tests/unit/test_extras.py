"""Optional extras: the core runs the embedded path alone, and a missing extra is one error
line naming the extra to install.

Each case runs the command line in a fresh interpreter where the extra's libraries cannot
be imported (``sys.modules[name] = None`` makes ``import name`` fail as if the package
were not installed).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

EXTRA_LIBRARIES = {
    "kafka": ("faust", "mode", "aiokafka"),
    "opensearch": ("opensearchpy",),
    "clickhouse": ("clickhouse_connect",),
    "anthropic": ("anthropic",),
    "bench": ("matplotlib",),
    "http": ("fastapi", "starlette", "uvicorn"),
    "mcp": ("mcp",),
    "langgraph": ("langgraph",),
}
#: every optional library but clickhouse-connect, which the embedded chDB store also uses
ALL_EXTRAS = tuple(
    m
    for e in ("kafka", "opensearch", "anthropic", "bench", "http", "mcp", "langgraph")
    for m in EXTRA_LIBRARIES[e]
)

_RUN = """
import sys
for name in sys.argv[1].split(","):
    if name:
        sys.modules[name] = None
sys.argv = ["memgate", *sys.argv[2:]]
from memgate.cli import run
run()
"""


def _memgate(
    tmp_path: Path, blocked: tuple[str, ...], *args: str, **env: str
) -> subprocess.CompletedProcess[str]:
    environ = {
        **os.environ,
        "MEMGATE_DATA_DIR": str(tmp_path / "data"),
        "MEMGATE_EMBEDDER": "hashing",
        "MEMGATE_HMAC_KEY": "unit-test-hmac-key-0123456789abcdef0123",
        **env,
    }
    return subprocess.run(
        [sys.executable, "-c", _RUN, ",".join(blocked), *args],
        capture_output=True,
        text=True,
        env=environ,
        cwd=tmp_path,
        timeout=120,
    )


def _turns(tmp_path: Path) -> Path:
    f = tmp_path / "turns.jsonl"
    turn = {
        "tenant_id": "acme", "user_id": "alice", "session_id": "s1", "turn_id": "t1",
        "role": "user", "content": "We deploy with Jenkins and Helm charts.",
        "ts": "2024-03-01T09:00:00Z",
    }
    f.write_text(json.dumps(turn) + "\n")
    return f


def _one_error_line(run: subprocess.CompletedProcess[str], extra: str) -> None:
    assert run.returncode in (1, 2), run.stdout + run.stderr
    assert "Traceback" not in run.stderr
    lines = [line for line in run.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, run.stderr
    # rich may wrap a long line: compare without line breaks
    assert f"pip install 'memgate[{extra}]'" in " ".join(run.stderr.split()), run.stderr


@pytest.mark.parametrize(
    ("extra", "args", "env"),
    [
        ("kafka", ("worker",), {}),
        ("kafka", ("produce", "turns.jsonl"), {}),
        ("opensearch", ("search", "how do we deploy", "-t", "acme", "-u", "alice"),
         {"MEMGATE_RETRIEVAL_BACKEND": "opensearch"}),
        ("clickhouse", ("audit", "drop-reasons"), {"MEMGATE_AUDIT_BACKEND": "clickhouse"}),
        ("http", ("serve",), {}),
        ("mcp", ("mcp",), {"MEMGATE_API_KEY": "mgk_0123456789ab_x"}),
        ("anthropic", ("ingest", "turns.jsonl"),
         {"MEMGATE_EXTRACTOR": "anthropic", "MEMGATE_ANTHROPIC_API_KEY": "sk-test"}),
    ],
)
def test_a_missing_extra_names_itself(
    tmp_path: Path, extra: str, args: tuple[str, ...], env: dict[str, str]
) -> None:
    _turns(tmp_path)
    run = _memgate(tmp_path, EXTRA_LIBRARIES[extra], *args, **env)
    _one_error_line(run, extra)


def test_the_bench_report_names_its_extra(tmp_path: Path) -> None:
    code = "import sys; sys.modules['matplotlib'] = None; import memgate.bench.report"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 1
    assert "MissingExtra" in run.stderr and "pip install 'memgate[bench]'" in run.stderr


def test_the_langgraph_store_names_its_extra() -> None:
    code = "import sys; sys.modules['langgraph'] = None; import memgate.lgstore"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 1
    assert "MissingExtra" in run.stderr and "pip install 'memgate[langgraph]'" in run.stderr


def test_the_core_runs_the_embedded_path_without_any_extra(tmp_path: Path) -> None:
    """ingest, search, facts and audit on the embedded stores, every extra's library absent."""
    turns = _turns(tmp_path)
    assert _memgate(tmp_path, ALL_EXTRAS, "ingest", str(turns)).returncode == 0
    found = _memgate(tmp_path, ALL_EXTRAS, "search", "how do we deploy", "-t", "acme", "-u",
                     "alice", "--json", "--min-score", "-1")
    assert found.returncode == 0, found.stderr
    assert "Jenkins" in found.stdout
    assert _memgate(tmp_path, ALL_EXTRAS, "audit", "drop-reasons").returncode == 0
