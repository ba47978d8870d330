"""Ladder matchmaking (pure functions, no ORM): which bots sit at the next tables.

A table is built around a *seed* bot: the least busy of the provisional bots (a new
version finds its level in its first games, so it is seated first), else the one with the
fewest recent games, then at random; so every active bot plays at about the same rate. Its
opponents are the bots closest to it in Elo after adding some noise (so close bots meet
most, but everyone meets everyone now and then), with a small penalty for bots that already
played more than the others, and one for bots that already played more than their share
at this table's size. The table size is drawn uniformly over the legal range; the size
penalty keeps every bot's mix of table sizes near the ladder's: a seed (often a bot far
from the others' ratings, or a new version) would otherwise drift to the small tables
while the middle of the ladder sat at the large ones, which Halite III's users saw. A bot
never sits twice at a table (the candidates are distinct bots), and two bots of one owner
never share one while other bots can fill it: collusion between one's own bots is the risk
of a multiplayer game. Bots without an owner to count (the house's: reference strategies,
none of them plays for another) may share a table.

:func:`plan_tables` plans several tables at once, counting each planned table as games
already played, so one planning run spreads its tables over the whole ladder.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Candidate:
    """A bot that may be seated (its active version is the one that plays).

    Attributes:
        bot_id: the bot's id.
        rating: its Elo.
        recent_games: matches it played (or has queued) in the recent window.
        provisional: its active version has played few rated games yet.
        owner: whose bot it is; None for bots that may share a table (the house's).
        table_sizes: its recent matches by table size, as (size, matches) pairs.
    """

    bot_id: int
    rating: float
    recent_games: int = 0
    provisional: bool = False
    owner: int | None = None
    table_sizes: tuple[tuple[int, int], ...] = ()

    def matches_at(self, size: int) -> int:
        return next((count for n, count in self.table_sizes if n == size), 0)

    def with_match_at(self, size: int) -> Candidate:
        """This candidate after one more recent match at a table of ``size``."""
        sizes = dict(self.table_sizes)
        sizes[size] = sizes.get(size, 0) + 1
        return Candidate(
            self.bot_id,
            self.rating,
            self.recent_games + 1,
            self.provisional,
            self.owner,
            tuple(sorted(sizes.items())),
        )


@dataclass(frozen=True, slots=True)
class MatchmakingSettings:
    """Attributes:
    min_players, max_players: the table sizes to draw from (within the game's legal range).
    rating_noise: standard deviation (Elo points) of the noise added to the rating
        distance when choosing opponents.
    busy_penalty: Elo points of distance added per recent game above the least busy bot.
    mix_penalty: Elo points of distance added per recent match a bot played at this table's
        size beyond its fair share of its matches (the whole ladder's share at that size).
    """

    min_players: int
    max_players: int
    rating_noise: float = 150.0
    busy_penalty: float = 50.0
    mix_penalty: float = 50.0

    def __post_init__(self) -> None:
        if not 2 <= self.min_players <= self.max_players:
            raise ValueError(
                f"table sizes {self.min_players}..{self.max_players}: need 2 <= min <= max"
            )


def pick_seed(candidates: Sequence[Candidate], rng: random.Random) -> Candidate:
    """The least busy provisional candidate if there is one, else the least busy one;
    at random among equals."""
    pool = [c for c in candidates if c.provisional] or list(candidates)
    fewest = min(c.recent_games for c in pool)
    return rng.choice([c for c in pool if c.recent_games == fewest])


def _distinct_owners(ranked: Sequence[Candidate], seed: Candidate, wanted: int) -> list[Candidate]:
    """Up to ``wanted`` of ``ranked`` in order, none of an owner already at the table."""
    owners = {seed.owner} - {None}
    chosen: list[Candidate] = []
    for other in ranked:
        if len(chosen) == wanted:
            break
        if other.owner is None or other.owner not in owners:
            chosen.append(other)
            if other.owner is not None:
                owners.add(other.owner)
    return chosen


def fair_share(candidates: Sequence[Candidate], size: int) -> float:
    """The ladder's share of recent matches at tables of ``size``, over every candidate's
    matches: what each bot's own share should come to."""
    total = sum(c.recent_games for c in candidates)
    return sum(c.matches_at(size) for c in candidates) / total if total else 0.0


def _shortfall(bot: Candidate, size: int, fair: float) -> float:
    """How far below its fair share of matches at ``size`` the bot is, relative to that
    share (so that small and large tables weigh alike)."""
    if fair <= 0:
        return 0.0
    return (fair * bot.recent_games - bot.matches_at(size)) / fair


def pick_table(
    candidates: Sequence[Candidate],
    settings: MatchmakingSettings,
    rng: random.Random,
    seed_id: int | None = None,
) -> list[Candidate] | None:
    """One table: the seed first (the candidate ``seed_id`` when given: a new version's
    debut), then its opponents. None when fewer bots than ``settings.min_players`` can
    play."""
    if len({c.bot_id for c in candidates}) != len(candidates):
        raise ValueError("each bot may be a candidate once")
    if len(candidates) < settings.min_players:
        return None
    if seed_id is None:
        seed = pick_seed(candidates, rng)
    else:
        seeds = [c for c in candidates if c.bot_id == seed_id]
        if not seeds:
            raise ValueError(f"the seed {seed_id} is not a candidate")
        seed = seeds[0]
    largest = min(settings.max_players, len(candidates))
    # Two sizes drawn uniformly, the one the seed is shorter of kept: a bot that is often
    # the seed does not drift to any one size (the ladder's mix leans a little to the
    # larger tables for it: benchmarks/ladder_fairness.py).
    drawn = [rng.randint(settings.min_players, largest) for _ in range(2)]
    shares = {n: fair_share(candidates, n) for n in drawn}
    size = max(drawn, key=lambda n: _shortfall(seed, n, shares[n]))
    fair = shares[size]
    fewest = min(c.recent_games for c in candidates)

    def distance(other: Candidate) -> float:
        busy = (other.recent_games - fewest) * settings.busy_penalty
        surplus = max(0.0, other.matches_at(size) - fair * other.recent_games)
        mix = surplus * settings.mix_penalty
        return (
            abs(other.rating - seed.rating) + busy + mix + abs(rng.gauss(0, settings.rating_noise))
        )

    ranked = sorted((c for c in candidates if c.bot_id != seed.bot_id), key=distance)
    others = _distinct_owners(ranked, seed, size - 1)
    if len(others) + 1 < settings.min_players:
        # Too few other owners for even the smallest table: the nearest bots, owners aside.
        others = ranked[: settings.min_players - 1]
    return [seed, *others]


def plan_tables(
    candidates: Sequence[Candidate],
    count: int,
    settings: MatchmakingSettings,
    rng: random.Random,
) -> list[list[int]]:
    """``count`` tables of bot ids (the seed first), each counted as a recent game of its
    bots before the next is planned. Fewer (none) when too few bots can play."""
    pool = {c.bot_id: c for c in candidates}
    tables: list[list[int]] = []
    for _ in range(count):
        table = pick_table(list(pool.values()), settings, rng)
        if table is None:
            break
        tables.append([c.bot_id for c in table])
        for seated in table:
            pool[seated.bot_id] = seated.with_match_at(len(table))
    return tables
