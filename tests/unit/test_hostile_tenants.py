"""Hostile tenants through the library (``memgate.Memory``) on the embedded stores.

Random conversations of owners whose ids are built to be confused (the same
user under several tenants, tenants that differ only in case or by a suffix,
a user id equal to a tenant id, the same turn ids in every tenant) go
through the gate; then every read names one owner and must return only what
that owner said: ``search``, ``get_all``, ``get``, ``history``, the audit
reports scoped to the owner; ``delete`` and ``forget`` of one owner leave
every other owner as they were; a replay of everything changes nothing. A
fact is traced to its owner by its source turn and its value (which must
occur in that owner's turn), not only by its tenant and user fields.

Ids the rule refuses (a ``/``, control characters, look-alike letters) are
refused with one line before any store is touched.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memgate import Memory
from memgate.api.memory import FactNotFound
from memgate.core.errors import InvalidRequest
from memgate.sinks.audit_reports import ReportScope
from tests.contracts.isolation import REFUSED_IDS

SENTENCES = (
    "I use {x} as my editor.",
    "We deploy with {x}.",
    "I live in {x}.",
    "My favourite drink is {x}.",
    "I prefer {x} for scripting.",
)
WORDS = ("Neovim", "Helix", "Kakoune", "Zed", "Lisbon", "Oslo")
# relative to a per-example namespace: case variants, a prefix, a separator the rule admits
TENANTS = ("acme", "Acme", "ACME", "acme1", "acme.x", "acme:u1")
USERS = ("u1", "U1", "u10", "u1@acme", "acme", "alice")
_runs = itertools.count()

said = st.lists(
    st.tuples(
        st.sampled_from(TENANTS),
        st.sampled_from(USERS),
        st.integers(0, len(SENTENCES) - 1),
        st.sampled_from(WORDS),
    ),
    min_size=2,
    max_size=8,
)


@pytest.fixture(scope="module")
def memory(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Memory]:
    with Memory(data_dir=tmp_path_factory.mktemp("hostile"), embedder="hashing") as m:
        yield m


def _turns(run: str, drawn: list[tuple[str, str, int, str]]) -> list[dict[str, Any]]:
    """Turn events; turn ids ``<user>.<n>``: the same ids in every tenant."""
    n: dict[tuple[str, str], int] = {}
    out = []
    for i, (t, u, s, w) in enumerate(drawn):
        k = n[(t, u)] = n.get((t, u), -1) + 1
        out.append({
            "tenant_id": run + t, "user_id": u, "session_id": "s1", "turn_id": f"{u}.{k}",
            "role": "user", "content": SENTENCES[s].format(x=w),
            "ts": f"2024-03-01T09:{i:02d}:00Z",
        })  # fmt: skip
    return out


def _said_by(turns: list[dict[str, Any]]) -> dict[tuple[str, str, str], str]:
    return {(t["tenant_id"], t["user_id"], t["turn_id"]): t["content"] for t in turns}


def _check_owner(
    memory: Memory, said_by: dict[tuple[str, str, str], str], t: str, u: str
) -> set[str]:
    """Every read for (t, u) serves facts that (t, u) said; returns their ids."""
    facts = memory.get_all(t, u, include_inactive=True)
    for f in facts:
        assert (f.tenant_id, f.user_id) == (t, u)
        assert f.key.startswith(f"{t}/{u}/"), f.key
        for turn_id in f.provenance.source_turn_ids:
            content = said_by.get((t, u, turn_id))
            assert content is not None, f"{t}/{u} got a fact from turn {turn_id} it never said"
            assert f.value.split()[0].lower() in content.lower(), (f.value, content)
    ids = {f.fact_id for f in facts}
    for word in WORDS:
        hits = memory.search(f"{word} editor deploy drink", tenant=t, user=u, min_score=-1, k=50)
        assert {h.fact.fact_id for h in hits.hits} <= ids
    return ids


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(drawn=said, data=st.data())
def test_no_read_delete_forget_or_replay_crosses_owners(
    memory: Memory, drawn: list[tuple[str, str, int, str]], data: st.DataObject
) -> None:
    run = f"r{next(_runs)}"
    turns = _turns(run, drawn)
    added = memory.add(turns)
    assert added.rejected == 0, added.errors
    said_by = _said_by(turns)
    owners = sorted({(run + t, u) for t in TENANTS for u in USERS})
    mine = {o: _check_owner(memory, said_by, *o) for o in owners}

    # get, history and delete of another owner's fact: not found, and nothing changes
    everything = {fid: o for o, ids in mine.items() for fid in ids}
    assert everything, "the gate stored nothing: the property would hold vacuously"
    for fid, owner in everything.items():
        other = data.draw(st.sampled_from([o for o in owners if o != owner]))
        with pytest.raises(FactNotFound):
            memory.get(fid, *other)
        with pytest.raises(FactNotFound):
            memory.delete(fid, *other)
        if other[0] != owner[0]:
            with pytest.raises(FactNotFound):
                memory.history(fid, tenant=other[0])
        else:
            with pytest.raises(FactNotFound):
                memory.history(fid, tenant=other[0], user=other[1])
        assert memory.get(fid, *owner).fact_id == fid
        assert all(e.fact_id in everything for e in memory.history(fid, *owner))

    # the audit reports scoped to an owner count that owner's turns only
    audit = memory._open().audit
    for t, u in owners:
        _, rows = audit.report("daily", scope=ReportScope(tenant=t, user=u))
        n = sum(1 for (tt, uu, _) in said_by if (tt, uu) == (t, u))
        assert sum(r[1] for r in rows) == n, (t, u)

    # a replay of every turn, owner after owner in another order, changes nothing
    again = memory.add(list(reversed(turns)))
    assert again.replayed == len(turns) and again.facts_stored == 0
    assert {o: _check_owner(memory, said_by, *o) for o in owners} == mine

    # forgetting one owner leaves every other owner's facts as they were
    victim = data.draw(st.sampled_from(owners))
    before = {o: memory.get_all(*o, include_inactive=True) for o in owners if o != victim}
    memory.forget(*victim)
    assert memory.get_all(*victim, include_inactive=True) == []
    assert {o: memory.get_all(*o, include_inactive=True) for o in before} == before


def test_the_same_turn_id_for_another_user_of_the_tenant_is_refused_not_applied(
    memory: Memory,
) -> None:
    base = {"session_id": "s1", "role": "user", "ts": "2024-03-01T09:00:00Z", "turn_id": "x.0"}
    a = memory.add([{**base, "tenant_id": "ta", "user_id": "u1", "content": "I use Zed daily."}])
    assert a.applied == 1
    hostile = {**base, "tenant_id": "ta", "user_id": "u2", "content": "I use Helix daily."}
    b = memory.add([hostile])
    assert b.rejected == 1 and b.facts_stored == 0
    assert memory.get_all("ta", "u2", include_inactive=True) == []
    assert [f.value for f in memory.get_all("ta", "u1")] == ["Zed daily"]
    # the same turn id under another tenant is that tenant's own turn
    c = memory.add([{**hostile, "tenant_id": "tA"}])
    assert c.applied == 1 and [f.value for f in memory.get_all("tA", "u2")] == ["Helix daily"]


@pytest.mark.parametrize("bad", REFUSED_IDS)
def test_a_refused_id_is_one_line_before_any_store(memory: Memory, bad: str) -> None:
    calls: list[Any] = [
        lambda: memory.search("editor", tenant=bad, user="u1"),
        lambda: memory.search("editor", tenant="acme", user=bad),
        lambda: memory.get_all(bad, "u1"),
        lambda: memory.get("f", "acme", bad),
        lambda: memory.history("f", tenant=bad),
        lambda: memory.delete("f", bad, "u1"),
        lambda: memory.forget("acme", bad),
        lambda: memory.add([{"role": "user", "content": "I use Zed."}], tenant=bad, user="u1"),
    ]
    for call in calls:
        with pytest.raises(InvalidRequest) as info:
            call()
        message = str(info.value)
        assert "\n" not in message and message.isprintable(), message


def test_a_turn_event_cannot_name_another_owner_than_the_call(memory: Memory) -> None:
    turn = {
        "tenant_id": "globex", "user_id": "u1", "session_id": "s1", "turn_id": "g.0",
        "role": "user", "content": "I use Zed.", "ts": "2024-03-01T09:00:00Z",
    }  # fmt: skip
    with pytest.raises(InvalidRequest, match="belongs to globex/u1"):
        memory.add([turn], tenant="acme", user="u1")
    assert memory.get_all("acme", "u1") == [] and memory.get_all("globex", "u1") == []


def test_refused_ids_reach_no_file(tmp_path: Path) -> None:
    with Memory(data_dir=tmp_path / "d", embedder="hashing") as m:
        for bad in REFUSED_IDS:
            with pytest.raises(InvalidRequest):
                m.get_all(bad, "u1")
    assert not (tmp_path / "d").exists() or not any((tmp_path / "d").rglob("facts*"))


def test_a_report_scoped_to_a_user_without_a_tenant_is_refused() -> None:
    with pytest.raises(InvalidRequest, match="--user needs --tenant"):
        ReportScope(user="alice")
    assert ReportScope(tenant="acme", user="alice").given() == ["tenant", "user"]
