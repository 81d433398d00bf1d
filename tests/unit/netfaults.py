"""Network faults for tests, with real sockets: a port nothing listens on, and a listener
that accepts connections and never answers (a hung server)."""

from __future__ import annotations

import socket
import threading


def closed_port() -> int:
    """A loopback port nothing listens on (a server that is down)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Silent:
    """A TCP listener that accepts connections and never answers (a hung server)."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.port = int(self.sock.getsockname()[1])
        self.held: list[socket.socket] = []
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.held.append(conn)

    def close(self) -> None:
        self.sock.close()
        for c in self.held:
            c.close()

    def __enter__(self) -> Silent:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
