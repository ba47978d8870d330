"""``builtin:heuristic``: hand-crafted play for both games.

The round is lost by whoever wins the last trick, so what matters is the card a seat keeps
for the end. A seat loses its low cards in one way only: a trick it cannot (or does not)
match forces out its lowest card. High cards are therefore not only a danger at the end but
also *cover*: while a seat can match the trick, it keeps its low card. The rules follow from
that (each one was kept because it won games against the rule it replaced, see
``docs/bots.md``):

- leading: lead below the top early, so that the top cards stay as cover (the third-highest
  card with six cards or more, the second-highest with four or five), and the highest card
  in the last three tricks, when a high card is only a danger;
- following: match with the smallest card that does, keeping the bigger cover for later;
  give up the lowest card only when nothing matches; with two cards left play the higher;
- with three cards left and every card matching, take the trick with the top card, so as to
  lead the next-to-last trick and keep both low cards;
- card counting (:class:`HeuristicBot` only, in games whose penalty grows with every rank,
  such as Concombre): when only the top card matches, give up the lowest card instead if no
  unseen card lies between it and the next one, so that losing it costs nothing against the
  other hands. In Five Cucumbers the same rule lost games head to head: with penalties in
  steps and more than half the deck never dealt, the cover is worth more there.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from functools import cache
from itertools import pairwise

from ..bot import Bot
from ..games import GameRules, rules_for
from ..view import View


def quick_card(hand: list[int], high: int, still_to_play: int) -> int:
    """The heuristic's core rules without card counting: cheap enough for the search bot's
    playouts (a :data:`~cucumbers.bots.simulator.Policy`).

    ``hand`` is sorted, ``high`` is the trick's highest card (``0`` when leading) and
    ``still_to_play`` counts the seats that play after this one in the trick.

    >>> quick_card([2, 5, 9, 13], 0, 3)      # lead the second-highest card
    9
    >>> quick_card([2, 5, 9, 13], 7, 1)      # match with the smallest card that does
    9
    >>> quick_card([2, 5], 7, 1)             # nothing matches: the lowest card must go
    2
    """
    r = len(hand)
    if r == 1:
        return hand[0]
    top = hand[-1]
    if high == 0:
        if r <= 3:
            return top
        return hand[-2] if r <= 5 else hand[-3]
    if top < high:
        return hand[0]
    if r == 2:
        return top
    if r == 3 and hand[0] >= high and still_to_play:
        return top
    return hand[bisect_left(hand, high, 1)]


def unseen_between(view: View, low: int, high: int) -> int:
    """How many cards strictly between ``low`` and ``high`` the seat has not seen: not in
    its hand, not played this round and (Concombre) not a penalty card in front of a seat."""
    ranks = range(low + 1, high)
    if not ranks:
        return 0
    seen = Counter(c for c in view.hand if low < c < high)
    seen.update(c for c in view.played_this_round() if low < c < high)
    for cards in view.penalty_cards:
        seen.update(c for c in cards if low < c < high)
    copies = rules_for(view.game).copies
    return sum(copies - seen[rank] for rank in ranks)


@cache
def counts_cards(rules: GameRules) -> bool:
    """Whether :class:`HeuristicBot` counts cards in this game: when every higher rank costs
    more than the one below (Concombre), and not when penalties come in steps (Five
    Cucumbers), where the rule lost games head to head (module docstring)."""
    costs = [rules.penalty(rank, []).points for rank in rules.ranks]
    return all(low < high for low, high in pairwise(costs))


class HeuristicBot(Bot):
    """Sound hand-crafted play: :func:`quick_card` plus card counting (module docstring).

    Deterministic, and fast: a few microseconds per move.
    """

    def play(self, view: View) -> int:
        legal = view.legal
        if len(legal) == 1:
            return legal[0]
        hand = list(view.hand)
        high = view.high or 0
        if (
            len(hand) >= 4
            and counts_cards(rules_for(view.game))
            and hand[0] < high <= hand[-1]
            and hand[-2] < high
            and unseen_between(view, hand[0], hand[1]) == 0
        ):
            return hand[0]
        return quick_card(hand, high, len(view.active) - len(view.trick) - 1)
