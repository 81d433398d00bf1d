"""SIGINT / SIGKILL in the middle of `memgate ingest`, then a rerun: same end state as a
clean run? (attack13)

Usage: python tools/attack/interrupt_compare.py INPUT.jsonl WORKDIR [--after S] [--embedder E]
Runs, each in its own data dir under WORKDIR: a clean ingest; an ingest sent SIGINT after
S seconds then rerun; one sent SIGKILL after S seconds then rerun. Prints exit codes and
compares the stores: facts (every status; id, key, status, value, occurrences, turns,
sessions, validity) and the audit tables (rows by their content columns, wall-clock
columns left out). Exit 1 when a store differs from the clean one.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

MEMGATE = str(Path(sys.executable).with_name("memgate"))
AUDIT = {
    "journal": "tenant_id, user_id, session_id, turn_id, role, ts, length, content_hmac, "
    "verdict, reason, redacted_text",
    "decisions": "stage, tenant_id, user_id, session_id, turn_id, verdict, reason, key, "
    "fact_id, policy_version",
    "fact_history": "tenant_id, user_id, fact_id, key, action, value, occurrences, "
    "superseded_by, supersedes, source_turn_id",
}


def run(
    data: Path, inp: str, env: dict[str, str], sig: int | None, after: float, twice: bool = False
) -> int:
    p = subprocess.Popen(
        [MEMGATE, "ingest", inp, "--json"],
        env=env | {"MEMGATE_DATA_DIR": str(data)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    if sig is not None:
        time.sleep(after)
        p.send_signal(sig)
        if twice:  # a second Ctrl-C abandons the current turn
            time.sleep(0.2)
            p.send_signal(sig)
    _, err = p.communicate()
    tail = err.decode(errors="replace").strip().splitlines()[-2:]
    print(f"  {data.name}: signal={sig} rc={p.returncode} stderr_tail={tail}")
    if "Traceback" in err.decode(errors="replace"):
        print("  TRACEBACK on stderr")
    return p.returncode


def facts(data: Path) -> list[tuple]:
    c = sqlite3.connect(f"file:{data / 'retrieval.sqlite3'}?mode=ro", uri=True)
    rows = []
    for fid, doc in c.execute("SELECT fact_id, doc FROM facts"):
        d = json.loads(doc)
        rows.append(
            (
                fid,
                d.get("key"),
                d.get("status"),
                d.get("value"),
                d.get("occurrences"),
                tuple(d.get("source_turn_ids") or ()),
                tuple(d.get("session_ids") or ()),
                d.get("valid_from"),
                d.get("valid_to"),
                d.get("superseded_by"),
            )
        )
    rows.append(("turn_ledger", c.execute("SELECT count(*) FROM turns").fetchone()[0]))
    return sorted(rows, key=repr)


def audit(data: Path, env: dict[str, str]) -> dict[str, list]:
    out = {}
    for table, cols in AUDIT.items():
        r = subprocess.run(
            [
                MEMGATE,
                "audit",
                "--json",
                "--sql",
                f"SELECT {cols} FROM memgate.{table} FINAL ORDER BY {cols}",
            ],
            env=env | {"MEMGATE_DATA_DIR": str(data)},
            capture_output=True,
            text=True,
        )
        out[table] = sorted(json.dumps(x, sort_keys=True) for x in json.loads(r.stdout or "[]"))
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("input")
    ap.add_argument("workdir")
    ap.add_argument("--after", type=float, default=8.0)
    ap.add_argument("--embedder", default=None)
    ap.add_argument("--twice", action="store_true", help="send SIGINT twice, 0.2 s apart")
    a = ap.parse_args()
    env = dict(os.environ)
    env.setdefault("MEMGATE_HMAC_KEY", "attack13-one-key-for-all-three-data-dirs")  # ids are keyed
    if a.embedder:
        env["MEMGATE_EMBEDDER"] = a.embedder
    work = Path(a.workdir)
    work.mkdir(parents=True, exist_ok=True)
    clean, intr, kill = work / "clean", work / "sigint", work / "sigkill"
    t0 = time.time()
    run(clean, a.input, env, None, 0)
    print(f"  clean run {time.time() - t0:.1f}s")
    rc_int = run(intr, a.input, env, signal.SIGINT, a.after, a.twice)
    run(intr, a.input, env, None, 0)
    run(kill, a.input, env, signal.SIGKILL, a.after)
    run(kill, a.input, env, None, 0)
    bad = 0
    ref_f, ref_a = facts(clean), audit(clean, env)
    sizes = {k: len(v) for k, v in ref_a.items()}
    print(f"  clean: {len(ref_f) - 1} facts, audit rows {sizes}")
    for d in (intr, kill):
        f, au = facts(d), audit(d, env)
        fd = set(map(repr, f)) ^ set(map(repr, ref_f))
        ad = {k: len(set(au[k]) ^ set(ref_a[k])) + abs(len(au[k]) - len(ref_a[k])) for k in AUDIT}
        same = not fd and not any(ad.values())
        bad += not same
        verdict = "SAME" if same else "DIFFERENT"
        print(f"  {d.name}: facts differ {len(fd)}, audit differ {ad}: {verdict}")
        for x in sorted(fd)[:10]:
            print("    ", x[:300])
        for k in AUDIT:
            for x in sorted(set(au[k]) ^ set(ref_a[k]))[:5]:
                print(f"    {k}: {x[:300]}")
    print(f"SIGINT exit code {rc_int} (want 130)")
    return 1 if bad or rc_int != 130 else 0


if __name__ == "__main__":
    sys.exit(main())
