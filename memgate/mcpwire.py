"""The MCP server's wire: each JSON-RPC message vetted before the SDK sees it.

The SDK's transports answered malformed input badly: over HTTP a lone surrogate escape
(``"\\ud800"``) was ``Parse error: unexpected end of hex escape``, a message of the wrong
structure was pydantic's multi-line report (the caller's values in it) under ``-32602``
without the request's id, an id that is an object was taken for a notification and never
answered; over stdio such lines went unanswered, and a line was read whole whatever its
length. :func:`vet` reads one message (bytes, at most :data:`MAX_MESSAGE_BYTES`) and
gives the SDK's message or a :class:`Refusal`: a JSON-RPC error in one line, naming the
field at fault (or the byte, or the escape with its line and column) and what to send
instead, with the request's id when one can be read (JSON-RPC 2.0, section 5.1).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from mcp_types import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    PARSE_ERROR,
    ErrorData,
    JSONRPCError,
    JSONRPCMessage,
    jsonrpc_message_adapter,
)
from pydantic import ValidationError

from memgate.core.events import text_problem

__all__ = ["MAX_MESSAGE_BYTES", "Refusal", "text_problem_in", "too_long", "vet"]

MAX_MESSAGE_BYTES = 1 << 20
"""The longest message (a stdio line, an HTTP body) read: ``remember`` takes at most
20,000 characters, under 130,000 bytes even with every character escaped."""

MAX_DEPTH = 128
"""The deepest nesting of arrays and objects taken (the SDK's JSON parser stops at 255)."""

_ESCAPE = re.compile(r"\\(?:u([0-9A-Fa-f]{4})|.)", re.DOTALL)
_PAIR_EXAMPLE = "\\ud83d\\ude00"


@dataclass(frozen=True)
class Refusal:
    """A message refused before the SDK saw it: the JSON-RPC error answering it."""

    code: int
    message: str
    id: int | str | None = None

    def answer(self) -> JSONRPCError:
        return JSONRPCError(
            jsonrpc="2.0", id=self.id, error=ErrorData(code=self.code, message=self.message)
        )


_LEADING_ID = re.compile(
    rb'\s*\{(?:\s*"(?:jsonrpc|method)"\s*:\s*"[^"\\]{0,100}"\s*,)*\s*"id"\s*:\s*'
    rb'(-?[0-9]{1,15}(?=\s*[,}])|"[^"\\]{0,100}")'
)


def _leading_id(head: bytes) -> int | str | None:
    """The id of a message that cannot be read whole (too long, not UTF-8, not JSON), when
    it comes first in ``head``, before any member but ``jsonrpc`` and ``method``."""
    m = _LEADING_ID.match(head)
    if m is None:
        return None
    try:
        rid: int | str = json.loads(m[1])
    except ValueError:  # not UTF-8
        return None
    return rid


def too_long(head: bytes = b"", size: int | None = None) -> Refusal:
    """The refusal of a message over :data:`MAX_MESSAGE_BYTES` (``head``: the bytes read)."""
    what = "the message" if size is None else f"the message ({size:,} bytes)"
    return Refusal(
        INVALID_REQUEST,
        f"invalid request: {what} is over the limit of {MAX_MESSAGE_BYTES:,} bytes: "
        "send a shorter one (remember takes at most 20,000 characters)",
        _leading_id(head),
    )


def _where(text: str, offset: int) -> str:
    line = text.count("\n", 0, offset) + 1
    return f"line {line}, column {offset - (text.rfind(chr(10), 0, offset) + 1) + 1}"


def _lone_escape(text: str) -> re.Match[str] | None:
    """The first ``\\uXXXX`` escape in ``text`` that is half of a UTF-16 pair alone."""
    high: re.Match[str] | None = None
    for m in _ESCAPE.finditer(text):
        code = int(m[1], 16) if m[1] else -1
        low = 0xDC00 <= code <= 0xDFFF
        if high is not None:
            if low and m.start() == high.end():
                high = None
                continue
            return high
        if low:
            return m
        if 0xD800 <= code <= 0xDBFF:
            high = m
    return high


def text_problem_in(value: object, where: str) -> str | None:
    """The first string (a name or a value) in ``value`` that is no Unicode text, named by
    its place (``arguments.content``), with why."""
    if isinstance(value, str):
        problem = text_problem(value)
        return None if problem is None else f"{where}: {problem}"
    items: list[tuple[object, object]] = []
    if isinstance(value, dict):
        items = list(value.items())
    elif isinstance(value, list):
        items = list(enumerate(value))
    for k, item in items:
        here = f"{where}.{k}" if where else str(k)
        if isinstance(k, str) and (problem := text_problem(k)) is not None:
            return f"{here}: {problem}"
        if (found := text_problem_in(item, here)) is not None:
            return found
    return None


def _too_deep(doc: object) -> bool:
    """Whether arrays and objects nest over :data:`MAX_DEPTH` deep in ``doc``."""
    level: list[object] = [doc]  # the values at one depth: 1, 2, ...
    for _ in range(MAX_DEPTH):
        level = [x for v in level if isinstance(v, dict | list)
                 for x in (v.values() if isinstance(v, dict) else v)]  # fmt: skip
        if not level:
            return False
    return any(isinstance(v, dict | list) for v in level)


def _parse(raw: bytes) -> Any:
    """The JSON document in ``raw``, or the :class:`Refusal` saying what is wrong where."""
    if raw.startswith(b"\xef\xbb\xbf"):
        return Refusal(PARSE_ERROR, "parse error: the message starts with a byte order mark "
                       "(EF BB BF): send UTF-8 without one")  # fmt: skip
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        before = raw[: exc.start].decode("utf-8")
        at = _where(before, len(before))
        return Refusal(
            PARSE_ERROR,
            f"parse error: the byte 0x{raw[exc.start]:02X} at {at} is not UTF-8: "
            "send the message in valid UTF-8",
            _leading_id(raw),
        )

    def no_constant(name: str) -> None:
        raise ValueError(f"{name} is not a JSON value")

    def integer(digits: str) -> int:
        if len(digits) > 4000:  # Python's own limit, 4,300, names sys.set_int_max_str_digits
            raise ValueError(f"an integer of {len(digits):,} digits is too long")
        return int(digits)

    try:
        doc = json.loads(text, parse_constant=no_constant, parse_int=integer)
        if _too_deep(doc):
            raise RecursionError
        return doc
    except json.JSONDecodeError as exc:
        what = (f"{exc.msg[:1].lower()}{exc.msg[1:]} at line {exc.lineno}, column {exc.colno}: "
                "send one JSON-RPC message as a JSON object")  # fmt: skip
    except RecursionError:
        what = f"arrays and objects are nested over {MAX_DEPTH} deep: send less nesting"
    except ValueError as exc:  # NaN, Infinity, a huge integer
        what = f"{exc}: send valid JSON"
    return Refusal(PARSE_ERROR, f"parse error: {what}", _leading_id(raw))


def _id_of(doc: dict[str, Any]) -> int | str | None:
    rid = doc.get("id")
    if isinstance(rid, bool) or not isinstance(rid, int | str):
        return None
    return None if isinstance(rid, str) and text_problem(rid) else rid


def _kind(value: object) -> str:
    kinds = {dict: "an object", list: "an array", str: "a string", bool: "a boolean",
             int: "an integer", float: "a number", type(None): "null"}  # fmt: skip
    return kinds.get(type(value), "?")


def _structure_problem(doc: object) -> Refusal | None:
    """What makes ``doc`` no JSON-RPC message of MCP, field by field."""
    if isinstance(doc, list):
        what = "an empty batch" if not doc else "a batch (a JSON array)"
        return Refusal(INVALID_REQUEST, f"invalid request: {what} is not a message MCP "
                       "takes: send each request as one JSON object")  # fmt: skip
    if not isinstance(doc, dict):
        return Refusal(INVALID_REQUEST, f"invalid request: the message is {_kind(doc)}: "
                       "send a JSON object with jsonrpc, id, method and params")  # fmt: skip
    rid = _id_of(doc)

    def bad(field: str, need: str, why: str = "", code: int = INVALID_REQUEST) -> Refusal:
        given = doc.get(field)
        got = f" (not {_kind(given)})" if field in doc and not isinstance(given, str) else ""
        what = "invalid params" if code == INVALID_PARAMS else "invalid request"
        return Refusal(code, f"{what}: {field} {need}{got}{why}", rid)

    if "id" in doc and rid is None and not isinstance(doc["id"], str):
        return bad("id", "must be a string or an integer")
    if doc.get("jsonrpc") != "2.0":
        return bad("jsonrpc", 'must be "2.0"')
    if "method" in doc:
        params = doc.get("params")
        if not isinstance(doc["method"], str):
            return bad("method", "must be a string", ": the method to call (e.g. tools/list)")
        if isinstance(params, list):
            return bad(
                "params", "must be an object", ": MCP takes named parameters", INVALID_PARAMS
            )
        if params is not None and not isinstance(params, dict):
            return bad("params", "must be an object")
        if doc["method"] == "tools/call" and isinstance(params, dict) and rid is not None:
            if not isinstance(params.get("name"), str):
                return Refusal(INVALID_PARAMS, "invalid params: name must be a string: the "
                               "tool to call (remember, recall or forget)", rid)  # fmt: skip
            if not isinstance(params.get("arguments", {}), dict):
                return Refusal(INVALID_PARAMS, "invalid params: arguments must be an object "
                               "(the tool's arguments by name)", rid)  # fmt: skip
        return None
    if "result" in doc or "error" in doc:  # a response to a request of the server
        if "id" not in doc:
            return bad("id", "is missing: a response carries the id of its request")
        if "result" in doc and "error" in doc:
            return Refusal(INVALID_REQUEST, "invalid request: a response gives result or "
                           "error, not both", rid)  # fmt: skip
        if "result" in doc and not isinstance(doc["result"], dict):
            return bad("result", "must be an object")
        error = doc.get("error", {})
        if "error" in doc and not (isinstance(error, dict) and isinstance(error.get("message"), str)
                                   and type(error.get("code")) is int):  # fmt: skip
            return bad("error", "must be an object with an integer code and a string message")
        return None
    return bad("method", "is missing: a request names the method to call (e.g. tools/list)")


def _surrogate_problem(text: str, doc: dict[str, Any]) -> Refusal | None:
    """A lone surrogate escape (``\\ud800``): JSON's grammar takes it, Unicode has no such
    character, and neither UTF-8 nor any store can hold it."""
    m = _lone_escape(text) if "\\" in text else None
    if m is None:
        return None
    at = _where(text, m.start())
    fix = (f"the escape {m[0]} at {at} is half of a UTF-16 pair: send a well-formed pair "
           f"(e.g. {_PAIR_EXAMPLE}) or the character itself in UTF-8")  # fmt: skip
    rid = _id_of(doc)
    problem = text_problem_in(doc.get("params"), "")
    if problem is not None and rid is not None and "method" in doc:
        return Refusal(INVALID_PARAMS, f"invalid params: {problem}; {fix}", rid)
    return Refusal(PARSE_ERROR, f"parse error: {fix}", rid)


def vet(raw: bytes) -> JSONRPCMessage | Refusal:
    """One message off the wire (a stdio line, an HTTP body): the SDK's message, or the
    refusal answering it."""
    if len(raw) > MAX_MESSAGE_BYTES:
        return too_long(raw)
    doc = _parse(raw)
    if isinstance(doc, Refusal):
        return doc
    problem = _structure_problem(doc)
    if problem is None:
        problem = _surrogate_problem(raw.decode("utf-8"), doc)
    if problem is not None:
        return problem
    try:
        return jsonrpc_message_adapter.validate_python(doc, by_name=False)
    except ValidationError as exc:  # what the checks above missed: the first error, in one line
        e = exc.errors(include_url=False)[0]
        field = ".".join(str(p) for p in e["loc"][1:]) or "the message"
        return Refusal(INVALID_REQUEST, f"invalid request: {field}: {e['msg'].lower()}",
                       _id_of(doc))  # fmt: skip
