"""Multiplayer Elo over the placement of each game (pure functions, no ORM).

A game with ``n`` seats counts as every pair of seats playing once: the better-placed one
wins the pair (a tie is half a point each). For a bot ``i``::

    E_ij = 1 / (1 + 10 ** ((R_j - R_i) / 400))
    ΔR_i = K_i / (n - 1) · Σ_j (S_ij - E_ij)

Dividing by ``n - 1`` makes one game worth one "average" pairing whatever the table size, so
a six-seat game moves a rating no more than a duel does. With the same ``K`` at a table, the
deltas sum to zero (``S_ij + S_ji = E_ij + E_ji = 1``); a bot's own ``K`` moves its own
rating, never its opponents' (:meth:`EloSettings.k_for`: large while a version is
provisional, then shrinking as it plays).

A match is a series of games: it is rated **game by game, in order**, each game starting from
the ratings the previous one left (:func:`rate_series`). So a 5-game match is five rated
games, exactly as if they had been queued one by one, and the history has a row per game.

>>> round(expected(1600, 1400), 3)
0.76
>>> [round(d, 2) for d in game_deltas([1500, 1500], [1, 2], [32, 32])]
[16.0, -16.0]
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

#: Every bot starts here.
INITIAL_RATING = 1500.0
#: The Elo scale: 400 points of difference means 10:1 expected odds.
SCALE = 400.0


@dataclass(frozen=True, slots=True)
class EloSettings:
    """How fast ratings move: a bot's K-factor by the rated games its active version played.

    While a version is provisional (its first ``provisional_games``) K is ``provisional_k``,
    so a new bot or a new version finds its level quickly. Then it starts at ``k`` and
    shrinks like one over the square root of the games, down to ``min_k``. A version's code
    does not change, so the more games it has played the less one more game should move it:
    at a fixed K a rating keeps jittering by a few points a game for ever and swaps close
    neighbours now and then (docs/arena.md measures it). A K falling like ``1/games`` would
    be the average of all its games, deaf to a field that changes (new bots, new versions of
    its opponents); ``1/sqrt(games)`` is the usual middle way, and the floor keeps every
    rating following the field. ``min_k == k`` is a fixed K once established.

    >>> [round(EloSettings().k_for(g), 1) for g in (0, 19, 20, 45, 80, 320, 5000)]
    [48.0, 48.0, 16.0, 10.7, 8.0, 4.0, 4.0]
    """

    k: float = 16.0
    min_k: float = 4.0
    provisional_k: float = 48.0
    provisional_games: int = 20

    def __post_init__(self) -> None:
        if not (self.k > 0 and self.provisional_k > 0 and self.min_k > 0):
            raise ValueError("K-factors must be positive")
        if self.min_k > self.k:
            raise ValueError(f"min_k ({self.min_k:g}) must not exceed k ({self.k:g})")
        if self.provisional_games < 0:
            raise ValueError("provisional_games must be >= 0")

    def k_for(self, games_since_version: int) -> float:
        """The K-factor of a bot whose active version has played this many rated games."""
        if games_since_version < self.provisional_games:
            return self.provisional_k
        established_at = max(self.provisional_games, 1)
        shrink = math.sqrt(established_at / max(games_since_version, established_at))
        return max(self.min_k, self.k * shrink)


def expected(rating: float, other: float) -> float:
    """The expected score of a bot rated ``rating`` against one rated ``other``."""
    return 1.0 / (1.0 + float(10.0 ** ((other - rating) / SCALE)))


def pair_score(place: int, other_place: int) -> float:
    """1 for the better-placed bot of the pair (lower place), 0.5 each for a tie."""
    if place < other_place:
        return 1.0
    if place > other_place:
        return 0.0
    return 0.5


def game_deltas(
    ratings: Sequence[float], places: Sequence[int], ks: Sequence[float]
) -> list[float]:
    """The rating change of each bot of one game.

    ``ratings[i]``, ``places[i]`` (1 = best) and ``ks[i]`` describe bot ``i``.
    """
    n = len(ratings)
    if n < 2 or len(places) != n or len(ks) != n:
        raise ValueError("a rated game needs at least two bots, each with a place and a K")
    deltas = []
    for i in range(n):
        total = sum(
            pair_score(places[i], places[j]) - expected(ratings[i], ratings[j])
            for j in range(n)
            if j != i
        )
        deltas.append(ks[i] / (n - 1) * total)
    return deltas


@dataclass(frozen=True, slots=True)
class RatedGame:
    """The ratings of one game of a series: ``before[i]`` and ``after[i]`` of bot ``i``."""

    before: tuple[float, ...]
    after: tuple[float, ...]

    @property
    def deltas(self) -> tuple[float, ...]:
        return tuple(a - b for a, b in zip(self.after, self.before, strict=True))


def rate_series(
    ratings: Sequence[float],
    games_since_version: Sequence[int],
    placements: Sequence[Sequence[int]],
    settings: EloSettings,
) -> list[RatedGame]:
    """Rate the games of a match in order: ``placements[g][i]`` is bot ``i``'s place in
    game ``g``. Each game starts from the previous game's ratings, and each bot's game count
    grows by one per game (so a bot can stop being provisional in the middle of a match)."""
    current = list(ratings)
    played = list(games_since_version)
    rated = []
    for places in placements:
        ks = [settings.k_for(count) for count in played]
        deltas = game_deltas(current, places, ks)
        after = [rating + delta for rating, delta in zip(current, deltas, strict=True)]
        rated.append(RatedGame(tuple(current), tuple(after)))
        current = after
        played = [count + 1 for count in played]
    return rated
