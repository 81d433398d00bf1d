"""``memgate mcp`` over stdio answers a request its JSON parser refuses (attack20).

A lone surrogate escape (``"\\ud800"``) in any argument: pydantic-core's JSON parser
refuses the line, and the SDK's stdio transport dropped it without an answer, so the
client waited for its own time-out (over streamable HTTP the same call was a 400 with
``-32700``). Now the request is answered by its id: ``-32602`` naming the argument.

Session 22: every line is read at most :data:`memgate.mcpwire.MAX_MESSAGE_BYTES` at a
time and vetted (:func:`memgate.mcpwire.vet`): one of the wrong structure, not UTF-8 or
too long is answered with a one-line JSON-RPC error, by its id when one can be read, and
the next line is served.
"""

from __future__ import annotations

import json
import os
import selectors
import subprocess
import sys
from pathlib import Path
from typing import Any

from memgate.apikeys import KeyStore
from memgate.mcpwire import Refusal, vet

MEMGATE = str(Path(sys.executable).with_name("memgate"))
INITIALIZE = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                         "clientInfo": {"name": "t", "version": "1"}}}  # fmt: skip
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def test_a_refused_request_is_answered_by_its_id() -> None:
    line = ('{"jsonrpc":"2.0","id":"r1","method":"tools/call","params":{"name":"remember",'
            '"arguments":{"content":"I use \\ud800 Vim"}}}')  # fmt: skip
    answer = vet(line.encode())
    assert isinstance(answer, Refusal) and answer.id == "r1" and answer.code == -32602
    assert answer.message.startswith(
        "invalid params: arguments.content: has a lone surrogate U+D800 at position 7"
    )
    refused = vet(b"not json")  # no id to read: answered by null (JSON-RPC 2.0, 5.1)
    assert isinstance(refused, Refusal) and refused.id is None and refused.code == -32700


def _session(tmp_path: Path, lines: list[object], on_answer: Any = None) -> dict[object, Any]:
    """``memgate mcp --user alice`` fed ``lines`` (a dict is written as JSON, bytes as they
    are) one at a time, the next written only when the answer to one with an ``id`` (or
    bytes, but an empty line) came: the answers by id (``"line N"`` for ``"id": null``),
    ``on_answer(proc)`` called after each."""
    key, _ = KeyStore(tmp_path / "data" / "api_keys.json").create("acme")
    env = {**os.environ, "MEMGATE_DATA_DIR": str(tmp_path / "data"),
           "MEMGATE_EMBEDDER": "hashing", "MEMGATE_API_KEY": key}  # fmt: skip
    proc = subprocess.Popen([MEMGATE, "mcp", "--user", "alice"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)  # fmt: skip
    assert proc.stdin is not None and proc.stdout is not None
    answers: dict[object, Any] = {}
    waiting = selectors.DefaultSelector()  # epoll: select() refuses a descriptor over 1023
    waiting.register(proc.stdout, selectors.EVENT_READ)
    try:
        for n, x in enumerate(lines):  # json writes "\udcff" as an escape
            line = x if isinstance(x, bytes) else json.dumps(x).encode()
            proc.stdin.write(line + b"\n")
            proc.stdin.flush()
            if x if isinstance(x, bytes) else "id" in x:  # stdin stays open until the answer
                assert waiting.select(60), f"no answer to line {n} in 60 s"
                answer = json.loads(proc.stdout.readline())
                answers[f"line {n}" if answer.get("id") is None else answer["id"]] = answer
                if on_answer is not None:
                    on_answer(proc)
    finally:
        proc.stdin.close()
        try:
            proc.wait(timeout=60)
        finally:
            proc.kill()
    return answers


def test_memgate_mcp_over_stdio_answers_it(tmp_path: Path) -> None:
    lines = [
        INITIALIZE,
        INITIALIZED,
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
         "params": {"name": "forget", "arguments": {"fact_id": "ab\udcff"}}},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
         "params": {"name": "recall", "arguments": {"query": "editor"}}},
    ]  # fmt: skip
    answers = _session(tmp_path, lines)
    assert set(answers) == {0, 1, 2}, answers
    assert answers[1]["error"]["code"] == -32602
    assert (
        "arguments.fact_id: has a lone surrogate U+DCFF at position 3"
        in (answers[1]["error"]["message"])
    )
    assert answers[2].get("result", {}).get("isError") is False, answers[2]  # served as before


def _peak_rss_kib(proc: subprocess.Popen[bytes]) -> int:
    status = Path(f"/proc/{proc.pid}/status").read_text()
    return int(next(x for x in status.splitlines() if x.startswith("VmHWM:")).split()[1])


def test_wrong_lines_are_answered_and_the_next_line_served(tmp_path: Path) -> None:
    """Session 22: a line of the wrong structure went unanswered unless it named an id
    and parameters with a lone surrogate (and then was "not a valid JSON-RPC request",
    whatever was wrong); one that is no UTF-8 was read with U+FFFD in place of its byte;
    a line was read whole, whatever its length."""
    huge = (b'{"jsonrpc":"2.0","id":12,"method":"tools/list","params":{"x":"'
            + b"a" * (64 << 20) + b'"}}')  # fmt: skip
    peaks: list[int] = []
    track = Path("/proc/self/status").exists()
    lines: list[object] = [
        INITIALIZE,
        INITIALIZED,
        b"[1,2,3]",
        b'{"jsonrpc":"2.0","id":7,"method":5}',
        b'{"jsonrpc":"2.0","id":8}',
        b"",  # a blank line is no message: nothing to answer
        b'{"jsonrpc":"2.0","method":5}',  # no id: answered by null
        b'{"jsonrpc":"2.0","id":{"n":9},"method":"tools/list"}',
        b'{"jsonrpc":"2.0","id":10,"method":"nope"}',
        {"jsonrpc": "2.0", "method": "notifications/nope"},  # unknown: no answer
        b'{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"recall",'
        b'"arguments":{"query":"caf\xe9"}}}',
        huge,
        {"jsonrpc": "2.0", "id": 13, "method": "tools/call",
         "params": {"name": "recall", "arguments": {"query": "editor"}}},
    ]  # fmt: skip
    answers = _session(
        tmp_path, lines, (lambda p: peaks.append(_peak_rss_kib(p))) if track else None
    )
    errors = {k: (a["id"], a["error"]["code"], a["error"]["message"])
              for k, a in answers.items() if "error" in a}  # fmt: skip
    assert errors["line 2"] == (None, -32600, "invalid request: a batch (a JSON array) is "
                                "not a message MCP takes: send each request as one JSON "
                                "object")  # fmt: skip
    assert errors[7] == (7, -32600, "invalid request: method must be a string (not an integer): "
                         "the method to call (e.g. tools/list)")  # fmt: skip
    assert errors[8][:2] == (8, -32600) and "method is missing" in errors[8][2]
    assert errors["line 6"][:2] == (None, -32600) and "method must be a str" in errors["line 6"][2]
    assert errors["line 7"][:2] == (None, -32600)
    assert "id must be a string or an integer (not an object)" in errors["line 7"][2]
    assert errors[10][:2] == (10, -32601)  # JSON-RPC's own answer, as before
    assert errors[11][:2] == (11, -32700) and errors[11][2].startswith(
        "parse error: the byte 0xE9 at line 1, column 99 is not UTF-8"
    ), errors[11]
    assert errors[12][:2] == (12, -32600) and "over the limit of 1,048,576 bytes" in errors[12][2]
    assert answers[13].get("result", {}).get("isError") is False, answers[13]  # served after
    assert len(answers) == 10, answers  # nothing more: the blank line, the notifications
    if track:  # the 64 MiB line was never held: the peak grew by under 16 MiB
        assert peaks[-1] - peaks[0] < 16 << 10, peaks
