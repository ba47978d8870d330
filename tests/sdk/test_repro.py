"""``cucumbers repro``: a recorded game played back to a bot, view by view."""

from __future__ import annotations

import subprocess
import sys
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from cucumbers.bot import Bot
from cucumbers.cli import main
from cucumbers.loader import load_bot
from cucumbers.replay import load_replay, save_replay
from cucumbers.repro import Difference, ReplayMismatch, recorded_steps, reproduce
from cucumbers.view import View

STARTER = resources.files("cucumbers").joinpath("templates/starter.py").read_text("utf-8")

#: The starter, except that from round 2 on it leads its lowest card instead.
CHANGED = STARTER.replace(
    "        if view.high is None:\n",
    "        if view.high is None and view.round_number >= 2 and hand[0] != hand[-2]:\n"
    "            return hand[0]\n"
    "        if view.high is None:\n",
)

CRASHER = (
    "def play(view):\n"
    "    if view.round_number == 2 and view.trick_number == 3:\n"
    "        raise RuntimeError('round 2 bug')\n"
    "    return view.legal[0]\n"
)


def play_one(tmp_path: Path, bots: list[str], game: str = "five-cucumbers", seed: int = 4) -> Path:
    folder = tmp_path / "replays"
    args = ["play", *bots, "--game", game, "--games", "1", "--seed", str(seed)]
    assert main([*args, "--sandbox", "none", "--replays", str(folder)]) == 0
    return folder / "game-00001.json"


def seat_of(replay: dict[str, Any], name: str) -> int:
    return next(s for s, p in enumerate(replay["players"]) if p["name"] == name)


def remaining_hand(replay: dict[str, Any], seat: int, round_number: int, trick: int) -> list[int]:
    """The seat's hand before its play in that trick, worked out from the record alone."""
    rnd = replay["rounds"][round_number - 1]
    hand = list(rnd["hands"][seat])
    for earlier in rnd["tricks"][: trick - 1]:
        for play in earlier["plays"]:
            if play["seat"] == seat:
                hand.remove(play["card"])
    return sorted(hand)


@pytest.fixture
def starter(tmp_path: Path) -> Path:
    path = tmp_path / "starter.py"
    path.write_text(STARTER)
    return path


@pytest.mark.parametrize("game", ["five-cucumbers", "concombre"])
def test_every_bot_of_a_game_plays_it_again_from_its_views(
    tmp_path: Path, starter: Path, game: str
) -> None:
    bots = [str(starter), "builtin:random", "builtin:heuristic", "builtin:lowest"]
    replay = load_replay(play_one(tmp_path, bots, game))
    for seat, player in enumerate(replay["players"]):
        source = str(starter) if player["name"] == "starter" else player["name"]
        result = reproduce(replay, seat, load_bot(source))
        assert result.same and result.not_reproduced is None, (seat, result)
        assert result.decisions == sum(1 for s in recorded_steps(replay) if s.seat == seat)


def test_a_changed_bot_is_caught_at_its_first_different_move(tmp_path: Path, starter: Path) -> None:
    replay = load_replay(play_one(tmp_path, [str(starter), "builtin:random", "builtin:random"]))
    seat = seat_of(replay, "starter")
    changed = tmp_path / "changed.py"
    changed.write_text(CHANGED)
    result = reproduce(replay, seat, load_bot(str(changed)))
    d = result.divergence
    assert d is not None and d.kind is Difference.MOVE
    # The first lead of round 2 or later where the starter would not lead its lowest card.
    assert d.step.round >= 2 and d.view.high is None and d.view.round_number == d.step.round
    assert d.view.trick_number == d.step.trick and d.view.seat == seat
    assert list(d.view.hand) == remaining_hand(replay, seat, d.step.round, d.step.trick)
    assert d.step.card == load_bot(str(starter)).play(d.view) != d.view.hand[0]
    assert d.now == f"plays {d.view.hand[0]}"
    # Every earlier decision of the seat was compared and found the same.
    steps = [s for s in recorded_steps(replay) if s.seat == seat]
    assert steps[result.decisions - 1] == d.step


def test_the_command_prints_the_view_and_exits_1_on_a_difference(
    tmp_path: Path, starter: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = play_one(tmp_path, [str(starter), "builtin:random", "builtin:random"])
    seat = seat_of(load_replay(path), "starter")
    gz = path.with_suffix(".json.gz")  # as downloaded from the site
    save_replay(load_replay(path), gz)
    changed = tmp_path / "changed.py"
    changed.write_text(CHANGED)
    assert main(["repro", str(gz), "--seat", str(seat), str(starter)]) == 0
    assert "played the recorded game again" in capsys.readouterr().out
    assert main(["repro", str(gz), "--seat", str(seat), str(changed)]) == 1
    out = capsys.readouterr().out
    assert "the bot plays differently" in out and "recorded: played" in out
    assert "the view:" in out and "hand:" in out and "legal:" in out


def test_a_crash_on_the_record_is_found_again_and_a_fix_passes(tmp_path: Path) -> None:
    crasher = tmp_path / "crasher.py"
    crasher.write_text(CRASHER)
    replay = load_replay(play_one(tmp_path, [str(crasher), "builtin:random"], seed=2))
    seat = seat_of(replay, "crasher")
    assert [f["kind"] for f in replay["faults"]] == ["crash"]
    again = reproduce(replay, seat, load_bot(str(crasher)))
    assert again.divergence is not None and again.divergence.kind is Difference.SAME_FAULT
    assert "RuntimeError: round 2 bug" in again.divergence.now
    assert (again.divergence.step.round, again.divergence.step.trick) == (2, 3)
    fixed = tmp_path / "fixed.py"
    fixed.write_text(CRASHER.replace("raise RuntimeError('round 2 bug')", "pass"))
    result = reproduce(replay, seat, load_bot(str(fixed)))
    assert result.same and result.not_reproduced is not None
    assert result.not_reproduced.round == 2 and not result.reproduced


def test_a_bot_that_raises_where_the_record_has_a_move_is_a_fault(
    tmp_path: Path, starter: Path
) -> None:
    replay = load_replay(play_one(tmp_path, [str(starter), "builtin:random"]))

    class Broken(Bot):
        def play(self, view: View) -> int:
            if view.round_number == 1 and view.trick_number == 2:
                raise KeyError("oops")
            return load_bot(str(starter)).play(view)

    result = reproduce(replay, seat_of(replay, "starter"), Broken())
    assert result.divergence is not None and result.divergence.kind is Difference.FAULT
    assert result.divergence.now.startswith("raises KeyError: 'oops'")
    assert (result.divergence.step.round, result.divergence.step.trick) == (1, 2)


def test_an_edited_replay_is_refused_rather_than_misread(tmp_path: Path, starter: Path) -> None:
    path = play_one(tmp_path, [str(starter), "builtin:random"])
    replay = load_replay(path)
    replay["seed"] += 1  # other deals: the recorded cards are no longer in the hands
    with pytest.raises(ReplayMismatch, match="does not allow there"):
        reproduce(replay, 0, load_bot(str(starter)))
    save_replay(replay, path)
    assert main(["repro", str(path), "--seat", "0", str(starter)]) == 2
    assert main(["repro", str(path), "--seat", "5", str(starter)]) == 2


def test_the_pytest_file_fails_on_the_changed_bot_and_passes_on_the_original(
    tmp_path: Path, starter: Path
) -> None:
    path = play_one(tmp_path, [str(starter), "builtin:random", "builtin:random"])
    seat = seat_of(load_replay(path), "starter")
    tests = tmp_path / "tests"
    tests.mkdir()
    written = tests / "test_lost_game.py"
    assert (
        main(["repro", str(path), "--seat", str(seat), str(starter), "--pytest", str(written)]) == 0
    )
    path.unlink()  # self-contained: the replay travels inside the test

    def pytest_run() -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(written)],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            timeout=300,
        )

    assert pytest_run().returncode == 0
    starter.write_text(CHANGED)  # the bot is edited after the test was written
    failed = pytest_run()
    assert failed.returncode == 1
    assert "the bot plays differently" in failed.stdout and "the view:" in failed.stdout


#: A chatty bot: a line when it loads and one at every move, on stdout and stderr.
CHATTY = (
    "import sys\n"
    "print('chatty: loaded')\n"
    "moves = 0\n"
    "def play(view):\n"
    "    global moves\n"
    "    moves += 1\n"
    "    print(f'chatty: thinking about move {moves}')\n"
    "    if moves % 5 == 0:\n"
    "        print(f'chatty: a warning at move {moves}', file=sys.stderr)\n"
    "    return view.legal[0]\n"
)


def repro_in_a_terminal(*args: str) -> list[str]:
    """What a terminal shows of ``cucumbers repro`` (stdout and stderr as they come)."""
    done = subprocess.run(
        [sys.executable, "-m", "cucumbers", "repro", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout
    return done.stdout.splitlines()


def test_a_chatty_bots_output_comes_after_the_report_labelled_and_cut_to_its_end(
    tmp_path: Path,
) -> None:
    chatty = tmp_path / "chatty.py"
    chatty.write_text(CHATTY)
    path = play_one(tmp_path, [str(chatty), "builtin:random", "builtin:random"])
    seat = seat_of(load_replay(path), "chatty")
    decisions = sum(1 for step in recorded_steps(load_replay(path)) if step.seat == seat)
    # Each load prints once: repro's check of the file, then the bot it replays to.
    printed = 2 + decisions + decisions // 5
    lines = repro_in_a_terminal(str(path), "--seat", str(seat), str(chatty))
    assert lines[0] == f"{path}: seat {seat} was chatty; replaying its views to {chatty}"
    assert "the bot played the recorded game again" in lines[1]
    assert lines[2] == (
        f"the bot's own output while replayed: {printed} lines, the last 10"
        " (--output-lines N for more):"
    )
    assert lines[3:] == [f"  | {line}" for line in expected_tail(decisions)[-10:]]
    assert not any(line.startswith("chatty:") for line in lines)  # all of it labelled

    quiet = repro_in_a_terminal(str(path), "--seat", str(seat), str(chatty), "--output-lines", "0")
    assert quiet[2:] == [
        f"the bot's own output while replayed: {printed} lines, not shown"
        " (--output-lines N shows the last N)"
    ]
    whole = repro_in_a_terminal(
        str(path), "--seat", str(seat), str(chatty), "--output-lines", "999"
    )
    assert whole[2] == f"the bot's own output while replayed ({printed} lines):"
    assert whole[3:] == [f"  | {line}" for line in expected_tail(decisions, loads=2)]


def expected_tail(decisions: int, loads: int = 1) -> list[str]:
    """What the chatty bot prints: when it loads, then at each move (the last load's)."""
    lines = ["chatty: loaded"] * loads
    for move in range(1, decisions + 1):
        lines.append(f"chatty: thinking about move {move}")
        if move % 5 == 0:
            lines.append(f"chatty: a warning at move {move}")
    return lines
