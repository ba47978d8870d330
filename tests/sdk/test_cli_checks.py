"""``cucumbers play`` refuses a bot that cannot load before any game; ``validate`` shows its
progress and stops at the first fault; ``replay`` survives a closed pipe and warns about a
replay that breaks the rules; the play table labels its interval."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from cucumbers.cli import main
from cucumbers.replay import load_replay, save_replay

BROKEN = "def play(view)\n    return view.legal[0]\n"


def cucumbers(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cucumbers", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=300,
    )


@pytest.mark.parametrize("sandbox", ["process", "none"])
def test_play_stops_before_the_first_game_with_validates_message(
    tmp_path: Path, sandbox: str
) -> None:
    (tmp_path / "broken.py").write_text(BROKEN)
    played = cucumbers("play", "broken.py", "builtin:random", "--sandbox", sandbox, cwd=tmp_path)
    validated = cucumbers("validate", "broken.py", cwd=tmp_path)
    assert played.returncode == 2 and played.stdout == ""
    message = "broken.py is not a usable bot: syntax error in broken.py, line 1: expected ':'"
    assert message in played.stderr
    assert message in validated.stderr


def test_play_names_the_built_ins_when_one_is_unknown() -> None:
    result = cucumbers("play", "builtin:random", "builtin:smart", "--games", "1")
    assert result.returncode == 2
    assert "no built-in bot 'smart'; choose one of: builtin:random, builtin:lowest" in (
        result.stderr
    )


def test_play_refuses_a_bot_that_raises_while_loading(tmp_path: Path) -> None:
    (tmp_path / "raises.py").write_text("raise RuntimeError('no config')\n")
    result = cucumbers("play", "raises.py", "builtin:random", cwd=tmp_path)
    assert result.returncode == 2
    assert "raises.py is not a usable bot: raises.py raised while loading" in result.stderr
    assert "RuntimeError: no config" in result.stderr


def test_validate_stops_at_the_first_fault_and_says_which_game(tmp_path: Path) -> None:
    # Faults from game 2 on: validate must report game 2 and never start game 3.
    (tmp_path / "late.py").write_text(
        "from cucumbers import Bot\n"
        "class Late(Bot):\n"
        "    games = 0\n"
        "    def start_game(self, game):\n"
        "        self.games += 1\n"
        "    def play(self, view):\n"
        "        return 0 if self.games >= 2 else view.legal[0]\n"
    )
    result = cucumbers("validate", "late.py", "--games", "5", cwd=tmp_path)
    assert result.returncode == 1
    assert "late.py faulted in game 2, round 1" in result.stderr
    assert "illegal_move" in result.stderr
    assert "validate: game 2 of 5" in result.stderr
    assert "game 3 of 5" not in result.stderr
    assert "stopped at the first fault" in result.stderr


def test_validate_documents_every_option() -> None:
    text = cucumbers("validate", "--help").stdout
    for option, words in [
        ("--game", "the game to play"),
        ("--games", "games to play"),
        ("--players", "table size"),
        ("--seed", "match seed"),
        ("--per-move", "time per move"),
    ]:
        assert option in text and words in text, option


@pytest.fixture
def replay_file(tmp_path: Path) -> Path:
    folder = tmp_path / "replays"
    args = ["play", "builtin:random", "builtin:lowest", "--games", "1", "--seed", "3"]
    assert main([*args, "--sandbox", "none", "--replays", str(folder)]) == 0
    return folder / "game-00001.json"


def test_replay_into_a_closed_pipe_ends_quietly(replay_file: Path) -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "cucumbers", "replay", str(replay_file)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()  # like `| head` that has read enough before the first write
    errors = process.stderr.read().decode()
    assert process.wait(timeout=60) == 141
    assert "Traceback" not in errors and "BrokenPipeError" not in errors


def test_replay_warns_when_the_replay_breaks_the_rules(replay_file: Path) -> None:
    replay = load_replay(replay_file)
    replay["rounds"][0]["penalty"] += 1
    save_replay(replay, replay_file.with_name("bad.json"))
    bad = cucumbers("replay", str(replay_file.with_name("bad.json")))
    good = cucumbers("replay", str(replay_file))
    assert bad.returncode == 0 and "Round 1" in bad.stdout
    assert "warning: " in bad.stderr and "breaks the rules" in bad.stderr
    assert "round 1: penalty is" in bad.stderr
    assert good.stderr == ""


def test_the_play_table_says_its_interval_is_95_percent(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert (
        main(["play", "builtin:random", "builtin:lowest", "--games", "4", "--sandbox", "none"]) == 0
    )
    header = capsys.readouterr().out.splitlines()[1]
    assert "mean place ± 95% interval" in header
