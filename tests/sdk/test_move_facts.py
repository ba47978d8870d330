"""Whole tracebacks (the bot's own frames, with their code) and per-move facts (each decision's
time, public; the lines printed during it, the owner's) from the bot host or the in-process
runner to the replay: revision 2 of ``cucumbers-replay/1``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cucumbers.faults import FaultKind
from cucumbers.games import FIVE_CUCUMBERS
from cucumbers.match import GameOutcome, play_match
from cucumbers.move_facts import REPLAY_REVISION, decisions, has_private, public_replay
from cucumbers.move_output import GAME_MOVE_OUTPUT_CHARS, MOVE_OUTPUT_CHARS
from cucumbers.protocol import ProtocolError, decode_host_message
from cucumbers.runners import make_runner
from cucumbers.runners.base import BotSpec, Limits
from cucumbers.tracebacks import HEAD_FRAMES, TAIL_FRAMES
from cucumbers.validator import check_replay

GOLDEN = Path(__file__).parent / "golden"

#: Fails two calls deep in round 2, trick 3; prints on every move, through print, logging
#: (a handler made at import: it holds the stream of that moment) and sys.stderr.
DEEP = """\
import logging
import sys

logging.basicConfig(level=logging.INFO, format="log %(message)s")


def pick(view, table):
    print("picking from", list(view.legal))
    return table["missing-key"]


def play(view):
    logging.info("move %d.%d", view.round_number, view.trick_number)
    sys.stderr.write("err line\\n")
    if view.round_number == 2 and view.trick_number == 3:
        return pick(view, {})
    return view.legal[0]
"""

RECURSES = """\
def down(n):
    return down(n + 1)


def play(view):
    return down(0)
"""

LOAD_CRASH = """\
def helper():
    return 1 / 0


VALUE = helper()


def play(view):
    return view.legal[0]
"""

FLOOD = """\
def play(view):
    print("x" * 100_000)
    for i in range(300):
        print(f"line {i} of move {view.round_number}.{view.trick_number}")
    return view.legal[0]
"""


def one_game(tmp_path: Path, source: str, sandbox: str) -> GameOutcome:
    path = tmp_path / "mybot.py"
    path.write_text(source)
    specs = [BotSpec(str(path), "mybot"), BotSpec("builtin:lowest", "builtin:lowest")]
    runner = make_runner(sandbox, Limits(startup_seconds=30))
    (outcome,) = play_match(FIVE_CUCUMBERS, specs, runner, seed=3, game_numbers=[1])
    return outcome


def seat_of_mybot(outcome: GameOutcome) -> int:
    return outcome.bots.index(0)


@pytest.mark.parametrize("sandbox", ["process", "none"])
def test_a_crash_two_calls_deep_keeps_every_frame_of_the_bot_with_its_code(
    tmp_path: Path, sandbox: str
) -> None:
    outcome = one_game(tmp_path, DEEP, sandbox)
    (fault,) = outcome.faults
    assert (fault.seat, fault.round, fault.trick) == (seat_of_mybot(outcome), 2, 3)
    assert fault.kind is FaultKind.CRASH and fault.traceback is not None
    frames = [(f.file, f.line, f.function, f.code) for f in fault.traceback.frames]
    assert frames == [
        ("mybot.py", 16, "play", "return pick(view, {})"),
        ("mybot.py", 9, "pick", 'return table["missing-key"]'),
    ]  # the host's and the runner's frames left out, and no path of this machine
    assert fault.traceback.exception == "KeyError: 'missing-key'"
    text = fault.traceback.format()
    assert text.endswith("KeyError: 'missing-key'") and str(tmp_path) not in text
    # Public: the replay's fault has no traceback; the owner's copy has it.
    assert outcome.replay is not None and "traceback" not in outcome.replay["faults"][0]
    owners = outcome.owner_replay()
    assert owners is not None and owners["faults"][0]["traceback"] == fault.traceback.to_json()
    assert check_replay(owners) == [] and public_replay(owners) == outcome.replay


def test_each_move_has_its_own_printed_lines_and_every_decision_its_time(
    tmp_path: Path,
) -> None:
    outcome = one_game(tmp_path, DEEP, "process")
    seat = seat_of_mybot(outcome)
    replay = outcome.owner_replay()
    assert replay is not None and replay["revision"] == REPLAY_REVISION
    assert check_replay(replay) == [] and has_private(replay)
    assert not has_private(outcome.replay or {})
    timed = list(decisions(replay))
    assert timed and all(type(play["ms"]) is float and play["ms"] >= 0 for _, play in timed)
    mine = {key: play.get("output") for key, play in timed if key[0] == seat}
    assert mine[(seat, 1, 1)] == ["log move 1.1", "err line"]
    assert mine[(seat, 2, 2)] == ["log move 2.2", "err line"]
    # The move that crashed: what it printed before the exception.
    assert mine[(seat, 2, 3)] == ["log move 2.3", "err line", "picking from [2, 8, 10, 11]"]
    # Every move of the bot printed, so every one of its decisions has its lines.
    assert all(lines for lines in mine.values())
    # The per-game tail still has it all, in order.
    assert "log move 1.1\nerr line\nlog move 1.2" in outcome.outputs[seat]


@pytest.mark.parametrize("sandbox", ["process", "none"])
def test_a_deep_recursion_keeps_both_ends_and_counts_the_rest(tmp_path: Path, sandbox: str) -> None:
    (fault,) = one_game(tmp_path, RECURSES, sandbox).faults
    trace = fault.traceback
    assert trace is not None and trace.exception.startswith("RecursionError")
    assert len(trace.frames) == HEAD_FRAMES + TAIL_FRAMES and trace.omitted > 900
    assert trace.frames[0].function == "play" and trace.frames[-1].function == "down"
    assert f"[… {trace.omitted} more frames of the bot's file …]" in trace.format()


@pytest.mark.parametrize("sandbox", ["process", "none"])
def test_a_crash_while_loading_has_its_traceback(tmp_path: Path, sandbox: str) -> None:
    (fault,) = one_game(tmp_path, LOAD_CRASH, sandbox).faults
    assert fault.kind is FaultKind.CRASH and fault.traceback is not None
    assert [(f.line, f.code) for f in fault.traceback.frames] == [
        (5, "VALUE = helper()"),
        (2, "return 1 / 0"),
    ]


def test_a_flood_is_cut_per_move_and_per_game(tmp_path: Path) -> None:
    outcome = one_game(tmp_path, FLOOD, "process")
    moves = outcome.move_output[seat_of_mybot(outcome)]
    assert moves, "the latest moves' lines are kept"
    size = sum(len(line) + 1 for move in moves for line in move.lines)
    assert size <= GAME_MOVE_OUTPUT_CHARS + 200
    last = moves[-1]
    assert sum(len(line) for line in last.lines) <= MOVE_OUTPUT_CHARS + 100
    assert last.lines[0].startswith("[… ") and last.lines[-1].startswith("line 299 of move")
    assert moves[0].lines[0].startswith("[… the output of ")
    assert all(len(line) < 120 for move in moves for line in move.lines)


def test_old_replays_still_load_and_check(tmp_path: Path) -> None:
    for path in GOLDEN.glob("*.json"):
        replay: dict[str, Any] = json.loads(path.read_text())
        assert "revision" not in replay and check_replay(replay) == []


def test_a_revision_2_replay_without_a_time_or_with_a_bad_fact_is_refused(
    tmp_path: Path,
) -> None:
    replay = one_game(tmp_path, DEEP, "none").owner_replay()
    assert replay is not None
    first = replay["rounds"][0]["tricks"][0]["plays"]
    del first[0]["ms"]
    first[1]["output"] = "not a list"
    replay["faults"][0]["traceback"] = {"frames": "no", "exception": 1}
    problems = check_replay(replay)
    assert any("missing keys: ms" in p for p in problems)
    assert any("output must be a list of strings" in p for p in problems)
    assert any("traceback must be a traceback" in p for p in problems)


@pytest.mark.parametrize(
    "line",
    [
        b'{"type":"move","id":1,"card":3,"output":"x"}\n',
        b'{"type":"move","id":1,"card":3,"output":[1]}\n',
        b'{"type":"fault","id":1,"kind":"crash","detail":"d","traceback":{"frames":[]}}\n',
        b'{"type":"fault","id":1,"kind":"crash","detail":"d","traceback":{"frames":[{"file":1}],'
        b'"exception":"E"}}\n',
        b'{"type":"move","id":1,"card":3,"extra":1}\n',
    ],
)
def test_the_runner_refuses_a_malformed_output_or_traceback(line: bytes) -> None:
    with pytest.raises(ProtocolError):
        decode_host_message(line)


def test_oversized_lines_from_a_host_are_cut_not_trusted() -> None:
    lines = ["y" * 5000, *[f"l{i}" for i in range(500)]]
    message = json.dumps({"type": "move", "id": 1, "card": 3, "output": lines})
    decoded = decode_host_message(message.encode() + b"\n")
    assert sum(len(line) for line in decoded.output) <= MOVE_OUTPUT_CHARS + 100  # type: ignore[union-attr]
    assert decoded.output[-1] == "l499"  # type: ignore[union-attr]
