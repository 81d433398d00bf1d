"""A local stand-in of the Anthropic Messages API for tests.

A real HTTP server (stdlib ``ThreadingHTTPServer``) on 127.0.0.1 with a random
port, run in a thread. Point the real SDK at it with
``anthropic.Anthropic(api_key=..., base_url=standin.base_url, max_retries=0)``.

It checks each request the way the real API does (path, method, headers, body
shape) and answers a violation with HTTP 400 in the API's error shape, recording
it in :attr:`AnthropicStandIn.violations`. Every request is recorded
(:attr:`AnthropicStandIn.requests`: method, path, headers, parsed body). Answers
come from a scripted queue (:meth:`AnthropicStandIn.enqueue`) built with the
reply helpers below, or, when given, from ``respond(body)`` (an answer chosen by
what the request asks: a per-turn script; None leaves it to the queue); an empty
queue answers a valid ``record_facts`` call with no facts (the common outcome).
Besides answers in the API's shape it can fail the way networks and proxies do:
:func:`connection_reset` closes the connection without an answer,
:func:`malformed_payload` sends a body that is not a message
(or not JSON), and ``delay`` holds an answer back (a client timeout). Given
``forbidden`` raw values or a ``scan`` function, it also records as a violation any
request whose messages carry something unmasked.

    with AnthropicStandIn() as api:
        api.enqueue(tool_use_reply([{"type": "fact", ...}]))
        client = anthropic.Anthropic(api_key="k", base_url=api.base_url, max_retries=0)
        ...
        assert api.violations == []
"""

from __future__ import annotations

import json
import secrets
import socket
import struct
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = [
    "AnthropicStandIn",
    "RecordedRequest",
    "Reply",
    "bad_request",
    "check_request",
    "connection_reset",
    "credential",
    "error_reply",
    "malformed_items_reply",
    "malformed_payload",
    "not_found",
    "rate_limited",
    "running_standin",
    "server_error",
    "slow",
    "text_reply",
    "tool_use_reply",
    "unauthorized",
]

# Top-level fields the Messages API accepts; anything else is a 400 there too.
KNOWN_FIELDS = frozenset(
    {
        "model",
        "max_tokens",
        "messages",
        "system",
        "tools",
        "tool_choice",
        "temperature",
        "top_p",
        "top_k",
        "stop_sequences",
        "stream",
        "metadata",
        "thinking",
        "service_tier",
        "container",
        "mcp_servers",
        "context_management",
        "output_config",
        "cache_control",
        "inference_geo",
        "speed",
    }
)
_TOOL_CHOICE_TYPES = frozenset({"auto", "any", "tool", "none"})


@dataclass(frozen=True)
class Reply:
    """One scripted answer: status, JSON body, extra headers."""

    status: int
    body: dict[str, Any]
    headers: dict[str, str] = field(default_factory=dict)
    # Filled at send time from the request when the body asks for it.
    echo_model: bool = False
    # Failure modes: "reset" closes the connection without answering; ``raw`` is sent
    # as the body instead of ``body`` (a malformed payload); ``delay`` seconds pass first.
    action: str | None = None
    raw: bytes | None = None
    delay: float = 0.0


@dataclass(frozen=True)
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]  # lower-cased names
    body: Any  # parsed JSON, or None if the body was not JSON
    raw: bytes

    @property
    def api_key(self) -> str | None:
        return credential(self.headers)


# --------------------------------------------------------------------- replies


def _id(prefix: str) -> str:
    return prefix + secrets.token_hex(12)


def _message(content: list[dict[str, Any]], stop_reason: str, output_tokens: int) -> Reply:
    body: dict[str, Any] = {
        "id": _id("msg_01"),
        "type": "message",
        "role": "assistant",
        "model": "",  # the request's model, filled in when sent
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {
            "input_tokens": 0,  # estimated from the request when sent
            "output_tokens": output_tokens,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
            "service_tier": "standard",
        },
    }
    return Reply(200, body, echo_model=True)


def tool_use_reply(
    facts: list[dict[str, Any]] | None = None,
    *,
    tool_input: dict[str, Any] | None = None,
    name: str = "record_facts",
    stop_reason: str = "tool_use",
) -> Reply:
    """A forced tool call: ``{"facts": facts}`` (or ``tool_input`` verbatim)."""
    payload = tool_input if tool_input is not None else {"facts": list(facts or [])}
    block = {"type": "tool_use", "id": _id("toolu_01"), "name": name, "input": payload}
    return _message([block], stop_reason, max(1, len(json.dumps(payload)) // 4))


def malformed_items_reply(items: list[Any]) -> Reply:
    """A tool call whose ``facts`` items do not all match the schema."""
    return tool_use_reply(tool_input={"facts": items})


def text_reply(text: str = "I could not find any facts worth remembering.") -> Reply:
    """A text-only answer (no tool call)."""
    return _message([{"type": "text", "text": text}], "end_turn", max(1, len(text) // 4))


def error_reply(
    status: int, error_type: str, message: str, headers: dict[str, str] | None = None
) -> Reply:
    """An error in the API's shape."""
    body = {
        "type": "error",
        "error": {"type": error_type, "message": message},
        "request_id": _id("req_01"),
    }
    return Reply(status, body, dict(headers or {}))


def rate_limited(retry_after: int = 2) -> Reply:
    return error_reply(
        429,
        "rate_limit_error",
        "Number of request tokens has exceeded your per-minute rate limit.",
        {"retry-after": str(retry_after)},
    )


def server_error() -> Reply:
    return error_reply(500, "api_error", "Internal server error")


def bad_request(message: str = "max_tokens: 100000 > 64000, the maximum for this model") -> Reply:
    return error_reply(400, "invalid_request_error", message)


def unauthorized() -> Reply:
    return error_reply(401, "authentication_error", "invalid x-api-key")


def not_found(model: str = "claude-nope") -> Reply:
    return error_reply(404, "not_found_error", f"model: {model}")


def connection_reset() -> Reply:
    """The connection is closed (RST) before any answer: a network failure."""
    return Reply(0, {}, action="reset")


def malformed_payload(raw: bytes = b'{"type": "message", "content": [', status: int = 200) -> Reply:
    """A body that is not a Messages API answer (cut-off JSON by default)."""
    return Reply(status, {}, raw=raw)


def slow(reply: Reply, seconds: float) -> Reply:
    """``reply`` sent after ``seconds`` (longer than the client's timeout: a timeout)."""
    return Reply(
        reply.status, reply.body, reply.headers, reply.echo_model, reply.action, reply.raw, seconds
    )


# -------------------------------------------------------------------- checking


def credential(headers: dict[str, str]) -> str | None:
    """The API key a request carries: ``x-api-key`` or ``Authorization: Bearer``."""
    key = headers.get("x-api-key", "").strip()
    if key:
        return key
    scheme, _, token = headers.get("authorization", "").partition(" ")
    if scheme.lower() == "bearer" and token.strip():
        return token.strip()
    return None


def check_request(
    method: str, path: str, headers: dict[str, str], raw: bytes
) -> tuple[Any, list[str]]:
    """The parsed body and the protocol violations of one request (empty: valid)."""
    problems: list[str] = []
    if method != "POST":
        problems.append(f"method must be POST, got {method}")
    if path.split("?", 1)[0] != "/v1/messages":
        problems.append(f"path must be /v1/messages, got {path}")
    # The documented credential header is x-api-key; SDK 2.x sends the API key as
    # "Authorization: Bearer <key>" instead (with anthropic-version 2026-10-21). Either
    # counts, as long as one carries a non-empty key.
    if not credential(headers):
        problems.append("x-api-key: header is required (or Authorization: Bearer <key>)")
    if not headers.get("anthropic-version"):
        problems.append("anthropic-version: header is required")
    ctype = headers.get("content-type", "")
    if ctype.split(";", 1)[0].strip().lower() != "application/json":
        problems.append(f"content-type must be application/json, got {ctype!r}")
    try:
        body = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        problems.append(f"body is not valid JSON: {exc}")
        return None, problems
    if not isinstance(body, dict):
        problems.append("body must be a JSON object")
        return body, problems
    problems.extend(_check_body(body))
    return body, problems


def _check_body(body: dict[str, Any]) -> list[str]:
    p: list[str] = []
    for extra in sorted(set(body) - KNOWN_FIELDS):
        p.append(f"{extra}: Extra inputs are not permitted")
    if not isinstance(body.get("model"), str) or not body["model"]:
        p.append("model: Field required (a non-empty string)")
    mt = body.get("max_tokens")
    if not isinstance(mt, int) or isinstance(mt, bool) or mt <= 0:
        p.append(f"max_tokens: must be an integer > 0, got {mt!r}")
    if body.get("stream"):
        p.append("stream: the stand-in does not stream")
    if "system" in body and not _valid_system(body["system"]):
        p.append("system: must be a string or a list of text blocks")
    msgs = body.get("messages")
    if not isinstance(msgs, list) or not msgs:
        p.append("messages: must be a non-empty list")
    else:
        for i, m in enumerate(msgs):
            if not isinstance(m, dict) or set(m) - {"role", "content"}:
                p.append(f"messages.{i}: must be an object with role and content only")
                continue
            if m.get("role") not in ("user", "assistant"):
                p.append(f"messages.{i}.role: must be 'user' or 'assistant', got {m.get('role')!r}")
            c = m.get("content")
            if not (isinstance(c, str) and c) and not (isinstance(c, list) and c):
                p.append(f"messages.{i}.content: must be a non-empty string or list of blocks")
        if isinstance(msgs[0], dict) and msgs[0].get("role") != "user":
            p.append("messages.0.role: the first message must use the user role")
    tools = body.get("tools")
    names: set[str] = set()
    if not isinstance(tools, list) or not tools:
        p.append("tools: must be a non-empty list")
    else:
        for i, t in enumerate(tools):
            if not isinstance(t, dict):
                p.append(f"tools.{i}: must be an object")
                continue
            if not isinstance(t.get("name"), str) or not t["name"]:
                p.append(f"tools.{i}.name: Field required")
            else:
                names.add(t["name"])
            if not isinstance(t.get("description"), str) or not t["description"]:
                p.append(f"tools.{i}.description: Field required")
            schema = t.get("input_schema")
            if not isinstance(schema, dict) or schema.get("type") != "object":
                p.append(f"tools.{i}.input_schema.type: Input should be 'object'")
    tc = body.get("tool_choice")
    if not isinstance(tc, dict) or tc.get("type") not in _TOOL_CHOICE_TYPES:
        p.append("tool_choice: must be an object with type auto, any, tool or none")
    elif tc["type"] == "tool" and tc.get("name") not in names:
        p.append(f"tool_choice.name: {tc.get('name')!r} is not one of the tools")
    return p


def _valid_system(system: Any) -> bool:
    if isinstance(system, str):
        return True
    return isinstance(system, list) and all(
        isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)
        for b in system
    )


# ---------------------------------------------------------------------- server


class AnthropicStandIn:
    """The stand-in server; a context manager (starts on enter, stops on exit)."""

    def __init__(
        self,
        *,
        api_key: str | None = None,
        default: Reply | None = None,
        forbidden: Sequence[str] = (),
        scan: Callable[[str], Sequence[str]] | None = None,
        respond: Callable[[Any], Reply | None] | None = None,
    ) -> None:
        # api_key: when given, any other key gets a 401 like the real API.
        # forbidden: raw values (secrets, PII of the test's turns) no request may carry;
        # scan: finds what is left unmasked in a message's text (kinds). Either one found
        # in a request is a violation: the requests must carry masked text only.
        self.api_key = api_key
        self.default = default
        self.forbidden = tuple(forbidden)
        self.scan = scan
        # respond: the answer to a valid request, chosen from its parsed body (called under
        # the stand-in's lock, so a stateful script needs no lock of its own); None: the
        # queue's next answer, else the default
        self.respond = respond
        self.requests: list[RecordedRequest] = []
        self.violations: list[str] = []
        self._queue: deque[Reply] = deque()
        self._lock = threading.Lock()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle
    def start(self) -> AnthropicStandIn:
        handler = _make_handler(self)
        self._server = _Server(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.02},  # shutdown() waits up to one poll
            name="anthropic-standin",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._server = self._thread = None

    def __enter__(self) -> AnthropicStandIn:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def base_url(self) -> str:
        if self._server is None:
            raise RuntimeError("the stand-in is not running")
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    # -- scripting and inspection
    def enqueue(self, *replies: Reply) -> None:
        with self._lock:
            self._queue.extend(replies)

    @property
    def pending(self) -> int:
        with self._lock:
            return len(self._queue)

    @property
    def bodies(self) -> list[Any]:
        with self._lock:
            return [r.body for r in self.requests]

    def raw_bodies(self) -> list[bytes]:
        with self._lock:
            return [r.raw for r in self.requests]

    def _unmasked(self, body: Any, raw: bytes) -> list[str]:
        """What a request carries that should have been masked (see ``forbidden``, ``scan``)."""
        texts = list(_message_texts(body))
        found = [
            f"request carries forbidden raw value #{i}"
            for i, value in enumerate(self.forbidden)
            if value.encode() in raw or any(value in t for t in texts)
        ]
        if self.scan is not None:
            for n, text in enumerate(texts):
                found.extend(f"messages.{n}: unmasked {kind}" for kind in self.scan(text))
        return found

    # -- the request path (called on the server's threads)
    def _handle(
        self, method: str, path: str, headers: dict[str, str], raw: bytes
    ) -> tuple[int, dict[str, str], bytes, Reply]:
        body, problems = check_request(method, path, headers, raw)
        problems = [*problems, *self._unmasked(body, raw)]
        with self._lock:
            self.requests.append(RecordedRequest(method, path, headers, body, raw))
            if problems:
                self.violations.extend(f"{method} {path}: {p}" for p in problems)
                reply = error_reply(400, "invalid_request_error", "; ".join(problems))
            elif self.api_key is not None and credential(headers) != self.api_key:
                reply = unauthorized()
            else:
                chosen = self.respond(body) if self.respond is not None else None
                if chosen is not None:
                    reply = chosen
                elif self._queue:
                    reply = self._queue.popleft()
                else:
                    reply = self.default or tool_use_reply([])
        if reply.action is not None or reply.raw is not None:
            return reply.status, {}, reply.raw or b"", reply
        out = dict(reply.body)
        if reply.echo_model and isinstance(body, dict):
            out["model"] = body.get("model", "")
            out["usage"] = {**out["usage"], "input_tokens": max(1, len(raw) // 4)}
        headers_out = {"request-id": out.get("request_id") or _id("req_01"), **reply.headers}
        if reply.status >= 400:
            headers_out["x-should-retry"] = (
                "true" if reply.status in (408, 409, 429) or reply.status >= 500 else "false"
            )
        return reply.status, headers_out, json.dumps(out).encode("utf-8"), reply


def _message_texts(body: Any) -> Iterator[str]:
    """The text of every message of a request body (strings and text blocks)."""
    messages = body.get("messages") if isinstance(body, dict) else None
    for m in messages if isinstance(messages, list) else ():
        content = m.get("content") if isinstance(m, dict) else None
        if isinstance(content, str):
            yield content
        elif isinstance(content, list):
            for block in content:
                if isinstance(block, dict) and isinstance(block.get("text"), str):
                    yield block["text"]


class _Server(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        # a client that gave up (a timeout test) is not a server error
        if isinstance(sys.exc_info()[1], BrokenPipeError | ConnectionResetError):
            return
        super().handle_error(request, client_address)


def _make_handler(standin: AnthropicStandIn) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        server_version = "anthropic-standin/1"

        def _serve(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length) if length > 0 else b""
            headers = {k.lower(): v for k, v in self.headers.items()}
            status, out_headers, payload, reply = standin._handle(
                self.command, self.path, headers, raw
            )
            if reply.delay:
                time.sleep(reply.delay)
            if reply.action == "reset":
                # RST instead of FIN: the client sees "connection reset by peer"
                self.connection.setsockopt(
                    socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0)
                )
                self.close_connection = True
                self.connection.close()
                return
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(payload)))
            for k, v in out_headers.items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(payload)

        do_POST = do_GET = do_PUT = do_DELETE = do_PATCH = _serve

        def log_message(self, format: str, *args: Any) -> None:  # quiet
            pass

    return Handler


@contextmanager
def running_standin(**kwargs: Any) -> Iterator[AnthropicStandIn]:
    """Fixture helper, ``with running_standin() as api: yield api`` in a fixture.

    On exit it fails the test if the stand-in recorded any protocol violation.
    """
    with AnthropicStandIn(**kwargs) as api:
        yield api
        assert api.violations == [], f"protocol violations: {api.violations}"
