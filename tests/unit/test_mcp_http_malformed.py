"""``memgate mcp`` over streamable HTTP answers malformed JSON-RPC in one line (session 22).

The SDK answered a lone surrogate escape (``"\\ud800"``) with ``Parse error: unexpected
end of hex escape``, a message of the wrong structure with pydantic's multi-line report
(the caller's values in it) under ``-32602`` and ``"id": null`` whatever its id, and took
a request whose id is an object for a notification (202, never answered). Each is now
one JSON-RPC error naming what is wrong and what to send, with the request's id when it
can be read.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from memgate.mcpwire import MAX_MESSAGE_BYTES
from tests.unit.test_mcp import serving

HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
           "MCP-Protocol-Version": "2025-06-18"}  # fmt: skip


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str, str]]:
    with serving(tmp_path_factory.mktemp("mcp-http-malformed")) as background:
        yield background


def _post(server: tuple[str, str, str], body: bytes) -> httpx.Response:
    url, acme, _ = server
    return httpx.post(url, content=body, headers={**HEADERS, "Authorization": f"Bearer {acme}"},
                      timeout=60)  # fmt: skip


def _error(r: httpx.Response) -> dict[str, Any]:
    assert r.status_code in (400, 413), (r.status_code, r.text)
    doc: dict[str, Any] = r.json()
    assert doc["jsonrpc"] == "2.0" and set(doc) == {"jsonrpc", "id", "error"}, doc
    message = doc["error"]["message"]
    assert "\n" not in message and "Traceback" not in message, message
    assert "pydantic" not in message and "input_value" not in message, message
    return doc


def test_a_lone_surrogate_escape_names_the_escape_where_and_what_to_send(
    server: tuple[str, str, str],
) -> None:
    body = rb'{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"x":"\ud800"}}'
    doc = _error(_post(server, body))
    message = doc["error"]["message"]
    assert doc["id"] == 1 and doc["error"]["code"] == -32602, doc
    assert "the escape \\ud800 at line 1, column 62 is half of a UTF-16 pair" in message
    assert "send a well-formed pair (e.g. \\ud83d\\ude00) or the character itself in UTF-8" in (
        message
    )
    # in the method (not a parameter) on the second line: a parse error, still by its id
    doc = _error(_post(server, b'{"jsonrpc":"2.0","id":"a",\n"method":"tools/\\udc00"}'))
    assert doc["id"] == "a" and doc["error"]["code"] == -32700, doc
    assert doc["error"]["message"].startswith(
        "parse error: the escape \\udc00 at line 2, column 17 is half of a UTF-16 pair"
    )


@pytest.mark.parametrize(
    ("body", "code", "rid", "expected"),
    [(b"[1,2,3]", -32600, None, "a batch (a JSON array) is not a message MCP takes"),
     (b"[]", -32600, None, "an empty batch"),
     (b'[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]', -32600, None, "send each request"),
     (b'"tools/list"', -32600, None, "the message is a string: send a JSON object"),
     (b'{"jsonrpc":"2.0","id":7,"method":5}', -32600, 7, "method must be a string (not an int"),
     (b'{"jsonrpc":"2.0","id":7}', -32600, 7, "method is missing"),
     (b'{"jsonrpc":"1.0","id":"x","method":"tools/list"}', -32600, "x", 'jsonrpc must be "2.0"'),
     (b'{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}', -32600, None,
      "id must be a string or an integer (not an object)"),
     (b'{"jsonrpc":"2.0","id":true,"method":"tools/list"}', -32600, None, "(not a boolean)"),
     (b'{"jsonrpc":"2.0","id":null,"method":"tools/list"}', -32600, None, "(not null)"),
     (b'{"jsonrpc":"2.0","id":2,"method":"tools/list","params":[1]}', -32602, 2,
      "params must be an object (not an array): MCP takes named parameters"),
     (b'{"jsonrpc":"2.0","id":3,"method":"tools/call","params":5}', -32600, 3,
      "params must be an object (not an integer)"),
     (b'{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":5}}', -32602, 4,
      "invalid params: name must be a string"),
     (b'{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"recall",'
      b'"arguments":"editor"}}', -32602, 5, "invalid params: arguments must be an object"),
     (b'{"jsonrpc":"2.0","id":6,"error":{"code":"x"}}', -32600, 6,
      "error must be an object with an integer code and a string message"),
     (b'{"jsonrpc":"2.0","id":1,"method":"tools/list"', -32700, 1,
      "parse error: expecting ',' delimiter at line 1, column 46"),
     (b'{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"x":NaN}}', -32700, 1,
      "parse error: NaN is not a JSON value: send valid JSON"),
     (b'{"params":{"x":' + b"9" * 5000 + b'},"id":1,"jsonrpc":"2.0","method":"tools/list"}',
      -32700, None, "parse error: an integer of 5,000 digits is too long: send valid JSON"),
     (b'{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"x":"\xff"}}', -32700, 1,
      "the byte 0xFF at line 1, column 62 is not UTF-8: send the message in valid UTF-8"),
     (b"[" * 100_000, -32700, None, "parse error: arrays and objects are nested over 128 deep"),
     (b'{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"x":' + b"[" * 127
      + b"]" * 127 + b"}}", -32700, 1, "nested over 128 deep: send less nesting"),
     (b'\xef\xbb\xbf{"jsonrpc":"2.0","id":1,"method":"tools/list"}', -32700, None,
      "starts with a byte order mark (EF BB BF): send UTF-8 without one")],
)  # fmt: skip
def test_a_wrong_structure_is_one_json_rpc_error_naming_the_field(
    server: tuple[str, str, str], body: bytes, code: int, rid: object, expected: str
) -> None:
    doc = _error(_post(server, body))
    assert (doc["error"]["code"], doc["id"]) == (code, rid), doc
    assert expected in doc["error"]["message"], doc


def test_a_body_over_the_limit_is_413_before_it_is_read_whole(
    server: tuple[str, str, str],
) -> None:
    body = b'{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"x":"' + (
        b"a" * MAX_MESSAGE_BYTES
    ) + b'"}}'  # fmt: skip
    r = _post(server, body)
    doc = _error(r)
    assert r.status_code == 413 and doc["error"]["code"] == -32600, doc
    assert f"over the limit of {MAX_MESSAGE_BYTES:,} bytes" in doc["error"]["message"]

    def chunks() -> Iterator[bytes]:  # no Content-Length: the body is counted as it comes
        yield body[: len(body) // 2]
        yield body[len(body) // 2 :]

    url, acme, _ = server
    r = httpx.post(url, content=chunks(), headers={**HEADERS, "Authorization": f"Bearer {acme}"})
    assert r.status_code == 413 and _error(r)["error"]["code"] == -32600


def test_well_formed_requests_are_served_as_before(server: tuple[str, str, str]) -> None:
    r = _post(server, b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}')
    assert r.status_code == 200 and len(r.json()["result"]["tools"]) == 3
    r = _post(server, b'{"jsonrpc":"2.0","id":2,"method":"no/such"}')  # JSON-RPC's own answer
    assert r.status_code == 200 and r.json()["error"]["code"] == -32601
    r = _post(server, b'{"jsonrpc":"2.0","method":"notifications/no_such"}')  # no answer
    assert r.status_code == 202 and not r.content
    # a pair of escapes is one character: served, not refused
    pair = rb'{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"x":"\ud83d\ude00"}}'
    assert _post(server, pair).status_code == 200
    deep = b'{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{"x":%s%s}}' % (
        b"[" * 126,
        b"]" * 126,
    )  # 128 deep: the most taken
    assert _post(server, deep).status_code == 200


def test_arguments_cannot_name_another_tenant(server: tuple[str, str, str]) -> None:
    """Every read stays in the tenant of the key, whatever the call's arguments say."""
    url, acme, globex = server

    def call(key: str, rid: int, tool: str, args: dict[str, Any]) -> dict[str, Any]:
        body = {"jsonrpc": "2.0", "id": rid, "method": "tools/call",
                "params": {"name": tool, "arguments": args}}  # fmt: skip
        r = httpx.post(url, json=body, headers={**HEADERS, "Authorization": f"Bearer {key}"},
                       timeout=120)  # fmt: skip
        assert r.status_code == 200, r.text
        result: dict[str, Any] = r.json()["result"]
        return result

    stored = call(globex, 1, "remember", {"content": "I use Emacs as my editor.", "user": "bob"})
    assert stored["structuredContent"]["facts_stored"] == 1
    mine = call(globex, 2, "recall", {"query": "editor", "user": "bob"})["structuredContent"]
    fid = mine["facts"][0]["fact_id"]
    for args in ({"query": "editor", "user": "bob", "tenant": "globex"},
                 {"query": "editor", "user": "globex/bob"},
                 {"query": "editor", "user": "bob", "_meta": {"tenant": "globex"}}):  # fmt: skip
        found = call(acme, 3, "recall", args)
        assert found.get("structuredContent", {}).get("facts", []) == [], found
    refused = call(acme, 4, "forget", {"fact_id": fid, "user": "bob", "tenant": "globex"})
    assert refused["isError"] and "acme/bob" in refused["content"][0]["text"]
    assert call(globex, 5, "recall", {"query": "editor", "user": "bob"})["structuredContent"] == (
        mine
    )
