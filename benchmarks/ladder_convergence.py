"""How many rated games does the ladder need to order the house bots right, with and
without duplicate deals?

The reference order is a large local round robin's (four-player tables of the baseline
built-ins, ``benchmarks/strength.py``'s ``baselines``: heuristic, highest, random, lowest;
docs/bots.md). Each run is a simulated ladder of those four bots: tables of 2 to 4 seats
drawn at random, matches of ``MATCH_GAMES`` (5) games played by the SDK's match loop with
the in-process runner (plain deals, or duplicate deals rounded up to whole seat rotations,
exactly as the platform plans them), rated game by game with the platform's Elo (K 48 while
provisional, then 16). A run's figure is the number of rated games after which the Elo order
equals the reference order (Kendall tau = 1) and stays so for the rest of the run's budget;
the median over the seeded runs is reported for each kind of deal.

Run: ``python benchmarks/ladder_convergence.py [--runs N] [--budget GAMES]``.
"""

from __future__ import annotations

import argparse
import random
import statistics

from arena.rating import INITIAL_RATING, EloSettings, rate_series
from cucumbers.games import rules_for
from cucumbers.match import derive_seed, duplicate_games, play_match
from cucumbers.runners.base import BotSpec, Limits
from cucumbers.runners.inprocess import InProcessRunner

REFERENCE = ("heuristic", "highest", "random", "lowest")
MATCH_GAMES = 5


def settled_after(duplicate: bool, budget: int, seed: int) -> int | None:
    """Rated games of the run after which the Elo order stays the reference order; None
    when it is still wrong at the end of the budget."""
    rng = random.Random(seed)
    rules = rules_for("five-cucumbers")
    elo = dict.fromkeys(REFERENCE, INITIAL_RATING)
    played = dict.fromkeys(REFERENCE, 0)
    settings = EloSettings()
    games = 0
    settled: int | None = None
    match = 0
    while games < budget:
        match += 1
        table = rng.sample(REFERENCE, rng.randint(2, 4))
        count = duplicate_games(MATCH_GAMES, len(table)) if duplicate else MATCH_GAMES
        outcomes = list(
            play_match(
                rules,
                [BotSpec(f"builtin:{name}", name) for name in table],
                InProcessRunner(Limits()),
                seed=derive_seed("convergence", seed, match),
                game_numbers=range(1, count + 1),
                keep_replays=False,
                duplicate=duplicate,
            )
        )
        placements = [[outcome.place_of_bot(i) for i in range(len(table))] for outcome in outcomes]
        rated = rate_series(
            [elo[b] for b in table], [played[b] for b in table], placements, settings
        )
        for i, bot in enumerate(table):
            elo[bot] = rated[-1].after[i]
            played[bot] += count
        games += count
        right = tuple(sorted(REFERENCE, key=lambda b: -elo[b])) == REFERENCE
        if right and settled is None:
            settled = games
        elif not right:
            settled = None
    return settled


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--budget", type=int, default=400, help="rated games per run")
    args = parser.parse_args()
    print(f"{args.runs} ladders of {', '.join(REFERENCE)}, {args.budget} rated games each")
    for duplicate in (False, True):
        figures = [settled_after(duplicate, args.budget, seed) for seed in range(args.runs)]
        done = sorted(f for f in figures if f is not None)
        label = "duplicate deals" if duplicate else "plain deals    "
        median = statistics.median(f if f is not None else args.budget + 1 for f in figures)
        print(
            f"  {label}: median {median:g} games to the right order for good"
            f" ({len(done)}/{args.runs} settled within the budget; quartiles"
            f" {statistics.quantiles(done, n=4) if len(done) > 1 else done})"
        )


if __name__ == "__main__":
    main()
