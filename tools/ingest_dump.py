"""A deterministic dump of what an ingest left behind, to prove a speed change kept results.

    .venv/bin/python tools/ingest_dump.py DATA_DIR > dump.json
    .venv/bin/python tools/ingest_dump.py DATA_DIR --vectors-against OTHER_DIR

The dump holds every fact of the embedded retrieval index (tenant, user, key, value,
status, occurrences, source turns and the other fields a run decides; not the wall-clock
stamps ``recorded_at`` and ``superseded_at``) sorted by tenant, user, key and fact id,
and the audit store's decisions (stage, verdict, reason, key, fact id, details) and the
counts by stage, verdict and reason, fact-history actions and journal verdicts. Two runs
of the same input give byte-identical dumps: ``diff`` them.

``--vectors-against`` compares the stored embeddings of two data dirs fact by fact and
prints the lowest cosine (the dump leaves vectors out: a batched forward pass may move
the last float bits).
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

#: Fact fields a run sets from the wall clock: left out of the dump.
_CLOCK_FIELDS = ("recorded_at", "superseded_at")


def facts(data_dir: Path) -> list[dict[str, Any]]:
    """Every fact of the retrieval index, clock fields dropped, in a stable order."""
    con = sqlite3.connect(f"file:{data_dir / 'retrieval.sqlite3'}?mode=ro", uri=True)
    try:
        rows = con.execute("SELECT doc FROM facts").fetchall()
    finally:
        con.close()
    out = []
    for (doc,) in rows:
        f = json.loads(doc)
        for k in _CLOCK_FIELDS:
            f.pop(k, None)
        out.append(f)
    out.sort(key=lambda f: (f["tenant_id"], f["user_id"], f["key"], f["fact_id"]))
    return out


def vectors(data_dir: Path) -> dict[str, tuple[np.ndarray | None, np.ndarray | None]]:
    con = sqlite3.connect(f"file:{data_dir / 'retrieval.sqlite3'}?mode=ro", uri=True)
    try:
        rows = con.execute("SELECT fact_id, embedding, search_embedding FROM facts").fetchall()
    finally:
        con.close()

    def vec(b: bytes | None) -> np.ndarray | None:
        return None if b is None else np.frombuffer(b, dtype=np.float32)

    return {fid: (vec(e), vec(s)) for fid, e, s in rows}


def audit(data_dir: Path) -> dict[str, Any]:
    """Decisions in a stable order and the counts of the audit tables."""
    from memgate.sinks.audit import ClickHouseAudit

    store = ClickHouseAudit.embedded(data_dir / "audit.chdb")
    try:
        _, rows = store.query(
            "SELECT stage, tenant_id, user_id, session_id, turn_id, verdict, reason, key, "
            "fact_id, policy_version, details FROM decisions"
        )
        decisions = sorted(
            [
                [str(c) if not isinstance(c, dict) else dict(sorted(c.items())) for c in r]
                for r in rows
            ],
            key=lambda r: json.dumps(r, sort_keys=True),
        )
        _, hist = store.query("SELECT action, count() FROM fact_history GROUP BY action")
        _, journal = store.query(
            "SELECT verdict, reason, count() FROM journal GROUP BY verdict, reason"
        )
    finally:
        store.close()
    by_reason = Counter(f"{r[0]}/{r[5]}/{r[6]}" for r in decisions)
    return {
        "decision_counts": dict(sorted(by_reason.items())),
        "fact_history_actions": {str(a): int(n) for a, n in sorted(hist)},
        "journal": {f"{v}/{r}": int(n) for v, r, n in sorted(journal)},
        "decisions": decisions,
    }


def dump(data_dir: Path) -> dict[str, Any]:
    fs = facts(data_dir)
    status = Counter(f["status"] for f in fs)
    return {
        "fact_count": len(fs),
        "fact_status": dict(sorted(status.items())),
        "audit": audit(data_dir),
        "facts": fs,
    }


def lowest_cosine(a_dir: Path, b_dir: Path) -> tuple[float, int, list[str]]:
    """The lowest cosine between the two runs' vectors of one fact, facts compared,
    and the fact ids found in one run only or with a vector on one side only."""
    a, b = vectors(a_dir), vectors(b_dir)
    odd = sorted(set(a) ^ set(b))
    low, n = 1.0, 0
    for fid in sorted(set(a) & set(b)):
        for va, vb in zip(a[fid], b[fid], strict=True):
            if va is None or vb is None:
                if (va is None) != (vb is None):
                    odd.append(fid)
                continue
            cos = float(va @ vb / (np.linalg.norm(va) * np.linalg.norm(vb) or 1.0))
            low, n = min(low, cos), n + 1
    return low, n, odd


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("data_dir", type=Path)
    ap.add_argument("--vectors-against", type=Path, default=None)
    a = ap.parse_args()
    if a.vectors_against is not None:
        low, n, odd = lowest_cosine(a.data_dir, a.vectors_against)
        print(f"{n} vectors compared, lowest cosine {low:.9f}, {len(odd)} facts on one side")
        sys.exit(1 if odd else 0)
    json.dump(dump(a.data_dir), sys.stdout, indent=1, ensure_ascii=False, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
