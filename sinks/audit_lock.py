"""Is the embedded audit store open in another process? Say so in one line, before chDB does.

chDB runs a ClickHouse engine in the process that opens the data directory and
holds an exclusive ``flock`` on its ``status`` file for as long as it runs. A
second process (``memgate audit`` while ``memgate ingest`` writes) then fails
deep inside the engine, which prints its own "Cannot lock file" lines. The
kernel lists every ``flock`` with the holder's pid in ``/proc/locks``; a lock
on that file held by another pid means the store is busy. A lock held by this
process is the engine already open here, which stores of the same path share.
"""

from __future__ import annotations

import os
from pathlib import Path

from memgate.core.errors import ConfigError

__all__ = ["StoreBusy", "check_not_locked", "lock_holders"]

_PROC_LOCKS = Path("/proc/locks")


class StoreBusy(ConfigError):
    """The embedded audit store's directory is held by another process's engine."""


def lock_holders(path: Path, proc_locks: Path = _PROC_LOCKS) -> set[int]:
    """Pids holding a lock on ``path`` (empty when the file or ``/proc/locks`` is missing)."""
    try:
        st = path.stat()
        lines = proc_locks.read_text().splitlines()
    except OSError:
        return set()
    # the kernel writes the file as MAJOR:MINOR:INODE, the device numbers in hex
    ident = f"{os.major(st.st_dev):02x}:{os.minor(st.st_dev):02x}:{st.st_ino}"
    pids: set[int] = set()
    for line in lines:
        parts = line.split()
        # "1: FLOCK  ADVISORY  WRITE 3402 fe:00:9994129 0 EOF" (a blocked waiter has "->")
        if len(parts) < 6 or parts[1] == "->":
            continue
        if parts[5] == ident and parts[4].isdigit():
            pids.add(int(parts[4]))
    return pids


def check_not_locked(path: Path) -> None:
    """Raise :class:`StoreBusy` when another process has the embedded store at ``path`` open."""
    others = lock_holders(path / "status") - {os.getpid()}
    if others:
        pids = ", ".join(str(p) for p in sorted(others))
        raise StoreBusy(
            f"the embedded audit store {path} is in use by another memgate process "
            f"(pid {pids}: an ingest, a worker or another audit); run this again when it "
            "has finished, or give the writer and the readers a ClickHouse server "
            "(--audit-backend clickhouse)"
        )
