"""The gate on real Kafka, OpenSearch and Prometheus, with real ``memgate worker`` processes."""

from __future__ import annotations

import asyncio
import json
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from importlib import resources
from pathlib import Path

import numpy as np
import pytest

from memgate.core.embedding import MiniLMEmbedder
from memgate.core.events import DeadLetter, FactStatus, StoredFact, TurnEvent, parse_turn
from memgate.core.settings import load_settings
from memgate.core.stores import SearchQuery
from memgate.inputs import load_locomo
from memgate.sinks.audit import ClickHouseAudit
from memgate.sinks.embedded import EmbeddedIndex
from memgate.sinks.opensearch import OpenSearchStore
from memgate.streams.producer import produce_lines, produce_turns
from memgate.streams.runner import InProcessRunner
from tests.datasets import locomo_file
from tests.integration.conftest import (
    DEPLOYMENT_KEY,
    KAFKA,
    PROMETHEUS,
    WorkerProcess,
    running_worker,
    settings_for,
    worker_env,
)
from tests.integration.kafka_helpers import read_topic, wait_drained

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def embedder() -> MiniLMEmbedder:
    return MiniLMEmbedder()


def demo_turns() -> list[TurnEvent]:
    text = (resources.files("memgate") / "data" / "demo.jsonl").read_text()
    return [parse_turn(line) for line in text.splitlines() if line.strip()]


@pytest.fixture
def worker(services: dict[str, str], run_id: str, tmp_path: Path) -> Iterator[WorkerProcess]:
    with running_worker(worker_env(run_id, tmp_path / "data"), tmp_path / "worker.log") as w:
        yield w


def test_turns_come_out_searchable_with_tenant_scoping(
    worker: WorkerProcess, embedder: MiniLMEmbedder
) -> None:
    s = settings_for(worker.env)
    n = asyncio.run(produce_turns(s, demo_turns()))
    assert n == len(demo_turns())
    wait_drained(KAFKA, s.worker_id, s.topic_prefix)
    store = OpenSearchStore.from_settings(s, dim=embedder.dim)
    q = "how do we deploy"
    vec = embedder.embed([q])[0]
    alice = store.search(SearchQuery(tenant_id="acme", user_id="alice", text=q, k=5), vec)
    bob = store.search(SearchQuery(tenant_id="globex", user_id="bob", text=q, k=5), vec)
    assert alice and bob, worker.log()
    assert all(h.fact.tenant_id == "acme" and h.fact.user_id == "alice" for h in alice)
    assert all(h.fact.tenant_id == "globex" and h.fact.user_id == "bob" for h in bob)
    assert "GitHub Actions" in alice[0].fact.value  # the newer fact wins
    assert "ArgoCD" in bob[0].fact.value
    # nothing raw and sensitive reached OpenSearch
    facts = store.list_facts("acme", "alice", include_inactive=True)
    dump = json.dumps([f.model_dump(mode="json", exclude={"embedding"}) for f in facts])
    assert "[EMAIL]" in dump  # the instruction was stored, with its address redacted
    for raw in ("alice.martin@acme-corp.com", "4111 1111 1111 1111", "hunter2-Secret"):
        assert raw not in dump
    store.close()


def test_poison_message_goes_to_dead_letter_and_the_next_goes_through(
    worker: WorkerProcess, embedder: MiniLMEmbedder
) -> None:
    s = settings_for(worker.env)
    good = {
        "tenant_id": "acme",
        "user_id": "carol",
        "session_id": "s1",
        "turn_id": "c-1",
        "role": "user",
        "content": "We deploy with Spinnaker on GKE.",
        "ts": "2024-05-01T10:00:00Z",
    }
    poison_secret = "carol.private@example.org"
    lines = [
        '{"tenant_id": "acme", "user_id": "carol", "content": "mail ' + poison_secret + '"',
        json.dumps({**good, "turn_id": "c-0", "role": "robot"}),
        json.dumps(good),
    ]
    asyncio.run(produce_lines(s, lines))
    wait_drained(KAFKA, s.worker_id, s.topic_prefix)
    dead = [
        DeadLetter.model_validate_json(v) for _, v in read_topic(KAFKA, f"{s.topic_prefix}.dlq")
    ]
    assert len(dead) == 2, worker.log()
    assert {d.source_topic for d in dead} == {f"{s.topic_prefix}.turns"}
    assert sorted(d.offset for d in dead) == [0, 1]
    assert all(d.partition == 0 for d in dead)
    assert any("role" in d.reason for d in dead)
    assert all(poison_secret not in d.payload for d in dead)
    store = OpenSearchStore.from_settings(s, dim=embedder.dim)
    facts = store.list_facts("acme", "carol")
    assert [f.value for f in facts] == ["Spinnaker on GKE"] or any(
        "Spinnaker" in f.value for f in facts
    ), facts
    store.close()


def _locomo_slice(n: int) -> list[TurnEvent]:
    conv = load_locomo(locomo_file())[0]
    return conv.turns[:n]


#: fact columns stamped with the wall clock of the run that wrote them
SYSTEM_TIME = {"recorded_at", "superseded_at"}


def _records(facts: list[StoredFact]) -> dict[str, dict[str, object]]:
    """Whole fact records by id, but for the system-time columns (each run writes at its own
    wall-clock time); vectors as the float32 values both stores keep."""
    out: dict[str, dict[str, object]] = {}
    for f in facts:
        d = f.model_dump(mode="json", exclude=SYSTEM_TIME)
        for name in ("embedding", "search_embedding"):
            if d[name] is not None:
                d[name] = np.asarray(d[name], dtype=np.float32).tolist()
        out[f.fact_id] = d
    return out


def test_killing_a_worker_loses_no_turn_and_duplicates_no_fact(
    services: dict[str, str], run_id: str, tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    turns = _locomo_slice(240)
    env = worker_env(run_id, tmp_path / "data")
    s = settings_for(env)
    w = WorkerProcess(env, tmp_path / "worker.log")
    w.start()
    try:
        asyncio.run(produce_turns(s, turns))
        # let it get part of the way, then kill it without warning
        store = OpenSearchStore.from_settings(s, dim=embedder.dim)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and store.stats().get("active", 0) < 5:
            time.sleep(0.3)
        w.kill()
        before = store.stats()
        assert before.get("active", 0) >= 5, w.log()
        w.start()
        wait_drained(KAFKA, s.worker_id, s.topic_prefix, timeout=400)
    finally:
        w.stop()
    # the same turns through the in-process runner: the reference outcome
    from memgate.backends import build_pipeline

    ref_settings = load_settings(data_dir=tmp_path / "ref", hmac_key=DEPLOYMENT_KEY)
    ref_settings.data_dir.mkdir(parents=True)
    ref = EmbeddedIndex(ref_settings.retrieval_path, dim=embedder.dim)
    ref_audit = ClickHouseAudit.embedded(ref_settings.audit_path)
    InProcessRunner(build_pipeline(ref_settings, embedder), ref, ref_audit).run(turns)
    ref_audit.close()
    users = {t.user_id for t in turns}
    tenant = turns[0].tenant_id
    for u in users:
        # whole records: occurrences, sessions, source turns, status, valid times, vectors
        got = _records(store.list_facts(tenant, u, include_inactive=True))
        want = _records(ref.list_facts(tenant, u, include_inactive=True))
        assert got.keys() == want.keys(), (
            f"user {u}: only in kafka run {got.keys() - want.keys()}, "
            f"only in reference {want.keys() - got.keys()}"
        )
        for fact_id, record in want.items():
            differ = sorted(k for k in record if got[fact_id][k] != record[k])
            assert not differ, f"user {u}, fact {fact_id}: {differ} differ from the reference"
        active_keys = [f.key for f in store.list_facts(tenant, u) if f.status is FactStatus.ACTIVE]
        assert len(active_keys) == len(set(active_keys))
    ref.close()
    store.client.indices.delete(index=store.index, ignore_unavailable=True)
    store.close()
    # every turn is in the journal exactly once (audit rows collapse by event id)
    audit = ClickHouseAudit.embedded(Path(env["MEMGATE_DATA_DIR"]) / "audit.chdb")
    _, rows = audit.query(
        "SELECT count(), uniqExact(turn_id) FROM memgate.journal FINAL "
        "WHERE tenant_id = {t:String}",
        {"t": tenant},
    )
    audit.close()
    assert rows[0] == (len(turns), len(turns))


def _prom_query(expr: str) -> list[dict[str, object]]:
    url = f"{PROMETHEUS}/api/v1/query?" + urllib.parse.urlencode({"query": expr})
    with urllib.request.urlopen(url, timeout=5) as r:
        body = json.loads(r.read())
    assert body["status"] == "success", body
    return body["data"]["result"]  # type: ignore[no-any-return]


def test_prometheus_scrapes_the_worker_write_amplification(worker: WorkerProcess) -> None:
    s = settings_for(worker.env)
    asyncio.run(produce_turns(s, demo_turns()))
    wait_drained(KAFKA, s.worker_id, s.topic_prefix)
    deadline = time.monotonic() + 60
    result: list[dict[str, object]] = []
    while time.monotonic() < deadline:
        result = _prom_query('memgate_write_amplification{job="memgate"}')
        if result and float(result[0]["value"][1]) > 0:  # type: ignore[index]
            break
        time.sleep(1)
    assert result, "Prometheus returned no series for memgate_write_amplification"
    value = float(result[0]["value"][1])  # type: ignore[index]
    assert 0 < value < 1
    assert _prom_query("sum(memgate_turns_ingested_total)")


def _label_values(metric: str, label: str) -> list[str]:
    url = f"{PROMETHEUS}/api/v1/label/{label}/values?" + urllib.parse.urlencode({"match[]": metric})
    with urllib.request.urlopen(url, timeout=5) as r:
        body = json.loads(r.read())
    assert body["status"] == "success", body
    return sorted(body["data"])


def _dashboard_queries() -> list[tuple[str, str, str]]:
    """(dashboard, panel title, expr) of every Prometheus query of every panel."""
    root = Path(__file__).resolve().parents[2] / "dashboards"
    return [
        (d.name, p["title"], t["expr"])
        for d in sorted(root.glob("*.json"))
        for p in json.loads(d.read_text())["panels"]
        for t in p.get("targets", [])
        if "expr" in t
    ]


def test_every_dashboard_query_returns_series_after_a_real_run(worker: WorkerProcess) -> None:
    """Each panel's query, its variables substituted as Grafana would (job=memgate, one real
    instance, one real stage), parses in the real Prometheus and returns series after a run."""
    s = settings_for(worker.env)
    asyncio.run(produce_turns(s, demo_turns()))
    wait_drained(KAFKA, s.worker_id, s.topic_prefix)
    port = worker.env["MEMGATE_METRICS_PORT"]
    # the variables' own queries (label_values), then two scrapes after the run
    deadline = time.monotonic() + 90
    instances: list[str] = []
    ratio: list[dict[str, object]] = []
    while time.monotonic() < deadline:
        instances = [
            i
            for i in _label_values('memgate_turns_ingested_total{job="memgate"}', "instance")
            if i.endswith(f":{port}")
        ]
        if instances:
            sel = f'job="memgate", instance="{instances[0]}"'
            ratio = _prom_query(
                f"sum(rate(memgate_facts_written_total{{{sel}}}[5m])) "
                f"/ (sum(rate(memgate_turns_ingested_total{{{sel}}}[5m])) > 0)"
            )
            if ratio:
                break
        time.sleep(1)
    assert instances, "the instance variable found no worker"
    assert ratio, "Prometheus never saw the run's turns"
    instance = instances[0]
    stages = _label_values(
        f'memgate_events_in_total{{job="memgate", instance="{instance}"}}', "stage"
    )
    lagging = set(
        _label_values(f'memgate_consumer_lag{{job="memgate", instance="{instance}"}}', "stage")
    )
    assert stages, "the stage variable found no stage"
    stage = next((x for x in stages if x in lagging and x == "triage"), None) or next(
        (x for x in stages if x in lagging), stages[0]
    )
    queries = _dashboard_queries()
    assert len(queries) >= 20
    empty = []
    for dashboard, title, expr in queries:
        rendered = (
            expr.replace("$__rate_interval", "5m")
            .replace("$job", "memgate")
            .replace("$instance", instance.replace(".", "\\\\."))
            .replace("$stage", stage)
        )
        assert "$" not in rendered, rendered
        if not _prom_query(rendered):  # a bad expression answers 400 bad_data (asserted there)
            empty.append(f"{dashboard} / {title}: {rendered}")
    assert not empty, "queries without series:\n" + "\n".join(empty)
