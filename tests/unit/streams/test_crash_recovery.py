"""`memgate ingest` killed at random points and run again gives exactly the clean run.

The input is built in the test from the bundled evaluation corpus (labelled
turns, the same turns again a month later as new turns, and every scenario's
history, each scenario under its own tenant): a few hundred turns that drop,
extract, redact, add, count duplicates, supersede, wait as pending and get
promoted, plus one replayed line and one turn id reused for other content.

A clean run gives the reference. Then, for each seeded kill point, a fresh
data dir is ingested by a subprocess that is killed (SIGKILL, or SIGINT: exit
130 and a one-line message) once a random number of facts is stored or at a
random instant, and the same command is run again until it completes. The
data dir must then hold the clean run's facts (whole records: occurrences,
sessions, provenance, status, vectors; only the system-time columns
``recorded_at`` and ``superseded_at`` may differ) and the clean run's audit:
every table read with FINAL, every row equal except its ingest-time column.
"""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from memgate.sinks.audit import TABLES, ClickHouseAudit

REPO = Path(__file__).resolve().parents[3]
EVAL = REPO / "memgate" / "data" / "eval"
SEED = 20261201
#: per audit table, the column stamped at ingest time (wall clock), left out of comparisons
INGEST_TIME = {
    "journal": "ingested_at",
    "decisions": "decided_at",
    "fact_history": "at",
    "disagreements": "decided_at",
}
#: fact fields stamped with the wall clock when the fact is written
SYSTEM_TIME = ("recorded_at", "superseded_at")
#: the deployment's HMAC key, the same for every run (digests are compared too)
ENV = {
    **os.environ,
    "MEMGATE_HMAC_KEY": "crash-test-key-0123456789abcdef0123456789",
    "MEMGATE_EMBEDDER": "hashing",
}
ENV.pop("MEMGATE_CONFIG", None)
TIMEOUT = 120


def _latest_kill(n_facts: int) -> int:
    """The latest kill point: three quarters of the clean run's facts, so the ingest
    still has work left when the signal arrives."""
    return 3 * n_facts // 4


def _turns() -> list[dict[str, Any]]:
    labelled = [
        json.loads(line)["turn"]
        for line in (EVAL / "labelled_turns.jsonl").read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    out = list(labelled)
    for i, t in enumerate(labelled):  # half of them said again a month later: new turns
        if i % 2 == 0:
            ts = datetime.fromisoformat(t["ts"].replace("Z", "+00:00")) + timedelta(days=30)
            out.append(
                {
                    **t,
                    "turn_id": t["turn_id"] + "-again",
                    "session_id": t["session_id"] + "-again",
                    "ts": ts.isoformat(),
                }
            )
    scenarios = (EVAL / "scenarios.jsonl").read_text(encoding="utf-8").splitlines()
    for i, line in enumerate(s for s in scenarios if s.strip()):
        for t in json.loads(line)["turns"]:
            out.append({**t, "tenant_id": f"{t['tenant_id']}-sc{i}"})
    first = labelled[0]
    out.append(dict(first))  # a replay: same turn id, same content
    out.append({**first, "content": first["content"] + " Also tabs in Makefiles."})  # a conflict
    return out


def _replays(turns: list[dict[str, Any]]) -> int:
    """How many turns repeat an earlier one exactly (same tenant, turn id, user, content)."""
    seen: dict[tuple[str, str], tuple[str, str]] = {}
    n = 0
    for t in turns:
        key, said = (t["tenant_id"], t["turn_id"]), (t["user_id"], t["content"])
        n += seen.get(key) == said
        seen.setdefault(key, said)
    return n


def _cmd(data_dir: Path, path: Path) -> list[str]:
    return [
        sys.executable,
        "-c",
        "from memgate.cli import run; run()",
        "--data-dir",
        str(data_dir),
        "ingest",
        "--json",
        str(path),
    ]


def _ingest(data_dir: Path, path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        _cmd(data_dir, path), env=ENV, capture_output=True, text=True, timeout=TIMEOUT
    )


def _stored_facts(data_dir: Path) -> int:
    db = data_dir / "retrieval.sqlite3"
    if not db.exists():
        return 0
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=0.05) as conn:
            return int(conn.execute("SELECT count(*) FROM facts").fetchone()[0])
    except sqlite3.Error:
        return 0  # not created yet


def _kill(
    data_dir: Path, path: Path, sig: int, *, after_facts: int = 0, after_s: float = 0.0
) -> subprocess.CompletedProcess[str]:
    """Start an ingest, wait until it stored ``after_facts`` facts and ``after_s`` more
    seconds passed, then send ``sig``."""
    proc = subprocess.Popen(
        _cmd(data_dir, path), env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    deadline = time.monotonic() + TIMEOUT
    while after_facts and _stored_facts(data_dir) < after_facts and proc.poll() is None:
        assert time.monotonic() < deadline, "the ingest stored no facts in time"
        time.sleep(0.005)
    time.sleep(after_s)
    if proc.poll() is None:
        proc.send_signal(sig)
    out, err = proc.communicate(timeout=TIMEOUT)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def _facts(data_dir: Path) -> dict[str, Any]:
    with sqlite3.connect(f"file:{data_dir / 'retrieval.sqlite3'}?mode=ro", uri=True) as conn:
        rows = conn.execute(
            "SELECT fact_id, doc, hex(embedding), hex(search_embedding) FROM facts"
        ).fetchall()
    out = {}
    for fact_id, doc, vec, search_vec in rows:
        d = json.loads(doc)
        for col in SYSTEM_TIME:
            d.pop(col)
        out[fact_id] = (d, vec, search_vec)
    return out


def _audit(data_dir: Path) -> dict[str, list[str]]:
    out = {}
    with ClickHouseAudit.embedded(data_dir / "audit.chdb") as audit:
        for table in TABLES:
            cols = [c for c in table.column_names if c != INGEST_TIME[table.name]]
            _, rows = audit.query(
                f"SELECT {', '.join(cols)} FROM {table.name} FINAL ORDER BY event_id"
            )
            # rows as JSON text: hashable (Map columns are dicts) and easy to show
            out[table.name] = [json.dumps(r, default=str, sort_keys=True) for r in rows]
    return out


def _assert_same(data_dir: Path, clean: Path) -> None:
    facts, want = _facts(data_dir), _facts(clean)
    assert set(facts) == set(want), "other fact ids than the clean run"
    for fact_id, record in want.items():
        assert facts[fact_id] == record, f"fact {fact_id} differs from the clean run"
    audit, want_audit = _audit(data_dir), _audit(clean)
    for name, rows in want_audit.items():
        got = audit[name]
        missing = sorted(set(rows) - set(got))[:3]
        extra = sorted(set(got) - set(rows))[:3]
        assert got == rows, f"{name}: {len(got)}/{len(rows)} rows; missing {missing}, extra {extra}"


@pytest.fixture(scope="module")
def workload(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, int]:
    root = tmp_path_factory.mktemp("crash")
    path = root / "turns.jsonl"
    path.write_text("".join(json.dumps(t) + "\n" for t in _turns()), encoding="utf-8")
    clean = root / "clean"
    done = _ingest(clean, path)
    # the conflict line is reported like a malformed line: exit 1, the rest ingested
    assert done.returncode == 1, done.stderr
    summary = json.loads(done.stdout)
    assert summary["failed"] == {"turn_id_conflict": 1}
    # ours and those of the scenarios that deliver a turn again
    assert summary["replayed"] == _replays(_turns())
    assert any("turn_id conflict" in e for e in summary["errors"])
    actions = summary["actions"]
    # the workload exercises every path of the write policy
    assert min(actions.get(a, 0) for a in ("ADD", "DUPLICATE", "SUPERSEDE", "PENDING")) > 0
    facts = _stored_facts(clean)
    assert facts > 100
    return path, clean, facts


def _complete(data_dir: Path, path: Path) -> None:
    done = _ingest(data_dir, path)
    assert done.returncode == 1, done.stderr  # the conflict line, as in the clean run
    assert json.loads(done.stdout)["failed"] == {"turn_id_conflict": 1}


def test_sigkill_at_random_points_then_rerun_gives_the_clean_run(
    workload: tuple[Path, Path, int], tmp_path: Path
) -> None:
    path, clean, n_facts = workload
    rng = random.Random(SEED)
    # kill points end by three quarters of the facts: past that, a fast machine can
    # finish the whole ingest before the signal is sent (CI once drew 178 of 189 + 0.19 s)
    points = [
        {"after_facts": rng.randint(1, n_facts // 3)},
        {
            "after_facts": rng.randint(n_facts // 3, _latest_kill(n_facts)),
            "after_s": rng.uniform(0, 0.05),
        },
        {"after_facts": 1, "after_s": rng.uniform(0.0, 1.0)},
    ]
    partial = 0
    for i, point in enumerate(points):
        data_dir = tmp_path / f"kill{i}"
        killed = _kill(data_dir, path, signal.SIGKILL, **point)
        assert killed.returncode == -signal.SIGKILL, (point, killed.stderr)
        partial += 0 < _stored_facts(data_dir) < n_facts
        _complete(data_dir, path)
        _assert_same(data_dir, clean)
    assert partial >= 2, "the kills should leave part of the facts stored"


def test_a_rerun_killed_again_still_converges(
    workload: tuple[Path, Path, int], tmp_path: Path
) -> None:
    path, clean, n_facts = workload
    rng = random.Random(SEED + 1)
    data_dir = tmp_path / "twice"
    first = rng.randint(1, n_facts // 2)
    assert _kill(data_dir, path, signal.SIGKILL, after_facts=first).returncode == -9
    second = rng.randint(first + 1, _latest_kill(n_facts))
    assert _kill(data_dir, path, signal.SIGKILL, after_facts=second).returncode == -9
    _complete(data_dir, path)
    _assert_same(data_dir, clean)


@pytest.mark.usefixtures("sigint_default")
def test_sigint_saves_what_was_done_exits_130_and_a_rerun_gives_the_clean_run(
    workload: tuple[Path, Path, int], tmp_path: Path
) -> None:
    path, clean, n_facts = workload
    rng = random.Random(SEED + 2)
    for i, after in enumerate(sorted(rng.sample(range(1, _latest_kill(n_facts)), 2))):
        data_dir = tmp_path / f"int{i}"
        stopped = _kill(data_dir, path, signal.SIGINT, after_facts=after)
        assert stopped.returncode == 130, stopped.stderr
        lines = [ln for ln in stopped.stderr.splitlines() if ln.strip()]
        assert lines == [lines[-1]] and lines[-1].startswith("interrupted by SIGINT"), lines
        assert "Traceback" not in stopped.stderr
        stored = _stored_facts(data_dir)
        assert after <= stored < n_facts
        _complete(data_dir, path)
        _assert_same(data_dir, clean)


def test_sigterm_saves_what_was_done_and_exits_143(
    workload: tuple[Path, Path, int], tmp_path: Path
) -> None:
    path, clean, n_facts = workload
    data_dir = tmp_path / "term"
    stopped = _kill(data_dir, path, signal.SIGTERM, after_facts=n_facts // 2)
    assert stopped.returncode == 128 + signal.SIGTERM, stopped.stderr
    assert "interrupted by SIGTERM" in stopped.stderr
    _complete(data_dir, path)
    _assert_same(data_dir, clean)
