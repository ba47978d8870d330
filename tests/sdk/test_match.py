"""The match loop with the in-process runner: determinism, seating, faults, time, hooks,
state across a series, and captured output."""

from __future__ import annotations

import itertools
import json
import textwrap
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from cucumbers.faults import FaultKind
from cucumbers.games import CONCOMBRE, FIVE_CUCUMBERS, GameRules
from cucumbers.match import GameOutcome, game_seed, play_match, seating
from cucumbers.move_facts import game_record
from cucumbers.runners.base import BotSpec, Limits
from cucumbers.runners.inprocess import InProcessRunner
from cucumbers.validator import check_replay

RECORDER = """
import itertools
import json
import random
import time

from cucumbers import Bot

LOG = {log!r}
TAG = {tag!r}


class Recorder(Bot):
    # Logs every call as a JSON line; plays a random legal card from its bot seed.

    def __init__(self):
        self.games = 0
        self.rng = random.Random(0)

    def note(self, *what):
        with open(LOG, "a") as f:
            f.write(json.dumps(what) + "\\n")

    def start_game(self, game):
        self.games += 1
        self.rng = random.Random(game.bot_seed)
        self.note("start", game.to_json(), self.games)
        print(f"{{TAG}} starts game {{game.game_number}}")

    def play(self, view):
        self.note("play", view.seat, view.round_number, view.trick_number, view.bank_seconds)
        print(f"{{TAG}} plays in game {{self.games}} round {{view.round_number}}")
        time.sleep({sleep})
        return view.legal[int(self.rng.random() * len(view.legal))]

    def end_round(self, result):
        self.note("round", result.to_json())

    def end_game(self, result):
        self.note("end", result.to_json(), self.games)
"""


def recorder(tmp_path: Path, tag: str, sleep: float = 0.0) -> tuple[BotSpec, Path]:
    """A recording bot file and its log."""
    log = tmp_path / f"{tag}.log"
    source = tmp_path / f"{tag}.py"
    source.write_text(RECORDER.format(log=str(log), tag=tag, sleep=sleep))
    return BotSpec(str(source), tag), log


def events(log: Path) -> list[list[Any]]:
    return [json.loads(line) for line in log.read_text().splitlines()]


def bot_file(tmp_path: Path, name: str, source: str) -> BotSpec:
    path = tmp_path / f"{name}.py"
    path.write_text(textwrap.dedent(source))
    return BotSpec(str(path), name)


def run(
    rules: GameRules,
    specs: list[BotSpec],
    *,
    seed: int = 7,
    games: int = 1,
    limits: Limits | None = None,
) -> list[GameOutcome]:
    runner = InProcessRunner(limits or Limits(move_seconds=5.0, bank_seconds=5.0))
    return list(play_match(rules, specs, runner, seed=seed, game_numbers=range(1, games + 1)))


RANDOM = BotSpec("builtin:random", "builtin:random")
LOWEST = BotSpec("builtin:lowest", "builtin:lowest")


def assert_valid(outcome: GameOutcome) -> None:
    assert outcome.replay is not None
    assert check_replay(outcome.replay) == []


@pytest.mark.parametrize("rules", [FIVE_CUCUMBERS, CONCOMBRE], ids=["fc", "concombre"])
def test_a_match_is_determined_by_its_seed(tmp_path: Path, rules: GameRules) -> None:
    def play(seed: int, folder: str) -> list[tuple[Any, ...]]:
        (tmp_path / folder).mkdir()
        spec, _ = recorder(tmp_path / folder, "rec")
        outcomes = run(rules, [RANDOM, spec, RANDOM, LOWEST], seed=seed, games=4)
        for o in outcomes:
            assert_valid(o)
        return [
            (o.seed, o.bots, o.placement, o.scores, o.faults, o.moves, game_record(o.replay or {}))
            for o in outcomes
        ]

    first = play(11, "a")
    assert play(11, "b") == first
    assert play(12, "c") != first
    assert [o[0] for o in first] == [game_seed(11, g) for g in range(1, 5)]


def test_every_bot_sits_at_every_seat_over_a_match() -> None:
    specs = [BotSpec("builtin:random", f"bot{i}") for i in range(4)]
    outcomes = run(FIVE_CUCUMBERS, specs, seed=3, games=40)
    seats: dict[int, set[int]] = defaultdict(set)
    for outcome in outcomes:
        assert sorted(outcome.bots) == [0, 1, 2, 3]
        assert outcome.replay is not None
        for seat, bot in enumerate(outcome.bots):
            seats[bot].add(seat)
            assert outcome.replay["players"][seat] == {"seat": seat, "name": f"bot{bot}"}
    assert all(seats[bot] == {0, 1, 2, 3} for bot in range(4))
    assert len({o.bots for o in outcomes}) > 10  # not a fixed rotation of a few orders


def seat_of(outcome: GameOutcome, bot: int) -> int:
    return outcome.bots.index(bot)


CRASHER = """
from cucumbers import Bot

class Crasher(Bot):
    moves = 0

    def play(self, view):
        self.moves += 1
        if self.moves == 3:
            return {}["no such key"]
        return view.legal[0]
"""


def test_a_bot_that_raises_faults_with_a_crash_and_the_others_play_on(tmp_path: Path) -> None:
    crasher = bot_file(tmp_path, "crasher", CRASHER)
    outcome = run(FIVE_CUCUMBERS, [RANDOM, crasher, RANDOM], seed=5)[0]
    seat = seat_of(outcome, 1)
    assert len(outcome.faults) == 1
    fault = outcome.faults[0]
    assert (fault.seat, fault.kind) == (seat, FaultKind.CRASH)
    assert "KeyError" in fault.detail and "crasher.py" in fault.detail
    assert str(tmp_path) not in fault.detail
    assert outcome.placement[-1] == seat
    assert outcome.moves[seat] == 2
    assert all(outcome.moves[s] > 2 for s in range(3) if s != seat)
    assert_valid(outcome)


@pytest.mark.parametrize(
    "answer", ["True", "'7'", "99", "float(view.legal[0])", "None", "[view.legal[0]]"]
)
def test_a_malformed_answer_is_an_illegal_move(tmp_path: Path, answer: str) -> None:
    bad = bot_file(tmp_path, "bad", f"def play(view):\n    return {answer}\n")
    outcome = run(CONCOMBRE, [LOWEST, bad], seed=2)[0]
    seat = seat_of(outcome, 1)
    faults = [(f.seat, f.kind, f.round, f.trick) for f in outcome.faults]
    assert faults == [(seat, FaultKind.ILLEGAL_MOVE, 1, 1)]
    assert outcome.placement == (1 - seat, seat)
    assert outcome.rounds == 1
    assert_valid(outcome)


def test_a_bot_that_raises_in_a_hook_faults_at_its_next_move(tmp_path: Path) -> None:
    source = """
    def play(view):
        return view.legal[0]

    def end_round(result):
        raise ValueError("cannot learn")
    """
    hooky = bot_file(tmp_path, "hooky", source)
    outcome = run(FIVE_CUCUMBERS, [RANDOM, RANDOM, hooky], seed=9)[0]
    seat = seat_of(outcome, 2)
    (fault,) = outcome.faults
    assert (fault.seat, fault.kind, fault.round, fault.trick) == (seat, FaultKind.CRASH, 2, 1)
    assert "cannot learn" in fault.detail
    assert_valid(outcome)


def test_a_bot_that_does_not_load_faults_at_its_first_move(tmp_path: Path) -> None:
    broken = bot_file(tmp_path, "broken", "def play(view)\n    return 1\n")
    outcome = run(FIVE_CUCUMBERS, [RANDOM, broken, RANDOM], seed=4)[0]
    seat = seat_of(outcome, 1)
    (fault,) = outcome.faults
    assert (fault.seat, fault.kind, fault.round, fault.trick) == (seat, FaultKind.ERROR, 1, 1)
    assert "broken.py" in fault.detail and "line 1" in fault.detail
    assert outcome.moves[seat] == 0
    assert_valid(outcome)


def test_a_slow_bot_past_its_move_time_and_bank_times_out(tmp_path: Path) -> None:
    source = """
    import time

    moves = 0

    def play(view):
        global moves
        moves += 1
        if moves == 3:
            time.sleep(0.6)  # past 0.2 s + the 0.2 s bank
        return view.legal[0]
    """
    slow = bot_file(tmp_path, "slow", source)
    limits = Limits(move_seconds=0.2, bank_seconds=0.2)
    outcome = run(FIVE_CUCUMBERS, [LOWEST, slow], seed=1, limits=limits)[0]
    seat = seat_of(outcome, 1)
    (fault,) = outcome.faults
    assert (fault.seat, fault.kind, fault.round, fault.trick) == (seat, FaultKind.TIMEOUT, 1, 3)
    # The limit and the bank by name (issue 30: "no move within 1.16 s" said neither).
    assert "0.2 s a move" in fault.detail and "0.2 s time bank" in fault.detail, fault.detail
    assert outcome.placement == (1 - seat, seat)
    assert_valid(outcome)


def test_overruns_are_taken_from_the_bank_which_refills_every_game(tmp_path: Path) -> None:
    slow, log = recorder(tmp_path, "slow", sleep=0.02)
    limits = Limits(move_seconds=0.005, bank_seconds=30.0)
    outcomes = run(FIVE_CUCUMBERS, [LOWEST, slow], seed=1, limits=limits, games=2)
    assert all(not o.faults for o in outcomes)
    banks: list[list[float]] = []
    for event in events(log):
        if event[0] == "start":
            assert event[1]["bank_seconds"] == 30.0 and event[1]["move_seconds"] == 0.005
            banks.append([])
        elif event[0] == "play":
            banks[-1].append(event[4])
    assert len(banks) == 2
    for game in banks:
        assert game[0] == 30.0  # a fresh bank every game
        for before, after in itertools.pairwise(game):
            assert after <= before - 0.015 + 1e-9  # each move overran by >= 0.015 s
        assert game[-1] < 30.0 - 0.015 * (len(game) - 1) + 1e-6


def test_a_quick_bot_keeps_its_whole_bank(tmp_path: Path) -> None:
    quick, log = recorder(tmp_path, "quick")
    run(FIVE_CUCUMBERS, [LOWEST, quick], limits=Limits(move_seconds=2.0, bank_seconds=3.0))
    assert {e[4] for e in events(log) if e[0] == "play"} == {3.0}


def test_hooks_are_called_in_order_with_the_games_data(tmp_path: Path) -> None:
    spec, log = recorder(tmp_path, "rec")
    outcomes = run(CONCOMBRE, [RANDOM, spec, LOWEST], seed=21, games=3)
    log_events = events(log)
    games: list[list[list[Any]]] = []
    for event in log_events:
        if event[0] == "start":
            games.append([])
        games[-1].append(event)
    assert len(games) == 3
    for number, (outcome, calls) in enumerate(zip(outcomes, games, strict=True), 1):
        seat = seat_of(outcome, 1)
        replay = outcome.replay
        assert replay is not None
        kinds = [c[0] for c in calls]
        assert kinds[0] == "start" and kinds[-1] == "end"
        assert kinds.count("start") == kinds.count("end") == 1
        start = calls[0][1]
        assert (start["seat"], start["num_players"], start["game_number"]) == (seat, 3, number)
        assert start["game"] == "concombre"
        assert start["players"] == [p["name"] for p in replay["players"]]
        assert calls[0][2] == number  # the same bot object, game after game
        # end_round once per round, in order, with the round's public record.
        rounds = [c[1] for c in calls if c[0] == "round"]
        assert [r["number"] for r in rounds] == list(range(1, outcome.rounds + 1))
        for result, rnd in zip(rounds, replay["rounds"], strict=True):
            assert result["loser"] == rnd["loser"] and result["scores"] == rnd["scores"]
            assert [
                {"leader": t["leader"], "plays": [[p["seat"], p["card"]] for p in t["plays"]],
                 "winner": t["winner"]}
                for t in rnd["tricks"]
            ] == result["tricks"]  # fmt: skip
        # Every play comes between the start and the end of its round.
        current_round = 1
        for c in calls[1:-1]:
            if c[0] == "round":
                current_round += 1
            else:
                assert c[0] == "play" and c[1] == seat and c[2] == current_round
        assert sum(c[0] == "play" for c in calls) == outcome.moves[seat]
        end = calls[-1][1]
        assert end["seat"] == seat
        assert end["place"] == outcome.place_of_bot(1)
        assert tuple(end["placement"]) == outcome.placement
        assert tuple(end["scores"]) == outcome.scores
        assert end["capped"] is False


def test_a_bot_object_lives_through_the_whole_series(tmp_path: Path) -> None:
    spec, log = recorder(tmp_path, "rec")
    run(FIVE_CUCUMBERS, [spec, RANDOM], games=5)
    assert [e[2] for e in events(log) if e[0] == "start"] == [1, 2, 3, 4, 5]
    assert [e[2] for e in events(log) if e[0] == "end"] == [1, 2, 3, 4, 5]


def test_bot_output_goes_to_the_outcome_not_the_terminal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec, _ = recorder(tmp_path, "chatty")
    noisy = bot_file(
        tmp_path,
        "noisy",
        """
        import sys

        def play(view):
            print("NOISY on stdout")
            print("NOISY on stderr", file=sys.stderr)
            return view.legal[0]
        """,
    )
    outcomes = run(FIVE_CUCUMBERS, [spec, noisy, RANDOM], games=2)
    captured = capsys.readouterr()
    assert "chatty" not in captured.out + captured.err
    assert "NOISY" not in captured.out + captured.err
    for number, outcome in enumerate(outcomes, 1):
        chatty = outcome.outputs[seat_of(outcome, 0)]
        assert f"chatty plays in game {number}" in chatty
        assert f"in game {3 - number} " not in chatty  # each game has its own output
        assert "NOISY on stdout" in outcome.outputs[seat_of(outcome, 1)]
        assert "NOISY on stderr" in outcome.outputs[seat_of(outcome, 1)]
        assert outcome.outputs[seat_of(outcome, 2)] == ""


def test_a_flood_of_output_is_cut_to_the_limit(tmp_path: Path) -> None:
    source = "def play(view):\n    print('x' * 10000)\n    return view.legal[0]\n"
    flood = bot_file(tmp_path, "flood", source)
    outcome = run(FIVE_CUCUMBERS, [flood, RANDOM], limits=Limits(output_bytes=1000))[0]
    text = outcome.outputs[seat_of(outcome, 0)]
    assert len(text.encode()) < 1200
    assert "cut" in text


@pytest.mark.parametrize("bots", [2, 3, 4, 7])
def test_a_duplicate_match_plays_each_deal_once_per_seat_rotation(bots: int) -> None:
    from cucumbers.match import duplicate_games, game_plan, game_seed

    games = duplicate_games(5, bots)
    assert games % bots == 0 and games >= 5
    plans = [game_plan(99, number, bots, duplicate=True) for number in range(1, games + 1)]
    for block in range(games // bots):
        rotation = plans[block * bots : (block + 1) * bots]
        assert {deal for deal, _ in rotation} == {game_seed(99, block + 1)}
        # Every bot sits at every seat once for the deal: each seat's cards once each.
        for seat in range(bots):
            assert sorted(seats[seat] for _, seats in rotation) == list(range(bots))
    # Plain matches keep their own deal and seating per game.
    assert game_plan(99, 2, bots) == (game_seed(99, 2), seating(99, 2, bots))


@pytest.mark.parametrize("bots", [2, 3, 4, 6])
def test_the_rotation_matches_of_a_duplicate_set_play_the_one_match_plan_between_them(
    bots: int,
) -> None:
    from cucumbers.match import game_plan

    deals = 3
    split = {
        (deal, tuple(seats))
        for rotation in range(bots)
        for number in range(1, deals + 1)
        for deal, seats in [game_plan(5, number, bots, True, rotation)]
    }
    whole = {
        (deal, tuple(seats))
        for number in range(1, deals * bots + 1)
        for deal, seats in [game_plan(5, number, bots, True)]
    }
    assert split == whole and len(split) == deals * bots
    # Within one rotation match no deal comes twice: its bot processes see each deal once.
    for rotation in range(bots):
        seen = [game_plan(5, n, bots, True, rotation)[0] for n in range(1, deals + 1)]
        assert len(set(seen)) == deals


@pytest.mark.parametrize(("duplicate", "rotation"), [(False, 0), (True, 4), (True, -1)])
def test_a_rotation_outside_duplicate_deals_or_the_seats_is_refused(
    duplicate: bool, rotation: int
) -> None:
    from cucumbers.match import game_plan

    with pytest.raises(ValueError, match="rotation"):
        game_plan(5, 1, 4, duplicate, rotation)
