"""Reconciling a faulted streaming run with the in-process run of the same turns.

Every fault case ends the same way: turns in = turns in the journal (each once); the facts
in OpenSearch = the facts of the in-process runner for the same input, whole records (ids,
occurrences, sessions, source turns, status, valid times, vectors); no two active facts
under one key.
"""

from __future__ import annotations

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
from memgate.streams.runner import InProcessRunner
from tests.integration.conftest import SERVICES
from tests.integration.test_pipeline_int import _records

#: ``make faults`` (or MEMGATE_FAULTS_FULL=1) runs each case at its full length
FULL = os.environ.get("MEMGATE_FAULTS_FULL") == "1"


def service(cmd: str, name: str) -> None:
    """``deploy/local/services.sh <cmd> <name>``: the project's own script, as an SRE would."""
    proc = subprocess.run(
        ["bash", str(SERVICES), cmd, name], capture_output=True, text=True, timeout=900
    )
    assert proc.returncode == 0, f"services.sh {cmd} {name} failed:\n{proc.stderr[-3000:]}"


def metric(port: str, name: str) -> float:
    """The sum of every series of one metric on a worker's /metrics (0 when absent)."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as r:
        text = r.read().decode()
    total = 0.0
    for line in text.splitlines():
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
) -> None:
    """Assert the streaming result equals the in-process one and the journal is complete."""
    from memgate.backends import build_pipeline

    ref_settings = load_settings(data_dir=ref_dir)
    ref_settings.data_dir.mkdir(parents=True)
    ref = EmbeddedIndex(ref_settings.retrieval_path, dim=embedder.dim)
    ref_audit = ClickHouseAudit.embedded(ref_settings.audit_path)
    InProcessRunner(build_pipeline(ref_settings, embedder), ref, ref_audit).run(turns)
    ref_audit.close()
    tenants_users = {(t.tenant_id, t.user_id) for t in turns}
    try:
        for tenant, user in sorted(tenants_users):
            got = _records(store.list_facts(tenant, user, include_inactive=True))
            want = _records(ref.list_facts(tenant, user, include_inactive=True))
            assert got.keys() == want.keys(), (
                f"{tenant}/{user}: only in the faulted run {sorted(got.keys() - want.keys())}, "
                f"only in the reference {sorted(want.keys() - got.keys())}"
            )
            for fact_id, record in want.items():
                differ = sorted(k for k in record if got[fact_id][k] != record[k])
                assert not differ, f"{tenant}/{user} fact {fact_id}: {differ} differ"
            facts = store.list_facts(tenant, user)
            active = [f.key for f in facts if f.status is FactStatus.ACTIVE]
            assert len(active) == len(set(active)), f"{tenant}/{user}: two active facts per key"
    finally:
        ref.close()
    # the journal: every turn once per audit store (rows collapse by event id), every turn
    # in some store. Each worker here keeps its own embedded audit store, so a turn that a
    # rebalance moved may be journaled by both; a fleet shares one ClickHouse server, where
    # the rows of one event collapse.
    seen: set[tuple[str, str]] = set()
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
        doubled = [(t, u, n) for t, u, n in rows if n != 1]
        assert not doubled, f"{d.name}: journal rows not unique: {doubled[:5]}"
        seen.update((str(t), str(u)) for t, u, _ in rows)
    want = {(t.tenant_id, t.turn_id) for t in turns}
    assert seen == want, f"journal: {len(want - seen)} turn(s) missing, {len(seen - want)} unknown"
