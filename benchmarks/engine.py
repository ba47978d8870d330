"""Engine speed, in three parts, each in one run:

1. The engine against a tight reference loop (``reference_engine.py``): the same 3,000
   four-player Five Cucumbers games between random bots, in process, played by the engine
   (``GameState``, a ``View`` per move, ``builtin:random`` bots) and by the reference, in
   turns; CPU seconds, median of 5. Every game's placement, scores and round penalties
   must agree, or the benchmark fails. Target (issue 16): the engine at least as fast
   (``reference / engine >= 1.0``).
2. Throughput through the whole local runner (``run_play``, ``--sandbox none``), one worker
   and two. Target (issue 2): at least 2,000 games/s on one core.
3. The replay validator's time per game (target: under 3 ms) on games of both kinds with
   faults, the same mix its tests check.

Run: ``make bench`` or ``python benchmarks/engine.py [--games N] [--side-games N]``.

Where the time went (cProfile, these 3,000 games, issue 16). Before: the engine was driven
move by move (``view``, ``bot.play``, ``play``); by own time, ``_advance`` 17% (called for
every move; it rebuilt the legal set with ``dict.fromkeys`` on every move), ``play`` 13%,
``view`` 11% (a 22-field tuple through a list unpacking), the driver loop 9%, the random
bot 6%, ``_start_trick`` 5% (a record object per trick), and the deal 12% (``random.sample``
calls the Python-level ``_randbelow`` once per card: 28 calls a round). The engine took
2.8x the reference's CPU. After: the match loop plays through ``GameState.run`` (the moves
and trick changes on local variables), legal sets are a slice of each hand's distinct
cards kept play by play, one shared ``Play`` per seat and rank, and the deal inlines the
standard library's sampling (``cucumbers.deal``). What is left is the per-move floor of the
bot API: a 22-field ``View`` per move and a Python call into the bot (``run`` 35%, the
random bot 7% by own time), which the reference does not pay (it calls ``rng.random``
directly and builds no view), and once-per-round work (``_start_round``, ``_end_round`` and
the deal: the records for the replay, the rules' hooks; 25%).
"""

from __future__ import annotations

import argparse
import importlib
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

from reference_engine import Result
from reference_engine import play_game as reference_game

from cucumbers.bots.simple import RandomBot
from cucumbers.engine import GameState
from cucumbers.games import FIVE_CUCUMBERS
from cucumbers.match import derive_seed, game_seed
from cucumbers.play import PlayConfig, run_play
from cucumbers.runners.base import BotSpec
from cucumbers.view import GameStart

TARGET_GAMES_PER_SECOND = 2000
TARGET_VALIDATOR_SECONDS = 0.003
TARGET_RATIO = 1.0
PLAYERS = 4

#: A game to play: its deal seed and every seat's bot seed (as the match loop derives them).
Deal = tuple[int, tuple[int, ...]]


def deals(games: int) -> list[Deal]:
    """The seeds of games 1..``games`` of match 2026, derived before any clock starts."""
    out = []
    for number in range(1, games + 1):
        seed = game_seed(2026, number)
        out.append((seed, tuple(derive_seed("bot", seed, s) for s in range(PLAYERS))))
    return out


def engine_games(games: list[Deal], keep: bool = True) -> list[GameState]:
    """The games on the engine, driven as the match loop drives it (``GameState.run``, less
    the runner's clients): a ``builtin:random`` bot per seat, started with its seed, asked
    with a view every move. ``keep=False`` (the timed runs) lets each game go once played,
    as the match loop does once it has the replay: 3,000 finished games kept alive would
    make every collection of the garbage collector walk all their records, a cost of this
    benchmark that the match loop does not pay (and the reference keeps only its results)."""
    names = tuple(f"random{s}" for s in range(PLAYERS))
    banks = [10.0] * PLAYERS
    states = []
    for number, (seed, bot_seeds) in enumerate(games, 1):
        bots = [RandomBot() for _ in range(PLAYERS)]
        for start, bot in enumerate(bots):
            bot.start_game(GameStart("five-cucumbers", start, PLAYERS, names, number,
                                     bot_seeds[start], 1.0, 10.0))  # fmt: skip
        state = GameState(FIVE_CUCUMBERS, PLAYERS, seed)
        plays = [bot.play for bot in bots]
        state.run(plays, move_seconds=1.0, banks=banks)
        if keep:
            states.append(state)
    return states


def reference_games(games: list[Deal]) -> list[Result]:
    return [reference_game(seed, bot_seeds) for seed, bot_seeds in games]


def engine_result(state: GameState) -> Result:
    replay = state.to_replay([{"seat": s, "name": "random"} for s in range(PLAYERS)])
    penalties = tuple(r["penalty"] for r in replay["rounds"])
    return tuple(state.placement()), tuple(state.scores), penalties


def cpu_seconds(run: Callable[[], object]) -> float:
    started = time.process_time()
    run()
    return time.process_time() - started


def side_by_side(games: int, repeats: int = 5) -> tuple[float, float]:
    """(engine, reference) CPU seconds for ``games`` games, medians of ``repeats`` runs taken
    in turns, after checking that both play every game alike."""
    seeds = deals(games)
    expected = reference_games(seeds)
    mismatched = [
        number
        for number, (state, want) in enumerate(zip(engine_games(seeds), expected, strict=True), 1)
        if engine_result(state) != want
    ]
    if mismatched:
        raise SystemExit(f"the engine and the reference differ in games {mismatched[:10]}")
    engine, reference = [], []
    for _ in range(repeats):
        engine.append(cpu_seconds(lambda: engine_games(seeds, keep=False)))
        reference.append(cpu_seconds(lambda: reference_games(seeds)))
    return statistics.median(engine), statistics.median(reference)


def games_per_second(games: int, workers: int) -> tuple[float, float]:
    """(games per second, mean rounds per game) for one run."""
    config = PlayConfig(
        rules=FIVE_CUCUMBERS,
        bots=tuple(BotSpec.parse("builtin:random") for _ in range(4)),
        games=games,
        seed=2026,
        sandbox="none",
        workers=workers,
    )
    started = time.perf_counter()
    report = run_play(config)
    seconds = time.perf_counter() - started
    rounds = sum(outcome.rounds for outcome in report.outcomes) / len(report.outcomes)
    return games / seconds, rounds


def validator_seconds_per_game(count: int = 400) -> float:
    """Seconds the replay validator takes per game over ``count`` random replays."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from cucumbers.validator import check_replay

    # The validator tests' mix of games (imported by name: mypy checks the tests apart).
    games = importlib.import_module("tests.sdk.test_validator").random_games(count)
    started = time.perf_counter()
    for game in games:
        check_replay(game)
    return (time.perf_counter() - started) / len(games)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=20000)
    parser.add_argument("--side-games", type=int, default=3000)
    args = parser.parse_args()
    print(
        f"engine benchmark: {platform.python_implementation()} {platform.python_version()},"
        f" {os.cpu_count()} cores"
    )
    engine, reference = side_by_side(args.side_games)
    ratio = reference / engine
    print(
        f"  engine vs reference loop, four-player Five Cucumbers, random bots,"
        f" {args.side_games} games (identical), CPU median of 5:"
    )
    print(
        f"  engine {engine:.3f} s, reference {reference:.3f} s:"
        f" reference / engine = {ratio:.2f} (target >= {TARGET_RATIO:g})"
    )
    one, rounds = games_per_second(args.games, workers=1)
    two, _ = games_per_second(args.games, workers=2)
    print(
        f"  four-player Five Cucumbers, builtin:random x4, --sandbox none,"
        f" {args.games} games, {rounds:.2f} rounds/game"
    )
    print(
        f"  1 worker : {one:8.0f} games/s  (target {TARGET_GAMES_PER_SECOND},"
        f" {one / TARGET_GAMES_PER_SECOND:.2f}x target)"
    )
    print(f"  2 workers: {two:8.0f} games/s  ({two / one:.2f}x one worker)")
    per_game = validator_seconds_per_game()
    print(
        f"  replay validator: {1e3 * per_game:.2f} ms/game"
        f" (target {1e3 * TARGET_VALIDATOR_SECONDS:g} ms,"
        f" {per_game / TARGET_VALIDATOR_SECONDS:.2f}x target)"
    )


if __name__ == "__main__":
    main()
