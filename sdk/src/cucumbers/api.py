"""Read from a Cucumber Arena server's API: the client of ``upload --wait``, ``matches`` and
``download``.

Standard library only, and the transport of ``cucumbers upload`` (:mod:`cucumbers.upload`):
the token goes only over HTTPS or to this machine (unless ``allow_http``), redirects are
never followed, and every URL the server hands back (the next page, a replay) must be on
the same server, or the token would travel with the request to wherever it points.

>>> client = Client("https://arena.example.org", "cuc_...")               # doctest: +SKIP
>>> bot = client.find_bot("mybot")                                        # doctest: +SKIP
>>> [match["id"] for match in client.pages(f"/api/matches/?bot={bot['id']}")]  # doctest: +SKIP
[41, 37, 12]
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from typing import Any

from .upload import (
    _OPENER,
    TIMEOUT_SECONDS,
    UploadFailed,
    _error_message,
    check_server,
    foreign_error,
    not_an_arena,
    unreachable,
)

#: Where the arena's API lives on its server.
API_PREFIX = "/api/"
#: Version statuses whose validation is not over (the site's ``PENDING_STATUSES``).
PENDING = ("queued", "validating")
#: Tries of one request while the server answers 429, and the longest wait between two.
RETRIES = 5
MAX_RETRY_SECONDS = 60.0


class RequestFailed(UploadFailed):
    """A request to the server failed; the message says why and what to do."""


class Client:
    """Authenticated JSON requests to one server."""

    def __init__(
        self,
        server: str,
        token: str,
        *,
        allow_http: bool = False,
        timeout: float = TIMEOUT_SECONDS,
    ) -> None:
        check_server(server, allow_http)
        self.server = server.rstrip("/")
        self.token = token
        self.timeout = timeout
        self._origin = _origin(self.server)

    def url(self, path_or_url: str) -> str:
        """An absolute URL on this server; refuses one that points elsewhere."""
        url = urllib.parse.urljoin(self.server + "/", path_or_url)
        if _origin(url) != self._origin:
            raise RequestFailed(
                f"the server pointed to {url}, which is not {self.server}: not followed"
                " (your token stays here)"
            )
        return url

    def get_bytes(self, path_or_url: str) -> bytes:
        """The body of a GET (with the token). Raises :class:`RequestFailed`.

        A 429 (the API's rate limit, which a long download reaches) is waited out as its
        ``Retry-After`` says, up to :data:`MAX_RETRY_SECONDS` each time, :data:`RETRIES`
        times."""
        url = self.url(path_or_url)
        request = urllib.request.Request(
            url,
            headers={"Authorization": f"Token {self.token}", "Accept": "application/json"},
        )
        for _ in range(RETRIES):
            try:
                with _OPENER.open(request, timeout=self.timeout) as response:
                    return bytes(response.read())
            except urllib.error.HTTPError as error:
                if error.code != 429:
                    raise self._failure(url, error) from None
                time.sleep(_retry_after(error.headers.get("Retry-After")))
            except urllib.error.URLError as error:
                raise RequestFailed(unreachable(self.server, error.reason)) from None
            except (TimeoutError, OSError) as error:
                raise RequestFailed(unreachable(self.server, error)) from None
        raise RequestFailed(f"{url}: still rate-limited (429) after {RETRIES} tries; try later")

    def _failure(self, url: str, error: urllib.error.HTTPError) -> RequestFailed:
        if 300 <= error.code < 400:
            where = error.headers.get("Location", "elsewhere")
            return RequestFailed(
                f"{url} redirected to {where}: not followed (your token stays here)"
            )
        body = error.read()
        # Only the API answers every error in JSON (a replay's file is a page of the site).
        if _path(url).startswith(API_PREFIX) and foreign_error(error.code, body):
            return RequestFailed(not_an_arena(self.server, str(error.code), _path(url)))
        message = _error_message(error.code, body)
        return RequestFailed(f"{url}: refused ({error.code}): {message}")

    def get(self, path_or_url: str) -> Any:
        """The JSON answer of a GET."""
        body = self.get_bytes(path_or_url)
        try:
            return json.loads(body)
        except ValueError:
            raise RequestFailed(
                not_an_arena(self.server, "a page that is not JSON", _path(self.url(path_or_url)))
            ) from None

    def pages(self, path: str) -> Iterator[dict[str, Any]]:
        """Every item of a paginated list, page after page (``next``), with no cap."""
        url: str | None = path
        while url is not None:
            page = self.get(url)
            if not isinstance(page, dict) or not isinstance(page.get("results"), list):
                raise RequestFailed(f"{self.server} answered a list without pages")
            yield from page["results"]
            url = page.get("next")

    def find_bot(self, name: str, owner: str | None = None) -> dict[str, Any]:
        """The bot called ``name`` (or ``owner/name``, or its numeric id).

        The API cannot filter bots by name nor say who the token belongs to, so a bare name
        is looked up in the owner's bots when ``owner`` is known, else among every bot.
        """
        if name.isdigit():
            return dict(self.get(f"/api/bots/{name}/"))
        if "/" in name:
            owner, name = name.split("/", 1)
        query = "/api/bots/" + (f"?{urllib.parse.urlencode({'owner': owner})}" if owner else "")
        found = [
            bot for bot in self.pages(query) if str(bot.get("name", "")).lower() == name.lower()
        ]
        if not found:
            whose = f" of {owner}" if owner else ""
            raise RequestFailed(f"no bot {name!r}{whose} on {self.server}")
        if len(found) > 1:
            names = ", ".join(f"{bot['owner']}/{bot['name']}" for bot in found)
            raise RequestFailed(f"several bots are called {name!r} ({names}): give OWNER/NAME")
        return dict(found[0])

    def wait_for_version(
        self,
        bot_id: int,
        number: int,
        *,
        deadline_seconds: float,
        poll_seconds: float = 2.0,
        on_status: Callable[[str], None] | None = None,
    ) -> dict[str, Any]:
        """Poll the version until its validation is over; its API entry. ``on_status`` is
        called with each new status. Raises :class:`RequestFailed` at the deadline."""
        deadline = time.monotonic() + deadline_seconds
        last = None
        while True:
            version = dict(self.get(f"/api/bots/{bot_id}/versions/{number}/"))
            status = str(version.get("status"))
            if status != last and on_status is not None:
                on_status(status)
            last = status
            if status not in PENDING:
                return version
            if time.monotonic() + poll_seconds > deadline:
                raise RequestFailed(
                    f"still {status} after {deadline_seconds:g} s: the verdict will be on the"
                    " bot's page (or wait longer with --wait-timeout)"
                )
            time.sleep(poll_seconds)


def _retry_after(header: str | None) -> float:
    """Seconds to wait for a 429's ``Retry-After`` (seconds; a date or nothing: 1 s)."""
    try:
        seconds = float(header) if header is not None else 1.0
    except ValueError:
        seconds = 1.0
    return min(max(seconds, 0.0), MAX_RETRY_SECONDS)


def _path(url: str) -> str:
    """The path of ``url`` (its query left out), as a message names where the server was asked."""
    return urllib.parse.urlsplit(url).path or "/"


def _origin(url: str) -> tuple[str, str, int | None]:
    parts = urllib.parse.urlsplit(url)
    port = parts.port or {"http": 80, "https": 443}.get(parts.scheme)
    return parts.scheme, (parts.hostname or "").lower(), port
