"""A lightweight round simulator for the search bot's playouts.

The engine (:mod:`cucumbers.engine`) keeps a full record of every game for replays, which is
far too much work for thousands of throw-away playouts per move. This module plays only what
a playout needs: the hands of the seats still in the round, the current trick and the rule of
``rules.md`` for legal cards and trick winners, until the last trick is won.

Seats are *positions* here: ``0..m-1`` for the ``m`` seats still in the game, in clockwise
order, so the next player is always ``(position + 1) % m``. "No card played yet" is a high
card of ``0``, below every rank, so a leader's legal set needs no special case.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

#: A playout policy: ``(hand, high, still_to_play) -> card``. ``hand`` is sorted and never
#: empty, ``high`` is the trick's highest card (``0`` when leading) and ``still_to_play``
#: counts the seats that play after this one in the trick. It must return a legal card.
Policy = Callable[[list[int], int, int], int]


class RoundEnd(NamedTuple):
    """How a simulated round ended: the ``loser`` position, the penalty ``card`` and whether
    a card of rank 1 was played in the last trick (Five Cucumbers doubles the penalty)."""

    loser: int
    card: int
    one_in_last: bool


class TrickState(NamedTuple):
    """The current trick, in positions: who plays next, how many cards are already in it,
    its high card (``0`` if none), the position holding that card and whether it holds a 1."""

    to_play: int
    played: int
    high: int
    winner: int
    has_one: bool


def finish_round(hands: list[list[int]], trick: TrickState, policy: Policy) -> RoundEnd:
    """Play the round to its end from ``trick`` with every position following ``policy``.

    ``hands`` are sorted and are consumed (pass copies). Every position must hold as many
    cards as it has tricks left to play in, as in a real round.
    """
    m = len(hands)
    pos, played, high, winner, one = trick
    while True:
        while played < m:
            hand = hands[pos]
            card = policy(hand, high, m - played - 1) if len(hand) > 1 else hand[0]
            hand.remove(card)
            # Ties go to the card played last, hence ">=".
            if card >= high:
                high = card
                winner = pos
            if card == 1:
                one = True
            pos += 1
            if pos == m:
                pos = 0
            played += 1
        if not hands[winner]:
            return RoundEnd(winner, high, one)
        pos, played, high, one = winner, 0, 0, False
