"""``cucumbers repro`` of a game of a match: the earlier games replayed to the same bot first,
so a fault that needs what the bot kept across games is reproduced; alone, it is not, and
repro says so with exit status 1."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cucumbers.cli import main
from cucumbers.replay import load_replay, save_replay
from cucumbers.repro_match import MatchFilesError, match_games

#: Counts its moves across the games of its match and crashes, two calls deep, at the 60th.
KEEPER = """\
from cucumbers import Bot


class Keeper(Bot):
    def __init__(self):
        self.moves = 0

    def play(self, view):
        self.moves += 1
        return self.choose(view)

    def choose(self, view):
        if self.moves == 60:
            return {}["move 60"]
        return view.legal[0]
"""


@pytest.fixture
def match(tmp_path: Path) -> tuple[Path, Path, int]:
    """A 4-game match of the keeper, downloaded as the site names it; the game with its
    crash (not the first) and the keeper's seat there."""
    bot = tmp_path / "keeper.py"
    bot.write_text(KEEPER)
    played = tmp_path / "played"
    args = ["play", str(bot), "builtin:random", "builtin:lowest", "--games", "4", "--seed", "5"]
    assert main([*args, "--sandbox", "process", "--replays", str(played)]) == 0
    downloaded = tmp_path / "downloaded"
    downloaded.mkdir()
    crashed = None
    for number in range(1, 5):
        replay = load_replay(played / f"game-{number:05d}.json")
        target = downloaded / f"match-41-game-{number}.json.gz"
        save_replay(replay, target)
        if replay["faults"] and crashed is None:
            crashed = (target, replay["faults"][0]["seat"])
    assert crashed is not None and crashed[0].name != "match-41-game-1.json.gz"
    return bot, crashed[0], crashed[1]


def repro(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cucumbers", "repro", *args],
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_a_fault_that_needs_the_earlier_games_is_reproduced_on_the_match(
    match: tuple[Path, Path, int],
) -> None:
    bot, game, seat = match
    run = repro(str(game), "--seat", str(seat), str(bot))
    assert run.returncode == 0, run.stdout + run.stderr
    assert "first games 1 to" in run.stdout
    assert "the fault is reproduced: the bot faults again" in run.stdout
    # The whole traceback, the bot's own frames only, each with its code line.
    assert 'File "keeper.py", line 10, in play\n      return self.choose(view)' in run.stdout
    assert 'File "keeper.py", line 14, in choose\n      return {}["move 60"]' in run.stdout
    assert "cucumbers" not in run.stdout.split("the traceback now:")[1].split("the view:")[0]


def test_the_same_game_alone_says_the_fault_is_not_reproduced_with_status_1(
    match: tuple[Path, Path, int], tmp_path: Path
) -> None:
    bot, game, seat = match
    run = repro(str(game), "--seat", str(seat), str(bot), "--alone")
    assert run.returncode == 1
    assert "in time: the fault is NOT reproduced" in run.stdout
    assert "replayed alone" in run.stdout
    alone = tmp_path / "alone"  # the file without its match beside it: the same verdict
    alone.mkdir()
    shutil.copy(game, alone / game.name)
    run = repro(str(alone / game.name), "--seat", str(seat), str(bot))
    assert run.returncode == 1 and "the fault is NOT reproduced" in run.stdout


def test_the_pytest_file_carries_the_earlier_games_and_passes_once_fixed(
    match: tuple[Path, Path, int], tmp_path: Path
) -> None:
    bot, game, seat = match
    written = tmp_path / "tests" / "test_crash.py"
    written.parent.mkdir()
    assert repro(str(game), "--seat", str(seat), str(bot), "--pytest", str(written)).returncode == 0
    shutil.rmtree(game.parent)  # self-contained: every replay travels inside the test

    def pytest_run() -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(written)],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            timeout=300,
        )

    failed = pytest_run()
    assert failed.returncode == 1 and "the bot faults again" in failed.stdout
    bot.write_text(KEEPER.replace('return {}["move 60"]', "pass"))
    assert pytest_run().returncode == 0


def test_a_gap_in_the_match_is_refused_and_a_stranger_is_not_matched(
    match: tuple[Path, Path, int],
) -> None:
    _, game, seat = match
    folder = game.parent
    (folder / "match-41-game-1.json.gz").unlink()
    with pytest.raises(MatchFilesError, match="games 1 of the match are not beside"):
        match_games(game, seat)
    for other in folder.glob("match-41-game-*.json.gz"):  # another bot's match, same names
        if other != game:
            replay = load_replay(other)
            for player in replay["players"]:
                player["name"] = f"someone/else-{player['seat']}"
            save_replay(replay, other)
    save_replay(load_replay(folder / "match-41-game-2.json.gz"), folder / "match-41-game-1.json.gz")
    with pytest.raises(MatchFilesError, match="is not in it: is it of the same match"):
        match_games(game, seat)
