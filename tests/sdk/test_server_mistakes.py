"""``cucumbers upload``, ``matches`` and ``download`` run on the two mistakes a newcomer makes
with the server: no ``--server`` (the default, this machine, where nothing listens) and the
address of a web server that is not an arena (a plain ``http.server``, which answers 404 to
a GET and 501 to a POST). Each says what happened and what to pass."""

from __future__ import annotations

import functools
import socket
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from cucumbers import upload
from cucumbers.cli import main

BOT = "def play(view):\n    return view.legal[0]\n"


@pytest.fixture(autouse=True)
def _no_user_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    for name in ("CUCUMBERS_TOKEN", "CUCUMBERS_SERVER", "CUCUMBERS_USER"):
        monkeypatch.delenv(name, raising=False)
    (tmp_path / "mybot.py").write_text(BOT)
    monkeypatch.chdir(tmp_path)


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class QuietFileServer(SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass  # its request log would go to the test's stderr, among the CLI's words


@pytest.fixture
def plain_web_server(tmp_path: Path) -> Iterator[str]:
    """Python's own file server over an empty folder: a web server, but no arena."""
    (tmp_path / "site").mkdir()
    handler = functools.partial(QuietFileServer, directory=str(tmp_path / "site"))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    server.server_close()


COMMANDS = {
    "upload": ["upload", "mybot.py", "--bot", "mybot", "--game", "five-cucumbers"],
    "matches": ["matches", "--bot", "mybot"],
    "download": ["download", "--bot", "mybot"],
}


def error_of(args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert main([*args, "--token", "cuc_x"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    return captured.err.strip()


@pytest.mark.parametrize("command", list(COMMANDS))
def test_no_server_named_says_the_default_was_tried_and_how_to_name_the_arena(
    command: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The default is http://127.0.0.1:8000; here a port where surely nothing listens.
    default = f"http://127.0.0.1:{closed_port()}"
    monkeypatch.setattr(upload, "DEFAULT_SERVER", default)
    error = error_of(COMMANDS[command], capsys)
    assert error.startswith(f"cucumbers: error: cannot reach {default}: ")
    assert "Connection refused" in error
    assert error.endswith(
        ". That is the default, a site on this machine: for another arena pass --server URL,"
        ' or set CUCUMBERS_SERVER (or server = "URL" in '
        f"{upload.config_path()})"
    )


def test_a_named_server_that_does_not_answer_is_named_without_the_default_hint(
    capsys: pytest.CaptureFixture[str],
) -> None:
    server = f"http://127.0.0.1:{closed_port()}"
    error = error_of([*COMMANDS["upload"], "--server", server], capsys)
    assert error.startswith(f"cucumbers: error: cannot reach {server}: ")
    assert "default" not in error and "--server" not in error


@pytest.mark.parametrize(
    ("command", "status", "path"),
    [
        ("upload", 501, "/api/uploads/"),
        ("matches", 404, "/api/bots/"),
        ("download", 404, "/api/bots/"),
    ],
)
def test_a_web_server_that_is_not_an_arena_is_called_so(
    plain_web_server: str,
    command: str,
    status: int,
    path: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    error = error_of([*COMMANDS[command], "--server", plain_web_server], capsys)
    assert error == (
        f"cucumbers: error: {plain_web_server} does not look like a Cucumber Arena server: it"
        f" answered {status} at {path}, where an arena's API answers in JSON; is that the"
        " site's address? (pass --server URL, or set CUCUMBERS_SERVER)"
    )


def test_a_web_server_that_answers_a_page_is_not_an_arena_either(
    plain_web_server: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A file server with a folder where the API would be: 200 and a listing, not JSON.
    (tmp_path / "site" / "api" / "bots").mkdir(parents=True)
    error = error_of([*COMMANDS["matches"], "--server", plain_web_server], capsys)
    assert error == (
        f"cucumbers: error: {plain_web_server} does not look like a Cucumber Arena server: it"
        " answered a page that is not JSON at /api/bots/, where an arena's API answers in JSON;"
        " is that the site's address? (pass --server URL, or set CUCUMBERS_SERVER)"
    )
