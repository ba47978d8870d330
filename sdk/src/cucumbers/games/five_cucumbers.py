"""Five Cucumbers (``rules.md``): 2–6 players, four of each rank 1..15, 7 cards every round,
penalties in cucumbers by steps, doubled by a 1 in the last trick; more than 5 is out."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from .base import GameRules, RoundPenalty


class FiveCucumbersRules(GameRules):
    """Five Cucumbers. No dealer; seat 0 leads round 1 and the loser leads the next one (the
    defaults of :class:`~cucumbers.games.GameRules`)."""

    name = "five-cucumbers"
    title = "Five Cucumbers"
    min_players = 2
    max_players = 6
    ranks = tuple(range(1, 16))
    #: A seat whose score goes above this is eliminated (exactly 5 is safe).
    elimination_above: ClassVar[int | None] = 5
    unit = "cucumbers"
    unit_short = "cuc."

    __slots__ = ()

    #: Cucumbers by penalty card, index = rank (index 0 unused). A variant with more ranks
    #: extends it.
    cucumbers: ClassVar[tuple[int, ...]] = (0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 4, 4, 4, 5)

    def penalty(self, card: int, last_trick: Sequence[int]) -> RoundPenalty:
        doubled = 1 in last_trick
        points = self.cucumbers[card]
        return RoundPenalty(points * 2 if doubled else points, doubled)


FIVE_CUCUMBERS = FiveCucumbersRules()
