"""Process runner cost: moves per second with four ``builtin:random`` bots playing Five
Cucumbers in one series, and the fixed cost of a bot per series (start-up until ``ready``,
and close), for ``--sandbox process`` beside ``--sandbox none``.

Run: ``make bench`` or ``python benchmarks/process_runner.py [--games N] [--repeat N]``.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time
from dataclasses import dataclass

from cucumbers.games import FIVE_CUCUMBERS
from cucumbers.match import game_seed, play_game, seating
from cucumbers.runners import make_runner
from cucumbers.runners.base import BotSpec

SEED = 2026
PLAYERS = 4


@dataclass(frozen=True, slots=True)
class SeriesTiming:
    """One series: moves made and the seconds spent starting, playing and closing."""

    moves: int
    start: float
    play: float
    close: float


def run_series(sandbox: str, games: int, bots: int = PLAYERS) -> SeriesTiming:
    """Start ``bots`` random bots, play ``games`` games (none if ``games`` is 0), close."""
    specs = [BotSpec.parse("builtin:random") for _ in range(bots)]
    runner = make_runner(sandbox, None)
    started = time.perf_counter()
    clients = runner.start(specs)
    ready = time.perf_counter()
    moves = 0
    for number in range(1, games + 1):
        order = seating(SEED, number, bots)
        outcome = play_game(
            FIVE_CUCUMBERS,
            [clients[bot] for bot in order],
            seed=game_seed(SEED, number),
            limits=runner.limits,
            game_number=number,
            bots=order,
            keep_replay=False,
        )
        assert not outcome.faults, outcome.faults
        moves += sum(outcome.moves)
    played = time.perf_counter()
    runner.close()
    closed = time.perf_counter()
    return SeriesTiming(moves, ready - started, played - ready, closed - played)


def moves_per_second(sandbox: str, games: int, repeat: int) -> float:
    """The best of ``repeat`` series (the least disturbed by the rest of the machine)."""
    best = 0.0
    for _ in range(repeat):
        timing = run_series(sandbox, games)
        best = max(best, timing.moves / timing.play)
    return best


def fixed_costs(sandbox: str, bots: int, repeat: int) -> tuple[float, float]:
    """Median (start-up, close) seconds of a series of ``bots`` bots and no games."""
    timings = [run_series(sandbox, 0, bots) for _ in range(repeat)]
    return (
        statistics.median(t.start for t in timings),
        statistics.median(t.close for t in timings),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    print(
        f"process runner benchmark: {platform.python_implementation()}"
        f" {platform.python_version()}, os.cpu_count() = {os.cpu_count()}"
    )
    print(f"  Five Cucumbers, builtin:random x{PLAYERS}, one series of {args.games} games")
    speed = {
        sandbox: moves_per_second(sandbox, args.games, args.repeat)
        for sandbox in ("none", "process")
    }
    rows: list[tuple[str, float, float]] = [
        ("moves per second", speed["none"], speed["process"]),
        ("time per move (µs)", 1e6 / speed["none"], 1e6 / speed["process"]),
    ]
    for bots in (1, PLAYERS):
        none_start, none_close = fixed_costs("none", bots, args.repeat)
        start, close = fixed_costs("process", bots, args.repeat)
        label = "1 bot" if bots == 1 else f"{bots} bots in parallel"
        rows += [
            (f"start-up until ready, {label} (ms)", 1e3 * none_start, 1e3 * start),
            (f"close, {label} (ms)", 1e3 * none_close, 1e3 * close),
            (
                f"fixed cost per bot, {label} (ms)",
                1e3 * (none_start + none_close) / bots,
                1e3 * (start + close) / bots,
            ),
        ]
    print(f"  {'':44} {'none':>10} {'process':>10} {'cost ratio':>12}")
    for label, none, process in rows:
        # The cost of the process runner relative to none: time ratio (rate ratio inverted).
        ratio = none / process if label.startswith("moves") else process / max(none, 1e-9)
        print(f"  {label:44} {none:10,.2f} {process:10,.2f} {ratio:11,.1f}x")


if __name__ == "__main__":
    main()
