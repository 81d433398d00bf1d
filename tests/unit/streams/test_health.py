"""The worker's /metrics, /live and /ready endpoint, over real HTTP."""

from __future__ import annotations

import json
import socket
import urllib.error
import urllib.request
from collections.abc import Iterator

import pytest

from memgate.streams.health import HealthServer, Readiness
from memgate.streams.metrics import Metrics


def _get(url: str) -> tuple[int, str, str]:
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            return r.status, r.headers["Content-Type"], r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.headers["Content-Type"], e.read().decode()


class Flaky:
    def __init__(self) -> None:
        self.calls = 0
        self.fail = True

    def __call__(self) -> None:
        self.calls += 1
        if self.fail:
            raise ConnectionError("store at 127.0.0.1:1 refused the connection")


@pytest.fixture
def served() -> Iterator[tuple[HealthServer, Metrics, Flaky]]:
    m = Metrics()
    store = Flaky()
    srv = m.serve(0, "127.0.0.1", Readiness({"retrieval": store, "audit": lambda: 1}, cache_s=0))
    yield srv, m, store
    srv.close()


def test_metrics_are_served_with_the_prometheus_content_type(
    served: tuple[HealthServer, Metrics, Flaky],
) -> None:
    srv, m, _ = served
    m.record_turn()
    code, ctype, body = _get(f"http://127.0.0.1:{srv.port}/metrics")
    assert code == 200 and ctype.startswith("text/plain")
    assert "memgate_turns_ingested_total 1.0" in body


def test_live_answers_while_a_store_is_down(served: tuple[HealthServer, Metrics, Flaky]) -> None:
    srv, _, _ = served
    code, ctype, body = _get(f"http://127.0.0.1:{srv.port}/live")
    assert (code, ctype, json.loads(body)) == (200, "application/json", {"status": "live"})


def test_ready_names_the_failing_check_then_recovers(
    served: tuple[HealthServer, Metrics, Flaky],
) -> None:
    srv, _, store = served
    code, _, body = _get(f"http://127.0.0.1:{srv.port}/ready")
    doc = json.loads(body)
    assert code == 503 and doc["status"] == "not ready"
    assert doc["checks"]["audit"] == "ok"
    assert doc["checks"]["retrieval"].startswith("ConnectionError: store at 127.0.0.1:1")
    store.fail = False
    code, _, body = _get(f"http://127.0.0.1:{srv.port}/ready")
    assert code == 200 and json.loads(body)["checks"] == {"retrieval": "ok", "audit": "ok"}


def test_unknown_path_is_a_json_404(served: tuple[HealthServer, Metrics, Flaky]) -> None:
    srv, _, _ = served
    code, _, body = _get(f"http://127.0.0.1:{srv.port}/nope")
    assert code == 404 and "/ready" in json.loads(body)["paths"]


def test_readiness_checks_run_at_most_once_per_cache_window() -> None:
    store = Flaky()
    ready = Readiness({"retrieval": store}, cache_s=60)
    assert ready()[0] is False
    assert ready()[0] is False
    assert store.calls == 1


def _non_loopback_ip() -> str | None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("192.0.2.1", 9))  # no packet is sent: this only picks the route's address
            ip = str(s.getsockname()[0])
        except OSError:
            return None
    return None if ip.startswith("127.") else ip


def test_bind_address_decides_who_can_scrape() -> None:
    ip = _non_loopback_ip()
    assert ip is not None, "this machine has no non-loopback IPv4 address to test with"
    m = Metrics()
    local = m.serve(0, "127.0.0.1")
    everyone = m.serve(0, "0.0.0.0")
    try:
        assert _get(f"http://{ip}:{everyone.port}/live")[0] == 200
        with pytest.raises(urllib.error.URLError):
            urllib.request.urlopen(f"http://{ip}:{local.port}/live", timeout=3)
    finally:
        local.close()
        everyone.close()
