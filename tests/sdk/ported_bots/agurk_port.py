"""A Java Agurk engine ported as its author would: the Java code's ``AbstractPlayer`` with the
helpers every strategy shares, and ``HardPlayer extends AbstractPlayer``, the bot. The base
class is not a second bot: the loader plays the most derived class of one line of
inheritance (tests/sdk/test_loader.py, tests/web/bots/test_source_check.py)."""

from __future__ import annotations

from collections import Counter

from cucumbers import Bot, View
from cucumbers.games import rules_for


class AbstractPlayer(Bot):
    """The engine's player: it counted copies of each rank, which ``view.legal`` does not."""

    def play(self, view: View) -> int:
        return self.choose(view, Counter(view.hand))

    def choose(self, view: View, copies: Counter[int]) -> int:
        raise NotImplementedError

    def cost(self, view: View, card: int) -> int:
        """What ``card`` would cost if it took the last trick now."""
        trick = [play.card for play in view.trick] + [card]
        return rules_for(view.game).penalty(card, trick).points


class HardPlayer(AbstractPlayer):
    """Keeps pairs as cover; on the last trick, the cheapest card that may lose it."""

    def choose(self, view: View, copies: Counter[int]) -> int:
        if view.is_last_trick:
            high = view.high or 0
            return min(view.legal, key=lambda c: (self.cost(view, c) if c >= high else 0, c))
        singles = [card for card in view.legal if copies[card] == 1]
        return (singles or list(view.legal))[-1 if view.is_leading else 0]
