"""A client that never finishes its request loses its connection (slowloris, attack20).

uvicorn waits for a request's headers and body without a limit: 100 connections that
sent half a request line, or headers with ``Content-Length: 1000`` and six bytes, were all
still open 15 s later (and would have been forever), each holding a file descriptor. Now
a request must arrive whole within ``http_request_timeout_s`` of the server waiting for
it; other clients are served meanwhile, and a slow *app* is never cut.
"""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from memgate.asgi import BackgroundServer

TIMEOUT = 0.5


async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] != "http":
        return
    body = b""
    while True:
        msg = await receive()
        body += msg.get("body", b"")
        if not msg.get("more_body"):
            break
    if scope["path"] == "/slow":
        await asyncio.sleep(3 * TIMEOUT)  # the app's own time is not the client's
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"text/plain")]})  # fmt: skip
    await send({"type": "http.response.body", "body": b"ok %d" % len(body)})


@pytest.fixture
def server() -> Iterator[BackgroundServer]:
    with BackgroundServer(app, request_timeout=TIMEOUT) as srv:
        yield srv


def _open(srv: BackgroundServer, data: bytes) -> socket.socket:
    s = socket.create_connection((srv.host, srv.port))
    if data:
        s.sendall(data)
    return s


def _closed_within(s: socket.socket, seconds: float) -> bool:
    """True when the server closed ``s`` (after any response) within ``seconds``."""
    s.settimeout(seconds)
    try:
        while s.recv(4096):
            pass
    except TimeoutError:
        return False
    except ConnectionResetError:
        return True
    return True


def test_unfinished_requests_are_closed_and_others_served(server: BackgroundServer) -> None:
    slow = [
        _open(server, b""),  # connected, nothing sent
        _open(server, b"GET /x HTT"),  # half a request line
        _open(server, b"GET /x HTTP/1.1\r\nHost: x\r\n"),  # headers never end
        _open(server, b'POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{"mess'),
    ]
    # the others are served meanwhile
    r = httpx.post(f"{server.url}/x", content=b"hello", timeout=10)
    assert r.status_code == 200 and r.text == "ok 5"
    started = time.monotonic()
    assert all(_closed_within(s, 10) for s in slow)
    assert time.monotonic() - started < 5
    for s in slow:
        s.close()


def test_a_trickle_of_bytes_does_not_keep_a_request_alive(server: BackgroundServer) -> None:
    s = _open(server, b"GET /x HTTP/1.1\r\n")
    started = time.monotonic()
    closed = False
    for _ in range(40):  # a header line every TIMEOUT/5 s: never complete
        try:
            s.sendall(b"X-A: b\r\n")
        except (BrokenPipeError, ConnectionResetError):
            closed = True
            break
        time.sleep(TIMEOUT / 5)
    assert closed or _closed_within(s, 0.1)
    assert time.monotonic() - started < 6 * TIMEOUT
    s.close()


def test_a_slow_app_and_a_second_request_are_not_cut(server: BackgroundServer) -> None:
    with httpx.Client(timeout=10) as c:  # one keep-alive connection
        assert c.get(f"{server.url}/slow").text == "ok 0"
        time.sleep(TIMEOUT / 2)
        assert c.post(f"{server.url}/x", content=b"abc").text == "ok 3"
    # after a response, a half-sent next request is closed too
    s = _open(server, b"GET /x HTTP/1.1\r\nHost: x\r\n\r\n")
    s.settimeout(5)
    assert s.recv(4096).startswith(b"HTTP/1.1 200")
    s.sendall(b"GET /x HTTP/1.1\r\nHo")
    assert _closed_within(s, 5)
    s.close()
