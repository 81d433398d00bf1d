"""The table of the latest ``make faults`` run, from the JSON lines its cases wrote.

    .venv/bin/python tools/faults_report.py [benchmarks/results/faults.jsonl]

Each fault case (``tests/faults``, the poison flood) appends one line with its figures when
``MEMGATE_FAULTS_REPORT`` names a file; ``make faults`` sets it, empties the file first and
prints this table at the end (also when a case failed: its line is written before the
case's assertions).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

COLUMNS = ("case", "turns", "facts", "lost", "duplicated", "drained_s", "at")


def table(rows: list[dict[str, object]]) -> str:
    head = ["case", "turns", "facts", "lost", "duplicated", "time to drain", "at"]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        cells = []
        for c in COLUMNS:
            v = r.get(c)
            cells.append("" if v is None else f"{v} s" if c == "drained_s" else str(v))
        if r.get("kills"):
            cells[0] += f" (seed {r.get('seed')})"
        if r.get("bad"):
            cells[0] += f" ({r['bad']} bad, {r.get('dead_lettered')} dead-lettered)"
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out)


def main(argv: list[str]) -> int:
    path = Path(argv[0] if argv else "benchmarks/results/faults.jsonl")
    if not path.exists():
        print(f"error: {path} does not exist; run `make faults` first", file=sys.stderr)
        return 2
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    print(table(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
