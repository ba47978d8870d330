"""``cucumbers upload`` against a live server: the SDK's client and the API together."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from django.contrib.auth.models import User

from cucumbers.cli import main
from tests.web.factories import GOOD_BOT, UserFactory
from web.accounts.models import ApiToken
from web.bots.models import BotVersion

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def owner(transactional_db: None) -> User:
    return UserFactory(username="carol")


@pytest.fixture
def token(owner: User) -> str:
    return ApiToken.issue(owner, "cli")[1]


@pytest.fixture
def bot_file(tmp_path: Path) -> Path:
    path = tmp_path / "lowball.py"
    path.write_bytes(GOOD_BOT)
    return path


@pytest.fixture(autouse=True)
def _no_user_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.delenv("CUCUMBERS_TOKEN", raising=False)
    monkeypatch.delenv("CUCUMBERS_SERVER", raising=False)


def upload(*args: str) -> int:
    return main(["upload", *args])


def test_it_uploads_and_creates_the_bot(
    live_server: object, token: str, bot_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = upload(
        str(bot_file),
        "--bot",
        "lowball",
        "--game",
        "concombre",
        "--server",
        live_server.url,
        "--token",
        token,
    )  # type: ignore[attr-defined]
    out = capsys.readouterr().out
    assert code == 0, out
    assert "as lowball v1 (queued)" in out and "/bots/" in out
    version = BotVersion.objects.get()
    assert (version.bot.owner.username, version.bot.game) == ("carol", "concombre")


def test_the_token_comes_from_the_environment(
    live_server: object, token: str, bot_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CUCUMBERS_TOKEN", token)
    monkeypatch.setenv("CUCUMBERS_SERVER", live_server.url)  # type: ignore[attr-defined]
    assert upload(str(bot_file), "--bot", "envbot", "--game", "concombre") == 0


def test_the_token_and_server_come_from_the_config_file(
    live_server: object, token: str, bot_file: Path, tmp_path: Path
) -> None:
    config = tmp_path / "config" / "cucumbers" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(f'server = "{live_server.url}"\ntoken = "{token}"\n')  # type: ignore[attr-defined]
    assert upload(str(bot_file), "--bot", "cfgbot", "--game", "concombre") == 0


def test_without_a_token_it_says_where_to_put_one(
    bot_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert upload(str(bot_file), "--bot", "x") == 2
    assert "no API token" in capsys.readouterr().err


def test_a_refused_upload_shows_the_servers_reason(
    live_server: object, token: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = tmp_path / "broken.py"
    broken.write_text("def play(view)\n    return 0\n")
    code = upload(
        str(broken),
        "--bot",
        "b",
        "--game",
        "concombre",
        "--server",
        live_server.url,
        "--token",
        token,
    )  # type: ignore[attr-defined]
    assert code == 2
    assert "upload refused (400): syntax error in broken.py, line 1" in capsys.readouterr().err
    assert not BotVersion.objects.exists()


def test_a_revoked_token_is_refused(
    live_server: object, owner: User, bot_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    row, token = ApiToken.issue(owner, "old")
    row.revoke()
    assert (
        upload(
            str(bot_file),
            "--bot",
            "b",
            "--game",
            "concombre",
            "--server",
            live_server.url,
            "--token",
            token,
        )
        == 2
    )  # type: ignore[attr-defined]
    assert "upload refused (401): invalid or revoked token" in capsys.readouterr().err


def test_an_unreachable_server_is_named(bot_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    assert (
        upload(
            str(bot_file), "--bot", "b", "--server", f"http://127.0.0.1:{port}", "--token", "cuc_x"
        )
        == 2
    )
    assert f"cannot reach http://127.0.0.1:{port}" in capsys.readouterr().err


def test_a_missing_file_is_named(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert upload(str(tmp_path / "nope.py"), "--bot", "b", "--token", "t") == 2
    assert "no such file" in capsys.readouterr().err
