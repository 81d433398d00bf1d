"""Hostile tenants through the HTTP service (``memgate serve``'s app, FastAPI TestClient).

The library's property (:mod:`tests.unit.test_hostile_tenants`), with the same owner-
confusing ids (tenants that differ only in case or by a suffix, the same user under
several tenants, a user id equal to a tenant id, the same turn ids in every tenant),
through the routes, each tenant with its own API key:

* every read with a tenant's key on one owner's path (list, get, history, search)
  serves only facts that owner said;
* a key of tenant A on any path of tenant B (read, search, add, delete, forget) is a
  403 problem before any store is touched: B's facts are as they were and no search
  was served (``memgate_retrievals_total`` does not move);
* a fact id of B through A's own path is 404 for get, history and delete, and B's
  fact stays;
* forgetting one owner with its own key leaves every other owner as it was.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memgate import Memory
from memgate.apikeys import KeyStore
from memgate.service import create_app
from tests.unit.test_hostile_tenants import TENANTS, USERS, WORDS, said

_runs = itertools.count()


class Service:
    def __init__(self, memory: Memory, keys: KeyStore, client: TestClient) -> None:
        self.memory, self.keys, self.client = memory, keys, client
        self.key_of: dict[str, str] = {}

    def key(self, tenant: str) -> str:
        if tenant not in self.key_of:
            self.key_of[tenant], _ = self.keys.create(tenant, "hostile")
        return self.key_of[tenant]

    def call(self, tenant_key: str, method: str, path: str, **kw: Any) -> Any:
        headers = {"Authorization": f"Bearer {self.key(tenant_key)}"}
        return self.client.request(method, path, headers=headers, **kw)

    def retrievals(self) -> float:
        for line in self.client.get("/metrics").text.splitlines():
            if line.startswith("memgate_retrievals_total{"):
                return float(line.rsplit(" ", 1)[1])
        return 0.0


@pytest.fixture(scope="module")
def svc(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    d = tmp_path_factory.mktemp("hostile-http")
    keys = KeyStore(d / "api_keys.json")
    memory = Memory(data_dir=d / "data", embedder="hashing")
    with memory, TestClient(create_app(memory, keys)) as client:
        yield Service(memory, keys, client)


def _user_path(t: str, u: str) -> str:
    return f"/v1/tenants/{quote(t, safe='')}/users/{quote(u, safe='')}"


def _owner_facts(svc: Service, t: str, u: str) -> list[dict[str, Any]]:
    r = svc.call(t, "GET", f"{_user_path(t, u)}/memories", params={"include_inactive": "true"})
    assert r.status_code == 200, r.text
    facts: list[dict[str, Any]] = r.json()
    return facts


def _check_owner(
    svc: Service, said_by: dict[tuple[str, str, str], str], t: str, u: str
) -> dict[str, dict[str, Any]]:
    """Every read for (t, u) with t's key serves facts (t, u) said; returns them by id."""
    facts = {f["fact_id"]: f for f in _owner_facts(svc, t, u)}
    base = _user_path(t, u)
    for fid, f in facts.items():
        assert (f["tenant_id"], f["user_id"]) == (t, u)
        for turn_id in f["provenance"]["source_turn_ids"]:
            content = said_by.get((t, u, turn_id))
            assert content is not None, f"{t}/{u} got a fact from turn {turn_id} it never said"
            assert f["value"].split()[0].lower() in content.lower(), (f["value"], content)
        assert svc.call(t, "GET", f"{base}/memories/{fid}").json()["fact_id"] == fid
        history = svc.call(t, "GET", f"{base}/memories/{fid}/history").json()
        assert all(e["fact_id"] in facts for e in history), history
    for word in WORDS:
        r = svc.call(t, "POST", f"{base}/search", json={"query": f"{word} editor", "k": 50,
                                                                   "min_score": -1})
        assert r.status_code == 200, r.text
        assert {h["fact"]["fact_id"] for h in r.json()["hits"]} <= set(facts)
    return facts


@settings(
    max_examples=4,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(drawn=said, data=st.data())
def test_a_key_never_reads_writes_or_forgets_another_tenants_owner(
    svc: Service, drawn: list[tuple[str, str, int, str]], data: st.DataObject
) -> None:
    from tests.unit.test_hostile_tenants import _said_by, _turns

    run = f"h{next(_runs)}"
    turns = _turns(run, drawn)
    for turn in turns:
        r = svc.call(turn["tenant_id"], "POST",
                     f"{_user_path(turn['tenant_id'], turn['user_id'])}/memories",
                     json={"turns": [turn]})  # fmt: skip
        assert r.status_code == 200, r.text
    said_by = _said_by(turns)
    owners = sorted({(run + t, u) for t in TENANTS for u in USERS})
    tenants = sorted({t for t, _ in owners})
    mine = {o: _check_owner(svc, said_by, *o) for o in owners}
    everything = {fid: o for o, facts in mine.items() for fid in facts}
    assert everything, "the gate stored nothing: the property would hold vacuously"

    # a key of another tenant on an owner's paths: 403 before any store
    before = {o: _owner_facts(svc, *o) for o in owners}
    served = svc.retrievals()
    for fid, (t, u) in everything.items():
        other = data.draw(st.sampled_from([x for x in tenants if x != t]))
        base = _user_path(t, u)
        for method, path, kw in (
            ("GET", f"{base}/memories", {}),
            ("GET", f"{base}/memories/{fid}", {}),
            ("GET", f"{base}/memories/{fid}/history", {}),
            ("POST", f"{base}/search", {"json": {"query": "editor", "k": 5}}),
            ("POST", f"{base}/memories", {"json": {"messages": [
                {"role": "user", "content": "I use Emacs as my editor."}]}}),
            ("DELETE", f"{base}/memories/{fid}", {}),
            ("DELETE", base, {}),
            ("GET", f"/v1/tenants/{quote(t, safe='')}/users", {}),
        ):  # fmt: skip
            r = svc.call(other, method, path, **kw)
            assert r.status_code == 403, (method, path, r.status_code, r.text)
            assert r.headers["content-type"].startswith("application/problem+json")
    assert svc.retrievals() == served
    assert {o: _owner_facts(svc, *o) for o in owners} == before

    # a fact id of another owner through the key's own path: not found, and it stays
    for fid, owner in everything.items():
        t, u = data.draw(st.sampled_from([o for o in owners if o != owner]))
        base = _user_path(t, u)
        for method, path in (("GET", f"{base}/memories/{fid}"),
                             ("GET", f"{base}/memories/{fid}/history"),
                             ("DELETE", f"{base}/memories/{fid}")):  # fmt: skip
            r = svc.call(t, method, path)
            assert r.status_code == 404, (method, path, r.status_code, r.text)
    assert {o: _owner_facts(svc, *o) for o in owners} == before

    # forgetting one owner with its own key leaves every other owner as it was
    victim = data.draw(st.sampled_from(owners))
    r = svc.call(victim[0], "DELETE", _user_path(*victim))
    assert r.status_code == 200, r.text
    assert _owner_facts(svc, *victim) == []
    assert {o: _owner_facts(svc, *o) for o in owners if o != victim} == {
        o: f for o, f in before.items() if o != victim
    }


def test_a_key_for_a_case_variant_of_the_tenant_is_refused(tmp_path: Path) -> None:
    keys = KeyStore(tmp_path / "api_keys.json")
    upper, _ = keys.create("Acme", "hostile")
    with Memory(data_dir=tmp_path / "d", embedder="hashing") as memory, \
            TestClient(create_app(memory, keys)) as client:  # fmt: skip
        r = client.get("/v1/tenants/acme/users/alice/memories",
                       headers={"Authorization": f"Bearer {upper}"})  # fmt: skip
        assert r.status_code == 403, r.text
        assert "Traceback" not in r.text
