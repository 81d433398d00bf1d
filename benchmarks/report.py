"""Gathers ``results/*.json`` into ``RESULTS.md``: the machine, the date, the commit and one
row per figure with the command that produced it.

    .venv/bin/python benchmarks/report.py
"""

from __future__ import annotations

import json

from common import HERE, RESULTS, machine


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
        for r in data["rows"]:
            note = str(r.get("note", "")).replace("|", "/")
            lines.append(f"| {r['what']} | {r['figure']} | {r.get('unit', '')} | {note} | "
                         f"`{r['command']}` | {at} |")
    (HERE / "RESULTS.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
