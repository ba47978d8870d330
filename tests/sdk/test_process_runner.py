"""The process runner against misbehaving bots (``misbehaving_bots/``): every misdeed becomes
the right fault for that seat only, the game still ends with a full placement, and nothing
a bot started outlives its match."""

from __future__ import annotations

import json
import math
import os
import re
from pathlib import Path

import pytest

from cucumbers.faults import Fault, FaultKind
from cucumbers.games import FIVE_CUCUMBERS
from cucumbers.match import GameOutcome, play_match
from cucumbers.protocol import (
    MAX_LINE_BYTES,
    MoveReply,
    ProtocolError,
    Unencodable,
    decode_host_message,
    encode,
    move_reply,
)
from cucumbers.runners import RUNNERS, make_runner, register_runner
from cucumbers.runners.base import BotSpec, Limits
from cucumbers.runners.inprocess import InProcessRunner
from cucumbers.runners.process import ProcessRunner
from cucumbers.runners.reaper import read_proc

BOTS = Path(__file__).parent / "misbehaving_bots"
OTHERS = ("builtin:random", "builtin:lowest", "builtin:random")
#: Small time limits, for the tests that wait for a timeout.
FAST = Limits(move_seconds=0.2, bank_seconds=0.2, startup_seconds=5.0)


def bot(name: str) -> str:
    return str(BOTS / f"{name}.py")


def play(source: str, *, games: int = 1, limits: Limits | None = None) -> list[GameOutcome]:
    """Games between ``source`` (bot index 0) and three well-behaved built-in bots."""
    specs = [BotSpec.parse(source), *(BotSpec.parse(other) for other in OTHERS)]
    runner = ProcessRunner(limits or Limits())
    return list(
        play_match(FIVE_CUCUMBERS, specs, runner, seed=11, game_numbers=range(1, games + 1))
    )


def seat_of_bot(outcome: GameOutcome) -> int:
    return outcome.bots.index(0)


def output_of_bot(outcome: GameOutcome) -> str:
    return outcome.outputs[seat_of_bot(outcome)]


def the_fault(outcome: GameOutcome, kind: FaultKind) -> Fault:
    """The one fault of the game: bot 0's, of ``kind``; bot 0 is ranked last."""
    seat = seat_of_bot(outcome)
    assert [(f.seat, f.kind) for f in outcome.faults] == [(seat, kind)], outcome.faults
    assert sorted(outcome.placement) == [0, 1, 2, 3]
    assert outcome.placement[-1] == seat
    return outcome.faults[0]


def assert_clean(outcome: GameOutcome) -> None:
    assert outcome.faults == ()
    assert sorted(outcome.placement) == [0, 1, 2, 3]


def is_gone(pid: int) -> bool:
    """Not running: no such process, or a zombie."""
    info = read_proc(pid)
    return info is None or not info.alive


# -- crashes, timeouts and exits -----------------------------------------------------------


def test_a_bot_that_never_answers_times_out() -> None:
    (outcome,) = play(bot("sleeper"), limits=FAST)
    fault = the_fault(outcome, FaultKind.TIMEOUT)
    assert "no move within 0.4 s" in fault.detail
    # What the 0.4 s is made of (issue 30: the limit and the bank were not named).
    assert "0.2 s a move and the 0.2 s left of its 0.2 s time bank" in fault.detail, fault.detail


def test_a_bot_that_raises_crashes_with_the_exception_and_line() -> None:
    (outcome,) = play(bot("raiser"))
    fault = the_fault(outcome, FaultKind.CRASH)
    assert fault.detail == "ValueError: no idea what to play (raiser.py, line 5)"


@pytest.mark.parametrize(
    ("name", "detail"),
    [
        ("sys_exit", "SystemExit: 3 (sys_exit.py, line 7)"),
        ("os_exit", "the bot's process exited with status 5"),
        ("segfault", "the bot's process was killed by signal SIGSEGV"),
    ],
)
def test_a_bot_that_exits_or_dies_crashes(name: str, detail: str) -> None:
    (outcome,) = play(bot(name))
    assert the_fault(outcome, FaultKind.CRASH).detail == detail


def test_an_exception_in_a_hook_is_a_crash_at_the_next_move() -> None:
    (outcome,) = play(bot("hook_raiser"))
    fault = the_fault(outcome, FaultKind.CRASH)
    assert fault.detail.startswith("RuntimeError: cannot start (hook_raiser.py, line")
    assert (fault.round, fault.trick) == (1, 1)


def test_the_memory_limit_makes_a_greedy_bot_crash(tmp_path: Path) -> None:
    greedy = tmp_path / "greedy.py"
    greedy.write_text("def play(view):\n    return len(bytearray(400 * 2**20))\n")
    (outcome,) = play(str(greedy), limits=Limits(memory_bytes=300 * 2**20))
    assert the_fault(outcome, FaultKind.CRASH).detail.startswith("MemoryError")


def test_the_cpu_limit_kills_a_spinning_bot(tmp_path: Path) -> None:
    spinner = tmp_path / "spinner.py"
    spinner.write_text("def play(view):\n    while True:\n        pass\n")
    (outcome,) = play(str(spinner), limits=Limits(cpu_seconds=1, move_seconds=5))
    fault = the_fault(outcome, FaultKind.CRASH)
    assert fault.detail == "the bot's process was killed by signal SIGXCPU (CPU time limit)"


# -- illegal answers -----------------------------------------------------------------------

ILLEGAL = [
    ("True", "returned True (bool), not an int"),
    ("7.0", "returned 7.0 (float), not an int"),
    ("'7'", "returned '7' (str), not an int"),
    ("None", "returned None (NoneType), not an int"),
    ("10 ** 100", "played 1000000000000000000000000000000000000..., not a legal card"),
    ("10 ** 5000", "returned <an int of 16610 bits> (int), not an int"),
    ("next(c for c in range(1, 16) if c not in view.hand)", ", not a legal card"),
    ("type('Card', (int,), {})(view.legal[0])", "(Card), not an int"),
    ("float('nan')", "returned nan (float), not an int"),
    ("object()", "returned <object object at "),
    ("[view.legal[0]]", "returned ["),  # a list
]


@pytest.mark.parametrize(("expression", "detail"), ILLEGAL, ids=[e for e, _ in ILLEGAL])
def test_an_answer_that_is_not_exactly_a_legal_int_is_an_illegal_move(
    tmp_path: Path, expression: str, detail: str
) -> None:
    source = tmp_path / "answers.py"
    source.write_text(f"def play(view):\n    return {expression}\n")
    (outcome,) = play(str(source))
    fault = the_fault(outcome, FaultKind.ILLEGAL_MOVE)
    assert detail in fault.detail
    assert "; legal: [" in fault.detail


# -- output and the protocol ---------------------------------------------------------------

FAKE_MOVE = '{"type":"move","id":1,"card":3}'


@pytest.mark.parametrize("name", ["stdout_fake_move", "fd1_fake_move"])
def test_fake_messages_on_stdout_are_only_output(name: str) -> None:
    (outcome,) = play(bot(name))
    assert_clean(outcome)
    assert FAKE_MOVE in output_of_bot(outcome)


def test_megabytes_of_output_are_cut_to_the_tail_and_do_not_fault() -> None:
    outcomes = play(bot("flood"), games=2)
    for outcome in outcomes:
        assert_clean(outcome)
        text = output_of_bot(outcome)
        assert re.match(r"\[… \d+ bytes of output cut …\]\n", text)
        assert text.endswith("flood done\n")
        assert len(text.encode()) < 4096 + 100
        assert all(
            other == "" for s, other in enumerate(outcome.outputs) if s != seat_of_bot(outcome)
        )


@pytest.mark.parametrize(
    ("payload", "detail"),
    [
        (None, "not JSON"),
        ('b"x" * (2 * 1024 * 1024)', "a line longer than 1048576 bytes"),
        ('b\'{"type":"ready","protocol":1}\\n\'', "an unexpected Ready message"),
    ],
    ids=["garbage", "oversized", "out of turn"],
)
def test_writing_to_the_protocol_channel_is_a_protocol_fault(
    tmp_path: Path, payload: str | None, detail: str
) -> None:
    source = Path(bot("protocol_garbage"))
    if payload is not None:
        text = re.sub(r"(?m)^PAYLOAD = .*$", lambda _: f"PAYLOAD = {payload}", source.read_text())
        source = tmp_path / "protocol_garbage.py"
        source.write_text(text)
    (outcome,) = play(str(source))
    assert detail in the_fault(outcome, FaultKind.PROTOCOL).detail


def test_a_host_that_speaks_another_protocol_is_a_protocol_fault(tmp_path: Path) -> None:
    # A ready of protocol 2 (whose views came whole) on the protocol, before the host's own.
    source = tmp_path / "old_host.py"
    garbage = Path(bot("protocol_garbage")).read_text()
    source.write_text(
        garbage + '\nos.write(protocol_fd(), b\'{"type":"ready","protocol":2}\\n\')\n'
    )
    (outcome,) = play(str(source))
    fault = the_fault(outcome, FaultKind.PROTOCOL)
    assert fault.detail == "the host speaks protocol 2, not 3"


def test_a_channel_closed_by_a_live_process_is_a_protocol_fault() -> None:
    (outcome,) = play(bot("closes_protocol"))
    fault = the_fault(outcome, FaultKind.PROTOCOL)
    assert fault.detail == "the bot closed the protocol channel"


def test_a_bot_that_dies_between_moves_crashes_at_its_next_move() -> None:
    (outcome,) = play(bot("exits_in_end_round"))
    fault = the_fault(outcome, FaultKind.CRASH)
    assert fault.detail == "the bot's process exited with status 4"
    assert fault.round == 2


# -- loading -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "kind", "detail"),
    [
        ("syntax_error", FaultKind.ERROR, "syntax error in syntax_error.py, line 1"),
        ("no_bot", FaultKind.ERROR, "no bot found in no_bot.py"),
        ("exit_at_import", FaultKind.CRASH, "exit_at_import.py called exit(2) while loading"),
        ("loop_at_import", FaultKind.TIMEOUT, "not ready within 0.5 s"),
    ],
)
def test_a_bot_that_does_not_load_faults_at_its_first_move_of_every_game(
    name: str, kind: FaultKind, detail: str
) -> None:
    limits = Limits(startup_seconds=0.5)
    for outcome in play(bot(name), games=2, limits=limits):
        fault = the_fault(outcome, kind)
        assert detail in fault.detail
        assert (fault.round, fault.trick) == (1, 1)


# -- isolation and clean-up ----------------------------------------------------------------


def test_a_bot_sees_none_of_our_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CUCUMBERS_TEST_SECRET", "hunter2")
    (outcome,) = play(bot("env_dump"))
    assert_clean(outcome)
    text = output_of_bot(outcome)
    assert "hunter2" not in text
    seen = json.loads(text.split("ENV ", 1)[1])
    environ = seen["environ"]
    assert set(environ) == {
        "PATH",
        "HOME",
        "TMPDIR",
        "LANG",
        "PYTHONPATH",
        "PYTHONDONTWRITEBYTECODE",
        "PYTHONHASHSEED",
    }
    assert environ["PATH"] == "/usr/bin:/bin"
    assert environ["HOME"] == environ["TMPDIR"] == seen["cwd"]
    assert not os.path.exists(environ["HOME"]), "the private directory is removed at close"


def test_no_process_a_bot_started_outlives_the_match() -> None:
    specs = [BotSpec.parse(bot("spawner")), *(BotSpec.parse(other) for other in OTHERS)]
    games = play_match(FIVE_CUCUMBERS, specs, ProcessRunner(), seed=3, game_numbers=[1, 2])
    first = next(games)
    pids = [int(pid) for pid in output_of_bot(first).split("PIDS ", 1)[1].split()[:3]]
    assert not any(is_gone(pid) for pid in pids[1:]), "the leftovers run during the match"
    rest = list(games)  # the match ends and the runner closes
    for outcome in (first, *rest):
        assert_clean(outcome)
        pids += [int(pid) for pid in output_of_bot(outcome).split("PIDS ", 1)[1].split()[:3]]
    assert len(set(pids)) == 5  # one host; a sleep and a daemon per game
    for pid in pids:
        assert read_proc(pid) is None, f"process {pid} is still there (or not reaped)"


def test_a_bot_keeps_its_state_across_the_games_of_a_match() -> None:
    outcomes = play(bot("counter"), games=3)
    for number, outcome in enumerate(outcomes, start=1):
        assert_clean(outcome)
        assert output_of_bot(outcome) == f"GAMES {number}\n"


@pytest.mark.parametrize(
    ("name", "kind"),
    [("sleeps_in_first_game", FaultKind.TIMEOUT), ("exits_in_first_game", FaultKind.CRASH)],
)
def test_a_bot_killed_in_one_game_is_restarted_fresh_for_the_next(
    name: str, kind: FaultKind
) -> None:
    first, second, third = play(bot(name), games=3, limits=FAST)
    the_fault(first, kind)
    assert_clean(second)
    assert_clean(third)
    pid_1, pid_2, pid_3 = (int(output_of_bot(o).split()[1]) for o in (first, second, third))
    assert pid_1 != pid_2 == pid_3
    assert output_of_bot(second).endswith("GAMES 1\n")  # a fresh bot object
    assert output_of_bot(third).endswith("GAMES 2\n")
    assert is_gone(pid_1)


def test_closing_twice_is_harmless() -> None:
    runner = ProcessRunner()
    (client,) = runner.start([BotSpec.parse("builtin:lowest")])
    runner.close()
    runner.close()
    client.close()


# -- the registry and the protocol ---------------------------------------------------------


def test_make_runner_knows_both_runners_and_names_them_when_asked_for_another() -> None:
    assert isinstance(make_runner("process", None), ProcessRunner)
    assert isinstance(make_runner("none", Limits(move_seconds=2)), InProcessRunner)
    with pytest.raises(ValueError, match="choose one of: none, process"):
        make_runner("docker", None)


def test_register_runner_adds_a_runner_by_its_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("cucumbers.runners.RUNNERS", dict(RUNNERS))

    @register_runner
    class Docker(InProcessRunner):
        name = "docker"

    assert isinstance(make_runner("docker", None), Docker)


@pytest.mark.parametrize("value", [True, False, 7, 7.0, "7", None, -(10**300)])
def test_a_json_card_keeps_its_type_across_the_protocol(value: object) -> None:
    decoded = decode_host_message(encode(move_reply(3, value)))
    assert isinstance(decoded, MoveReply)
    assert decoded.unencodable is None
    assert type(decoded.card) is type(value) and decoded.card == value


@pytest.mark.parametrize(
    ("value", "described"),
    [
        (math.inf, Unencodable("float", "inf")),
        ("x" * 1000, Unencodable("str", "'" + "x" * 196 + "...")),
        (
            type("Seven", (int,), {"__repr__": lambda self: "SEVEN"})(7),
            Unencodable("Seven", "SEVEN"),
        ),
    ],
)
def test_other_answers_travel_as_a_description(value: object, described: Unencodable) -> None:
    decoded = decode_host_message(encode(move_reply(3, value)))
    assert decoded == MoveReply(3, None, described)


@pytest.mark.parametrize(
    "line",
    [
        b"not json\n",
        b"[1]\n",
        b'{"type":"move","id":1,"card":NaN}\n',
        b'{"type":"move","id":true,"card":1}\n',
        b'{"type":"move","id":1,"card":[1]}\n',
        b'{"type":"move","id":1,"card":1,"extra":0}\n',
        b'{"type":"fault","id":1,"kind":"timeout","detail":"x"}\n',
        b'{"type":"ready","protocol":"1"}\n',
        b'{"type":"hello"}\n',
        b'{"type":"move","id":1,"card":"' + b"x" * MAX_LINE_BYTES + b'"}\n',
    ],
)
def test_the_runner_rejects_anything_but_a_host_message(line: bytes) -> None:
    with pytest.raises(ProtocolError):
        decode_host_message(line)
