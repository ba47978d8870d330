"""Static descriptions of the two games: who may play, the deck, and the scoring rules.

The mutable state of a game lives in :mod:`cucumbers.engine`; this module only holds the
settings and the small pure rules that differ between games (``rules.md``), so that a variant
is a subclass that changes settings, as in python-chess.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import ClassVar

#: The safety cap on the number of rounds in one game (``rules.md``, Placement).
ROUND_CAP = 1000


class GameName(StrEnum):
    """The games the engine plays, by their names in replays and on the command line."""

    FIVE_CUCUMBERS = "five-cucumbers"
    CONCOMBRE = "concombre"


class UnknownGameError(ValueError):
    """Raised for a game name that is not one of :class:`GameName`."""


@dataclass(frozen=True, slots=True)
class RoundPenalty:
    """What the loser of a round pays.

    Attributes:
        points: cucumbers (Five Cucumbers) or points (Concombre) added to the loser's score.
        doubled: Five Cucumbers only: a 1 was played in the last trick.
    """

    points: int
    doubled: bool


class GameRules:
    """The settings of one game. Instances are immutable singletons: :data:`FIVE_CUCUMBERS`
    and :data:`CONCOMBRE`.

    Attributes:
        name: the game's :class:`GameName`.
        min_players, max_players: the legal table sizes.
        ranks: the card ranks, lowest first.
        copies: how many cards of each rank the deck holds.
        first_hand_size: cards dealt to each seat in round 1.
        has_dealer: whether rounds have a dealer (Concombre) or not (Five Cucumbers).
    """

    name: ClassVar[GameName]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    ranks: ClassVar[tuple[int, ...]]
    copies: ClassVar[int] = 4
    first_hand_size: ClassVar[int] = 7
    has_dealer: ClassVar[bool]

    __slots__ = ()

    @property
    def deck(self) -> tuple[int, ...]:
        """Every card of a full deck, sorted."""
        return tuple(rank for rank in self.ranks for _ in range(self.copies))

    def check_players(self, num_players: int) -> None:
        """Raise :class:`ValueError` unless ``num_players`` is a legal table size."""
        if type(num_players) is not int or not (
            self.min_players <= num_players <= self.max_players
        ):
            raise ValueError(
                f"{self.name} is played by {self.min_players} to {self.max_players} players,"
                f" not {num_players!r}"
            )

    def penalty(self, card: int, last_trick: list[int]) -> RoundPenalty:
        """The penalty for losing a round with ``card``; ``last_trick`` holds the cards of
        the last trick."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


class FiveCucumbersRules(GameRules):
    """Five Cucumbers: 2–6 players, four of each rank 1..15, 7 cards a round; a seat with more
    than 5 cucumbers is eliminated."""

    name = GameName.FIVE_CUCUMBERS
    min_players = 2
    max_players = 6
    ranks = tuple(range(1, 16))
    has_dealer = False
    #: A seat whose score goes above this is eliminated (exactly 5 is safe).
    elimination_above: ClassVar[int] = 5

    __slots__ = ()

    # Cucumbers by penalty card, index = rank (index 0 unused).
    _CUCUMBERS: ClassVar[tuple[int, ...]] = (0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 4, 4, 4, 5)

    def penalty(self, card: int, last_trick: list[int]) -> RoundPenalty:
        doubled = 1 in last_trick
        points = self._CUCUMBERS[card]
        return RoundPenalty(points * 2 if doubled else points, doubled)


class ConcombreRules(GameRules):
    """Concombre: 2–7 players, four of each rank 2..14 (J=11, Q=12, K=13, A=14); the penalty
    card's rank in points; 21 points earn a half-cucumber, 21 again eliminates."""

    name = GameName.CONCOMBRE
    min_players = 2
    max_players = 7
    ranks = tuple(range(2, 15))
    has_dealer = True
    #: Reaching this score earns the half-cucumber, reaching it again eliminates.
    half_cucumber_at: ClassVar[int] = 21

    __slots__ = ()

    def penalty(self, card: int, last_trick: list[int]) -> RoundPenalty:
        return RoundPenalty(card, False)


FIVE_CUCUMBERS = FiveCucumbersRules()
CONCOMBRE = ConcombreRules()

_BY_NAME: dict[str, GameRules] = {
    GameName.FIVE_CUCUMBERS: FIVE_CUCUMBERS,
    GameName.CONCOMBRE: CONCOMBRE,
}


def rules_for(name: str) -> GameRules:
    """The rules of the game called ``name`` (``"five-cucumbers"`` or ``"concombre"``).

    >>> rules_for("concombre").max_players
    7
    """
    try:
        return _BY_NAME[name]
    except (KeyError, TypeError):
        known = ", ".join(_BY_NAME)
        raise UnknownGameError(f"unknown game {name!r}; choose one of: {known}") from None
