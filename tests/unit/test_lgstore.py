"""memgate as a LangGraph store, driven through a real LangGraph graph: a StateGraph whose
nodes write and read through the store LangGraph injects. Embedded stores, hashing
embedder (no relevance floor: it has no semantics to floor on)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TypedDict

import pytest
from langgraph.graph import END, START, StateGraph
from langgraph.store.base import BaseStore, InvalidNamespaceError, PutOp

from memgate import Memory
from memgate.lgstore import MemgateStore, TenantMismatch


class State(TypedDict, total=False):
    user: str
    said: str
    query: str
    found: list[dict[str, Any]]


def remember(state: State, *, store: BaseStore) -> State:
    if state.get("said"):
        store.put(("memgate", "acme", state["user"]), "turn", {"content": state["said"]})
    return {}


def recall(state: State, *, store: BaseStore) -> State:
    items = store.search(("memgate", "acme", state["user"]), query=state["query"], limit=5)
    return {"found": [{**i.value, "item_key": i.key, "score": i.score} for i in items]}


def agent(store: BaseStore) -> Any:
    g = StateGraph(State)
    g.add_node("remember", remember)
    g.add_node("recall", recall)
    g.add_edge(START, "remember")
    g.add_edge("remember", "recall")
    g.add_edge("recall", END)
    return g.compile(store=store)


@pytest.fixture
def memory(tmp_path: Path) -> Iterator[Memory]:
    with Memory(data_dir=tmp_path, embedder="hashing", min_relevance=0) as m:
        yield m


def test_a_graph_writes_through_the_gate_and_recalls(memory: Memory) -> None:
    graph = agent(MemgateStore(memory, tenant="acme"))
    out = graph.invoke({"user": "alice", "said": "I use Vim as my editor.", "query": "editor"})
    assert [f["value"] for f in out["found"]] == ["Vim"]
    top = out["found"][0]
    assert top["score"] > 0 and top["item_key"] == top["fact_id"]
    # a new value supersedes the old one: recall serves the current fact only
    out = graph.invoke({"user": "alice", "said": "I use Emacs as my editor.", "query": "editor"})
    assert [f["value"] for f in out["found"]] == ["Emacs"]
    statuses = {(f.value, f.status) for f in memory.get_all("acme", "alice", include_inactive=True)}
    assert statuses == {("Vim", "superseded"), ("Emacs", "active")}


def test_put_goes_through_triage_and_redaction(memory: Memory) -> None:
    graph = agent(MemgateStore(memory, tenant="acme"))
    out = graph.invoke({"user": "bob", "said": "thanks, bye!", "query": "anything"})
    assert out["found"] == []  # small talk: triage dropped it, nothing stored
    said = "My email is alice.smith@example.com, I prefer dark mode in my editor."
    out = graph.invoke({"user": "bob", "said": said, "query": "dark mode"})
    assert [f["type"] for f in out["found"]] == ["preference"]
    stored = json.dumps(out["found"])
    assert "alice.smith@example.com" not in stored and "[EMAIL]" in stored


def test_get_filter_delete_and_list_namespaces(memory: Memory) -> None:
    store = MemgateStore(memory, tenant="acme")
    ns = ("memgate", "acme", "carol")
    store.put(ns, "a", {"messages": [
        {"role": "user", "content": "I work at Acme."},
        {"role": "user", "content": "I prefer dark mode in my editor."},
    ]})  # fmt: skip
    every = store.search(ns)  # no query: every current fact, oldest first
    assert len(every) == 2
    prefs = store.search(ns, filter={"type": "preference"})
    assert [i.value["type"] for i in prefs] == ["preference"]
    item = store.get(ns, prefs[0].key)
    assert item is not None and item.value["text"] == prefs[0].value["text"]
    store.delete(ns, prefs[0].key)
    assert store.get(ns, prefs[0].key) is None
    store.delete(ns, prefs[0].key)  # a missing key: a no-op, as BaseStore says
    store.put(("memgate", "acme", "dave"), "b", {"content": "I work at Initech."})
    assert store.list_namespaces(prefix=("memgate", "acme")) == [
        ("memgate", "acme", "carol"), ("memgate", "acme", "dave"),
    ]  # fmt: skip
    assert store.list_namespaces(prefix=("memgate", "acme"), max_depth=2) == [("memgate", "acme")]


def test_another_tenant_or_a_foreign_shape_is_refused_before_any_write(memory: Memory) -> None:
    store = MemgateStore(memory, tenant="acme")
    with pytest.raises(TenantMismatch):
        store.put(("memgate", "globex", "eve"), "k", {"content": "I work at Globex."})
    with pytest.raises(InvalidNamespaceError):
        store.put(("users", "eve"), "k", {"content": "I work at Globex."})
    # a batch with one foreign op runs none of its ops
    with pytest.raises(TenantMismatch):
        store.batch([
            PutOp(("memgate", "acme", "eve"), "k", {"content": "I work at Acme."}),
            PutOp(("memgate", "globex", "eve"), "k", {"content": "I work at Globex."}),
        ])  # fmt: skip
    assert memory.users("globex") == [] and memory.users("acme") == []
    # a fact id of another tenant is not found through this store
    other = MemgateStore(memory)
    other.put(("memgate", "globex", "eve"), "k", {"content": "I work at Globex."})
    fid = other.search(("memgate", "globex", "eve"))[0].key
    assert store.get(("memgate", "acme", "eve"), fid) is None


def test_the_async_api_in_a_graph_of_async_nodes(memory: Memory) -> None:
    async def aremember(state: State, *, store: BaseStore) -> State:
        await store.aput(("memgate", "acme", state["user"]), "t", {"content": state["said"]})
        return {}

    async def arecall(state: State, *, store: BaseStore) -> State:
        items = await store.asearch(("memgate", "acme", state["user"]), query=state["query"])
        return {"found": [i.value for i in items]}

    g = StateGraph(State)
    g.add_node("remember", aremember)
    g.add_node("recall", arecall)
    g.add_edge(START, "remember")
    g.add_edge("remember", "recall")
    g.add_edge("recall", END)
    graph = g.compile(store=MemgateStore(memory, tenant="acme"))
    out = asyncio.run(graph.ainvoke({"user": "frank", "said": "I use Vim as my editor.",
                                     "query": "editor"}))  # fmt: skip
    assert [f["value"] for f in out["found"]] == ["Vim"]
