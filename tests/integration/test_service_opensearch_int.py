"""``memgate serve`` over real HTTP on the OpenSearch retrieval store (the integration
tier: ``deploy/local/services.sh up opensearch``). The index is named per run
(``memgate-<run id>``) and dropped afterwards."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from opensearchpy import OpenSearch  # type: ignore[import-untyped,unused-ignore]

from memgate import Memory
from memgate.apikeys import KeyStore
from memgate.service import PROBLEM_JSON, BackgroundServer, create_app
from tests.integration.conftest import OPENSEARCH

pytestmark = pytest.mark.integration

NEOVIM = [{"role": "user", "content": "I use Neovim as my editor."}]


@pytest.fixture
def served(
    services: dict[str, str], run_id: str, tmp_path: Path
) -> Iterator[tuple[str, str, str, Memory]]:
    index = f"memgate-{run_id}"
    keys = KeyStore(tmp_path / "api_keys.json")
    acme, _ = keys.create("acme")
    globex, _ = keys.create("globex")
    memory = Memory(
        data_dir=tmp_path / "data", embedder="hashing", min_relevance=0,
        retrieval_backend="opensearch", opensearch_url=OPENSEARCH, opensearch_index=index,
    )  # fmt: skip
    try:
        with memory, BackgroundServer(create_app(memory, keys)) as server:
            yield server.url, acme, globex, memory
    finally:
        client = OpenSearch(hosts=[OPENSEARCH])
        client.indices.delete(index=f"{index}*", params={"ignore_unavailable": "true"})
        client.close()


def test_the_service_on_opensearch(served: tuple[str, str, str, Memory]) -> None:
    url, acme, globex, memory = served
    c = httpx.Client(base_url=url, headers={"Authorization": f"Bearer {acme}"}, timeout=60)
    ready = c.get("/ready")
    assert ready.status_code == 200, ready.text
    r = c.post("/v1/tenants/acme/users/alice/memories", json={"messages": NEOVIM})
    assert r.status_code == 200 and r.json()["facts_stored"] == 1, r.text
    hits: list[dict[str, object]] = []
    deadline = time.monotonic() + 30  # the index refreshes about once a second
    while not hits and time.monotonic() < deadline:
        r = c.post("/v1/tenants/acme/users/alice/search", json={"query": "which editor?"})
        assert r.status_code == 200, r.text
        hits = r.json()["hits"]
        time.sleep(0.5)
    assert [h["fact"]["value"] for h in hits] == ["Neovim"]  # type: ignore[index]
    metrics = c.get("/metrics").text
    assert 'memgate_retrievals_total{backend="opensearch"}' in metrics
    # another tenant's key: 403 problem, and acme's fact is untouched
    g = httpx.Client(base_url=url, headers={"Authorization": f"Bearer {globex}"}, timeout=60)
    r = g.delete("/v1/tenants/acme/users/alice")
    assert r.status_code == 403 and r.headers["content-type"].startswith(PROBLEM_JSON)
    assert [f.value for f in memory.get_all("acme", "alice")] == ["Neovim"]
    fact_id = hits[0]["fact"]["fact_id"]  # type: ignore[index]
    assert g.get(f"/v1/tenants/globex/users/alice/memories/{fact_id}").status_code == 404
    # delete and forget through HTTP on OpenSearch
    assert c.delete(f"/v1/tenants/acme/users/alice/memories/{fact_id}").status_code == 200
    assert c.get(f"/v1/tenants/acme/users/alice/memories/{fact_id}").status_code == 404
