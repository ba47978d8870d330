"""Concombre (``rules.md``): 2–7 players, four of each rank 2..14 (J=11, Q=12, K=13, A=14),
a dealer that passes clockwise, hands as big as the last penalty card, penalty cards kept in
front of the loser, and the half-cucumber at 21."""

from __future__ import annotations

from collections.abc import Sequence
from types import MappingProxyType
from typing import ClassVar

from .base import GameRules, RoundStart, next_active


class ConcombreRules(GameRules):
    """Concombre. The penalty is the card's rank in points (the default of
    :class:`~cucumbers.games.GameRules`)."""

    name = "concombre"
    title = "Concombre"
    min_players = 2
    max_players = 7
    ranks = tuple(range(2, 15))
    has_dealer = True
    keeps_penalty_cards = True
    #: Reaching this score earns the half-cucumber, reaching it again eliminates.
    half_cucumber_at: ClassVar[int | None] = 21
    #: The hand size when the penalty card's rank does not fit the cards available.
    fallback_hand_size: ClassVar[int] = 7
    card_names = MappingProxyType({11: "J", 12: "Q", 13: "K", 14: "A"})

    __slots__ = ()

    def first_round(self, num_players: int) -> RoundStart:
        # Seat n-1 deals; the next seat clockwise (seat 0) leads.
        return RoundStart(num_players - 1, 0, self.first_hand_size)

    def next_round(
        self, previous: RoundStart, loser: int, card: int, active: Sequence[bool], available: int
    ) -> RoundStart:
        dealer = next_active(active, previous.dealer if previous.dealer is not None else 0)
        seats = sum(active)
        hand_size = card
        if hand_size * seats > available:
            fallback = self.fallback_hand_size
            hand_size = fallback if fallback * seats <= available else available // seats
        return RoundStart(dealer, next_active(active, dealer), hand_size)


CONCOMBRE = ConcombreRules()
