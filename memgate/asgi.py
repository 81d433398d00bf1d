"""Serving an ASGI app with uvicorn: in the foreground (``memgate serve``, ``memgate mcp
--transport http``) or from a thread (tests, benchmarks), on a socket with TCP_NODELAY."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from memgate.core.errors import MemgateError

__all__ = ["BackgroundServer", "bind", "run"]

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


def run(app: ASGIApp, host: str, port: int) -> None:
    """Serve ``app`` with uvicorn in the foreground until interrupted."""
    import uvicorn

    sock = bind(host, port)
    try:
        uvicorn.Server(uvicorn.Config(app, log_level="warning")).run(sockets=[sock])
    finally:
        sock.close()


class BackgroundServer:
    """uvicorn serving an ASGI app from a daemon thread on ``host:port`` (0: a free port)."""

    def __init__(self, app: ASGIApp, host: str = "127.0.0.1", port: int = 0) -> None:
        import uvicorn

        self.sock = bind(host, port)
        self.host, self.port = host, int(self.sock.getsockname()[1])
        config = uvicorn.Config(app, log_level="warning", lifespan="auto")
        self.server = uvicorn.Server(config)
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
