"""``memgate serve`` for operators: ``/ready`` checks Kafka when the writes go there, and
``/metrics`` counts and times every request by route template. Real HTTP (uvicorn on a
free port, httpx), the embedded stores; Kafka down is a loopback port nothing listens on,
Kafka hung is a listener that accepts and never answers."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from memgate import Memory
from memgate.apikeys import KeyStore
from memgate.core.errors import AuthenticationError
from memgate.service import PROBLEM_JSON, UNMATCHED, BackgroundServer, create_app
from memgate.streams.kafka_probe import KafkaNotAnswering, probe_kafka
from tests.unit.netfaults import Silent, closed_port

NEOVIM = [{"role": "user", "content": "I use Neovim as my editor."}]
FACT = "/v1/tenants/{tenant}/users/{user}/memories/{fact_id}"


# ----------------------------------------------------------------------------- /ready


def test_ready_names_kafka_when_the_writes_go_to_a_broker_that_is_down(tmp_path: Path) -> None:
    port = closed_port()
    memory = Memory(data_dir=tmp_path / "data", embedder="hashing", write_mode="kafka",
                    kafka_bootstrap=f"127.0.0.1:{port}", kafka_ready_timeout_s=2)  # fmt: skip
    keys = KeyStore(tmp_path / "api_keys.json")
    with memory, BackgroundServer(create_app(memory, keys)) as server:
        r = httpx.get(server.url + "/ready", timeout=30)
    assert r.status_code == 503, r.text
    assert r.headers["content-type"].startswith(PROBLEM_JSON)
    doc = r.json()
    assert doc["checks"]["retrieval"] == "ok" and doc["checks"]["audit"] == "ok"
    assert doc["checks"]["kafka"].startswith("KafkaNotAnswering")
    assert f"127.0.0.1:{port}" in doc["checks"]["kafka"]
    assert "kafka" in doc["detail"] and "Traceback" not in r.text


def test_ready_does_not_probe_kafka_when_the_writes_stay_in_process(tmp_path: Path) -> None:
    memory = Memory(data_dir=tmp_path / "data", embedder="hashing",
                    kafka_bootstrap=f"127.0.0.1:{closed_port()}")  # fmt: skip
    assert set(memory.checks()) == {"retrieval", "audit"}
    memory.close()


def test_a_broker_that_never_answers_is_reported_within_the_timeout() -> None:
    silent = Silent()
    try:
        t0 = time.monotonic()
        with pytest.raises(KafkaNotAnswering, match=r"within 0\.5 s"):
            probe_kafka(f"127.0.0.1:{silent.port}", 0.5)
        assert time.monotonic() - t0 < 3.0
        assert silent.held, "the probe did connect (and then waited for an answer)"
    finally:
        silent.close()


def test_a_list_with_a_dead_broker_names_every_address_it_tried() -> None:
    a, b = closed_port(), closed_port()
    with pytest.raises(KafkaNotAnswering) as info:
        probe_kafka(f"127.0.0.1:{a},127.0.0.1:{b}", 2.0)
    assert f"127.0.0.1:{a}" in str(info.value) and f"127.0.0.1:{b}" in str(info.value)


# --------------------------------------------------------------------------- /metrics


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Memory, str, str]]:
    d = tmp_path_factory.mktemp("serve-metrics")
    keys = KeyStore(d / "api_keys.json")
    acme, _ = keys.create("acme")
    memory = Memory(data_dir=d / "data", embedder="hashing", http_max_body_bytes=4096)
    with memory, BackgroundServer(create_app(memory, keys)) as server:
        yield memory, server.url, acme


def sample(memory: Memory, name: str, **labels: str) -> float:
    return memory.metrics.registry.get_sample_value(name, labels) or 0.0


def http_lines(url: str) -> list[str]:
    text = httpx.get(url + "/metrics", timeout=60).text
    return [line for line in text.splitlines() if line.startswith("memgate_http_")]


def test_requests_are_counted_and_timed_by_route_template_never_by_raw_path(
    served: tuple[Memory, str, str],
) -> None:
    memory, url, key = served
    with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {key}"}, timeout=60) as c:
        c.post("/v1/tenants/acme/users/alice-7f3a/memories", json={"messages": NEOVIM})
        fact_id = memory.get_all("acme", "alice-7f3a")[0].fact_id
        before = sample(memory, "memgate_http_requests_total", route=FACT, method="GET",
                        status="2xx")  # fmt: skip
        for _ in range(3):
            assert c.get(f"/v1/tenants/acme/users/alice-7f3a/memories/{fact_id}").is_success
        assert c.get("/v1/tenants/acme/users/alice-7f3a/memories/no-such-fact").status_code == 404
    after = sample(memory, "memgate_http_requests_total", route=FACT, method="GET", status="2xx")
    assert after == before + 3
    assert sample(memory, "memgate_http_requests_total", route=FACT, method="GET",
                  status="4xx") >= 1  # fmt: skip
    assert sample(memory, "memgate_http_request_duration_seconds_count", route=FACT) >= 4
    lines = http_lines(url)
    assert any(f'route="{FACT}"' in line for line in lines)
    assert not [line for line in lines if "alice-7f3a" in line or fact_id in line]


def test_unknown_paths_and_methods_are_one_bounded_series(served: tuple[Memory, str, str]) -> None:
    memory, url, _ = served
    before = sample(memory, "memgate_http_requests_total", route=UNMATCHED, method="GET",
                    status="4xx")  # fmt: skip
    with httpx.Client(base_url=url, timeout=60) as c:
        for i in range(40):
            assert c.get(f"/scan/{i}/wp-admin.php?id={i}").status_code == 404
        assert c.request("BREW", "/live").status_code == 405
    after = sample(memory, "memgate_http_requests_total", route=UNMATCHED, method="GET",
                   status="4xx")  # fmt: skip
    assert after == before + 40
    assert sample(memory, "memgate_http_requests_total", route="/live", method="other",
                  status="4xx") == 1  # fmt: skip
    lines = http_lines(url)
    assert not [line for line in lines if "wp-admin" in line or "/scan/" in line]
    routes = {line.split('route="', 1)[1].split('"', 1)[0] for line in lines if 'route="' in line}
    assert UNMATCHED in routes and all(r == UNMATCHED or r.startswith("/") for r in routes)


def test_refusals_before_routing_and_server_errors_keep_their_route(tmp_path: Path) -> None:
    """A 413 by Content-Length (answered before any route runs) counts under the route's
    template; a store that cannot open answers 5xx, counted as such."""
    keys = KeyStore(tmp_path / "api_keys.json")
    key, _ = keys.create("acme")
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("")
    memory = Memory(data_dir=blocker, embedder="hashing", http_max_body_bytes=2048)
    search = "/v1/tenants/{tenant}/users/{user}/search"
    with memory, BackgroundServer(create_app(memory, keys)) as server:
        auth = {"Authorization": f"Bearer {key}"}
        c = httpx.Client(base_url=server.url, headers=auth, timeout=60)
        big = b'{"query": "' + b"x" * 4000 + b'"}'
        assert c.post("/v1/tenants/acme/users/u/search", content=big).status_code == 413
        assert c.post("/v1/tenants/acme/users/u/search", json={"query": "q"}).status_code == 503
        c.close()
    assert sample(memory, "memgate_http_requests_total", route=search, method="POST",
                  status="4xx") == 1  # fmt: skip
    assert sample(memory, "memgate_http_requests_total", route=search, method="POST",
                  status="5xx") == 1  # fmt: skip


def test_a_store_refusing_the_login_is_a_503_with_its_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An OpenSearch that refuses memgate's login (AuthenticationError, like a wrong setting)
    is the deployment's problem: 503 with the one line, not an anonymous 500."""
    line = (
        "OpenSearch at https://localhost:9200 refused the login of user 'memgate' "
        "(HTTP 401): check MEMGATE_OPENSEARCH_USERNAME and MEMGATE_OPENSEARCH_PASSWORD"
    )

    def refused(*args: object, **kwargs: object) -> None:
        raise AuthenticationError(line)

    keys = KeyStore(tmp_path / "api_keys.json")
    key, _ = keys.create("acme")
    memory = Memory(data_dir=tmp_path / "data", embedder="hashing")
    monkeypatch.setattr(memory, "search", refused)
    with memory, BackgroundServer(create_app(memory, keys)) as server:
        r = httpx.post(server.url + "/v1/tenants/acme/users/u/search", json={"query": "q"},
                       headers={"Authorization": f"Bearer {key}"}, timeout=60)  # fmt: skip
    assert r.status_code == 503, r.text
    assert r.json()["detail"] == line
