"""Loading a bot from a file or a built-in name, and the errors a newcomer gets."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from cucumbers.bot import Bot, FunctionBot
from cucumbers.bots import BUILTINS
from cucumbers.engine import GameState
from cucumbers.faults import FaultKind
from cucumbers.games import CONCOMBRE, FIVE_CUCUMBERS
from cucumbers.loader import BotLoadError, load_bot
from cucumbers.view import GameResult, GameStart, RoundResult, View
from tests.sdk.bot_choice import CASES, PORTED, Case


def write(tmp_path: Path, name: str, source: str) -> str:
    path = tmp_path / name
    path.write_text(textwrap.dedent(source))
    return str(path)


def load_error(source: str) -> BotLoadError:
    with pytest.raises(BotLoadError) as info:
        load_bot(source)
    return info.value


def a_view() -> View:
    return GameState(FIVE_CUCUMBERS, 3, 7).view(0)


START = GameStart("five-cucumbers", 2, 3, ("a", "b", "c"), 1, 99, 1.0, 10.0)


def test_it_loads_a_bot_subclass(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "lowball.py",
        """
        from cucumbers import Bot

        class Lowball(Bot):
            def play(self, view):
                return view.legal[0]
        """,
    )
    bot = load_bot(path)
    assert isinstance(bot, Bot)
    assert type(bot).__name__ == "Lowball"
    view = a_view()
    assert bot.play(view) == view.legal[0]


def test_it_ignores_bot_classes_imported_from_elsewhere(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "mine.py",
        """
        from cucumbers.bot import Bot
        from cucumbers.bots.simple import RandomBot, LowestBot

        class Mine(RandomBot):
            pass
        """,
    )
    assert type(load_bot(path)).__name__ == "Mine"


def test_it_loads_a_play_function_with_its_hooks(tmp_path: Path) -> None:
    log = tmp_path / "calls.log"
    path = write(
        tmp_path,
        "fn.py",
        f"""
        def note(*what):
            with open({str(log)!r}, "a") as f:
                f.write(" ".join(map(str, what)) + "\\n")

        def start_game(game):
            note("start", game.seat)

        def play(view):
            note("play", view.seat)
            return view.legal[-1]

        def end_round(result):
            note("round", result.number)

        def end_game(result):
            note("end", result.place)
        """,
    )
    bot = load_bot(path)
    assert isinstance(bot, FunctionBot)
    view = a_view()
    bot.start_game(START)
    assert bot.play(view) == view.legal[-1]
    state = GameState(CONCOMBRE, 2, 1)
    while state.rounds_finished == 0:
        state.play(state.legal()[0])
    result = state.round_result(0)
    assert isinstance(result, RoundResult)
    bot.end_round(result)
    bot.end_game(GameResult(2, 1, (2, 0, 1), (0, 3, 6), False))
    assert log.read_text().splitlines() == ["start 2", "play 0", "round 1", "end 1"]


def test_a_play_function_without_hooks_is_enough(tmp_path: Path) -> None:
    path = write(tmp_path, "tiny.py", "def play(view):\n    return view.legal[0]\n")
    bot = load_bot(path)
    bot.start_game(START)  # the missing hooks do nothing
    bot.end_game(GameResult(0, 1, (0, 1), (0, 0), False))
    assert bot.play(a_view()) == a_view().legal[0]


def test_every_load_runs_the_file_afresh(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "counter.py",
        """
        loads = []
        loads.append(1)

        def play(view):
            return len(loads)
        """,
    )
    assert load_bot(path).play(a_view()) == 1
    assert load_bot(path).play(a_view()) == 1


@pytest.mark.parametrize(
    ("source", "line"),
    [
        ("def play(view):\n    return view.legal[0]\n\nif True\n    pass\n", 4),
        ("import os\n\n\nclass Bot(:\n    pass\n", 4),
        ("def play(view):\n\treturn 1\n        return 2\n", 3),
    ],
)
def test_a_syntax_error_names_the_file_and_line(tmp_path: Path, source: str, line: int) -> None:
    error = load_error(write(tmp_path, "broken.py", source))
    message = str(error)
    assert "broken.py" in message
    assert f"line {line}" in message
    assert error.kind is FaultKind.ERROR
    assert str(tmp_path) not in message  # no host path


def test_a_file_without_a_bot_is_refused(tmp_path: Path) -> None:
    error = load_error(write(tmp_path, "empty.py", "x = 1\nfrom cucumbers.bots.simple import *\n"))
    assert "no bot found in empty.py" in str(error)
    assert "play(view)" in str(error)  # says what to write
    assert error.kind is FaultKind.ERROR


@pytest.mark.parametrize("case", list(CASES.values()), ids=list(CASES))
def test_a_file_with_several_bot_classes_plays_the_one_it_names_or_its_most_derived(
    tmp_path: Path, case: Case
) -> None:
    path = tmp_path / case.filename
    path.write_text(case.source)
    if case.plays is not None:
        assert type(load_bot(str(path))).__name__ == case.plays
        return
    error = load_error(str(path))
    assert str(error) == case.message
    assert error.kind is FaultKind.ERROR


def test_a_ported_bot_with_a_base_class_validates_as_the_platform_runs_it(tmp_path: Path) -> None:
    # The author's file as it is, in the bot host of a subprocess (the sandbox's loader).
    done = subprocess.run(
        [sys.executable, "-m", "cucumbers", "validate", str(PORTED / "agurk_port.py")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("OK: ")
    assert "several bots" not in done.stdout + done.stderr


def test_an_exception_while_loading_is_a_crash(tmp_path: Path) -> None:
    error = load_error(write(tmp_path, "raiser.py", "def play(view):\n    return 1\n\nx = 1 / 0\n"))
    assert error.kind is FaultKind.CRASH
    assert "raiser.py" in str(error)
    assert "ZeroDivisionError" in str(error)
    assert "line 4" in str(error)
    assert str(tmp_path) not in str(error)


def test_an_exception_in_the_bots_constructor_is_a_crash(tmp_path: Path) -> None:
    source = """
    from cucumbers import Bot

    class Fragile(Bot):
        def __init__(self):
            raise RuntimeError("no model file")
    """
    error = load_error(write(tmp_path, "fragile.py", source))
    assert error.kind is FaultKind.CRASH
    assert "no model file" in str(error)


@pytest.mark.parametrize(
    "call", ["import sys\nsys.exit(3)", "raise SystemExit('bye')", "exit()", "quit(0)"]
)
def test_exiting_while_loading_is_a_crash_not_an_exit(tmp_path: Path, call: str) -> None:
    error = load_error(write(tmp_path, "quitter.py", f"def play(view):\n    return 1\n{call}\n"))
    assert error.kind is FaultKind.CRASH
    assert "quitter.py" in str(error)
    assert "exit" in str(error)


@pytest.mark.parametrize("name", ["bot.txt", "bot.pyc", "bot", "bot.py.bak"])
def test_only_a_py_file_is_a_bot(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_text("def play(view):\n    return 1\n")
    error = load_error(str(path))
    assert ".py" in str(error)
    assert error.kind is FaultKind.ERROR


def test_a_missing_file_is_a_load_error(tmp_path: Path) -> None:
    error = load_error(str(tmp_path / "nowhere.py"))
    assert "nowhere.py" in str(error)
    assert error.kind is FaultKind.ERROR


def test_a_file_with_null_bytes_is_a_load_error(tmp_path: Path) -> None:
    path = tmp_path / "nul.py"
    path.write_bytes(b"def play(view):\n    return 1\x00\n")
    error = load_error(str(path))
    assert "nul.py" in str(error)
    assert error.kind is FaultKind.ERROR


@pytest.mark.parametrize("name", sorted(BUILTINS))
def test_a_builtin_name_gives_a_fresh_builtin_bot_that_plays_legally(name: str) -> None:
    bot = load_bot(f"builtin:{name}")
    assert isinstance(bot, BUILTINS[name])
    assert load_bot(f"builtin:{name}") is not bot
    state = GameState(CONCOMBRE, 3, 5)
    bot.start_game(GameStart("concombre", 0, 3, ("a", "b", "c"), 1, 5, 1.0, 10.0))
    for _ in range(30):
        seat = state.to_move
        assert seat is not None
        state.play(bot.play(state.view(seat)))  # IllegalMoveError would fail the test


@pytest.mark.parametrize("name", ["builtin:nope", "builtin:", "builtin:Random"])
def test_an_unknown_builtin_lists_the_known_ones(name: str) -> None:
    error = load_error(name)
    assert error.kind is FaultKind.ERROR
    for known in BUILTINS:
        assert f"builtin:{known}" in str(error)
