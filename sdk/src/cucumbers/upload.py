"""Upload a bot to a Cucumber Arena server: the engine of ``cucumbers upload``.

Standard library only. The API token comes from ``--token``, else the ``CUCUMBERS_TOKEN``
environment variable, else ``token`` in ``~/.config/cucumbers/config.toml`` (which may also
set ``server``)::

    server = "https://arena.example.org"
    token = "cuc_..."

>>> upload_bot(Path("mybot.py"), "mybot", server=..., token=...)   # doctest: +SKIP
UploadResult(bot='mybot', version=3, status='queued', url='https://.../bots/12/', bot_id=12)
"""

from __future__ import annotations

import difflib
import ipaddress
import json
import os
import secrets
import tomllib
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DEFAULT_SERVER = "http://127.0.0.1:8000"
TOKEN_VARIABLE = "CUCUMBERS_TOKEN"
SERVER_VARIABLE = "CUCUMBERS_SERVER"
UPLOAD_PATH = "/api/uploads/"
TIMEOUT_SECONDS = 60.0


class UploadFailed(Exception):
    """The upload did not happen; the message says why and what to do."""


@dataclass(frozen=True, slots=True)
class UploadResult:
    """What the server stored: the bot's name, the new version's number, its validation
    status (``queued`` at first) and the bot's page."""

    bot: str
    version: int
    status: str
    url: str
    #: The bot's id in the API (``/api/bots/<id>/``), when the server gave it.
    bot_id: int | None = None


def config_path() -> Path:
    """``$XDG_CONFIG_HOME/cucumbers/config.toml`` (default ``~/.config/...``)."""
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "cucumbers" / "config.toml"


def read_config(path: Path | None = None) -> dict[str, Any]:
    """The config file's keys, or an empty dict when there is no file."""
    path = path or config_path()
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except FileNotFoundError:
        return {}
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise UploadFailed(f"cannot read {path}: {error}") from None


def resolve(
    server: str | None, token: str | None, config: dict[str, Any] | None = None
) -> tuple[str, str]:
    """The server and token to use, from the arguments, the environment or the config."""
    config = read_config() if config is None else config
    server = server or os.environ.get(SERVER_VARIABLE) or config.get("server") or DEFAULT_SERVER
    token = token or os.environ.get(TOKEN_VARIABLE) or config.get("token")
    if not token:
        raise UploadFailed(
            f"no API token: create one on the server's token page, then pass --token, set"
            f' {TOKEN_VARIABLE}, or put token = "..." in {config_path()}'
        )
    return str(server).rstrip("/"), str(token)


def _mistyped_loopback(host: str) -> bool:
    """``localhots``, ``127.0.0.l``, ``127.0.01``...: this machine's name, mistyped."""
    if host.startswith("127.") and not _is_loopback(host):
        return True
    return host != "localhost" and difflib.SequenceMatcher(None, host, "localhost").ratio() >= 0.8


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_server(server: str, allow_http: bool = False) -> None:
    """The token is only ever sent over HTTPS, or plain HTTP to this machine (``make run``),
    unless ``allow_http`` says otherwise. Raises :class:`UploadFailed`."""
    parts = urllib.parse.urlsplit(server)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UploadFailed(
            f"not a server address: {server!r} (use https://host or http://127.0.0.1:8000)"
        )
    if parts.scheme == "http" and not allow_http and _mistyped_loopback(parts.hostname):
        raise UploadFailed(
            f"{parts.hostname!r} in {server} is not this machine's name: a typo for localhost"
            " or 127.0.0.1? (plain http goes to this machine only)"
        )
    if parts.scheme == "http" and not allow_http and not _is_loopback(parts.hostname):
        raise UploadFailed(
            f"refusing to send your token in clear text to {server}: use https://"
            " (plain http only to this machine, or pass --allow-http on a network you trust)"
        )


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """Redirects are never followed: urllib would send the token on to wherever one points
    (another host included), turning the POST into a GET that carries the header."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


_OPENER = urllib.request.build_opener(_NoRedirect)


def _multipart(fields: dict[str, str], filename: str, data: bytes) -> tuple[bytes, str]:
    boundary = f"cucumbers-{secrets.token_hex(16)}"
    parts: list[bytes] = []
    for name, value in fields.items():
        parts.append(
            f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n'
            f"{value}\r\n".encode()
        )
    safe_name = filename.replace('"', "").replace("\r", "").replace("\n", "")
    parts.append(
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{safe_name}"'
        f"\r\nContent-Type: text/x-python\r\n\r\n".encode()
        + data
        + b"\r\n"
    )
    parts.append(f"--{boundary}--\r\n".encode())
    return b"".join(parts), f"multipart/form-data; boundary={boundary}"


def unreachable(server: str, reason: object) -> str:
    """Why ``server`` did not answer; for the default server (none was named), how to name
    the arena's: a newcomer who left out ``--server`` reads that this machine was tried."""
    text = f"cannot reach {server}: {reason}"
    if server == DEFAULT_SERVER:
        text += (
            f". That is the default, a site on this machine: for another arena pass"
            f' --server URL, or set {SERVER_VARIABLE} (or server = "URL" in {config_path()})'
        )
    return text


#: Statuses that an arena's API does not answer with a page: an HTML (or empty) one from a
#: web server that has no such path, or no such method, is another kind of server.
_NOT_AN_API = (404, 405, 501)


def not_an_arena(server: str, answer: str, path: str) -> str:
    """The message for a server whose answer at ``path`` is not the arena API's."""
    return (
        f"{server} does not look like a Cucumber Arena server: it answered {answer} at"
        f" {path}, where an arena's API answers in JSON; is that the site's address? (pass"
        f" --server URL, or set {SERVER_VARIABLE})"
    )


def foreign_error(status: int, body: bytes) -> bool:
    """Whether an error answer comes from something else than an arena's API (which
    answers every error in JSON)."""
    if status not in _NOT_AN_API:
        return False
    try:
        json.loads(body)
    except ValueError:
        return True
    return False


def _error_message(status: int, body: bytes) -> str:
    try:
        payload = json.loads(body)
    except ValueError:
        return f"the server answered {status}"
    if isinstance(payload, dict):
        if "detail" in payload:
            return str(payload["detail"])
        problems = [
            f"{key}: {' '.join(map(str, value)) if isinstance(value, list) else value}"
            for key, value in payload.items()
        ]
        if problems:
            return "; ".join(problems)
    return f"the server answered {status}"


def upload_bot(
    path: Path,
    bot: str,
    *,
    server: str,
    token: str,
    game: str | None = None,
    timeout: float = TIMEOUT_SECONDS,
    allow_http: bool = False,
) -> UploadResult:
    """Upload ``path`` as a new version of your bot ``bot`` (created for ``game`` when you
    have none of that name). Raises :class:`UploadFailed`."""
    check_server(server, allow_http)
    try:
        data = path.read_bytes()
    except OSError as error:
        raise UploadFailed(f"cannot read {path}: {error.strerror or error}") from None
    fields = {"bot": bot} | ({"game": game} if game else {})
    body, content_type = _multipart(fields, path.name, data)
    request = urllib.request.Request(
        server + UPLOAD_PATH,
        data=body,
        method="POST",
        headers={
            "Content-Type": content_type,
            "Authorization": f"Token {token}",
            "Accept": "application/json",
        },
    )
    try:
        with _OPENER.open(request, timeout=timeout) as response:
            payload = json.loads(response.read())
    except urllib.error.HTTPError as error:
        if 300 <= error.code < 400:
            where = error.headers.get("Location", "elsewhere")
            raise UploadFailed(
                f"{server} redirected the upload to {where}: not followed (your token stays"
                " here); if you trust that address, use it as --server"
            ) from None
        body = error.read()
        if foreign_error(error.code, body):
            raise UploadFailed(not_an_arena(server, str(error.code), UPLOAD_PATH)) from None
        message = _error_message(error.code, body)
        raise UploadFailed(f"upload refused ({error.code}): {message}") from None
    except urllib.error.URLError as error:
        raise UploadFailed(unreachable(server, error.reason)) from None
    except (TimeoutError, OSError) as error:
        raise UploadFailed(unreachable(server, error)) from None
    except ValueError:
        raise UploadFailed(not_an_arena(server, "a page that is not JSON", UPLOAD_PATH)) from None
    try:
        return UploadResult(
            bot=str(payload["bot"]["name"]),
            version=int(payload["version"]["number"]),
            status=str(payload["version"]["status"]),
            url=str(payload["bot"]["url"]),
            bot_id=int(payload["bot"]["id"]) if "id" in payload["bot"] else None,
        )
    except (KeyError, TypeError, ValueError):
        raise UploadFailed(f"{server} answered something unexpected") from None
