"""What a seat can infer about the other hands, and deals of them consistent with it.

From a :class:`~cucumbers.view.View` alone a seat knows:

- the *unseen* cards: the deck minus its own hand, minus every card played this round, minus
  (Concombre) the penalty cards lying in front of players, which are out of the deck. In Five
  Cucumbers the unseen cards include the ones set aside undealt;
- how many cards every other seat still holds (the same number of tricks for everyone);
- a *floor* for each other seat: a card played below the trick's high card can only have been
  its player's lowest card (``rules.md``, shared trick rule 2), so everything that player still
  holds is at least that card.

:func:`sample_hands` deals the unseen cards to the other seats uniformly at random among the
deals that respect those facts. The floors make the sets of allowed cards nested (a seat with a
higher floor may take fewer cards), so dealing the seat with the highest floor first never
runs into a dead end and keeps the deal exactly uniform: whichever cards the first seat takes,
the others are left with the same number of ways to complete the deal.
"""

from __future__ import annotations

import random
from bisect import bisect_left
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..games import rules_for
from ..view import Play, View


class InconsistentViewError(ValueError):
    """The view's cards do not add up (a card played more often than the deck holds it, or
    too few unseen cards for the hands still out). Never raised for a view of a real game."""


@dataclass(frozen=True, slots=True)
class Knowledge:
    """What a seat knows about the hidden cards at one moment of a round.

    Attributes:
        unseen: the unseen cards, sorted (equal ranks repeat).
        sizes: for every other seat still in the round, how many cards it holds.
        floors: for the same seats, the lowest card it can still hold (``0``: no bound).
    """

    unseen: tuple[int, ...]
    sizes: dict[int, int]
    floors: dict[int, int]


def floors_from_plays(tricks: Iterable[Sequence[Play]]) -> dict[int, int]:
    """Per seat, the highest card it played below the high card of a trick (its lowest
    card at that time), over the given tricks' plays in order."""
    floors: dict[int, int] = {}
    for plays in tricks:
        high = 0
        for seat, card in plays:
            if card < high:
                if card > floors.get(seat, 0):
                    floors[seat] = card
            else:
                high = card
    return floors


def knowledge(view: View) -> Knowledge:
    """Everything :func:`sample_hands` needs, read from ``view``.

    Raises :class:`InconsistentViewError` if the view's cards do not add up.
    """
    unseen = view.unseen_cards()
    seen = len(view.hand) + len(view.played_this_round()) + sum(map(len, view.penalty_cards))
    # unseen_cards() drops ranks seen more often than the deck holds them: then it is longer
    # than the deck less the cards seen.
    if len(unseen) != len(rules_for(view.game).deck) - seen:
        raise InconsistentViewError("a card appears more often than the deck holds it")
    sizes = {seat: size for seat, size in enumerate(view.hand_sizes()) if seat in view.active}
    del sizes[view.seat]
    if sum(sizes.values()) > len(unseen):
        raise InconsistentViewError("fewer unseen cards than cards in the other hands")
    plays = [trick.plays for trick in view.tricks]
    plays.append(view.trick)
    found = floors_from_plays(plays)
    floors = {seat: found.get(seat, 0) for seat in sizes}
    return Knowledge(unseen, sizes, floors)


def sample_hands(known: Knowledge, rng: random.Random) -> dict[int, list[int]]:
    """A random deal of the unseen cards to the other seats: each gets exactly its number
    of cards, all of them at or above its floor. The hands are sorted.

    Uniform over the consistent deals when one exists. If the floors cannot all be met (they
    always can in a real game), a seat is topped up with its lowest-floor misses rather than
    failing, so a caller always gets a complete deal.
    """
    pool = list(known.unseen)
    hands: dict[int, list[int]] = {}
    # Highest floor first: its allowed cards are a subset of every later seat's.
    for seat in sorted(known.sizes, key=lambda s: (-known.floors[s], s)):
        need = known.sizes[seat]
        start = bisect_left(pool, known.floors[seat])
        allowed = len(pool) - start
        if allowed >= need:
            picked = rng.sample(range(start, len(pool)), need)
        else:
            # Not reachable from a real game; take every allowed card and the highest
            # of the rest, which breaks the floor by as little as possible.
            picked = list(range(start - (need - allowed), len(pool)))
        hands[seat] = sorted(pool[i] for i in picked)
        chosen = set(picked)
        pool = [card for i, card in enumerate(pool) if i not in chosen]
    return hands
