#!/usr/bin/env python3
"""The web container's health check: asks gunicorn for the leaderboard as the proxy would
(a host of ``ALLOWED_HOSTS``, ``X-Forwarded-Proto: https``), so that neither Django's host
check nor ``SECURE_SSL_REDIRECT`` turns the probe away. It asks where gunicorn listens
(``GUNICORN_BIND``): the Unix socket the proxy uses in docker-compose.yml, or a port of
this container. Exit 0 when healthy."""

from __future__ import annotations

import http.client
import os
import socket
import sys

DEFAULT_BIND = "0.0.0.0:8000"
TIMEOUT = 4.0


class UnixConnection(http.client.HTTPConnection):
    """HTTP over gunicorn's Unix socket."""

    def __init__(self, path: str) -> None:
        super().__init__("localhost", timeout=TIMEOUT)
        self.path = path

    def connect(self) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(TIMEOUT)
        self.sock.connect(self.path)


def connection(bind: str) -> http.client.HTTPConnection:
    """A connection to the first address of ``bind`` (gunicorn's setting, commas allowed)."""
    first = bind.split(",")[0].strip()
    if first.startswith("unix:"):
        return UnixConnection(first.removeprefix("unix:"))
    port = first.rsplit(":", 1)[1] if ":" in first else "8000"
    return http.client.HTTPConnection("127.0.0.1", int(port), timeout=TIMEOUT)


def probe_host() -> str:
    hosts = [h.strip() for h in os.environ.get("ALLOWED_HOSTS", "").split(",") if h.strip()]
    host = hosts[0] if hosts else "localhost"
    if host == "*":
        return "localhost"
    return host.lstrip(".")  # ".example.org" allows example.org and its subdomains


def main() -> int:
    client = connection(os.environ.get("GUNICORN_BIND", DEFAULT_BIND))
    try:
        # A redirect (to https, or a trailing slash) proves the application answers: it is
        # not followed.
        client.request("GET", "/", headers={"Host": probe_host(), "X-Forwarded-Proto": "https"})
        status = client.getresponse().status
    except (OSError, http.client.HTTPException) as error:
        print(f"unhealthy: {error}", file=sys.stderr)
        return 1
    finally:
        client.close()
    if status >= 400:
        print(f"unhealthy: HTTP {status}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
