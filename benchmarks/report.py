"""Gathers ``results/*.json`` into ``RESULTS.md``: the machine, the date, the commit and one
row per figure with the command that produced it.

    .venv/bin/python benchmarks/report.py
"""

from __future__ import annotations

import json
from typing import Any

from common import HERE, RESULTS, machine


def figure_cell(row: dict[str, Any]) -> str:
    """A row's figure; a median of several runs with its min–max range and the count."""
    runs = int(row.get("runs", 1))
    if runs > 1 and row.get("range"):
        lo, hi = row["range"]
        return f"{row['figure']} ({lo}–{hi}, median of {runs})"
    return str(row["figure"])


def table_row(row: dict[str, Any], at: str) -> str:
    """One markdown table row: what, figure, unit, note, command, run at."""
    note = str(row.get("note", "")).replace("|", "/")
    return (
        f"| {row['what']} | {figure_cell(row)} | {row.get('unit', '')} | {note} | "
        f"`{row['command']}` | {at} |"
    )


def main() -> None:
    m = machine()
    lines = [
        "# memgate benchmarks",
        "",
        f"Machine: {m['cpu']}, {m['cores']} cores, {m['ram_gib']} GiB RAM; load average "
        f"{m['load_avg']} when the report was written; Python {m['python']}.",
        f"Date: {m['date']}; commit {m['commit']}. Regenerate with `make bench`.",
        "",
        "| what | figure | unit | note | command | run at |",
        "| --- | ---: | --- | --- | --- | --- |",
    ]
    for path in sorted(RESULTS.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        mm = data["machine"]
        at = f"{mm['date']}, {mm['commit']}, load {mm['load_avg']}"
        lines.extend(table_row(r, at) for r in data["rows"])
    (HERE / "RESULTS.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
