"""The deal (``rules.md``, the engine's decisions (f)): :class:`Deals`, every round's hands
of one game from its seed, and :func:`sample`, the random draw beneath it.

There is one way to deal, and both the engine (:class:`~cucumbers.engine.GameState`) and
the replay checker (:mod:`cucumbers.validator`, which re-derives every round's hands from a
replay's seed) go through :class:`Deals`. So this module knows nothing of any game: what a
round is dealt from (the deck, the penalty cards out of it, the hand size, the active
seats) each caller works out by itself.

``rules.md`` fixes the draw as ``rng.sample(deck, k)``. The standard library draws each card
through ``Random._randbelow``, a Python-level call per card dealt, so one per move of the
game; :func:`sample` makes exactly the same calls of ``rng.getrandbits`` in the same order,
so it returns exactly what ``rng.sample`` returns (and leaves the generator in the same
state). ``tests/sdk/test_deal.py`` checks it against the standard library on every branch,
so a Python that changed its ``sample`` would be caught.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from math import ceil, log
from random import Random


class Deals:
    """The deals of one game, round after round: one ``random.Random(seed)`` serves the
    whole game, and each round draws ``hand_size`` cards for every active seat from it
    (``rules.md``, the engine's decisions (f)). Call :meth:`deal` once per round, in order:
    a round's hands depend on every draw before it.

    >>> from cucumbers.games import FIVE_CUCUMBERS
    >>> deals = Deals(3)
    >>> first = deals.deal(FIVE_CUCUMBERS.deck, hand_size=7, seats=2)
    >>> len(first), [len(hand) for hand in first]
    (2, [7, 7])
    >>> first == Deals(3).deal(FIVE_CUCUMBERS.deck, hand_size=7, seats=2)
    True
    """

    __slots__ = ("_rng",)

    def __init__(self, seed: int) -> None:
        self._rng = Random(seed)

    def deal(
        self,
        deck: Sequence[int],
        hand_size: int,
        seats: int,
        out_of_deck: Iterable[int] = (),
    ) -> list[list[int]]:
        """The next round's hands: ``seats`` hands of ``hand_size`` cards, each sorted, for
        the active seats in seat order (the first hand to the lowest active seat).

        ``deck`` is the game's full deck, sorted (:attr:`~cucumbers.games.GameRules.deck`);
        ``out_of_deck`` the cards not in it this round (Concombre's penalty cards lying in
        front of players), one entry per card. The round draws
        ``sample(deck less out_of_deck, hand_size * seats)`` and hands the cards out in
        consecutive blocks. Raises :class:`ValueError` for a card of ``out_of_deck`` that
        the deck does not hold, or for more cards than are left; the generator is then
        left as it was.
        """
        remaining = list(deck)
        for card in out_of_deck:
            try:
                remaining.remove(card)
            except ValueError:
                raise ValueError(f"the deck has no card {card} left to take out") from None
        dealt = sample(self._rng, remaining, hand_size * seats)
        hands = [dealt[i * hand_size : (i + 1) * hand_size] for i in range(seats)]
        for hand in hands:
            hand.sort()
        return hands


def sample(rng: Random, population: Sequence[int], k: int) -> list[int]:
    """``rng.sample(population, k)``, the same cards in the same order."""
    n = len(population)
    if not 0 <= k <= n:
        raise ValueError("Sample larger than population or is negative")
    getrandbits = rng.getrandbits
    # The standard library's choice between its two methods (Lib/random.py, sample).
    setsize = 21
    if k > 5:
        setsize += 4 ** ceil(log(k * 3, 4))
    result = [0] * k
    if n <= setsize:
        pool = list(population)
        for i in range(k):
            m = n - i
            bits = m.bit_length()
            j = getrandbits(bits)
            while j >= m:
                j = getrandbits(bits)
            result[i] = pool[j]
            pool[j] = pool[m - 1]
        return result
    selected: set[int] = set()
    bits = n.bit_length()
    for i in range(k):
        j = getrandbits(bits)
        while j >= n or j in selected:
            j = getrandbits(bits)
        selected.add(j)
        result[i] = population[j]
    return result
