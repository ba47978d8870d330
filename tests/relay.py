"""Stand-ins for a server's socket that a test can cut: every connection is relayed to the
real server until :meth:`SocketRelay.cut`, which closes them all at once, as a server that
dies or restarts does from its clients' side (the real server goes on). Listening again at
the same address is the server coming back.

- :class:`EngineProxy`: the Docker engine's unix socket (its containers go on).
- :class:`TcpRelay`: a TCP server, such as PostgreSQL, on a port of its own.
"""

from __future__ import annotations

import os
import socket
import threading
from contextlib import suppress
from pathlib import Path


def real_engine_socket() -> str:
    """The path of the engine's unix socket this process uses."""
    host = os.environ.get("DOCKER_HOST", "unix:///var/run/docker.sock")
    if not host.startswith("unix://"):
        raise RuntimeError(f"the engine proxy needs a unix socket, not {host}")
    return host.removeprefix("unix://")


#: A socket's address: a unix socket's path, or a TCP (host, port).
Address = str | tuple[str, int]


class SocketRelay:
    """Listens at ``address`` (of ``family``) and relays each connection to ``target``."""

    def __init__(self, family: socket.AddressFamily, address: Address, target: Address) -> None:
        self._family = family
        self._target = target
        self._listener = socket.socket(family, socket.SOCK_STREAM)
        if family == socket.AF_INET:
            self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._listener.bind(address)
        self._listener.listen(64)
        self.address = self._listener.getsockname()
        self._open: list[socket.socket] = []
        self._lock = threading.Lock()
        self._cut = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return  # cut
            server = socket.socket(self._family, socket.SOCK_STREAM)
            server.connect(self._target)
            with self._lock:
                if self._cut:
                    client.close()
                    server.close()
                    return
                self._open += [client, server]
            for source, sink in ((client, server), (server, client)):
                threading.Thread(target=self._pump, args=(source, sink), daemon=True).start()

    @staticmethod
    def _pump(source: socket.socket, sink: socket.socket) -> None:
        with suppress(OSError):
            while data := source.recv(65536):
                sink.sendall(data)
        with suppress(OSError):
            sink.shutdown(socket.SHUT_WR)  # a half-close (the end of a bot's input) goes on

    def cut(self) -> None:
        """Stop listening and close every relayed connection: the server is gone."""
        with self._lock:
            self._cut = True
            connections, self._open = self._open, []
        with suppress(OSError):
            self._listener.close()
        self._closed()
        for connection in connections:
            with suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)
            with suppress(OSError):
                connection.close()

    def _closed(self) -> None:
        """What else goes with the listener (a unix socket's file)."""


class EngineProxy(SocketRelay):
    """The Docker engine's socket, at ``path``."""

    def __init__(self, path: Path) -> None:
        self.path = path
        super().__init__(socket.AF_UNIX, str(path), real_engine_socket())

    @property
    def docker_host(self) -> str:
        return f"unix://{self.path}"

    def _closed(self) -> None:
        with suppress(OSError):
            self.path.unlink()


class TcpRelay(SocketRelay):
    """A TCP server at ``host:port``, relayed from a port of this relay's (``port=0``: a
    free one; the same port again when the server comes back)."""

    def __init__(self, host: str, port: int, listen_port: int = 0) -> None:
        super().__init__(socket.AF_INET, ("127.0.0.1", listen_port), (host, port))

    @property
    def port(self) -> int:
        return int(self.address[1])
