"""Serving an ASGI app with uvicorn: in the foreground (``memgate serve``, ``memgate mcp
--transport http``) or from a thread (tests, benchmarks), on a socket with TCP_NODELAY.

A client has :data:`REQUEST_TIMEOUT_S` seconds (the ``http_request_timeout_s`` setting)
to send a whole request, headers and body, from the moment the server waits for it (a
new connection, or the end of the previous response): uvicorn has no such limit, so a
client that sent half a request line, or a Content-Length and then nothing, held its
connection forever, and a few thousand of them would use up the process's file
descriptors (slowloris, attack20). The connection is then closed; a request that arrived
whole is never cut, however long the app takes on it.
"""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any, Final

from memgate.core.errors import MemgateError

__all__ = ["REQUEST_TIMEOUT_S", "BackgroundServer", "bind", "run"]

#: Seconds a client has to send a whole request (the default of ``http_request_timeout_s``).
REQUEST_TIMEOUT_S: Final = 30.0

ASGIApp = Callable[
    [MutableMapping[str, Any], Callable[[], Awaitable[Any]], Callable[[Any], Awaitable[None]]],
    Awaitable[None],
]


def bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket with TCP_NODELAY (inherited by accepted connections): without
    it a response written in two parts waits for the client's delayed ACK, ~40 ms each."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind((host, port))
    return sock


def timed_protocol(timeout: float) -> type[asyncio.Protocol]:
    """uvicorn's HTTP protocol, closing a connection whose request has not arrived whole
    ``timeout`` seconds after the server started waiting for it."""
    from uvicorn.protocols.http.auto import AutoHTTPProtocol

    class TimedProtocol(AutoHTTPProtocol):  # type: ignore[valid-type,misc]
        _request_timer: asyncio.TimerHandle | None = None

        def _arm(self) -> None:
            self._disarm()
            self._request_timer = self.loop.call_later(timeout, self._too_slow)

        def _disarm(self) -> None:
            if self._request_timer is not None:
                self._request_timer.cancel()
                self._request_timer = None

        def _too_slow(self) -> None:
            self._request_timer = None
            cycle = self.cycle
            # waiting for a request (none yet, or the last one answered), or for its body
            waiting = cycle is None or cycle.response_complete or cycle.more_body
            if waiting and not self.transport.is_closing():
                self.transport.close()

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._arm()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

    return TimedProtocol


def _config(app: ASGIApp, request_timeout: float) -> Any:
    import uvicorn

    return uvicorn.Config(
        app, log_level="warning", lifespan="auto", http=timed_protocol(request_timeout)
    )


def run(app: ASGIApp, host: str, port: int, request_timeout: float = REQUEST_TIMEOUT_S) -> None:
    """Serve ``app`` with uvicorn in the foreground until interrupted."""
    import uvicorn

    sock = bind(host, port)
    try:
        uvicorn.Server(_config(app, request_timeout)).run(sockets=[sock])
    finally:
        sock.close()


class BackgroundServer:
    """uvicorn serving an ASGI app from a daemon thread on ``host:port`` (0: a free port)."""

    def __init__(
        self,
        app: ASGIApp,
        host: str = "127.0.0.1",
        port: int = 0,
        request_timeout: float = REQUEST_TIMEOUT_S,
    ) -> None:
        import uvicorn

        self.sock = bind(host, port)
        self.host, self.port = host, int(self.sock.getsockname()[1])
        self.server = uvicorn.Server(_config(app, request_timeout))
        self.thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True,
            name="memgate-http",
        )  # fmt: skip

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def start(self, timeout: float = 30.0) -> BackgroundServer:
        self.thread.start()
        deadline = time.monotonic() + timeout
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise MemgateError(f"the HTTP server did not start on {self.url}")
            time.sleep(0.02)
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)
        self.sock.close()

    def __enter__(self) -> BackgroundServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
