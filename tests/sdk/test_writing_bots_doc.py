"""docs/writing-bots.md is true to the code: its ``pycon`` examples run as doctests (in the
order of the page, as a reader types them into one session), its ``BOT = ...`` example loads
as the class it names, and its time-budget skeleton keeps to its share of the move's time
under the process runner, the platform's way of running a bot."""

from __future__ import annotations

import doctest
import json
import re
import statistics
from pathlib import Path

import pytest

from cucumbers.cli import main
from cucumbers.loader import load_bot

DOC = Path(__file__).resolve().parents[2] / "docs" / "writing-bots.md"


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", DOC.read_text(encoding="utf-8"), re.DOTALL)


def python_block(marker: str) -> str:
    (found,) = [block for block in blocks("python") if marker in block]
    return found


def test_the_pages_interactive_examples_give_what_they_show() -> None:
    examples = blocks("pycon")
    assert len(examples) >= 3  # copies, a card's cost, what a loss does
    parser, runner = doctest.DocTestParser(), doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    globs: dict[str, object] = {}
    for number, text in enumerate(examples, start=1):
        test = parser.get_doctest(text, globs, f"pycon block {number}", str(DOC), 0)
        runner.run(test, clear_globs=False)
        globs = test.globs  # one session: later blocks use earlier names (a test copies them)
    assert runner.summarize(verbose=False).failed == 0


def test_the_named_bot_example_plays_the_class_it_names(tmp_path: Path) -> None:
    path = tmp_path / "strategies.py"
    path.write_text(python_block("BOT = Careful"))
    assert type(load_bot(str(path))).__name__ == "Careful"


def test_the_budget_skeleton_keeps_to_half_of_a_tight_move_time(tmp_path: Path) -> None:
    path = tmp_path / "budgeted.py"
    path.write_text(python_block("class Budgeted(Bot)"))
    per_move = 0.1
    args = ["play", str(path), "builtin:heuristic", "builtin:random", "--games", "2"]
    args += ["--seed", "3", "--per-move", str(per_move), "--replays", str(tmp_path)]
    assert main(args) == 0
    seat_times, faults = [], []
    for file in sorted(tmp_path.glob("game-*.json")):
        replay = json.loads(file.read_text())
        faults += replay["faults"]
        budgeted = {p["seat"] for p in replay["players"] if p["name"] == "budgeted"}
        seat_times += [
            play["ms"] / 1000
            for rnd in replay["rounds"]
            for trick in rnd["tricks"]
            for play in trick["plays"]
            if play["seat"] in budgeted and not play.get("auto")
        ]
    assert faults == []
    # Moves with a choice think for half the move's time and stop there (the median is
    # immune to a busy machine's odd slow move); forced moves answer at once.
    thinking = [t for t in seat_times if t > per_move / 10]
    assert len(thinking) >= 10
    assert statistics.median(thinking) == pytest.approx(per_move / 2, rel=0.2)
