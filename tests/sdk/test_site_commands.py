"""``upload --wait``, ``matches`` and ``download`` against a stand-in server on the loopback
(the real API is tested in tests/web/api/test_cli_toolkit.py): every page is followed, a
URL on another server is never requested with the token, the verdict is printed."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any

import pytest

from cucumbers.api import Client, RequestFailed
from cucumbers.cli import main
from cucumbers.games import rules_for
from cucumbers.match import play_match
from cucumbers.replay import dumps_replay, load_replay
from cucumbers.runners import make_runner
from cucumbers.runners.base import BotSpec

Answer = Callable[[str], tuple[int, Any]]


class Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self._answer()

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self._answer()

    def _answer(self) -> None:
        server: FakeServer = self.server  # type: ignore[assignment]
        server.seen.append((self.command, self.path, self.headers.get("Authorization")))
        status, body = server.answer(f"{self.command} {self.path}")
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


class FakeServer(HTTPServer):
    answer: Answer
    seen: list[tuple[str, str, str | None]]


@pytest.fixture
def serve() -> Iterator[Callable[[Answer], str]]:
    servers: list[FakeServer] = []

    def start(answer: Answer) -> str:
        server = FakeServer(("127.0.0.1", 0), Handler)
        server.answer, server.seen = answer, []
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_port}"

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


@pytest.fixture(autouse=True)
def _no_user_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    for name in ("CUCUMBERS_TOKEN", "CUCUMBERS_SERVER", "CUCUMBERS_USER"):
        monkeypatch.delenv(name, raising=False)


def a_replay(seed: int) -> dict[str, Any]:
    specs = [
        BotSpec("builtin:heuristic", "carol/mybot"),
        BotSpec("builtin:random", "builtin:random"),
    ]
    (outcome,) = play_match(
        rules_for("five-cucumbers"), specs, make_runner("none"), seed=seed, game_numbers=[1]
    )
    assert outcome.replay is not None
    replay = outcome.replay
    for player in replay["players"]:
        if player["name"] == "carol/mybot":
            player["bot"] = 7
    return replay


def test_every_page_is_followed_and_a_foreign_next_page_is_refused(
    serve: Callable[[Answer], str],
) -> None:
    elsewhere = serve(lambda path: (200, {"results": [{"id": 99}], "next": None}))
    base = ""

    def answer(path: str) -> tuple[int, Any]:
        if path == "GET /api/matches/?bot=7":
            return 200, {
                "results": [{"id": 3}, {"id": 2}],
                "next": f"{base}/api/matches/?bot=7&page=2",
            }
        if path == "GET /api/matches/?bot=7&page=2":
            return 200, {"results": [{"id": 1}], "next": f"{elsewhere}/api/matches/?page=3"}
        return 404, {"detail": "Not found."}

    base = serve(answer)
    client = Client(base, "tok")
    seen: list[int] = []
    with pytest.raises(RequestFailed, match="not followed"):
        for match in client.pages("/api/matches/?bot=7"):
            seen.append(match["id"])
    assert seen == [3, 2, 1]


def test_a_rate_limited_request_is_tried_again_after_retry_after(
    serve: Callable[[Answer], str],
) -> None:
    answers = iter([(429, {"detail": "slow down"}), (200, {"id": 7, "name": "mybot"})])
    base = serve(lambda path: next(answers))  # no Retry-After: the client waits one second
    assert Client(base, "tok").find_bot("7")["name"] == "mybot"


def test_a_redirect_is_never_followed_with_the_token(serve: Callable[[Answer], str]) -> None:
    hits: list[str] = []
    elsewhere = serve(lambda path: (hits.append(path), (200, {}))[1])

    class Redirect(Handler):
        def _answer(self) -> None:
            self.send_response(302)
            self.send_header("Location", f"{elsewhere}/api/bots/7/")
            self.send_header("Content-Length", "0")
            self.end_headers()

    server = FakeServer(("127.0.0.1", 0), Redirect)
    server.seen = []
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        with pytest.raises(RequestFailed, match="not followed"):
            Client(f"http://127.0.0.1:{server.server_port}", "tok").get("/api/bots/7/")
    finally:
        server.shutdown()
        server.server_close()
    assert hits == []


def test_a_bare_name_is_found_among_the_owners_bots(serve: Callable[[Answer], str]) -> None:
    bots = [
        {"id": 4, "name": "other", "owner": "carol", "game": "concombre"},
        {"id": 7, "name": "MyBot", "owner": "carol", "game": "five-cucumbers"},
    ]
    base = serve(lambda path: (200, {"results": bots, "next": None}))
    client = Client(base, "tok")
    assert client.find_bot("mybot", "carol")["id"] == 7
    assert client.find_bot("carol/mybot")["id"] == 7
    with pytest.raises(RequestFailed, match="no bot 'nobody'"):
        client.find_bot("nobody")


def test_upload_wait_prints_the_rejection_and_its_reason(
    serve: Callable[[Answer], str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    statuses = iter(["queued", "validating", "rejected"])

    def answer(path: str) -> tuple[int, Any]:
        if path == "POST /api/uploads/":
            bot = {"id": 7, "name": "mybot", "url": "http://x/bots/7/"}
            return 201, {"bot": bot, "version": {"number": 2, "status": "queued"}}
        if path == "GET /api/bots/7/versions/2/":
            status = next(statuses)
            rejected = status == "rejected"
            return 200, {
                "number": 2,
                "status": status,
                "rejection_kind": "crash" if rejected else None,
                "rejection_detail": "ValueError: boom (b.py, line 5)" if rejected else None,
                "stderr_tail": "thinking hard\n" if rejected else None,
                "validation_match": 12,
            }
        return 404, {"detail": "Not found."}

    base = serve(answer)
    bot = tmp_path / "mybot.py"
    bot.write_text("def play(view):\n    return view.legal[0]\n")
    args = ["upload", str(bot), "--bot", "mybot", "--server", base, "--token", "tok"]
    assert main([*args, "--wait", "--poll", "0.05"]) == 1
    out = capsys.readouterr().out
    assert "  queued\n  validating\n  rejected\n" in out
    assert "was rejected: crash" in out and "reason: ValueError: boom (b.py, line 5)" in out
    assert "thinking hard" in out


def test_upload_wait_gives_up_at_its_deadline(
    serve: Callable[[Answer], str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def answer(path: str) -> tuple[int, Any]:
        if path == "POST /api/uploads/":
            bot = {"id": 7, "name": "mybot", "url": "http://x/bots/7/"}
            return 201, {"bot": bot, "version": {"number": 1, "status": "queued"}}
        return 200, {"number": 1, "status": "queued"}

    base = serve(answer)
    bot = tmp_path / "mybot.py"
    bot.write_text("def play(view):\n    return view.legal[0]\n")
    args = ["upload", str(bot), "--bot", "mybot", "--server", base, "--token", "tok", "--wait"]
    assert main([*args, "--wait-timeout", "0.3", "--poll", "0.1"]) == 2
    assert "still queued after 0.3 s" in capsys.readouterr().err


def test_matches_and_download_go_through_every_page(
    serve: Callable[[Answer], str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    replays = {(m, g): a_replay(10 * m + g) for m in (1, 2, 3) for g in (1, 2)}
    base = ""

    def match(number: int) -> dict[str, Any]:
        return {
            "id": number,
            "game": "five-cucumbers",
            "kind": "ladder",
            "status": "finished",
            "finished_at": "2026-12-01T10:00:00Z",
            "participants": [
                {
                    "index": 0,
                    "name": "carol/mybot",
                    "bot": 7,
                    "placement": 1,
                    "mean_place": 1.5,
                    "wins": 1,
                    "faults": 0,
                },
                {
                    "index": 1,
                    "name": "builtin:random",
                    "bot": None,
                    "placement": 2,
                    "mean_place": 1.5,
                    "wins": 1,
                    "faults": 0,
                },
            ],
            "games": [
                {
                    "number": g,
                    "outputs": {"0": f"my output in match {number} game {g}"} if g == 1 else {},
                    "replay": f"{base}/api/matches/{number}/games/{g}/replay/",
                }
                for g in (1, 2)
            ],
        }

    def answer(path: str) -> tuple[int, Any]:
        if path.startswith("GET /api/bots/?owner=carol"):
            return 200, {
                "results": [{"id": 7, "name": "mybot", "owner": "carol", "game": "five-cucumbers"}],
                "next": None,
            }
        if path in ("GET /api/matches/?bot=7", "GET /api/matches/?bot=7&status=finished"):
            query = path.split("?", 1)[1]
            return 200, {
                "results": [match(3), match(2)],
                "next": f"{base}/api/matches/?{query}&page=2",
            }
        if path.endswith("&page=2"):
            return 200, {"results": [match(1)], "next": None}
        for (m, g), replay in replays.items():
            if path == f"GET /api/matches/{m}/games/{g}/replay/":
                return 200, dumps_replay(replay)
        return 404, {"detail": "Not found."}

    base = serve(answer)
    site = ["--server", base, "--token", "tok", "--owner", "carol"]
    assert main(["matches", "--bot", "mybot", *site]) == 0
    listed = capsys.readouterr().out
    assert [line.split()[0] for line in listed.splitlines()[1:]] == ["3", "2", "1"]
    assert "placed 1 of 2" in listed
    out = tmp_path / "downloads"
    assert main(["download", "--bot", "mybot", "--out", str(out), *site]) == 0
    said = capsys.readouterr().out
    assert "3 matches: 6 replays written, 0 already there, 3 output files" in said
    for (m, g), replay in replays.items():
        assert load_replay(out / f"match-{m}-game-{g}.json.gz") == replay
    assert (out / "match-2-game-1.output.txt").read_text().endswith("my output in match 2 game 1")
    assert "(your seat: " in said
    assert main(["download", "--bot", "mybot", "--out", str(out), *site]) == 0
    assert "0 replays written, 6 already there" in capsys.readouterr().out
    assert main(["check-replay", str(out), "-q"]) == 0
