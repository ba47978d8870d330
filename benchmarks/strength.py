"""Strength of the built-in bots: mean placement in four-player tables of different bots.

Design. Two tables per game, each with four *different* bots, so that every game compares
the bots directly and placements are never split between copies of one bot:

- ``baselines``: random, lowest, highest, heuristic;
- ``top``: random, highest, heuristic, search.

The tables share random, highest and heuristic, so together they order all five bots, and
each stronger bot meets the weaker ones at the same table. Every table is one match played
through :func:`cucumbers.match.play_match` with the in-process runner: seats are reshuffled
every game (:func:`cucumbers.match.seating`), so no bot profits from its seat. Games are split
into blocks played by a pool of worker processes (one per core); game ``k`` has the same deal
and seating whatever the number of workers.

A bot's mean placement (1 = best, 2.5 = even in a four-player table) comes with a 95%
confidence interval (normal approximation, ±1.96 standard errors); its time per move is the
match loop's own measurement. The default is 2,000 games per table, ``--quick`` plays 200.

A second, single-process run (``--timing-games``, default 20 games of the ``top`` table) times
every move of every bot separately and prints the mean, median, 99th percentile and maximum
over the moves that had a choice, since forced moves (one legal card) take no thought.

Run: ``python benchmarks/strength.py [--games N] [--quick] [--game five-cucumbers]``.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import os
import platform
import random
import statistics
import time
from dataclasses import dataclass, field

from cucumbers.bots import make_builtin
from cucumbers.engine import GameState
from cucumbers.games import GameName, rules_for
from cucumbers.match import GameOutcome, derive_seed, game_seed, play_match
from cucumbers.runners.base import BotSpec, Limits
from cucumbers.runners.inprocess import InProcessRunner
from cucumbers.view import GameStart

#: The tables: name and bots (builtin names), in the order the tables are printed.
TABLES: dict[str, tuple[str, ...]] = {
    "baselines": ("random", "lowest", "highest", "heuristic"),
    "top": ("random", "highest", "heuristic", "search"),
}
DEFAULT_GAMES = 2000
QUICK_GAMES = 200
SEED = 2026
#: Games per task handed to a worker: small enough to balance two cores, large enough that
#: starting the bots is negligible.
BLOCK = 25


@dataclass(slots=True)
class Tally:
    """One bot's results at one table."""

    bot: str
    places: list[int] = field(default_factory=list)
    moves: int = 0
    seconds: float = 0.0
    faults: int = 0

    @property
    def mean(self) -> float:
        return sum(self.places) / len(self.places)

    @property
    def ci95(self) -> float:
        n = len(self.places)
        mean = self.mean
        variance = sum((p - mean) ** 2 for p in self.places) / (n - 1)
        return 1.96 * math.sqrt(variance / n)

    @property
    def win_rate(self) -> float:
        return sum(1 for p in self.places if p == 1) / len(self.places)


def _block(task: tuple[str, tuple[str, ...], int, list[int]]) -> list[GameOutcome]:
    game, bots, seed, numbers = task
    specs = [BotSpec(f"builtin:{name}", name) for name in bots]
    return list(
        play_match(
            rules_for(game),
            specs,
            InProcessRunner(Limits()),
            seed=seed,
            game_numbers=numbers,
            keep_replays=False,
        )
    )


def run_table(game: str, bots: tuple[str, ...], games: int, workers: int) -> list[Tally]:
    """Play ``games`` games of one table; one :class:`Tally` per bot, in table order."""
    numbers = list(range(1, games + 1))
    tasks = [(game, bots, SEED, numbers[i : i + BLOCK]) for i in range(0, games, BLOCK)]
    tallies = [Tally(name) for name in bots]
    with multiprocessing.get_context("fork").Pool(workers) as pool:
        for outcomes in pool.imap_unordered(_block, tasks):
            for outcome in outcomes:
                for seat, bot in enumerate(outcome.bots):
                    tally = tallies[bot]
                    tally.places.append(outcome.placement.index(seat) + 1)
                    tally.moves += outcome.moves[seat]
                    tally.seconds += outcome.think_seconds[seat]
                tallies_faulted = {outcome.bots[f.seat] for f in outcome.faults}
                for bot in tallies_faulted:
                    tallies[bot].faults += 1
    return tallies


def markdown(tallies: list[Tally]) -> str:
    """The table as markdown, best mean placement first."""
    lines = [
        "| bot | games | mean placement ± 95% CI | win rate | time/move | faults |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for t in sorted(tallies, key=lambda t: t.mean):
        lines.append(
            f"| {t.bot} | {len(t.places)} | {t.mean:.3f} ± {t.ci95:.3f} |"
            f" {100 * t.win_rate:.1f}% | {_ms(t.seconds / t.moves)} | {t.faults} |"
        )
    return "\n".join(lines)


def timing(game: str, bots: tuple[str, ...], games: int) -> str:
    """Per-move times of each bot over ``games`` games on the engine, as a markdown table."""
    rules = rules_for(game)
    every: dict[str, list[float]] = {name: [] for name in bots}
    chosen: dict[str, list[float]] = {name: [] for name in bots}
    limits = Limits()
    for number in range(1, games + 1):
        seed = game_seed(SEED, number)
        order = list(bots)
        random.Random(seed).shuffle(order)
        players = [make_builtin(name) for name in order]
        for index, bot in enumerate(players):
            bot.start_game(
                GameStart(
                    game,
                    index,
                    len(order),
                    tuple(order),
                    number,
                    derive_seed("bot", seed, index),
                    limits.move_seconds,
                    limits.bank_seconds,
                )
            )
        state = GameState(rules, len(order), seed)
        while (to_move := state.to_move) is not None:
            view = state.view(to_move, limits.move_seconds, limits.bank_seconds)
            started = time.perf_counter()
            card = players[to_move].play(view)
            elapsed = time.perf_counter() - started
            every[order[to_move]].append(elapsed)
            if len(view.legal) > 1:
                chosen[order[to_move]].append(elapsed)
            state.play(card)
    lines = [
        "| bot | moves | mean, all moves | moves with a choice | mean | median | p99 | max |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name in bots:
        times = sorted(chosen[name])
        lines.append(
            f"| {name} | {len(every[name])} | {_ms(statistics.mean(every[name]))} |"
            f" {len(times)} | {_ms(statistics.mean(times))} | {_ms(times[len(times) // 2])} |"
            f" {_ms(times[int(0.99 * (len(times) - 1))])} | {_ms(times[-1])} |"
        )
    return "\n".join(lines)


def _ms(seconds: float) -> str:
    if seconds < 1e-3:
        return f"{1e6 * seconds:.1f} µs"
    return f"{1e3 * seconds:.1f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=DEFAULT_GAMES, help="games per table")
    parser.add_argument("--quick", action="store_true", help=f"{QUICK_GAMES} games per table")
    parser.add_argument(
        "--game",
        choices=[str(g) for g in GameName],
        action="append",
        help="only this game (repeatable; default: both)",
    )
    parser.add_argument("--table", choices=list(TABLES), action="append", help="only this table")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument(
        "--timing-games", type=int, default=20, help="games of the per-move timing run (0: none)"
    )
    args = parser.parse_args()
    games = QUICK_GAMES if args.quick else args.games
    print(
        f"strength benchmark: {platform.python_implementation()} {platform.python_version()},"
        f" {args.workers} workers, {games} games per table, seed {SEED},"
        f" move limit {Limits().move_seconds:g} s"
    )
    for game in args.game or [str(g) for g in GameName]:
        for name in args.table or list(TABLES):
            bots = TABLES[name]
            started = time.perf_counter()
            tallies = run_table(game, bots, games, args.workers)
            seconds = time.perf_counter() - started
            print(f"\n### {game}, table `{name}` ({', '.join(bots)}; {seconds:.0f} s)\n")
            print(markdown(tallies), flush=True)
        if args.timing_games:
            bots = TABLES["top"]
            print(
                f"\n### {game}, time per move ({args.timing_games} games of `top`, one process)\n"
            )
            print(timing(game, bots, args.timing_games), flush=True)


if __name__ == "__main__":
    main()
