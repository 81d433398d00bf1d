"""Hostile tenants through the MCP server's tools, in process (the ``mcp`` client connected
to :func:`memgate.mcpserver.build_server`, one server per tenant key, as ``memgate mcp``
runs it: the tenant comes from the key, the tools name only users and fact ids).

The same owner-confusing ids as :mod:`tests.unit.test_hostile_tenants`. Every owner's
turns are remembered through its tenant's server; then, on every server:

* ``recall`` for a user returns only facts that user of that tenant said;
* ``forget`` of a fact id of another owner (another tenant, or another user of the
  same tenant) is one line ("no fact ... for <the caller's tenant/user>") and the fact
  stays;
* ``forget`` of one whole user (``confirm=true``) leaves every other owner, in every
  tenant, as it was.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import anyio
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from mcp import Client

from memgate import Memory
from memgate.apikeys import KeyStore
from memgate.mcpserver import build_server, tenant_of
from tests.unit.test_hostile_tenants import TENANTS, USERS, WORDS, _said_by, _turns, said

_runs = itertools.count()


@pytest.fixture(scope="module")
def memory(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Memory, KeyStore]]:
    d = tmp_path_factory.mktemp("hostile-mcp")
    with Memory(data_dir=d / "data", embedder="hashing", min_relevance=0.0) as m:
        yield m, KeyStore(d / "api_keys.json")


def _data(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content
    data: dict[str, Any] = result.structured_content
    return data


def _error(result: Any) -> str:
    assert result.is_error, result.structured_content
    return " ".join(getattr(c, "text", "") for c in result.content)


@settings(
    max_examples=3,
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(drawn=said, data=st.data())
def test_no_tool_call_reads_or_forgets_another_owner(
    memory: tuple[Memory, KeyStore],
    drawn: list[tuple[str, str, int, str]],
    data: st.DataObject,
) -> None:
    mem, keys = memory
    run = f"m{next(_runs)}"
    turns = _turns(run, drawn)
    said_by = _said_by(turns)
    owners = sorted({(run + t, u) for t in TENANTS for u in USERS})
    tenants = sorted({t for t, _ in owners})
    # the tenant of each server is the one its key names, as `memgate mcp` finds it
    servers = {t: build_server(mem, tenant=tenant_of(keys, keys.create(t, "mcp")[0]))
               for t in tenants}  # fmt: skip
    victim = data.draw(st.sampled_from(owners))

    def tool(t: str, name: str, args: dict[str, Any]) -> Any:
        """One tool call on tenant t's server, through an MCP client session."""

        async def call() -> Any:
            async with Client(servers[t], read_timeout_seconds=120) as c:
                return await c.call_tool(name, args)

        return anyio.run(call)

    def owned() -> dict[tuple[str, str], set[str]]:
        return {o: {f.fact_id for f in mem.get_all(*o, include_inactive=True)} for o in owners}

    for turn in turns:
        got = _data(tool(turn["tenant_id"], "remember",
                         {"content": turn["content"], "user": turn["user_id"]}))  # fmt: skip
        assert not got["errors"], got
    stored = owned()
    everything = {fid: o for o, ids in stored.items() for fid in ids}
    assert everything, "the gate stored nothing: the property would hold vacuously"
    for (t, u), ids in stored.items():
        said_here = [c for (tt, uu, _), c in said_by.items() if (tt, uu) == (t, u)]
        query = " ".join(WORDS) + " editor deploy live drink scripting"
        hits = _data(tool(t, "recall", {"query": query, "user": u, "k": 50}))["facts"]
        assert {h["fact_id"] for h in hits} <= ids, (t, u)
        for h in hits:
            assert any(h["value"].split()[0].lower() in c.lower() for c in said_here), h
    for fid, owner in everything.items():
        other = data.draw(st.sampled_from([o for o in owners if o != owner]))
        message = _error(tool(other[0], "forget", {"user": other[1], "fact_id": fid}))
        # not found, named as the caller's own: nothing says whose the fact is
        assert message.endswith(f"no fact {fid!r} for {other[0]}/{other[1]}"), message
    assert owned() == stored
    gone = _data(tool(victim[0], "forget", {"user": victim[1], "confirm": True}))
    assert gone["forgotten"] == f"{victim[0]}/{victim[1]}"
    after = owned()
    assert after[victim] == set()
    assert {o: f for o, f in after.items() if o != victim} == {
        o: f for o, f in stored.items() if o != victim
    }
