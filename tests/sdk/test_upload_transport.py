"""``cucumbers upload`` keeps the token where it belongs: never sent on after a redirect
(to another host or anywhere), never in clear text to a server other than this machine
unless ``--allow-http``. Real HTTP servers on the loopback; no Django."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

import pytest

from cucumbers.cli import main
from cucumbers.upload import UploadFailed, check_server


class Recorder(BaseHTTPRequestHandler):
    """Answers every request with ``self.server.answer`` and records its headers."""

    def do_GET(self) -> None:
        self._answer()

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self._answer()

    def _answer(self) -> None:
        server: RecordingServer = self.server  # type: ignore[assignment]
        server.seen.append((self.command, self.path, dict(self.headers)))
        status, headers = server.answer
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


class RecordingServer(HTTPServer):
    def __init__(self, answer: tuple[int, dict[str, str]]) -> None:
        super().__init__(("127.0.0.1", 0), Recorder)
        self.answer = answer
        self.seen: list[tuple[str, str, dict[str, str]]] = []
        threading.Thread(target=self.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


@pytest.fixture
def elsewhere() -> Iterator[RecordingServer]:
    server = RecordingServer((200, {}))
    yield server
    server.shutdown()


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
def test_a_redirect_is_never_followed_with_the_token(
    status: int, elsewhere: RecordingServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = f"{elsewhere.url.replace('127.0.0.1', 'localhost')}/steal/"
    redirecting = RecordingServer((status, {"Location": target}))
    bot = tmp_path / "b.py"
    bot.write_text("def play(view):\n    return view.legal[0]\n")
    try:
        code = main(
            ["upload", str(bot), "--bot", "b", "--server", redirecting.url, "--token", "cuc_x"]
        )
    finally:
        redirecting.shutdown()
    assert code != 0
    assert elsewhere.seen == []  # nothing reached the other host: no token, no source
    ((method, path, headers),) = redirecting.seen
    assert (method, path, headers["Authorization"]) == ("POST", "/api/uploads/", "Token cuc_x")
    err = capsys.readouterr().err
    assert f"redirected the upload to {target}: not followed" in err


@pytest.mark.parametrize(
    "server",
    ["http://arena.example.org", "http://192.0.2.1:8000", "http://[2001:db8::1]/"],
)
def test_plain_http_to_another_machine_is_refused_before_anything_is_sent(server: str) -> None:
    with pytest.raises(UploadFailed, match="refusing to send your token in clear text"):
        check_server(server)
    check_server(server, allow_http=True)  # the user said so


@pytest.mark.parametrize(
    "server", ["http://localhots:8000", "http://127.0.0.l:8000", "http://lcoalhost/"]
)
def test_a_mistyped_name_of_this_machine_is_called_a_typo_not_a_clear_text_risk(
    server: str,
) -> None:
    with pytest.raises(UploadFailed, match="is not this machine's name: a typo for localhost"):
        check_server(server)


@pytest.mark.parametrize(
    "server",
    [
        "https://arena.example.org",
        "http://127.0.0.1:8000",
        "http://localhost:8000",
        "http://[::1]:8000",
    ],
)
def test_https_and_this_machine_are_fine(server: str) -> None:
    check_server(server)


def test_a_server_that_is_not_an_address_says_so() -> None:
    with pytest.raises(UploadFailed, match="not a server address"):
        check_server("ftp://arena.example.org")
