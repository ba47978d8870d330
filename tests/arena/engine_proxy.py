"""A stand-in for the Docker engine's socket that a test can cut: every connection to it is
relayed to the real engine until :meth:`EngineProxy.cut`, which closes them all at once, as
an engine that dies or restarts does from its clients' side (the real engine and its
containers go on)."""

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


class EngineProxy:
    """Listens at ``path`` and relays each connection to the engine's socket."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._target = real_engine_socket()
        self._listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._listener.bind(str(path))
        self._listener.listen(64)
        self._open: list[socket.socket] = []
        self._lock = threading.Lock()
        self._cut = False
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def docker_host(self) -> str:
        return f"unix://{self.path}"

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return  # cut
            engine = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            engine.connect(self._target)
            with self._lock:
                if self._cut:
                    client.close()
                    engine.close()
                    return
                self._open += [client, engine]
            for source, sink in ((client, engine), (engine, client)):
                threading.Thread(target=self._pump, args=(source, sink), daemon=True).start()

    @staticmethod
    def _pump(source: socket.socket, sink: socket.socket) -> None:
        with suppress(OSError):
            while data := source.recv(65536):
                sink.sendall(data)
        with suppress(OSError):
            sink.shutdown(socket.SHUT_WR)  # a half-close (the end of a bot's input) goes on

    def cut(self) -> None:
        """Close the socket and every relayed connection: the engine is gone for its clients."""
        with self._lock:
            self._cut = True
            connections, self._open = self._open, []
        with suppress(OSError):
            self._listener.close()
        with suppress(OSError):
            self.path.unlink()
        for connection in connections:
            with suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)
            with suppress(OSError):
                connection.close()
