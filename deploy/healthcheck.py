#!/usr/bin/env python3
"""The web container's health check: asks gunicorn for the leaderboard as the TLS proxy
would (a host of ``ALLOWED_HOSTS``, ``X-Forwarded-Proto: https``), so that neither Django's
host check nor ``SECURE_SSL_REDIRECT`` turns the probe away. Exit 0 when healthy."""

from __future__ import annotations

import os
import sys
import urllib.error
import urllib.request

URL = "http://127.0.0.1:8000/"


class NoRedirect(urllib.request.HTTPRedirectHandler):
    # A redirect (to https, or a trailing slash) proves the application answers: following
    # it would leave the container.
    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None


def probe_host() -> str:
    hosts = [h.strip() for h in os.environ.get("ALLOWED_HOSTS", "").split(",") if h.strip()]
    host = hosts[0] if hosts else "localhost"
    if host == "*":
        return "localhost"
    return host.lstrip(".")  # ".example.org" allows example.org and its subdomains


def main() -> int:
    request = urllib.request.Request(
        URL, headers={"Host": probe_host(), "X-Forwarded-Proto": "https"}
    )
    opener = urllib.request.build_opener(NoRedirect)
    try:
        with opener.open(request, timeout=4) as response:
            status = response.status
    except urllib.error.HTTPError as error:
        status = error.code
    except OSError as error:
        print(f"unhealthy: {error}", file=sys.stderr)
        return 1
    if status >= 400:
        print(f"unhealthy: HTTP {status}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
