"""OpenSearch and ClickHouse over TLS, at the client: against a small HTTPS server of this
test (ssl + http.server) holding the certificate deploy/certs.sh made for the service,
each client verifies it with the configured CA (and refuses a server whose CA it was not
given) and sends its login only over that verified connection.

The OpenSearch store's refusals are pinned here too, each as one line without the password:
a CA it does not trust (no retry), plain HTTP to the TLS port, TLS to a plain port, a login
refused (401) and a permission refused (403). The real security plugin runs in
tests/integration/test_opensearch_secure_int.py (its own node, deploy/local/opensearch/
secure-node.sh); a ClickHouse server cannot run here (no server binary), deploy/compose.yaml
runs one.
"""

from __future__ import annotations

import base64
import json
import ssl
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from memgate.backends import open_audit
from memgate.core.errors import (
    AuthenticationError,
    ConfigError,
    MemgateError,
    TransientError,
)
from memgate.core.settings import load_settings
from memgate.sinks.opensearch import OpenSearchStore
from tests.unit.tls_certs import make_certs

PASSWORD = "os-Adm1n-pw!"


@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_certs(tmp_path_factory.mktemp("certs"))


@pytest.fixture(scope="module")
def other_ca(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_certs(tmp_path_factory.mktemp("other"))


class TLSServer:
    """An HTTPS server on 127.0.0.1 that records what each request carried."""

    def __init__(self, cert: Path | None, key: Path | None, answer: tuple[int, bytes]) -> None:
        self.requests: list[dict[str, Any]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def _any(self) -> None:
                n = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(n) if n else b""
                headers = {k.lower(): v for k, v in self.headers.items()}
                outer.requests.append({"path": self.path, "headers": headers,
                                       "body": body})  # fmt: skip
                status, payload = answer
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            do_GET = do_POST = do_HEAD = do_PUT = _any

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        if cert is not None and key is not None:  # else plain HTTP
            ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
            ctx.load_cert_chain(str(cert), str(key))
            self.httpd.socket = ctx.wrap_socket(self.httpd.socket, server_side=True)
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


OS_INFO = json.dumps({
    "name": "opensearch", "cluster_name": "memgate", "tagline": "The OpenSearch Project",
    "version": {"distribution": "opensearch", "number": "2.19.1"},
}).encode()  # fmt: skip


@pytest.fixture
def opensearch(certs: Path) -> Iterator[TLSServer]:
    server = TLSServer(certs / "opensearch.crt", certs / "opensearch.key", (200, OS_INFO))
    yield server
    server.close()


def _basic(user: str, password: str) -> str:
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()


@pytest.mark.parametrize("host", ["localhost", "127.0.0.1"])  # both in the certificate
def test_opensearch_verifies_the_ca_and_sends_basic_auth_over_tls(
    tmp_path: Path, certs: Path, opensearch: TLSServer, host: str
) -> None:
    s = load_settings(
        data_dir=tmp_path, retrieval_backend="opensearch",
        opensearch_url=f"https://{host}:{opensearch.port}",
        opensearch_username="memgate", opensearch_password=PASSWORD,
        opensearch_ca_certs=certs / "ca.crt",
    )  # fmt: skip
    store = OpenSearchStore.from_settings(s, dim=8)
    try:
        assert store.client.info()["version"]["number"] == "2.19.1"
    finally:
        store.close()
    [req] = opensearch.requests
    assert req["headers"]["authorization"] == _basic("memgate", PASSWORD)


def test_opensearch_refuses_a_server_signed_by_another_ca(
    tmp_path: Path, other_ca: Path, opensearch: TLSServer
) -> None:
    for ca in (other_ca / "ca.crt", None):  # another CA; the system's CAs
        s = load_settings(
            data_dir=tmp_path, opensearch_url=f"https://localhost:{opensearch.port}",
            opensearch_username="memgate", opensearch_password=PASSWORD,
            opensearch_ca_certs=ca,
        )  # fmt: skip
        store = OpenSearchStore.from_settings(s, dim=8)
        try:
            with pytest.raises(Exception, match="CERTIFICATE_VERIFY_FAILED"):
                store.client.info()
        finally:
            store.close()
    assert opensearch.requests == []  # the login never left the client


def test_opensearch_ca_file_must_exist(tmp_path: Path) -> None:
    s = load_settings(data_dir=tmp_path, opensearch_url="https://localhost:9200",
                      opensearch_ca_certs=tmp_path / "nope.crt")  # fmt: skip
    with pytest.raises(ConfigError, match=r"opensearch_ca_certs .*nope\.crt does not exist"):
        OpenSearchStore.from_settings(s, dim=8)


@pytest.fixture
def clickhouse(certs: Path) -> Iterator[TLSServer]:
    # not a ClickHouse: every request gets an error, after the client sent it
    server = TLSServer(certs / "clickhouse.crt", certs / "clickhouse.key",
                       (500, b"Code: 999. DB::Exception: not a real server"))  # fmt: skip
    yield server
    server.close()


def _login(headers: dict[str, str]) -> tuple[str, str]:
    if "x-clickhouse-user" in headers:
        return headers["x-clickhouse-user"], headers.get("x-clickhouse-key", "")
    user, _, pw = base64.b64decode(headers["authorization"].split()[1]).decode().partition(":")
    return user, pw


def test_clickhouse_over_https_verifies_the_ca_and_sends_the_login(
    tmp_path: Path, certs: Path, clickhouse: TLSServer
) -> None:
    s = load_settings(
        data_dir=tmp_path, audit_backend="clickhouse",
        clickhouse_url=f"https://localhost:{clickhouse.port}",
        clickhouse_username="memgate", clickhouse_password=PASSWORD,
        clickhouse_ca_cert=certs / "ca.crt",
    )  # fmt: skip
    with pytest.raises(MemgateError) as caught:
        open_audit(s)
    assert "not trusted" not in str(caught.value)  # the TLS handshake succeeded
    assert clickhouse.requests, "no request reached the server"
    assert {_login(r["headers"]) for r in clickhouse.requests} == {("memgate", PASSWORD)}
    assert PASSWORD not in str(caught.value)


def test_clickhouse_refuses_a_server_signed_by_another_ca(
    tmp_path: Path, other_ca: Path, clickhouse: TLSServer
) -> None:
    s = load_settings(
        data_dir=tmp_path, audit_backend="clickhouse",
        clickhouse_url=f"https://localhost:{clickhouse.port}",
        clickhouse_username="memgate", clickhouse_password=PASSWORD,
        clickhouse_ca_cert=other_ca / "ca.crt",
    )  # fmt: skip
    with pytest.raises(ConfigError) as caught:
        open_audit(s)
    assert str(caught.value) == (
        f"audit store: the certificate of ClickHouse at https://localhost:{clickhouse.port} "
        "is not trusted: set MEMGATE_CLICKHOUSE_CA_CERT to the CA that signed it and "
        "connect by a host name the certificate names"
    )
    assert clickhouse.requests == []


def _store(tmp_path: Path, url: str, ca: Path | None, **kw: Any) -> OpenSearchStore:
    s = load_settings(
        data_dir=tmp_path, opensearch_url=url, opensearch_username="memgate",
        opensearch_password=PASSWORD, opensearch_ca_certs=ca, opensearch_index="memgate-facts",
        **kw,
    )  # fmt: skip
    return OpenSearchStore.from_settings(s, dim=8)


def _refusal(store: OpenSearchStore) -> MemgateError:
    try:
        with pytest.raises(MemgateError) as caught:
            store.ensure_index()
    finally:
        store.close()
    assert "\n" not in str(caught.value) and PASSWORD not in str(caught.value)
    return caught.value


def test_opensearch_an_untrusted_certificate_is_one_config_line_without_retries(
    tmp_path: Path, other_ca: Path, opensearch: TLSServer
) -> None:
    url = f"https://localhost:{opensearch.port}"
    err = _refusal(_store(tmp_path, url, other_ca / "ca.crt"))
    assert isinstance(err, ConfigError)
    assert str(err) == (
        f"OpenSearch at {url} presented a certificate this client does not trust "
        "(unable to get local issuer certificate): set MEMGATE_OPENSEARCH_CA_CERTS to the CA "
        "that signed it and connect by a host name the certificate names"
    )
    assert opensearch.requests == []


def test_opensearch_plain_http_to_a_tls_port_says_to_use_https(
    tmp_path: Path, opensearch: TLSServer
) -> None:
    url = f"http://localhost:{opensearch.port}"
    err = _refusal(_store(tmp_path, url, None, retry_max_attempts=2, retry_base_delay_s=0.01))
    assert isinstance(err, TransientError)  # a restarting node drops connections too
    assert str(err).endswith(
        f"OpenSearch at {url} closed the connection without an answer: if it serves HTTPS "
        "(a TLS port drops plain HTTP), use https:// in MEMGATE_OPENSEARCH_URL"
    )


def test_opensearch_tls_to_a_plain_port_is_one_config_line(tmp_path: Path, certs: Path) -> None:
    plain = TLSServer(None, None, (200, OS_INFO))
    try:
        url = f"https://localhost:{plain.port}"
        err = _refusal(_store(tmp_path, url, certs / "ca.crt"))
    finally:
        plain.close()
    assert isinstance(err, ConfigError)
    assert str(err).startswith(f"TLS with OpenSearch at {url} failed (it answers in plain HTTP?)")


@pytest.mark.parametrize(
    ("answer", "expected", "requests"),
    [
        ((401, b"Unauthorized"),
         "refused the login of user 'memgate' (HTTP 401): check MEMGATE_OPENSEARCH_USERNAME "
         "and MEMGATE_OPENSEARCH_PASSWORD", 1),
        # the put of the template refused, then the read of the installed one (both 403)
        ((403, json.dumps({"error": {"type": "security_exception",
                                     "reason": "no permissions for [indices:admin/create]"},
                           "status": 403}).encode()),
         "does not allow user 'memgate' to get index template on index memgate-facts (HTTP 403:"
         " security_exception:"
         " no permissions for [indices:admin/create]): grant the role "
         "indices:admin/index_template/get and have an administrator run `memgate setup "
         "opensearch` once", 2),
    ],
)  # fmt: skip
def test_opensearch_a_refused_login_or_permission_is_one_authentication_line(
    tmp_path: Path, certs: Path, answer: tuple[int, bytes], expected: str, requests: int
) -> None:
    server = TLSServer(certs / "opensearch.crt", certs / "opensearch.key", answer)
    try:
        url = f"https://localhost:{server.port}"
        err = _refusal(_store(tmp_path, url, certs / "ca.crt"))
    finally:
        server.close()
    assert isinstance(err, AuthenticationError)
    assert str(err) == f"OpenSearch at {url} {expected}"
    assert len(server.requests) == requests  # refused for good: not retried
