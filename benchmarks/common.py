"""What every benchmark shares: the machine, the LoCoMo dev file, one result row per figure.

Each ``bench_*.py`` writes ``results/<name>.json`` (rows: what, figure, unit, command, note);
``report.py`` gathers them into ``RESULTS.md`` with the machine, the date and the commit.
A figure that needs a service that is not reachable is the text "not run: service
unreachable", never a number.
"""

from __future__ import annotations

import json
import os
import platform
import socket
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memgate.bench.datasets import DatasetMissing, find_locomo

if TYPE_CHECKING:
    from memgate.core.settings import Settings

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RESULTS = HERE / "results"


def _locomo_dev() -> Path:
    if os.environ.get("MEMGATE_LOCOMO_DEV"):  # a file, kept for older command lines
        return Path(os.environ["MEMGATE_LOCOMO_DEV"])
    try:
        return find_locomo()
    except DatasetMissing as exc:
        raise SystemExit(f"benchmark not run: {exc}") from None


def __getattr__(name: str) -> Any:
    """``LOCOMO``: the LoCoMo dev file, read where it is (never copied into the repository);
    looked up on first use, so that a benchmark that reads no turns (``bench_search.py``)
    runs without it."""
    if name == "LOCOMO":
        path = _locomo_dev()
        globals()["LOCOMO"] = path
        return path
    raise AttributeError(name)


NOT_RUN = "not run: service unreachable"


def throwaway_settings(data_dir: Path, **overrides: Any) -> Settings:
    """The settings (the environment's, then ``overrides``) of a benchmark's throwaway data
    dir, deleted after the run: keyed by the ``hmac_key`` setting, else by a key held only
    in memory (:func:`memgate.keys.keyed_in_memory`), so that no key file is made for it
    and left behind in ``$XDG_CONFIG_HOME/memgate/keys``, one more each run."""
    from memgate.core.settings import load_settings
    from memgate.keys import keyed_in_memory

    return keyed_in_memory(load_settings(data_dir=data_dir, **overrides), data_dir)


def command() -> str:
    return " ".join(
        [
            ".venv/bin/python",
            *[os.path.relpath(a, ROOT) if a.endswith(".py") else a for a in sys.argv],
        ]
    )


def machine() -> dict[str, str]:
    cpu = "?"
    with open("/proc/cpuinfo", encoding="utf-8") as fh:
        for line in fh:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    mem_kb = 0
    with open("/proc/meminfo", encoding="utf-8") as fh:
        for line in fh:
            if line.startswith("MemTotal:"):
                mem_kb = int(line.split()[1])
    load = Path("/proc/loadavg").read_text(encoding="utf-8").split()[:3]
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        commit = "?"
    return {
        "cpu": cpu,
        "cores": str(os.cpu_count()),
        "ram_gib": f"{mem_kb / 1024 / 1024:.1f}",
        "load_avg": " ".join(load),
        "python": platform.python_version(),
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "commit": commit,
    }


def blas() -> str:
    """The BLAS libraries numpy uses and their thread counts (threadpoolctl)."""
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return "threadpoolctl not installed"
    return (
        ", ".join(
            f"{i.get('internal_api')} {i.get('version')} ({i.get('num_threads')} threads)"
            for i in threadpool_info()
            if i.get("user_api") == "blas"
        )
        or "none found"
    )


def reachable(hostport: str, timeout: float = 1.0) -> bool:
    host, _, port = hostport.rpartition(":")
    host = host.split("//")[-1] or "127.0.0.1"
    try:
        with socket.create_connection((host, int(port.split("/")[0])), timeout=timeout):
            return True
    except (OSError, ValueError):
        return False


def write(name: str, rows: list[dict[str, Any]]) -> Path:
    """``results/<name>.json`` (``MEMGATE_BENCH_RESULTS``: another folder, for the tests)."""
    out = Path(os.environ.get("MEMGATE_BENCH_RESULTS") or RESULTS)
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{name}.json"
    cmd = command()
    for r in rows:
        r.setdefault("command", cmd)
        r.setdefault("note", "")
    path.write_text(json.dumps({"machine": machine(), "rows": rows}, indent=1), encoding="utf-8")
    for r in rows:
        print(f"{r['what']}: {r['figure']} {r.get('unit', '')} {r['note']}".rstrip())
    return path


def rss_mib() -> float:
    """This process's peak resident set size (MiB)."""
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
