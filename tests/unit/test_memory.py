"""memgate.Memory driven from Python as a user would, on the embedded stores (hashing
embedder; the read path with MiniLM: test_memory_read.py)."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from memgate import AsyncMemory, FactNotFound, InvalidRequest, Memory
from memgate.recall import MAX_K, MAX_QUERY_CHARS

DEMO = Path(__file__).resolve().parents[2] / "memgate" / "data" / "demo.jsonl"


def demo_turns() -> list[dict[str, object]]:
    return [json.loads(line) for line in DEMO.read_text().splitlines() if line.strip()]


@pytest.fixture
def mem(tmp_path: Path) -> Iterator[Memory]:
    with Memory(data_dir=tmp_path, embedder="hashing") as m:
        yield m


def values(result: object) -> list[str]:
    return [h.fact.value for h in result.hits]  # type: ignore[attr-defined]


# -- usage, recorded in batches ---------------------------------------------------------


def test_usage_is_buffered_and_written_in_one_batch(tmp_path: Path) -> None:
    with Memory(data_dir=tmp_path, embedder="hashing", usage_flush_facts=1000) as m:
        m.add(demo_turns())
        store = m.recall.store
        ids: list[str] = []
        for _ in range(3):
            ids = [h.fact.fact_id for h in m.search("deploy", "acme", "alice", min_score=-1).hits]
        assert ids
        assert store.usage("acme", "alice", ids) == {}  # type: ignore[attr-defined]
        assert m.recall.usage is not None and m.recall.usage.flushes == 0
        m.flush()
        assert m.recall.usage.flushes == 1
        got = store.usage("acme", "alice", ids)  # type: ignore[attr-defined]
        assert {fid: u.served_count for fid, u in got.items()} == dict.fromkeys(ids, 3)
        assert m.get_all("acme", "alice")[0].usage.served_count in (0, 3)


def test_usage_flushes_when_the_buffer_is_full_and_on_close(tmp_path: Path) -> None:
    with Memory(data_dir=tmp_path, embedder="hashing", usage_flush_facts=2) as m:
        m.add(demo_turns())
        hits = m.search("deploy", "acme", "alice", min_score=-1, k=2).hits
        usage = m.recall.usage
        assert len(hits) == 2 and usage is not None
        # the background flusher writes the full buffer (no flush() called here)
        deadline = time.monotonic() + 10
        while usage.flushes == 0 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert usage.flushes == 1
        m.search("editor", "acme", "alice", min_score=-1, k=1)
        assert m.recall.usage.flushes == 1 and len(m.recall.usage) == 1
    with Memory(data_dir=tmp_path, embedder="hashing") as m2:
        served = {f.fact_id: f.usage.served_count for f in m2.get_all("acme", "alice")}
    assert sum(served.values()) == 3  # the last search was written by close


# -- superseded facts only for the past ---------------------------------------------------


def test_a_superseded_fact_is_served_only_as_of_a_past_time(mem: Memory) -> None:
    turn = {"tenant_id": "acme", "user_id": "u1", "session_id": "s1", "role": "user"}
    mem.add([
        {**turn, "turn_id": "t1", "content": "I use Vim as my editor.",
         "ts": "2024-01-01T00:00:00Z"},
        {**turn, "turn_id": "t2", "session_id": "s2", "content": "I use Emacs as my editor.",
         "ts": "2024-03-01T00:00:00Z"},
    ])  # fmt: skip
    every = mem.get_all("acme", "u1", include_inactive=True)
    assert {(f.value, f.status) for f in every} >= {("Vim", "superseded"), ("Emacs", "active")}
    assert values(mem.search("editor", "acme", "u1", min_score=-1)) == ["Emacs"]
    past = mem.search("editor", "acme", "u1", min_score=-1, as_of=datetime(2024, 2, 1, tzinfo=UTC))
    assert values(past) == ["Vim"]


# -- messages, replays, scoping, history, delete, forget ---------------------------------


def test_openai_messages_are_turns_and_adding_them_again_is_a_replay(mem: Memory) -> None:
    chat = [
        {"role": "system", "content": "You are helpful."},
        {"role": "user", "content": [{"type": "text", "text": "I use Neovim as my editor."}]},
        {"role": "assistant", "content": None, "tool_calls": []},
    ]
    first = mem.add(chat, "acme", "alice", "s1")
    assert (first.turns, first.facts_stored, first.mode) == (2, 1, "in_process")
    more = [*chat, {"role": "user", "content": "We deploy with Helm."}]
    again = mem.add(more, "acme", "alice", "s1")
    assert (again.replayed, again.applied) == (2, 1)
    fact = mem.get_all("acme", "alice")[0]
    assert fact.provenance.session_ids == ["s1"] and fact.provenance.source_turn_ids[0][:2] == "m-"


def test_delete_and_history_are_scoped_by_tenant(mem: Memory) -> None:
    mem.add([{"role": "user", "content": "I use Neovim as my editor."}], "acme", "alice")
    mem.add([{"role": "user", "content": "I use Neovim as my editor."}], "globex", "alice")
    fact = mem.get_all("acme", "alice")[0]
    with pytest.raises(FactNotFound):
        mem.delete(fact.fact_id, "globex", "alice")
    with pytest.raises(FactNotFound):
        mem.history(fact.fact_id, "globex")
    assert [e.action for e in mem.history(fact.fact_id, "acme")] == ["add"]
    assert mem.delete(fact.fact_id, "acme", "alice").fact_id == fact.fact_id
    assert mem.get_all("acme", "alice") == []
    assert [e.action for e in mem.history(fact.fact_id, "acme", "alice")] == ["add", "delete"]
    assert len(mem.get_all("globex", "alice")) == 1  # the other tenant's fact is untouched
    with pytest.raises(FactNotFound):
        mem.delete(fact.fact_id, "acme", "alice")


def test_forget_erases_facts_audit_rows_and_usage(mem: Memory) -> None:
    mem.add([{"role": "user", "content": "I use Neovim as my editor."}], "acme", "alice")
    ids = [h.fact.fact_id for h in mem.search("editor", "acme", "alice", min_score=-1).hits]
    mem.flush()
    done = mem.forget("acme", "alice")
    assert done.facts == 1 and done.audit_rows > 0
    assert mem.get_all("acme", "alice", include_inactive=True) == []
    assert mem.recall.store.usage("acme", "alice", ids) == {}  # type: ignore[attr-defined]


def test_forget_erases_the_users_cached_extractor_answers(mem: Memory) -> None:
    from memgate.keys import hmac_key
    from memgate.sinks.extract_cache import SQLiteAnswerCache

    s = mem.settings
    cache = SQLiteAnswerCache(s.extract_cache_path, key=hmac_key(s))
    cache.put("acme", "alice", "masked request one", '{"facts": []}')
    cache.put("acme", "bob", "masked request two", '{"facts": []}')
    done = mem.forget("acme", "alice")
    assert done.cached_answers == 1
    assert cache.count("acme", "alice") == 0 and cache.count("acme", "bob") == 1


# -- bad requests: one clear line ---------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"query": ""}, "the query must not be empty"),
        ({"query": "   "}, "the query must not be empty"),
        ({"query": "x" * (MAX_QUERY_CHARS + 1)}, "at most 2,000"),
        ({"k": 0}, "k must be an integer from 1 to 1,000"),
        ({"k": MAX_K + 1}, "k must be an integer from 1 to 1,000"),
        ({"tenant": "ac me"}, "tenant 'ac me' has a space character"),
        ({"tenant": "acme/x"}, "tenant 'acme/x' has '/'"),
        ({"user": "al\x1bice"}, "a control character"),
        ({"min_score": 2}, "min_score must be a number from -1 to 1"),
        ({"token_budget": -1}, "token_budget must be a whole number"),
        ({"as_of": datetime(2024, 1, 1)}, "as_of must carry a time zone"),
        ({"types": ["opinion"]}, "types must be among"),
    ],
)
def test_bad_queries_are_one_line_invalid_requests(
    mem: Memory, kwargs: dict[str, object], words: str
) -> None:
    args: dict[str, object] = {"query": "editor", "tenant": "acme", "user": "alice"}
    args.update(kwargs)
    query, tenant, user = args.pop("query"), args.pop("tenant"), args.pop("user")
    with pytest.raises(InvalidRequest) as info:
        mem.search(query, tenant, user, **args)  # type: ignore[arg-type]
    assert words in str(info.value) and "\n" not in str(info.value)


def test_bad_adds_are_invalid_requests(mem: Memory) -> None:
    with pytest.raises(InvalidRequest, match="messages need tenant and user"):
        mem.add([{"role": "user", "content": "hi"}])
    with pytest.raises(InvalidRequest, match="role 'robot' is not one of"):
        mem.add([{"role": "robot", "content": "hi"}], "acme", "alice")
    with pytest.raises(InvalidRequest, match="not a single one"):
        mem.add({"role": "user", "content": "hi"}, "acme", "alice")  # type: ignore[arg-type]
    with pytest.raises(InvalidRequest, match="belongs to acme/bob, not acme/alice"):
        mem.add([{**demo_turns()[0], "user_id": "bob"}], "acme", "alice")


def test_async_memory_runs_the_same_operations(tmp_path: Path) -> None:
    async def main() -> tuple[int, list[str]]:
        async with AsyncMemory(data_dir=tmp_path, embedder="hashing") as m:
            added = await m.add([{"role": "user", "content": "I use Neovim as my editor."}],
                                "acme", "alice")  # fmt: skip
            found = await m.search("editor", "acme", "alice", min_score=-1)
            return added.facts_stored, values(found)

    assert asyncio.run(main()) == (1, ["Neovim"])


def test_a_closed_memory_says_so(tmp_path: Path) -> None:
    m = Memory(data_dir=tmp_path, embedder="hashing")
    m.close()
    with pytest.raises(Exception, match="this Memory is closed"):
        m.get_all("acme", "alice")


def test_import_memgate_stays_light() -> None:
    code = (
        "import sys, memgate; heavy = [m for m in ('memgate.api', 'numpy', 'pydantic', "
        "'prometheus_client') if m in sys.modules]; print(heavy); "
        "from memgate import Memory; print(Memory.__module__)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split("\n")[:2] == ["[]", "memgate.api.memory"]
