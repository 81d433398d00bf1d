"""Reconciling a faulted streaming run with the in-process run of the same turns.

Every fault case ends the same way: turns in = turns in the journal (each once); the facts
in OpenSearch = the facts of the in-process runner for the same input, whole records (ids,
occurrences, sessions, source turns, status, valid times, vectors); no two active facts
under one key.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
import urllib.request
from collections.abc import Iterable
from pathlib import Path

from memgate.core.embedding import MiniLMEmbedder
from memgate.core.events import FactStatus, TurnEvent
from memgate.core.settings import load_settings
from memgate.sinks.audit import ClickHouseAudit
from memgate.sinks.embedded import EmbeddedIndex
from memgate.sinks.opensearch import OpenSearchStore
from memgate.stages.extract import Extractor
from memgate.streams.runner import InProcessRunner
from tests.integration.conftest import DEPLOYMENT_KEY, SERVICES, like_a_memgate_process
from tests.integration.test_pipeline_int import _records

#: ``make faults`` (or MEMGATE_FAULTS_FULL=1) runs each case at its full length
FULL = os.environ.get("MEMGATE_FAULTS_FULL") == "1"


def report(case: str, **figures: object) -> None:
    """One JSON line per case into ``$MEMGATE_FAULTS_REPORT`` (``make faults`` sets it; the
    table in the README is made from it by ``tools/faults_report.py``), written before the
    case's assertions so that a failing case leaves its figures too."""
    path = os.environ.get("MEMGATE_FAULTS_REPORT")
    if not path:
        return
    row = {"case": case, "full": FULL, "at": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    with open(path, "a", encoding="utf-8") as out:
        out.write(json.dumps(row | figures) + "\n")


def service(cmd: str, name: str) -> None:
    """``deploy/local/services.sh <cmd> <name>``: the project's own script, as an SRE would."""
    proc = subprocess.run(
        ["bash", str(SERVICES), cmd, name], capture_output=True, text=True, timeout=900
    )
    assert proc.returncode == 0, f"services.sh {cmd} {name} failed:\n{proc.stderr[-3000:]}"


def metrics_page(port: str) -> str:
    """A worker's /metrics page."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as r:
        return str(r.read().decode())


def metric(port: str, name: str) -> float:
    """The sum of every series of one metric on a worker's /metrics (0 when absent)."""
    total = 0.0
    for line in metrics_page(port).splitlines():
        if line.startswith(name) and line[len(name) : len(name) + 1] in ("{", " "):
            total += float(line.rsplit(" ", 1)[1])
    return total


def wait_for(pred: object, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():  # type: ignore[operator]
            return
        time.sleep(0.3)
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")


def reconcile(
    turns: list[TurnEvent],
    store: OpenSearchStore,
    audit_dirs: Iterable[Path],
    ref_dir: Path,
    embedder: MiniLMEmbedder,
    *,
    case: str = "",
    drained_s: float | None = None,
    extractor: Extractor | None = None,
    **figures: object,
) -> None:
    """Assert the streaming result equals the in-process one and the journal is complete.

    With ``case``, the figures (turns, facts, lost, duplicated, time to drain and the
    caller's own) go to :func:`report` first. ``extractor``: the reference run's (by
    default the one the settings name, the offline one)."""
    from memgate.backends import build_pipeline

    like_a_memgate_process()  # the worker's BLAS threads, or the vectors differ by ulps
    ref_settings = load_settings(data_dir=ref_dir, hmac_key=DEPLOYMENT_KEY)  # the workers' key
    ref_settings.data_dir.mkdir(parents=True)
    ref = EmbeddedIndex(ref_settings.retrieval_path, dim=embedder.dim)
    ref_audit = ClickHouseAudit.embedded(ref_settings.audit_path)
    InProcessRunner(build_pipeline(ref_settings, embedder, extractor), ref, ref_audit).run(turns)
    ref_audit.close()
    tenants_users = {(t.tenant_id, t.user_id) for t in turns}
    problems: list[str] = []
    lost = duplicated = differing = n_facts = n_active = 0
    try:
        for tenant, user in sorted(tenants_users):
            got = _records(store.list_facts(tenant, user, include_inactive=True))
            want = _records(ref.list_facts(tenant, user, include_inactive=True))
            n_facts += len(want)
            only_got, only_want = sorted(got.keys() - want.keys()), sorted(want.keys() - got.keys())
            lost += len(only_want)
            duplicated += len(only_got)
            if only_got or only_want:
                problems.append(f"{tenant}/{user}: only in the faulted run {only_got}, "
                                f"only in the reference {only_want}")  # fmt: skip
            for fact_id, record in want.items():
                if fact_id not in got:
                    continue
                differ = sorted(k for k in record if got[fact_id][k] != record[k])
                if differ:
                    differing += 1
                    problems.append(f"{tenant}/{user} fact {fact_id}: {differ} differ")
            active = [f.key for f in store.list_facts(tenant, user)
                      if f.status is FactStatus.ACTIVE]  # fmt: skip
            n_active += len(active)
            if len(active) != len(set(active)):
                duplicated += len(active) - len(set(active))
                problems.append(f"{tenant}/{user}: two active facts per key")
    finally:
        ref.close()
    # the journal: every turn once per audit store (rows collapse by event id), every turn
    # in some store. Each worker here keeps its own embedded audit store, so a turn that a
    # rebalance moved may be journaled by both; a fleet shares one ClickHouse server, where
    # the rows of one event collapse.
    seen: set[tuple[str, str]] = set()
    journal_rows = 0
    for d in audit_dirs:
        path = d / "audit.chdb"
        if not path.exists():
            continue
        audit = ClickHouseAudit.embedded(path)
        try:
            _, rows = audit.query(
                "SELECT tenant_id, turn_id, count() FROM memgate.journal FINAL "
                "GROUP BY tenant_id, turn_id"
            )
        finally:
            audit.close()
        journal_rows += sum(int(n) for _, _, n in rows)
        doubled = [(t, u, n) for t, u, n in rows if n != 1]
        if doubled:
            duplicated += len(doubled)
            problems.append(f"{d.name}: journal rows not unique: {doubled[:5]}")
        seen.update((str(t), str(u)) for t, u, _ in rows)
    want_turns = {(t.tenant_id, t.turn_id) for t in turns}
    missing, unknown = want_turns - seen, seen - want_turns
    lost += len(missing)
    if missing or unknown:
        problems.append(f"journal: {len(missing)} turn(s) missing, {len(unknown)} unknown")
    if case:
        report(case, turns=len(turns), facts=n_facts, active=n_active, lost=lost,
               duplicated=duplicated, differing=differing, journal_rows=journal_rows,
               drained_s=None if drained_s is None else round(drained_s, 1),
               **figures)  # fmt: skip
    assert not problems, "\n".join(problems[:20])
