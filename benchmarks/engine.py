"""Engine throughput: full four-player Five Cucumbers games per second with builtin:random bots
in process (``--sandbox none``), on one worker and on two, side by side in one run.

Target (issue 2): at least 2,000 games/s on one core; two workers close to twice that.
Also the replay validator's time per game (target: under 3 ms) on games of both kinds with
faults, the same mix its tests check.
Run: ``make bench`` or ``python benchmarks/engine.py [--games N]``.
"""

from __future__ import annotations

import argparse
import importlib
import os
import platform
import sys
import time
from pathlib import Path

from cucumbers.games import FIVE_CUCUMBERS
from cucumbers.play import PlayConfig, run_play
from cucumbers.runners.base import BotSpec

TARGET_GAMES_PER_SECOND = 2000
TARGET_VALIDATOR_SECONDS = 0.003


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
    args = parser.parse_args()
    print(
        f"engine benchmark: {platform.python_implementation()} {platform.python_version()},"
        f" {os.cpu_count()} cores"
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
