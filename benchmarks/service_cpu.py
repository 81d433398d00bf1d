"""Where the CPU of a pipeline run goes: the workers, Kafka, OpenSearch and the benchmark.

The worker targets of issue 14 are ratios on a 2-core machine that also runs the broker
and the index. A sustained run's row therefore says what one turn cost each process, in
CPU-ms, and what those costs allow on this machine's cores:

    ceiling (turns/s) = cores * 1000 / (CPU-ms a turn, all processes together)

Kafka and OpenSearch are found by the marker ``deploy/local/services.sh`` puts on their
command line (``-Dmemgate.service=<name>@<folder>``); services started another way are not
counted and the row says so.

>>> split_stat("1 (a b) S 1 1 1 0 -1 0 0 0 0 0 700 300 0 0")
(700, 300)
>>> Costs(turns=100, cores=2, cpu_s={"workers": 1.0, "kafka": 0.2}).ceiling()
166.66666666666666
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

#: the services ``deploy/local/services.sh`` starts, by the marker on their command line
SERVICES = ("kafka", "opensearch")
_MARK = b"-Dmemgate.service="


def split_stat(stat: str) -> tuple[int, int]:
    """utime and stime (clock ticks) of a ``/proc/<pid>/stat`` line (the name may hold
    spaces and parentheses: the fields start after its last ``)``)."""
    fields = stat.rsplit(")", 1)[1].split()
    return int(fields[11]), int(fields[12])


def process_cpu_s(pid: int) -> float:
    """User + system CPU seconds of a process so far (its threads included)."""
    user, system = split_stat(Path(f"/proc/{pid}/stat").read_text())
    return (user + system) / os.sysconf("SC_CLK_TCK")


def service_pids(folder: Path | None = None, proc: Path = Path("/proc")) -> dict[str, int]:
    """The pid of each local service that runs, by its command-line marker (only those of
    the services folder ``folder`` when given)."""
    found: dict[str, int] = {}
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            args = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:  # gone, or not ours to read
            continue
        for arg in args:
            if arg.startswith(_MARK):
                name, _, where = arg[len(_MARK) :].decode(errors="replace").partition("@")
                if name in SERVICES and (folder is None or where == str(folder)):
                    found[name] = int(entry.name)
    return found


@dataclass
class Costs:
    """CPU seconds each process spent over a run of ``turns`` turns."""

    turns: int
    cores: int
    cpu_s: dict[str, float] = field(default_factory=dict)

    def ms_per_turn(self, name: str) -> float:
        return 1000.0 * self.cpu_s[name] / self.turns

    def total_ms(self) -> float:
        return sum(self.ms_per_turn(n) for n in self.cpu_s)

    def ceiling(self) -> float:
        """Turns/s these costs allow if every core did nothing else."""
        return self.cores * 1000.0 / self.total_ms()

    def describe(self) -> str:
        parts = ", ".join(f"{n} {self.ms_per_turn(n):.1f}" for n in self.cpu_s)
        missing = [s for s in SERVICES if s not in self.cpu_s]
        gone = f" ({' and '.join(missing)} not a local service: not counted)" if missing else ""
        return (
            f"CPU-ms a turn: {parts}; all {self.total_ms():.1f}{gone}: "
            f"{self.cores} cores carry at most {self.ceiling():.0f} turns/s at these costs"
        )


class Meter:
    """CPU seconds of the workers (given), the local services and this process between
    :meth:`start` and :meth:`stop`."""

    def __init__(self, folder: Path | None = None) -> None:
        self.pids = service_pids(folder)
        self._start: dict[str, float] = {}

    def _now(self, workers: float) -> dict[str, float]:
        now = {"workers": workers}
        for name, pid in self.pids.items():
            try:
                now[name] = process_cpu_s(pid)
            except OSError:  # the service stopped during the run: not counted
                continue
        times = os.times()
        now["benchmark"] = times.user + times.system
        return now

    def start(self, workers: float) -> None:
        self._start = self._now(workers)

    def stop(self, workers: float, turns: int) -> Costs:
        end = self._now(workers)
        spent = {n: end[n] - self._start[n] for n in end if n in self._start}
        return Costs(turns=turns, cores=os.cpu_count() or 1, cpu_s=spent)


#: node stats of OpenSearch's indices: (what, section, time field, count field)
_PHASES = (
    ("index", "indexing", "index_time_in_millis", "index_total"),
    ("query", "search", "query_time_in_millis", "query_total"),
    ("fetch", "search", "fetch_time_in_millis", "fetch_total"),
    ("refresh", "refresh", "total_time_in_millis", "total"),
    ("merge", "merges", "total_time_in_millis", "total"),
    ("get", "get", "time_in_millis", "total"),
)


def opensearch_phases(stats: dict) -> dict[str, tuple[int, int]]:  # type: ignore[type-arg]
    """Milliseconds and operations of each phase, summed over the nodes of a
    ``_nodes/stats/indices`` answer.

    >>> node = {"indices": {"indexing": {"index_time_in_millis": 9, "index_total": 3}}}
    >>> opensearch_phases({"nodes": {"a": node, "b": node}})["index"]
    (18, 6)
    """
    out: dict[str, tuple[int, int]] = {}
    for what, section, ms, n in _PHASES:
        total = (0, 0)
        for node in stats.get("nodes", {}).values():
            part = node.get("indices", {}).get(section, {})
            total = (total[0] + int(part.get(ms, 0)), total[1] + int(part.get(n, 0)))
        out[what] = total
    return out


def phases_between(before: dict, after: dict, turns: int) -> str:  # type: ignore[type-arg]
    """OpenSearch's time per phase over a run, as a row's note says it (milliseconds a
    turn, operations in brackets; the phases' times are the threads' elapsed times, which
    overlap, not CPU).

    >>> def at(ms, n):
    ...     return {"nodes": {"a": {"indices": {"search": {"query_time_in_millis": ms,
    ...                                                    "query_total": n}}}}}
    >>> phases_between(at(10, 5), at(50, 25), 10)
    'OpenSearch ms a turn by phase: query 4.0 (20)'
    """
    x, y = opensearch_phases(before), opensearch_phases(after)
    parts = [
        f"{what} {(y[what][0] - x[what][0]) / turns:.1f} ({y[what][1] - x[what][1]})"
        for what in y
        if y[what] != x[what]
    ]
    return "OpenSearch ms a turn by phase: " + (", ".join(parts) or "none")
