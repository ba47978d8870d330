"""A visitor of the site, over HTTP only, as a person with a browser and ``cucumbers
upload`` would be: session cookies, the forms' CSRF tokens, the API with a token."""

from __future__ import annotations

import http.cookiejar
import json
import urllib.error
import urllib.parse
import urllib.request
import uuid
from typing import Any

from stack_support import StackCheckFailed, wait_for

TIMEOUT = 15


class Visitor:
    """One browser session on the site at ``base`` (``http://127.0.0.1:PORT``)."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))

    # --- plain requests -------------------------------------------------------------

    def _open(self, request: urllib.request.Request) -> tuple[int, bytes, str]:
        try:
            with self.opener.open(request, timeout=TIMEOUT) as response:
                return response.status, response.read(), response.geturl()
        except urllib.error.HTTPError as error:
            return error.code, error.read(), error.geturl()

    def raw(self, path: str) -> bytes:
        status, body, _ = self._open(urllib.request.Request(self.base + path))
        if status != 200:
            raise StackCheckFailed(f"GET {path}: HTTP {status}: {body[:300]!r}")
        return body

    def page(self, path: str) -> str:
        return self.raw(path).decode()

    def api(self, path: str, token: str = "", data: bytes | None = None, **headers: str) -> Any:
        if token:
            headers["Authorization"] = f"Token {token}"
        url = path if path.startswith("http") else self.base + path
        request = urllib.request.Request(url, data=data, headers=headers)
        status, body, _ = self._open(request)
        if status not in (200, 201):
            raise StackCheckFailed(f"{request.get_method()} {path}: HTTP {status}: {body[:500]!r}")
        return json.loads(body)

    def wait_until_serving(self, timeout: float = 120) -> None:
        wait_for("leaderboard page through the published port", lambda: self.page("/"), timeout)

    # --- what a user does -------------------------------------------------------------

    def _csrf(self) -> str:
        return next(cookie.value or "" for cookie in self.jar if cookie.name == "csrftoken")

    def sign_up(self, username: str, email: str, password: str) -> None:
        """The sign-up form, with the CSRF token its page set; signed in afterwards."""
        self.page("/accounts/signup/")
        form = {
            "username": username,
            "email": email,
            "password1": password,
            "password2": password,
            "csrfmiddlewaretoken": self._csrf(),
        }
        request = urllib.request.Request(
            f"{self.base}/accounts/signup/",
            data=urllib.parse.urlencode(form).encode(),
            headers={"Referer": f"{self.base}/accounts/signup/"},
        )
        status, body, url = self._open(request)
        # A refused form renders again; an accepted one redirects to the new-bot page.
        if status != 200 or url.endswith("/accounts/signup/"):
            raise StackCheckFailed(f"sign-up refused (HTTP {status}): {body[-800:]!r}")

    def make_token(self, name: str) -> str:
        """An API token, made with the session (the API's CSRF check included)."""
        created = self.api(
            "/api/tokens/",
            data=json.dumps({"name": name}).encode(),
            **{"Content-Type": "application/json", "X-CSRFToken": self._csrf()},
            Referer=self.base,
        )
        return str(created["token"])

    def upload(self, token: str, bot: str, source: str) -> dict[str, Any]:
        """A new bot's first version, as ``cucumbers upload`` sends it."""
        boundary = uuid.uuid4().hex
        parts = [
            f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'
            for name, value in (("bot", bot), ("game", "five-cucumbers"))
        ]
        parts.append(
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{bot}.py"'
            f"\r\nContent-Type: text/x-python\r\n\r\n{source}\r\n--{boundary}--\r\n"
        )
        result: dict[str, Any] = self.api(
            "/api/uploads/",
            token,
            data="".join(parts).encode(),
            **{"Content-Type": f"multipart/form-data; boundary={boundary}"},
        )
        return result

    # --- what the pages and the API say -------------------------------------------------

    def version(self, token: str, bot_id: int, number: int) -> dict[str, Any]:
        rows = self.api(f"/api/bots/{bot_id}/versions/", token)
        rows = rows["results"] if isinstance(rows, dict) else rows
        found: dict[str, Any] = next(row for row in rows if row["number"] == number)
        return found

    def rated_match(self, bot_id: int, replays_shown: bool = False) -> dict[str, Any] | None:
        """A finished rated ladder match of the bot that changed its rating; with
        ``replays_shown``, one whose replays are no longer held (its deal set played)."""
        listing = self.api(f"/api/matches/?bot={bot_id}&kind=ladder&status=finished")
        for match in listing["results"]:
            seat = next((p for p in match["participants"] if p["bot"] == bot_id), None)
            if replays_shown and match.get("replays_held"):
                continue
            if match["rated"] and seat and seat["rating_change"]:
                found: dict[str, Any] = match
                return found
        return None

    def match_by_worker(self, prefix: str) -> dict[str, Any] | None:
        """The latest finished match (of the first page) played by a worker so named."""
        for match in self.api("/api/matches/?status=finished")["results"]:
            if str(match["worker"]).startswith(prefix):
                found: dict[str, Any] = match
                return found
        return None

    def leaderboard(self) -> list[tuple[str, str, float, int]]:
        """Owner, bot, rating and games of every bot the leaderboard API lists, in order."""
        rows: list[tuple[str, str, float, int]] = []
        url: str | None = "/api/leaderboard/"
        while url:
            page = self.api(url)
            rows += [
                (e["bot"]["owner"], e["bot"]["name"], e["bot"]["rating"], e["bot"]["games"])
                for e in page["results"]
            ]
            url = page.get("next")  # absolute, on this same host and port
        return rows
