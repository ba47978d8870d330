"""Fair scheduling on the ladder, per bot: how many tables each bot gets, its mix of table
sizes, and its seats.

A simulated ladder of 30 bots (27 within 1,000 Elo of each other, three far from everyone:
400, 2,800 and 0), six with a new (provisional) version, ten owners of two bots each,
planned by the ladder's own matchmaking (``arena.matchmaking.plan_tables``, tables of 2 to
6, ten at a time as the top-up plans them) for 3,000 tables, each table a deal set (one
match of ``MATCH_GAMES`` (5) deals per seat rotation) seated by the SDK's ``game_plan``, as
the arena plays them. For every bot:

- its tables (deal sets; the busiest against the least busy);
- the share of its games at each table size: each size's lowest and highest share over the
  bots (a bot that is often the seed of its tables, one far from the others' ratings,
  would drift to whatever the seed draws, the middle of the ladder to the large tables it
  is asked to fill: matchmaking's size penalty and the seed's choice between two drawn
  sizes keep every bot near the ladder's mix);
- its seats: the largest gap, over the seats of its tables, between the share of its games
  in that seat and ``1 / table size``; with duplicate deals every rotation turns the table
  by one seat, so each bot holds each seat exactly as often (gap 0), and plain games
  (shuffled seats) are shown beside it.

Run: ``python benchmarks/ladder_fairness.py [--tables N] [--seed S]`` (also in ``make bench``).
"""

from __future__ import annotations

import argparse
import random
import statistics
from collections import Counter, defaultdict

from arena.matchmaking import Candidate, MatchmakingSettings, plan_tables
from cucumbers.match import game_plan

SIZES = MatchmakingSettings(2, 6)
MATCH_GAMES = 5
#: As the platform's defaults: tables planned ten at a time (LADDER_QUEUE_TARGET), a bot
#: provisional for its first PROVISIONAL_GAMES rated games.
BATCH = 10
PROVISIONAL_GAMES = 20


def ladder(rng: random.Random) -> list[Candidate]:
    """30 bots: 27 close, three far; ten owners of two bots each."""
    bots = [
        Candidate(
            bot_id=i + 1, rating=1000 + 1000 * rng.random(), owner=(i // 2) if i < 20 else None
        )
        for i in range(27)
    ]
    return [*bots, Candidate(28, 400.0), Candidate(29, 2800.0), Candidate(30, 0.0)]


def plan(
    bots: list[Candidate], count: int, new_versions: set[int], rng: random.Random
) -> list[list[int]]:
    """``count`` tables planned as the ladder's top-up does, ``BATCH`` at a time, with each
    bot's matches so far and provisional while its games since a new version are few
    (the bots in ``new_versions`` start with one, the others with many games played)."""
    played: Counter[int] = Counter()
    at: dict[int, Counter[int]] = defaultdict(Counter)
    games: Counter[int] = Counter({b.bot_id: 0 if b.bot_id in new_versions else 1000 for b in bots})
    tables: list[list[int]] = []
    while len(tables) < count:
        pool = [
            Candidate(
                b.bot_id,
                b.rating,
                played[b.bot_id],
                games[b.bot_id] < PROVISIONAL_GAMES,
                b.owner,
                tuple(sorted(at[b.bot_id].items())),
            )
            for b in bots
        ]
        batch = plan_tables(pool, min(BATCH, count - len(tables)), SIZES, rng)
        for table in batch:
            for bot in table:
                played[bot] += 1
                at[bot][len(table)] += 1
                games[bot] += set_games(len(table))
        tables += batch
    return tables


def set_games(seats: int) -> int:
    """The games of a table's deal set: ``MATCH_GAMES`` deals, once per seat rotation."""
    return MATCH_GAMES * seats


def seat_gaps(tables: list[list[int]], duplicate: bool, seed: int) -> dict[int, float]:
    """Each bot's largest gap between its share of games in a seat and 1 / table size."""
    seats: dict[int, Counter[tuple[int, int]]] = defaultdict(Counter)  # bot -> (size, seat)
    for number, table in enumerate(tables):
        n = len(table)
        plans = (
            [
                game_plan(seed + number, game, n, True, rotation)
                for rotation in range(n)
                for game in range(1, MATCH_GAMES + 1)
            ]
            if duplicate
            else [game_plan(seed + number, game, n) for game in range(1, MATCH_GAMES + 1)]
        )
        for _, seating in plans:
            for seat, index in enumerate(seating):
                seats[table[index]][(n, seat)] += 1
    gaps = {}
    for bot, counts in seats.items():
        by_size: dict[int, int] = Counter()
        for (n, _), count in counts.items():
            by_size[n] += count
        gaps[bot] = max(
            abs(counts[(n, seat)] / by_size[n] - 1 / n) for n in by_size for seat in range(n)
        )
    return gaps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tables", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    bots = ladder(rng)
    new_versions = {b.bot_id for b in bots[:6]}  # six bots with a new version: provisional
    tables = plan(bots, args.tables, new_versions, rng)
    matches = Counter(bot for table in tables for bot in table)
    games_at: dict[int, Counter[int]] = defaultdict(Counter)
    for table in tables:
        for bot in table:
            games_at[bot][len(table)] += set_games(len(table))
    sizes = range(SIZES.min_players, SIZES.max_players + 1)
    duplicate_gaps = seat_gaps(tables, True, args.seed)
    plain_gaps = seat_gaps(tables, False, args.seed)
    same_owner = sum(
        len({b.owner for b in bots if b.bot_id in table and b.owner is not None})
        < sum(1 for b in bots if b.bot_id in table and b.owner is not None)
        for table in tables
    )
    print(
        f"ladder fairness: {len(bots)} bots, {len(tables)} tables of"
        f" {SIZES.min_players}-{SIZES.max_players}, seed {args.seed}"
    )
    print(
        f"  tables (deal sets) per bot: {min(matches.values())} to {max(matches.values())}"
        f" (busiest / least busy = {max(matches.values()) / min(matches.values()):.2f});"
        f" tables seating two bots of one owner: {same_owner}"
    )
    by_size = Counter(len(table) for table in tables)
    print(
        "  tables by size: "
        + ", ".join(f"{size} seats {by_size[size] / len(tables):.0%}" for size in sizes)
        + " (each table draws two sizes uniformly and keeps the one its seed is shorter of)"
    )
    print("  share of a bot's games at each table size, lowest - highest over the bots:")
    for size in sizes:
        shares = [games_at[b.bot_id][size] / sum(games_at[b.bot_id].values()) for b in bots]
        print(
            f"    {size} seats: {min(shares):5.1%} - {max(shares):5.1%}"
            f" (spread {100 * (max(shares) - min(shares)):.1f} points)"
        )
    print(
        "  seat gap (largest |share in a seat - 1/size| over a bot's seats):"
        f" duplicate deals max {max(duplicate_gaps.values()):.3f},"
        f" plain games median {statistics.median(plain_gaps.values()):.3f}"
        f" max {max(plain_gaps.values()):.3f}"
    )
    print("  per bot: id, Elo, matches, games at 2..6 seats, seat gap (duplicate / plain)")
    for entrant in sorted(bots, key=lambda b: b.rating):
        counts = " ".join(f"{games_at[entrant.bot_id][s]:5d}" for s in sizes)
        print(
            f"    {entrant.bot_id:3d} {entrant.rating:6.0f} {matches[entrant.bot_id]:5d}  {counts}"
            f"   {duplicate_gaps[entrant.bot_id]:.3f} / {plain_gaps[entrant.bot_id]:.3f}"
        )


if __name__ == "__main__":
    main()
