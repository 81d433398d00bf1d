"""``memgate serve`` driven over real HTTP: uvicorn on a free port, httpx as the client,
the embedded stores (hashing embedder)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from memgate import Memory
from memgate.apikeys import KeyStore
from memgate.service import PROBLEM_JSON, BackgroundServer, create_app

ROOT = Path(__file__).resolve().parents[2]
NEOVIM = [{"role": "user", "content": "I use Neovim as my editor."}]


class Service:
    def __init__(self, memory: Memory, keys: KeyStore, url: str, acme: str, globex: str) -> None:
        self.memory, self.keys, self.url = memory, keys, url
        self.acme, self.globex = acme, globex

    def client(self, key: str | None) -> httpx.Client:
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=60)


@pytest.fixture(scope="module")
def svc(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    d = tmp_path_factory.mktemp("serve")
    keys = KeyStore(d / "api_keys.json")
    acme, _ = keys.create("acme", "tests")
    globex, _ = keys.create("globex")
    memory = Memory(data_dir=d / "data", embedder="hashing", http_max_body_bytes=4096)
    with memory, BackgroundServer(create_app(memory, keys)) as server:
        yield Service(memory, keys, server.url, acme, globex)


def assert_problem(r: httpx.Response, status: int) -> dict[str, object]:
    assert r.status_code == status, r.text
    assert r.headers["content-type"].startswith(PROBLEM_JSON)
    doc = r.json()
    assert doc["status"] == status
    assert {"type", "title", "status", "detail"} <= doc.keys()
    assert "Traceback" not in r.text
    return dict(doc)


def retrievals(c: httpx.Client) -> float:
    for line in c.get("/metrics").text.splitlines():
        if line.startswith("memgate_retrievals_total{"):
            return float(line.rsplit(" ", 1)[1])
    return 0.0


def test_add_then_search_get_history_delete_round_trip(svc: Service) -> None:
    with svc.client(svc.acme) as c:
        r = c.post("/v1/tenants/acme/users/alice/memories", json={"messages": NEOVIM})
        assert r.status_code == 200, r.text
        assert r.json()["facts_stored"] == 1 and r.json()["mode"] == "in_process"
        r = c.post("/v1/tenants/acme/users/alice/search",
                   json={"query": "which editor do I use?", "min_score": 0})  # fmt: skip
        assert r.status_code == 200, r.text
        hits = r.json()["hits"]
        assert [h["fact"]["value"] for h in hits] == ["Neovim"]
        fact_id = hits[0]["fact"]["fact_id"]
        assert c.get(f"/v1/tenants/acme/users/alice/memories/{fact_id}").json()["value"] == "Neovim"
        assert [f["fact_id"] for f in c.get("/v1/tenants/acme/users/alice/memories").json()] == [
            fact_id
        ]
        history = c.get(f"/v1/tenants/acme/users/alice/memories/{fact_id}/history").json()
        actions = [e["action"] for e in history]
        assert actions[0] == "add"
        assert c.get("/v1/tenants/acme/users").json() == {"tenant_id": "acme", "users": ["alice"]}
        assert c.delete(f"/v1/tenants/acme/users/alice/memories/{fact_id}").status_code == 200
        assert_problem(c.get(f"/v1/tenants/acme/users/alice/memories/{fact_id}"), 404)


def test_forget_over_http_erases_the_user(svc: Service) -> None:
    with svc.client(svc.acme) as c:
        c.post("/v1/tenants/acme/users/carol/memories", json={"messages": NEOVIM})
        r = c.delete("/v1/tenants/acme/users/carol")
        assert r.status_code == 200 and r.json()["facts"] == 1, r.text
    assert svc.memory.get_all("acme", "carol", include_inactive=True) == []


def test_another_tenants_key_is_refused_and_nothing_is_read_or_written(svc: Service) -> None:
    with svc.client(svc.acme) as c:
        c.post("/v1/tenants/acme/users/dave/memories", json={"messages": NEOVIM})
        fact_id = svc.memory.get_all("acme", "dave")[0].fact_id
        before = retrievals(c)
    with svc.client(svc.globex) as c:
        base = "/v1/tenants/acme/users/dave"
        doc = assert_problem(c.post(base + "/search", json={"query": "editor"}), 403)
        assert "globex" in str(doc["detail"])
        assert_problem(c.get(base + f"/memories/{fact_id}"), 403)
        assert_problem(c.delete(base + f"/memories/{fact_id}"), 403)
        assert_problem(c.delete(base), 403)
        assert_problem(c.post(base + "/memories", json={"messages": [
            {"role": "user", "content": "I use Emacs as my editor."}]}), 403)  # fmt: skip
        # a turn in the body naming another tenant, on the key's own path
        turn = {"tenant_id": "acme", "user_id": "dave", "session_id": "s", "turn_id": "x1",
                "role": "user", "content": "I use Emacs as my editor.",
                "ts": "2024-03-01T09:00:00Z"}  # fmt: skip
        assert_problem(c.post("/v1/tenants/globex/users/dave/memories", json={"turns": [turn]}),
                       403)  # fmt: skip
        # and a foreign fact id through the key's own tenant is simply not found
        assert_problem(c.get(f"/v1/tenants/globex/users/dave/memories/{fact_id}"), 404)
    with svc.client(svc.acme) as c:
        assert retrievals(c) == before  # the refused search reached no store
    assert [f.value for f in svc.memory.get_all("acme", "dave")] == ["Neovim"]
    assert svc.memory.users("globex") == []


def test_refusals_come_before_any_store_is_opened(tmp_path: Path) -> None:
    """On a service whose stores cannot open (the data dir is a file), a foreign tenant
    still gets 403 and a missing key 401, not a store error: neither reaches a store."""
    keys = KeyStore(tmp_path / "api_keys.json")
    globex, _ = keys.create("globex")
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("")
    memory = Memory(data_dir=blocker, embedder="hashing")
    with memory, BackgroundServer(create_app(memory, keys)) as server:
        c = httpx.Client(base_url=server.url, headers={"Authorization": f"Bearer {globex}"})
        assert_problem(c.post("/v1/tenants/acme/users/u/search", json={"query": "q"}), 403)
        assert_problem(httpx.get(server.url + "/v1/tenants/acme/users/u/memories"), 401)
        # the key's own tenant does reach the store, which fails as one line
        doc = assert_problem(c.post("/v1/tenants/globex/users/u/search",
                                    json={"query": "q"}), 503)  # fmt: skip
        assert "not-a-dir" in str(doc["detail"])
        ready = assert_problem(c.get("/ready"), 503)
        assert "retrieval" in str(ready["detail"]) and ready["checks"]["retrieval"] != "ok"  # type: ignore[index]




@pytest.mark.parametrize(
    ("body", "where"),
    [
        (b"{not json", "body"),
        (json.dumps({"query": ""}).encode(), "query"),
        (json.dumps({"query": "editor", "k": 0}).encode(), "k"),
        (json.dumps({"query": "editor", "colour": "red"}).encode(), "colour"),
        (json.dumps(["editor"]).encode(), "body"),
    ],
)
def test_a_malformed_body_gets_a_problem_document(svc: Service, body: bytes, where: str) -> None:
    with svc.client(svc.acme) as c:
        r = c.post("/v1/tenants/acme/users/alice/search", content=body,
                   headers={"content-type": "application/json"})  # fmt: skip
        doc = assert_problem(r, 422)
        assert where in str(doc["detail"])


def test_messages_and_turns_together_or_a_bad_user_are_422(svc: Service) -> None:
    with svc.client(svc.acme) as c:
        r = c.post("/v1/tenants/acme/users/alice/memories", json={"messages": NEOVIM, "turns": []})
        assert "either" in str(assert_problem(r, 422)["detail"])
        r = c.post("/v1/tenants/acme/users/a%20b/search", json={"query": "editor"})
        assert "user" in str(assert_problem(r, 422)["detail"])


def test_an_oversize_body_is_413_with_or_without_a_length(svc: Service) -> None:
    big = json.dumps({"query": "x" * 10_000}).encode()
    with svc.client(svc.acme) as c:
        assert_problem(c.post("/v1/tenants/acme/users/alice/search", content=big), 413)

        def chunks() -> Iterator[bytes]:  # chunked: no Content-Length to check up front
            for i in range(0, len(big), 1000):
                yield big[i : i + 1000]

        r = c.post("/v1/tenants/acme/users/alice/search", content=chunks(),
                   headers={"content-type": "application/json"})  # fmt: skip
        assert_problem(r, 413)


def test_a_missing_invalid_or_revoked_key_is_401(svc: Service) -> None:
    path = "/v1/tenants/acme/users/alice/memories"
    with svc.client(None) as c:
        r = c.get(path)
        assert_problem(r, 401)
        assert r.headers["www-authenticate"].startswith("Bearer")
    for bad in ("mgk_0123456789ab_wrong", svc.acme[:-2] + "xx", "Basic abc"):
        with svc.client(bad) as c:
            assert_problem(c.get(path), 401)
    key, rec = svc.keys.create("acme")
    with svc.client(key) as c:
        assert c.get(path).status_code == 200
        KeyStore(svc.keys.path).revoke(rec.key_id)  # another process's key store: the CLI
        assert_problem(c.get(path), 401)


def test_keys_are_stored_hashed_and_private(svc: Service) -> None:
    text = svc.keys.path.read_text()
    # the secret is everything after "mgk_<key id>_": token_urlsafe may itself hold "_", so
    # the part after the last "_" can be two characters that a hex digest holds by chance
    secret = svc.acme.split("_", 2)[2]
    assert len(secret) >= 40
    assert svc.acme not in text and secret not in text
    assert svc.keys.path.stat().st_mode & 0o077 == 0
    assert {k["tenant"] for k in json.loads(text)["keys"]} >= {"acme", "globex"}


def test_live_ready_and_metrics(svc: Service) -> None:
    with svc.client(None) as c:
        assert c.get("/live").json() == {"status": "live"}
        r = c.get("/ready")
        assert r.status_code == 200 and r.json()["checks"] == {"retrieval": "ok", "audit": "ok"}
    with svc.client(svc.acme) as c:
        before = retrievals(c)
        c.post("/v1/tenants/acme/users/erin/memories", json={"messages": NEOVIM})
        c.post("/v1/tenants/acme/users/erin/search", json={"query": "editor", "min_score": 0})
        text = c.get("/metrics").text
    assert retrievals(httpx.Client(base_url=svc.url)) == before + 1
    assert "memgate_served_fact_age_seconds_count" in text


def test_unknown_paths_and_methods_are_problem_documents(svc: Service) -> None:
    with svc.client(svc.acme) as c:
        assert_problem(c.get("/nope"), 404)
        assert_problem(c.put("/v1/tenants/acme/users/alice/search", json={}), 405)


def test_the_committed_openapi_description_is_the_served_one(svc: Service) -> None:
    """docs/openapi.json is regenerated with: memgate serve --openapi > docs/openapi.json"""
    served = httpx.get(svc.url + "/openapi.json").json()
    committed = json.loads((ROOT / "docs" / "openapi.json").read_text())
    assert served == committed
    paths = served["paths"]
    assert "/v1/tenants/{tenant}/users/{user}/search" in paths
    assert {"/live", "/ready", "/metrics"} <= paths.keys()
    assert served["components"]["securitySchemes"]["HTTPBearer"]["scheme"] == "bearer"
