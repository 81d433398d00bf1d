"""``memgate mcp`` through real MCP client sessions (the ``mcp`` package's client): over
stdio, the client launching ``memgate mcp`` as an agent host would; over streamable
HTTP, against uvicorn on a free port. Embedded stores, hashing embedder."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from memgate import Memory
from memgate.apikeys import KeyStore
from memgate.asgi import BackgroundServer
from memgate.mcpserver import http_app

MEMGATE = str(Path(sys.executable).with_name("memgate"))
NEOVIM = "I use Neovim as my editor."


def _data(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content
    data: dict[str, Any] = result.structured_content
    return data


def _error(result: Any) -> str:
    assert result.is_error
    return " ".join(getattr(c, "text", "") for c in result.content)


def _stdio(data_dir: Path, key: str) -> StdioServerParameters:
    env = {
        "MEMGATE_DATA_DIR": str(data_dir),
        "MEMGATE_EMBEDDER": "hashing",
        "MEMGATE_MIN_RELEVANCE": "0",  # the hashing embedder has no semantics to floor on
        "MEMGATE_API_KEY": key,
        "PATH": os.environ.get("PATH", ""),
        "HOME": os.environ.get("HOME", "/tmp"),
        "XDG_CONFIG_HOME": os.environ["XDG_CONFIG_HOME"],  # the key file: the run's folder
    }
    return StdioServerParameters(command=MEMGATE, args=["mcp", "--user", "alice"], env=env)


def test_stdio_remember_recall_and_a_foreign_fact_is_not_found(tmp_path: Path) -> None:
    keys = KeyStore(tmp_path / "data" / "api_keys.json")
    acme, _ = keys.create("acme")
    globex, _ = keys.create("globex")

    async def session_of(key: str) -> tuple[set[str], str, list[dict[str, Any]], str]:
        async with Client(_stdio(tmp_path / "data", key), read_timeout_seconds=120) as c:
            tools = {t.name for t in (await c.list_tools()).tools}
            stored = _data(await c.call_tool("remember", {"content": NEOVIM}))
            assert stored["facts_stored"] == 1
            facts = _data(await c.call_tool("recall", {"query": "which editor do I use?"}))
            forgot = await c.call_tool("forget", {"fact_id": foreign}) if foreign else None
            return tools, foreign, facts["facts"], _error(forgot) if forgot else ""

    foreign = ""
    tools, _, globex_facts, _ = anyio.run(session_of, globex)
    assert tools == {"remember", "recall", "forget"}
    assert [f["value"] for f in globex_facts] == ["Neovim"]
    foreign = globex_facts[0]["fact_id"]
    # acme's session: its own fact is found, globex's fact id is not
    _, _, acme_facts, refused = anyio.run(session_of, acme)
    assert [f["value"] for f in acme_facts] == ["Neovim"]
    assert acme_facts[0]["fact_id"] != foreign
    assert "no fact" in refused and "acme/alice" in refused
    with Memory(data_dir=tmp_path / "data", embedder="hashing") as m:
        assert [f.fact_id for f in m.get_all("globex", "alice")] == [foreign]


def test_stdio_without_a_valid_key_is_one_error_line(tmp_path: Path) -> None:
    import subprocess

    env = {**os.environ, "MEMGATE_DATA_DIR": str(tmp_path), "MEMGATE_API_KEY": "mgk_nope"}
    run = subprocess.run([MEMGATE, "mcp"], env=env, capture_output=True, text=True,
                         timeout=120, stdin=subprocess.DEVNULL)  # fmt: skip
    assert run.returncode == 1
    assert "Traceback" not in run.stderr and "not valid" in run.stderr


@contextmanager
def serving(d: Path) -> Iterator[tuple[str, str, str]]:
    """``memgate mcp`` over streamable HTTP on a free port, on embedded stores under ``d``:
    its URL and the keys of the tenants acme and globex."""
    keys = KeyStore(d / "api_keys.json")
    acme, _ = keys.create("acme")
    globex, _ = keys.create("globex")
    memory = Memory(data_dir=d / "data", embedder="hashing", min_relevance=0)
    with memory, BackgroundServer(http_app(memory, keys)) as server:
        yield server.url + "/mcp", acme, globex


@pytest.fixture
def http_server(tmp_path: Path) -> Iterator[tuple[str, str, str]]:
    with serving(tmp_path) as server:
        yield server


def test_streamable_http_tools_are_scoped_to_the_bearer_key(
    http_server: tuple[str, str, str],
) -> None:
    url, acme, globex = http_server

    async def call(key: str, tool: str, args: dict[str, Any]) -> Any:
        http = create_mcp_http_client(headers={"Authorization": f"Bearer {key}"})
        async with http, Client(streamable_http_client(url, http_client=http)) as c:
            return await c.call_tool(tool, args)

    async def main() -> None:
        got = _data(await call(globex, "remember", {"content": NEOVIM, "user": "bob"}))
        assert got["facts_stored"] == 1
        facts = _data(await call(globex, "recall", {"query": "editor", "user": "bob"}))["facts"]
        fid = facts[0]["fact_id"]
        # acme cannot see, delete or recall globex's fact
        assert _data(await call(acme, "recall", {"query": "editor", "user": "bob"})) == {
            "facts": []
        }
        assert "no fact" in _error(await call(acme, "forget", {"user": "bob", "fact_id": fid}))
        # forgetting the whole user needs confirm=true
        assert "confirm" in _error(await call(globex, "forget", {"user": "bob"}))
        gone = _data(await call(globex, "forget", {"user": "bob", "confirm": True}))
        assert gone["facts"] == 1
        assert _data(await call(globex, "recall", {"query": "editor", "user": "bob"})) == {
            "facts": []
        }

    anyio.run(main)


def test_streamable_http_without_a_key_is_401(http_server: tuple[str, str, str]) -> None:
    url, _, _ = http_server
    r = httpx.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                   headers={"Accept": "application/json, text/event-stream"})  # fmt: skip
    assert r.status_code == 401
    assert r.headers["content-type"].startswith("application/problem+json")
