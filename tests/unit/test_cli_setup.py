"""``memgate setup opensearch``: the administrator's one step of the secured layout.

Against a small OpenSearch stand-in (http.server, keeping the templates and indices it is
sent): the command logs in with MEMGATE_OPENSEARCH_ADMIN_USERNAME/PASSWORD instead of the
workers' login, installs the template of the workers' index and embedder dimension, creates
the index, and never prints the password; a half-given admin login is one error line. The
real security plugin runs in tests/integration/test_opensearch_secure_int.py.
"""

from __future__ import annotations

import base64
import json
import re
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from memgate.cli import app
from memgate.sinks.opensearch_mapping import MAPPING_VERSION, index_body

ADMIN_PW = "Adm1n-Secret-pw!"
WORKER_PW = "W0rker-Secret-pw!"
INDEX = "memgate-facts"


class StandIn:
    """Templates and indices over HTTP, each request's path and login recorded."""

    def __init__(self) -> None:
        self.templates: dict[str, Any] = {}
        self.indices: dict[str, Any] = {}
        self.requests: list[tuple[str, str, str]] = []  # method, path, Authorization
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self, status: int, payload: object = None) -> None:
                data = b"" if payload is None else json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(data)

            def _any(self) -> None:
                n = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(n)) if n else None
                path = self.path.split("?")[0]
                outer.requests.append((self.command, path,
                                       self.headers.get("Authorization", "")))  # fmt: skip
                if m := re.fullmatch(r"/_index_template/([^/]+)", path):
                    if self.command == "PUT":
                        outer.templates[m[1]] = body
                        return self._answer(200, {"acknowledged": True})
                    return self._answer(404, {"error": "not found"})
                if m := re.fullmatch(r"/([^/_][^/]*)/_mapping", path):
                    return self._answer(200, {m[1]: {"mappings": outer.indices[m[1]]["mappings"]}})
                if m := re.fullmatch(r"/([^/_][^/]*)", path):
                    if self.command == "HEAD":
                        return self._answer(200 if m[1] in outer.indices else 404)
                    if self.command == "PUT":
                        outer.indices[m[1]] = body
                        return self._answer(200, {"acknowledged": True, "index": m[1]})
                return self._answer(400, {"error": f"unexpected {self.command} {path}"})

            do_GET = do_PUT = do_HEAD = do_POST = _any

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def node() -> Iterator[StandIn]:
    server = StandIn()
    yield server
    server.close()


def _basic(user: str, password: str) -> str:
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()


def _setup(tmp_path: Path, node: StandIn, *args: str, **admin: str) -> Any:
    env = {
        "MEMGATE_OPENSEARCH_URL": node.url,
        "MEMGATE_OPENSEARCH_INDEX": INDEX,
        "MEMGATE_OPENSEARCH_USERNAME": "memgate",  # the workers' login, as in compose.yaml
        "MEMGATE_OPENSEARCH_PASSWORD": WORKER_PW,
        "MEMGATE_OPENSEARCH_ADMIN_USERNAME": admin.get("username", ""),
        "MEMGATE_OPENSEARCH_ADMIN_PASSWORD": admin.get("password", ""),
    }
    return CliRunner(env=env).invoke(
        app, ["--embedder", "hashing", "--data-dir", str(tmp_path / "d"), "setup", "opensearch",
              *args],
    )  # fmt: skip


def test_setup_installs_the_template_and_the_index_as_the_admin(
    tmp_path: Path, node: StandIn
) -> None:
    got = _setup(tmp_path, node, username="admin", password=ADMIN_PW)
    assert got.exit_code == 0, got.output
    template = node.templates[f"{INDEX}-template"]
    assert template["_meta"] == {"memgate_mapping_version": MAPPING_VERSION, "dim": 256}
    assert template["index_patterns"] == [f"{INDEX}*"]
    emb = node.indices[INDEX]["mappings"]["properties"]["embedding"]
    assert (emb["type"], emb["dimension"]) == ("knn_vector", 256)  # the hashing embedder's
    assert {auth for _, _, auth in node.requests} == {_basic("admin", ADMIN_PW)}
    assert " ".join(got.output.split()) == (
        f"index template {INDEX}-template ({INDEX}*, mapping version {MAPPING_VERSION}, dim "
        f"256) and index {INDEX} are in place on OpenSearch at {node.url} as user 'admin'"
    )
    assert ADMIN_PW not in got.output and WORKER_PW not in got.output
    again = _setup(tmp_path, node, "--json", username="admin", password=ADMIN_PW)
    assert again.exit_code == 0, again.output  # idempotent
    assert json.loads(again.output) == {
        "opensearch": node.url, "username": "admin", "template": f"{INDEX}-template",
        "index_patterns": [f"{INDEX}*"], "mapping_version": MAPPING_VERSION, "dim": 256,
        "index": INDEX, "index_mapping_version": MAPPING_VERSION,
    }  # fmt: skip
    assert [m for m, p, _ in node.requests if p == f"/{INDEX}" and m == "PUT"] == ["PUT"]


def test_setup_reports_an_existing_v2_index_usable_and_how_to_move_to_v3(
    tmp_path: Path, node: StandIn
) -> None:
    node.indices[INDEX] = index_body(256, version=2)  # created by an older memgate
    got = _setup(tmp_path, node, username="admin", password=ADMIN_PW)
    assert got.exit_code == 0, got.output
    assert node.templates[f"{INDEX}-template"]["_meta"]["memgate_mapping_version"] == 3
    assert not [p for m, p, _ in node.requests if m == "PUT" and p == f"/{INDEX}"]
    assert " ".join(got.output.split()).endswith(
        f"index {INDEX} is of the older mapping version 2 (vectors as JSON in _source: slower "
        f"reads), used as it is; to move to version 3, point opensearch_index at a new index "
        "(the template makes it version 3) and re-ingest"
    )
    as_json = _setup(tmp_path, node, "--json", username="admin", password=ADMIN_PW)
    assert json.loads(as_json.output)["index_mapping_version"] == 2


@pytest.mark.parametrize(
    ("admin", "line"),
    [({"username": "admin"},
      "error: MEMGATE_OPENSEARCH_ADMIN_USERNAME is set but MEMGATE_OPENSEARCH_ADMIN_PASSWORD "
      "is not: set both to an OpenSearch administrator's login"),
     ({"password": ADMIN_PW},
      "error: MEMGATE_OPENSEARCH_ADMIN_PASSWORD is set but MEMGATE_OPENSEARCH_ADMIN_USERNAME "
      "is not")],
)  # fmt: skip
def test_half_an_admin_login_is_one_error_line_and_nothing_is_sent(
    tmp_path: Path, node: StandIn, admin: dict[str, str], line: str
) -> None:
    got = _setup(tmp_path, node, **admin)
    assert got.exit_code == 1
    assert " ".join(got.output.split()) == line
    assert ADMIN_PW not in got.output
    assert node.requests == []
