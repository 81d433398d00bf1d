"""``memgate mcp`` over stdio answers a request its JSON parser refuses (attack20).

A lone surrogate escape (``"\\ud800"``) in any argument: pydantic-core's JSON parser
refuses the line, and the SDK's stdio transport dropped it without an answer, so the
client waited for its own time-out (over streamable HTTP the same call is a 400 with
``-32700``). Now the request is answered by its id: ``-32602`` naming the argument.
"""

from __future__ import annotations

import json
import os
import selectors
import subprocess
import sys
from pathlib import Path

import mcp_types as types
import pytest

from memgate.apikeys import KeyStore
from memgate.mcpserver import refused_line_answer

MEMGATE = str(Path(sys.executable).with_name("memgate"))


def _refused(line: str) -> Exception:
    with pytest.raises(Exception) as info:
        types.jsonrpc_message_adapter.validate_json(line, by_name=False)
    assert isinstance(info.value, Exception)
    return info.value


def test_a_refused_request_is_answered_by_its_id() -> None:
    line = ('{"jsonrpc":"2.0","id":"r1","method":"tools/call","params":{"name":"remember",'
            '"arguments":{"content":"I use \\ud800 Vim"}}}')  # fmt: skip
    answer = refused_line_answer(_refused(line))
    assert answer is not None and answer.id == "r1" and answer.error.code == -32602
    assert answer.error.message.startswith(
        "invalid params: arguments.content: has a lone surrogate U+D800 at position 7"
    )
    assert refused_line_answer(_refused("not json")) is None  # no id to answer


def test_memgate_mcp_over_stdio_answers_it(tmp_path: Path) -> None:
    key, _ = KeyStore(tmp_path / "data" / "api_keys.json").create("acme")
    env = {**os.environ, "MEMGATE_DATA_DIR": str(tmp_path / "data"),
           "MEMGATE_EMBEDDER": "hashing", "MEMGATE_API_KEY": key}  # fmt: skip
    lines = [
        {"jsonrpc": "2.0", "id": 0, "method": "initialize",
         "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                    "clientInfo": {"name": "t", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
         "params": {"name": "forget", "arguments": {"fact_id": "ab\udcff"}}},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
         "params": {"name": "recall", "arguments": {"query": "editor"}}},
    ]  # fmt: skip
    proc = subprocess.Popen([MEMGATE, "mcp", "--user", "alice"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)  # fmt: skip
    assert proc.stdin is not None and proc.stdout is not None
    answers: dict[object, dict[str, object]] = {}
    waiting = selectors.DefaultSelector()  # epoll: select() refuses a descriptor over 1023
    waiting.register(proc.stdout, selectors.EVENT_READ)
    try:
        for x in lines:  # json writes "\udcff" as an escape: the line the SDK refuses
            proc.stdin.write((json.dumps(x) + "\n").encode())
            proc.stdin.flush()
            if "id" in x:  # the stdin stays open until the answer came (EOF ends the session)
                assert waiting.select(60), f"no answer to request {x['id']} in 60 s"
                answer = json.loads(proc.stdout.readline())
                answers[answer["id"]] = answer
    finally:
        proc.stdin.close()
        try:
            proc.wait(timeout=60)
        finally:
            proc.kill()
    assert set(answers) == {0, 1, 2}, answers
    assert answers[1]["error"]["code"] == -32602
    assert (
        "arguments.fact_id: has a lone surrogate U+DCFF at position 3"
        in (answers[1]["error"]["message"])
    )
    assert answers[2].get("result", {}).get("isError") is False, answers[2]  # served as before
