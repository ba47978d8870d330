"""The bot author's toolkit against a live server: ``upload --wait`` on a real validation,
``matches`` and ``download`` through the real API, and a game the platform played
reproduced with ``repro``, a changed bot caught at the right move."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from django.contrib.auth.models import User

from cucumbers.cli import main
from cucumbers.downloads import bot_seats
from cucumbers.loader import load_bot
from cucumbers.replay import load_replay
from cucumbers.repro import Difference, reproduce
from tests.sdk.test_repro import CHANGED, STARTER  # the starter, and a changed copy
from tests.web.factories import UserFactory
from web.accounts.models import ApiToken
from web.bots.models import BotVersion, VersionStatus
from web.bots.uploads import upload_version
from web.pipeline import factory
from web.pipeline.running import validate_version
from web.sandbox import SandboxKind

pytestmark = pytest.mark.django_db(transaction=True)

CRASHER = (
    "def play(view):\n"
    "    if view.trick_number == 3:\n"
    "        raise RuntimeError('trick 3 bug')\n"
    "    return view.legal[0]\n"
)


@pytest.fixture
def owner(transactional_db: None) -> User:
    return UserFactory(username="carol")


@pytest.fixture
def site(live_server: object, owner: User) -> list[str]:
    token = ApiToken.issue(owner, "cli")[1]
    return ["--server", live_server.url, "--token", token]  # type: ignore[attr-defined]


@pytest.fixture(autouse=True)
def _settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, settings: object) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    for name in ("CUCUMBERS_TOKEN", "CUCUMBERS_SERVER", "CUCUMBERS_USER"):
        monkeypatch.delenv(name, raising=False)
    settings.VALIDATION_GAMES = 2  # type: ignore[attr-defined]
    # No broker message: this test plays each validation itself, as a worker would, and in
    # a transactional test the message would be sent (and the match issued) at once.
    monkeypatch.setattr(factory, "send_match_on_commit", lambda match_id: None)


def upload_and_wait(args: list[str]) -> int:
    """``cucumbers upload ... --wait`` in a thread while this thread plays the validation as
    a worker would (the process runner starts bots from the main thread only)."""
    codes: list[int] = []
    client = threading.Thread(target=lambda: codes.append(main(args)), daemon=True)
    before = set(BotVersion.objects.values_list("pk", flat=True))
    client.start()
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        new = BotVersion.objects.exclude(pk__in=before).first()
        if new is not None:
            validate_version(new.pk, SandboxKind.PROCESS)
            break
        time.sleep(0.05)
    client.join(timeout=120)
    assert codes, "the client did not finish"
    return codes[0]


def test_upload_wait_prints_the_verdict_of_the_real_validation(
    site: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good, bad = tmp_path / "starter.py", tmp_path / "crasher.py"
    good.write_text(STARTER)
    bad.write_text(CRASHER)
    args = ["--game", "five-cucumbers", *site, "--wait", "--poll", "0.2", "--wait-timeout", "120"]
    assert upload_and_wait(["upload", str(good), "--bot", "starter", *args]) == 0
    out = capsys.readouterr().out
    assert "starter v1 passed validation and is active" in out
    assert upload_and_wait(["upload", str(bad), "--bot", "crasher", *args]) == 1
    out = capsys.readouterr().out
    assert "crasher v1 was rejected: crash" in out
    assert "reason: " in out and "RuntimeError: trick 3 bug" in out


def test_a_platform_game_is_reproduced_and_a_changed_bot_caught_at_the_right_move(
    site: list[str], owner: User, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    version = upload_version(
        owner, "starter.py", STARTER.encode(), new_bot_name="starter", game="five-cucumbers"
    )
    assert validate_version(version.pk, SandboxKind.PROCESS) == VersionStatus.ACTIVE
    assert main(["matches", "--bot", "carol/starter", *site]) == 0
    listed = capsys.readouterr().out
    assert f"{version.validation_match_id}" in listed and "validation" in listed
    out = tmp_path / "downloaded"
    assert main(["download", "--bot", "starter", "--owner", "carol", "--out", str(out), *site]) == 0
    assert "1 matches: 2 replays written" in capsys.readouterr().out
    paths = sorted(out.glob("match-*-game-*.json.gz"))
    assert len(paths) == 2
    assert main(["check-replay", str(out)]) == 0
    capsys.readouterr()

    starter, changed = tmp_path / "starter.py", tmp_path / "changed.py"
    starter.write_text(STARTER)
    changed.write_text(CHANGED)
    caught = 0
    for path in paths:
        replay = load_replay(path)
        (seat,) = bot_seats(replay, version.bot_id)
        assert main(["repro", str(path), "--seat", str(seat), str(starter)]) == 0
        assert "played the recorded game again" in capsys.readouterr().out
        result = reproduce(replay, seat, load_bot(str(changed)))
        if result.divergence is None:
            continue  # the game ended before the change mattered
        d = result.divergence
        assert d.kind is Difference.MOVE and d.step.round >= 2 and d.view.high is None
        assert d.step.card == load_bot(str(starter)).play(d.view) != d.view.hand[0]
        assert main(["repro", str(path), "--seat", str(seat), str(changed)]) == 1
        assert f"round {d.step.round} trick {d.step.trick}: the bot plays differently" in (
            capsys.readouterr().out
        )
        caught += 1
    assert caught >= 1


def test_the_owners_replay_carries_the_fault_that_repro_finds_again(
    site: list[str], owner: User, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    version = upload_version(
        owner, "crasher.py", CRASHER.encode(), new_bot_name="crasher", game="five-cucumbers"
    )
    assert validate_version(version.pk, SandboxKind.PROCESS) == VersionStatus.REJECTED
    out = tmp_path / "downloaded"
    assert main(["download", "--bot", "carol/crasher", "--out", str(out), *site]) == 0
    (path,) = sorted(out.glob("match-*-game-1.json.gz"))
    replay = load_replay(path)
    (seat,) = bot_seats(replay, version.bot_id)
    (fault,) = replay["faults"]
    assert fault["kind"] == "crash" and "RuntimeError: trick 3 bug" in fault["detail"]
    # The owner's replay and the download's faults file carry the whole traceback.
    assert fault["traceback"]["exception"] == "RuntimeError: trick 3 bug"
    assert fault["traceback"]["frames"][-1]["file"] == "crasher.py"
    written = path.with_name(path.name.replace(".json.gz", ".faults.txt")).read_text()
    assert 'File "crasher.py", line' in written and "RuntimeError: trick 3 bug" in written
    assert f"/matches/{version.validation_match_id}/#g1-r" in written
    # Named by the seat that repro takes, not only by the match's participant index.
    assert f"== seat {seat} (participant " in written and f"--seat {seat} " in written
    crasher = tmp_path / "crasher.py"
    crasher.write_text(CRASHER)
    assert main(["repro", str(path), "--seat", str(seat), str(crasher)]) == 0
    said = capsys.readouterr().out
    assert "the fault is reproduced" in said and "raises RuntimeError: trick 3 bug" in said
    assert "the traceback now:" in said and 'File "crasher.py"' in said
    crasher.write_text(CRASHER.replace("raise RuntimeError('trick 3 bug')", "pass"))
    assert main(["repro", str(path), "--seat", str(seat), str(crasher)]) == 1
    assert "the fault is NOT reproduced" in capsys.readouterr().out
