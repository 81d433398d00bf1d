"""The worker's HTTP endpoint: ``/metrics``, ``/live`` and ``/ready``.

One small threaded HTTP server per worker process, bound to
``metrics_host:metrics_port`` (``127.0.0.1`` by default; ``0.0.0.0`` in the
container image so that a Prometheus on the compose network can scrape it):

- ``/metrics``: the Prometheus exposition of the worker's registry;
- ``/live``: 200 while the process serves HTTP (a liveness probe: restart me
  when this fails);
- ``/ready``: 200 when every readiness check answers, else 503 with the
  failing check and its error in a JSON body (a readiness probe: send me no
  work, page nobody yet). Checks are run at most once per ``cache_s`` so a
  tight probe loop does not hammer the stores.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from prometheus_client import CollectorRegistry
from prometheus_client.exposition import choose_encoder

#: A readiness check: returns normally when the dependency answers, raises when it does not.
Check = Callable[[], object]


@dataclass
class Readiness:
    """Named checks, each run at most once per ``cache_s`` seconds."""

    checks: Mapping[str, Check] = field(default_factory=dict)
    cache_s: float = 2.0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _at: float = field(default=-1e9, repr=False)
    _last: tuple[bool, dict[str, str]] = field(default=(False, {}), repr=False)

    def __call__(self) -> tuple[bool, dict[str, str]]:
        with self._lock:
            if time.monotonic() - self._at < self.cache_s:
                return self._last
            results: dict[str, str] = {}
            ok = True
            for name, check in self.checks.items():
                try:
                    check()
                    results[name] = "ok"
                except Exception as exc:  # any failure means "not ready"; its text is reported
                    ok = False
                    results[name] = f"{type(exc).__name__}: {str(exc)[:200]}"
            self._at = time.monotonic()
            self._last = (ok, results)
            return self._last


def _handler(registry: CollectorRegistry, ready: Readiness) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        server_version = "memgate-worker"

        def _send(self, code: int, body: bytes, ctype: str) -> None:
            self.send_response(code)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

        def _json(self, code: int, doc: dict[str, object]) -> None:
            self._send(code, json.dumps(doc).encode(), "application/json")

        def do_GET(self) -> None:
            path = self.path.split("?", 1)[0].rstrip("/") or "/"
            if path == "/metrics":
                encoder, ctype = choose_encoder(self.headers.get("Accept", ""))
                self._send(200, encoder(registry), ctype)
            elif path == "/live":
                self._json(200, {"status": "live"})
            elif path == "/ready":
                ok, checks = ready()
                self._json(
                    200 if ok else 503, {"status": "ready" if ok else "not ready", "checks": checks}
                )
            else:
                self._json(404, {"status": "not found", "paths": ["/metrics", "/live", "/ready"]})

        do_HEAD = do_GET

        def log_message(self, format: str, *args: object) -> None:
            return  # probes every few seconds: not worth a log line each

    return Handler


class HealthServer:
    """``/metrics``, ``/live`` and ``/ready`` on one port, served from a daemon thread."""

    def __init__(
        self, registry: CollectorRegistry, ready: Readiness, port: int, host: str = "127.0.0.1"
    ) -> None:
        self.httpd = ThreadingHTTPServer((host, port), _handler(registry, ready))
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, name="memgate-health", daemon=True
        )

    @property
    def port(self) -> int:
        return int(self.httpd.server_address[1])

    def start(self) -> HealthServer:
        self.thread.start()
        return self

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
