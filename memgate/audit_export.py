"""What ``memgate audit`` writes besides its table: CSV, JSON rows and a PNG plot.

CSV and JSON are written as the rows come, block by block (:func:`write_csv`,
:func:`write_json`): ten million rows take the memory of one block, not of ten
million (session 22: 2.7 GB before).

Parquet comes from ClickHouse itself (``FORMAT Parquet``,
:meth:`memgate.sinks.audit.ClickHouseAudit.query_format`): no Parquet library
of memgate's own. The plot needs matplotlib, memgate's ``bench`` extra.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Iterable, Sequence
from datetime import date, datetime
from pathlib import Path
from typing import Any, TextIO

from memgate.core.errors import ConfigError, require_extra

__all__ = ["csv_text", "plot_series", "write_csv", "write_json"]

#: Blocks of rows, as :meth:`memgate.sinks.audit.ClickHouseAudit.rows` reads them.
Blocks = Iterable[Sequence[Sequence[Any]]]


def _cell(value: object) -> object:
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, dict):
        return ";".join(f"{k}={v}" for k, v in value.items())
    return "" if value is None else value


def csv_text(cols: list[str], rows: list[tuple[Any, ...]]) -> str:
    """The rows as CSV with a header line (times in ISO 8601, maps as ``k=v;k=v``)."""
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(cols)
    for r in rows:
        w.writerow([_cell(v) for v in r])
    return out.getvalue()


def write_csv(
    out: TextIO, cols: list[str], blocks: Blocks, *, shown: Callable[[object], str] | None = None
) -> int:
    """The rows as :func:`csv_text` writes them, to ``out`` as they come; returns how many.

    ``shown`` rewrites every name and cell (for a terminal: its control characters as
    escapes, ``memgate.render.clean``)."""
    w = csv.writer(out, lineterminator="\n")
    w.writerow(cols if shown is None else [shown(c) for c in cols])
    n = 0
    for block in blocks:
        if shown is None:
            w.writerows([_cell(v) for v in r] for r in block)
        else:
            w.writerows([shown(_cell(v)) for v in r] for r in block)
        n += len(block)
    return n


def write_json(
    out: TextIO,
    cols: list[str],
    blocks: Blocks,
    *,
    ascii_only: bool = True,
    escape: Callable[[str], str] = lambda s: s,
) -> int:
    """The rows as one JSON array of objects (``json.dumps(rows, indent=2)``'s text), written
    as they come; ``escape`` rewrites each object's text (a terminal's unsafe characters)."""
    n = 0
    for block in blocks:
        for r in block:
            text = json.dumps(
                dict(zip(cols, r, strict=True)), indent=2, default=str, ensure_ascii=ascii_only
            )
            out.write(("[\n  " if n == 0 else ",\n  ") + escape(text).replace("\n", "\n  "))
            n += 1
    out.write("[]\n" if n == 0 else "\n]\n")
    return n


def plot_series(path: Path, title: str, cols: list[str], rows: list[tuple[Any, ...]]) -> int:
    """A line per numeric column against the first (a time axis); returns the lines drawn."""
    require_extra("matplotlib", "bench", "--plot")
    if path.suffix.lower() != ".png":
        raise ConfigError(f"--plot writes a PNG: name the file *.png, not {path.name!r}")
    if not rows:
        raise ConfigError(f"nothing to plot: the {title} report has no rows in that range")
    from matplotlib.figure import Figure

    xs = [r[0] for r in rows]
    numeric = [
        i
        for i in range(1, len(cols))
        if all(isinstance(r[i], int | float) and not isinstance(r[i], bool) for r in rows)
    ]
    fig = Figure(figsize=(8, 4.5), dpi=110, layout="constrained")
    ax = fig.add_subplot()
    for i in numeric:
        ax.plot(xs, [r[i] for r in rows], marker="o", markersize=3, label=cols[i])
    ax.set_title(f"memgate audit {title}")
    ax.set_xlabel(f"{cols[0]} (event time, UTC)")
    ax.legend()
    ax.grid(alpha=0.3)
    fig.autofmt_xdate()
    fig.savefig(path)
    return len(numeric)
