"""A tool call with invalid arguments is one line for the model, without the value (attack20).

The MCP SDK validates a call's arguments against the tool's signature before the tool
runs and reported pydantic's whole report: several lines, the rejected value
(``input_value='I use \\ud800 Vim'``: the caller's text, cut by pydantic but still
there) and a pydantic URL. A lone surrogate now reads as on the other surfaces. An
error also never repeats more than 100 characters of what the caller sent: a
100,000-character fact id came back whole (and went to the SDK's log line whole).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import anyio
import pytest
from mcp import Client

from memgate import Memory
from memgate.api.memory import FactNotFound
from memgate.core.errors import InvalidRequest
from memgate.mcpserver import build_server


@pytest.fixture(scope="module")
def memory(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Memory]:
    with Memory(data_dir=tmp_path_factory.mktemp("mcp1") / "data", embedder="hashing") as m:
        yield m


def _call(memory: Memory, name: str, args: dict[str, Any]) -> str:
    server = build_server(memory, tenant="acme", default_user="alice")

    async def call() -> Any:
        async with Client(server, read_timeout_seconds=120) as c:
            return await c.call_tool(name, args)

    result = anyio.run(call)
    assert result.is_error
    return " ".join(getattr(c, "text", "") for c in result.content)


SECRET = "my password is hunter2-"


@pytest.mark.parametrize(
    ("name", "args", "expected"),
    [("remember", {"content": f"{SECRET}\ud800"},
      "content: has a lone surrogate U+D800 at position 24: not Unicode text"),
     ("recall", {"query": f"{SECRET}\udcff"}, "query: has a lone surrogate U+DCFF"),
     ("remember", {"content": SECRET * 1000},
      "content: string should have at most 20000 characters"),
     ("remember", {"content": 5}, "content: input should be a valid string"),
     ("recall", {}, "query: field required"),
     ("recall", {"query": "editor", "k": 0, "user": 7},
      "user: input should be a valid string; k: input should be greater than or equal to 1")],
)  # fmt: skip
def test_invalid_arguments_are_one_line_naming_them(
    memory: Memory, name: str, args: dict[str, Any], expected: str
) -> None:
    message = _call(memory, name, args)
    assert "\n" not in message, message
    assert message.startswith(f"Error executing tool {name}: invalid arguments "), message
    assert expected in message, message
    assert "hunter2" not in message and "pydantic" not in message and "input_value" not in message


def test_a_huge_fact_id_is_not_repeated_whole(memory: Memory) -> None:
    fid = "f" * 100_000
    message = _call(memory, "forget", {"fact_id": fid})
    assert len(message) < 300, len(message)
    assert "no fact 'ffff" in message and "(100,000 characters)" in message
    with pytest.raises(FactNotFound) as info:
        memory.get(fid, "acme", "alice")
    assert len(str(info.value)) < 300


def test_a_huge_invalid_user_id_is_not_repeated_whole(memory: Memory) -> None:
    with pytest.raises(InvalidRequest) as info:
        memory.search("editor", "acme", "a" * 1_000_000)
    assert len(str(info.value)) < 300
    assert "is 1000000 characters long; at most 200" in str(info.value)


@pytest.mark.parametrize(
    ("as_of", "expected"),
    [("2024-05-01", "as_of '2024-05-01' has no time zone: add one (e.g. 2024-05-01T00:00:00Z)"),
     ("x" * 5000, "(5,000 characters) is not an ISO 8601 time (e.g. 2024-05-01T00:00:00Z)")],
)  # fmt: skip
def test_as_of_says_what_to_send(memory: Memory, as_of: str, expected: str) -> None:
    """A time without a zone read "as_of must carry a time zone (e.g. datetime(...,
    tzinfo=UTC))": Python, to a model that sends JSON."""
    message = _call(memory, "recall", {"query": "editor", "as_of": as_of})
    assert message.endswith(expected), message
    assert "datetime(" not in message and len(message) < 300
