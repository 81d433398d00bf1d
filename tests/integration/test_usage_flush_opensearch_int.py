"""The usage buffer on OpenSearch (issue 14): the search that fills it does not write it
(the background flusher's ``_bulk`` does, on another thread), a search meanwhile is not
held by that write, and nothing is lost on close. The index is named per run and
dropped afterwards, with its usage index."""

from __future__ import annotations

import json
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from opensearchpy import (  # type: ignore[import-untyped,unused-ignore]
    NotFoundError,
    OpenSearch,
)

from memgate import Memory
from memgate.core.stores import UsageStore
from memgate.sinks.opensearch import OpenSearchStore
from tests.contracts.usage_gate import WAIT, Gate
from tests.integration.conftest import OPENSEARCH

pytestmark = pytest.mark.integration

DEMO = Path(__file__).resolve().parents[2] / "memgate" / "data" / "demo.jsonl"


def memory(data_dir: Path, index: str) -> Memory:
    return Memory(
        data_dir=data_dir, embedder="hashing", retrieval_backend="opensearch",
        opensearch_url=OPENSEARCH, opensearch_index=index, usage_flush_facts=2,
    )  # fmt: skip


@pytest.fixture
def index(services: dict[str, str], run_id: str) -> Iterator[str]:
    name = f"memgate-{run_id}"
    try:
        yield name
    finally:
        client = OpenSearch(hosts=[OPENSEARCH])
        for pattern in (f"{name}*", f"usage.{name}"):
            client.indices.delete(index=pattern, params={"ignore_unavailable": "true"})
        try:
            client.indices.delete_index_template(name=f"{name}-template")
        except NotFoundError:
            pass
        client.close()


def test_the_flush_runs_off_the_search_and_nothing_is_lost(index: str, tmp_path: Path) -> None:
    turns = [json.loads(line) for line in DEMO.read_text().splitlines() if line.strip()]
    served: Counter[str] = Counter()
    with memory(tmp_path / "data", index) as m:
        m.add(turns)
        store = m.recall.store
        assert isinstance(store, OpenSearchStore) and isinstance(store, UsageStore)
        store.refresh()
        gate = Gate(store, hold=True)
        t = time.monotonic()
        hits = m.search("deploy", "acme", "alice", min_score=-1, k=2).hits
        took = time.monotonic() - t
        served.update(h.fact.fact_id for h in hits)
        assert len(hits) == 2
        assert gate.entered.wait(WAIT), "the full buffer was never written"
        assert gate.threads[0] != threading.get_ident() and took < WAIT / 2
        t = time.monotonic()  # a search while the _bulk is held
        more = m.search("editor", "acme", "alice", min_score=-1, k=1).hits
        assert time.monotonic() - t < WAIT / 2 and len(more) == 1
        served.update(h.fact.fact_id for h in more)
        usage = m.recall.usage
        assert usage is not None
        assert all((usage.pending("acme", "alice", h.fact.fact_id) or (0,))[0] >= 1 for h in hits)
        assert store.usage("acme", "alice", list(served)) == {}
        gate.open()
        m.flush()
        got = store.usage("acme", "alice", list(served))
        assert {f: u.served_count for f, u in got.items()} == dict(served)
        last = m.search("language", "acme", "alice", min_score=-1, k=1).hits
        served.update(h.fact.fact_id for h in last)
    with memory(tmp_path / "data", index) as again:  # close wrote the rest
        counts = {f.fact_id: f.usage.served_count for f in again.get_all("acme", "alice")}
    assert {f: n for f, n in counts.items() if n} == dict(served) and served.total() == 4
