"""How much of a match's result is the luck of the deal? The noise duplicate deals can take
away, measured before any rating sees it.

The close field of ``benchmarks/ladder_convergence.py`` (the heuristic bot erring 0, 10, 20
and 30% of the time, its dice seeded by the position). For each table size 2, 3 and 4, every
table of that many of the four bots plays ``--matches`` matches of the games a duplicate
ladder match has at that size (``duplicate_games(MATCH_GAMES, n)``: 6, 6 and 8), once with
plain deals and once with duplicate deals, on the same match seeds. A match's result
between two bots of its table is their mean pair score over its games (1 when the first
places above the second, 0.5 a tie: what the Elo is fed), and a bot's result is its mean
place. For every pair (and every bot) the variance of that result over the matches, plain
and duplicate; the figure that matters is their ratio. The games a rating needs to tell two
bots apart grow as variance / difference², the difference being the same with either
kind of deal (both are unbiased), so ``var_dup / var_plain`` is the share of the games a
perfect estimator would still need with duplicate deals: at most 0.5 is what the target
"duplicate deals need at most half as many games" asks of the cards themselves.

Run: ``python benchmarks/deal_variance.py [--matches N]``.
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ladder_convergence import MATCH_GAMES, close_field

from arena.rating import pair_score
from cucumbers.games import rules_for
from cucumbers.match import derive_seed, duplicate_games, play_match
from cucumbers.runners.base import BotSpec, Limits
from cucumbers.runners.inprocess import InProcessRunner

TABLE_SIZES = (2, 3, 4)


@dataclass(frozen=True, slots=True)
class MatchResults:
    """One table's matches of one kind of deal: ``pairs[(a, b)][m]`` is a's mean pair score
    against b in match ``m``, ``places[a][m]`` a's mean place."""

    pairs: dict[tuple[str, str], list[float]]
    places: dict[str, list[float]]


def play_table(
    specs: dict[str, BotSpec], table: Sequence[str], matches: int, duplicate: bool
) -> MatchResults:
    rules = rules_for("five-cucumbers")
    games = duplicate_games(MATCH_GAMES, len(table))
    pairs: dict[tuple[str, str], list[float]] = {
        pair: [] for pair in itertools.combinations(table, 2)
    }
    places: dict[str, list[float]] = {name: [] for name in table}
    for match in range(matches):
        outcomes = list(
            play_match(
                rules,
                [specs[name] for name in table],
                InProcessRunner(Limits()),
                # The same seeds for both kinds: the deals differ only by how they repeat.
                seed=derive_seed("deal-variance", *table, match),
                game_numbers=range(1, games + 1),
                keep_replays=False,
                duplicate=duplicate,
            )
        )
        place = [[outcome.place_of_bot(i) for i in range(len(table))] for outcome in outcomes]
        for i, j in itertools.combinations(range(len(table)), 2):
            scores = [pair_score(game[i], game[j]) for game in place]
            pairs[(table[i], table[j])].append(statistics.fmean(scores))
        for i, name in enumerate(table):
            places[name].append(statistics.fmean(game[i] for game in place))
    return MatchResults(pairs, places)


@dataclass(frozen=True, slots=True)
class SizeFigures:
    """One table size: the variance ratio (duplicate / plain) of the match results, pooled
    over every table of that size (sum of the variances over sum of the variances), for the
    pair scores, for the mean places, and for each pair; and each pair's mean score (how far
    apart the two bots are) and the plain variance of a pair's match score."""

    games: int
    pair_ratio: float
    place_ratio: float
    pair_ratios: dict[tuple[str, str], float]
    pair_scores: dict[tuple[str, str], float]
    plain_pair_variance: float


def measure_size(specs: dict[str, BotSpec], size: int, matches: int) -> SizeFigures:
    # Variances are taken within a table (a pair's or a bot's result depends on who else
    # sits there), then summed over the tables of the size.
    plain_pair: dict[tuple[str, str], float] = {}
    dup_pair: dict[tuple[str, str], float] = {}
    scores: dict[tuple[str, str], list[float]] = {}
    plain_place = dup_place = 0.0
    table_pairs = 0
    for table in itertools.combinations(specs, size):
        plain = play_table(specs, table, matches, duplicate=False)
        dup = play_table(specs, table, matches, duplicate=True)
        for pair in plain.pairs:
            table_pairs += 1
            plain_pair[pair] = plain_pair.get(pair, 0.0) + statistics.variance(plain.pairs[pair])
            dup_pair[pair] = dup_pair.get(pair, 0.0) + statistics.variance(dup.pairs[pair])
            scores.setdefault(pair, []).extend(plain.pairs[pair] + dup.pairs[pair])
        plain_place += sum(statistics.variance(v) for v in plain.places.values())
        dup_place += sum(statistics.variance(v) for v in dup.places.values())
    return SizeFigures(
        games=duplicate_games(MATCH_GAMES, size),
        pair_ratio=sum(dup_pair.values()) / sum(plain_pair.values()),
        place_ratio=dup_place / plain_place,
        pair_ratios={pair: dup_pair[pair] / plain_pair[pair] for pair in plain_pair},
        pair_scores={pair: statistics.fmean(v) for pair, v in scores.items()},
        plain_pair_variance=sum(plain_pair.values()) / table_pairs,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=500, help="matches per table and kind")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        specs = close_field(Path(folder))
        print(f"close field {', '.join(specs)}: {args.matches} matches per table and kind of deal")
        ratios = []
        for size in TABLE_SIZES:
            figures = measure_size(specs, size, args.matches)
            ratios.append(figures.pair_ratio)
            print(
                f"  {size} seats, {figures.games} games a match: var_dup / var_plain"
                f" {figures.pair_ratio:.2f} (pair scores, pooled),"
                f" {figures.place_ratio:.2f} (mean places); plain variance of a pair's match"
                f" score {figures.plain_pair_variance:.4f}"
            )
            for pair, ratio in figures.pair_ratios.items():
                print(
                    f"    {pair[0]} v {pair[1]}: ratio {ratio:.2f},"
                    f" mean pair score {figures.pair_scores[pair]:.3f}"
                )
        # ladder_convergence.py draws the three sizes alike, with about as many games each.
        print(
            f"  mean ratio over the sizes {statistics.fmean(ratios):.2f}: with plain deals even"
            f" a perfect estimator needs about {1 / statistics.fmean(ratios):.2f} times the"
            " games of duplicate deals (the target asks for 2)"
        )


if __name__ == "__main__":
    main()
