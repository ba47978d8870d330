"""``builtin:search``: determinized Monte Carlo search over the rest of the round.

For every move the bot deals the unseen cards to the other seats in many ways consistent
with what it has seen (:mod:`.sampler`), plays the round out once per legal card and deal
with a fast policy for every seat (:mod:`.simulator` with
:func:`~cucumbers.bots.heuristic.quick_card`), and plays the card whose playouts cost it
least. A playout's cost is what losing the round with that penalty card would do to the
bot's standing (:mod:`.risk`): the penalty against the room it has left, much more when it
would be eliminated, and a small gain when the loss eliminates another seat.

Every legal card is tried on the same deals, so the comparison between cards is not blurred
by the luck of the deal. The number of deals depends only on the position, so the bot plays
the same moves for the same game and seed; the time budget (a share of
``view.move_seconds``) only cuts the search short on a slow machine or a tight limit.
"""

from __future__ import annotations

import random
from time import perf_counter

from ..bot import Bot
from ..view import GameStart, View
from .heuristic import HeuristicBot, quick_card
from .risk import outcome_costs
from .sampler import InconsistentViewError, knowledge, sample_hands
from .simulator import TrickState, finish_round

#: Card plays simulated per move (over all deals and legal cards) when time allows. Short
#: playouts near the end of a round, where the decisions are sharpest, get more deals.
DEFAULT_PLAYS = 60_000
#: Bounds on the deals per move.
MIN_DEALS, MAX_DEALS = 32, 1000
#: Share of ``view.move_seconds`` the bot allows itself per move.
DEFAULT_TIME_SHARE = 0.25
#: What another seat's elimination is worth to the bot, in its own cost units.
RIVAL_BONUS = 1.0


def trick_after_each_card(view: View) -> dict[int, TrickState]:
    """For each legal card of ``view``, the trick once the seat has played it, in the
    simulator's positions (the seats still in the game, clockwise): who plays next, how many
    cards are in it, its high card, the position holding that card and whether it holds a 1.
    The search bot's playouts and the move review (:mod:`cucumbers.review`) start there."""
    seats = view.active
    position = {seat: i for i, seat in enumerate(seats)}
    me = position[view.seat]
    high = view.high or 0
    winner, running, has_one = me, 0, False
    for play in view.trick:
        if play.card >= running:
            running, winner = play.card, position[play.seat]
        has_one = has_one or play.card == 1
    return {
        card: TrickState(
            (me + 1) % len(seats),
            len(view.trick) + 1,
            max(card, high),
            me if card >= high else winner,
            has_one or card == 1,
        )
        for card in view.legal
    }


class SearchBot(Bot):
    """Determinized Monte Carlo search: see the module docstring.

    Args:
        plays: card plays to simulate per move; sets the number of deals (``plays`` over
            the cards left to play times the legal cards, within ``MIN_DEALS..MAX_DEALS``).
        time_share: the share of ``view.move_seconds`` one move may take.
        rival_bonus: what another seat's elimination is worth (:data:`RIVAL_BONUS`).

    Example (a weaker, faster bot for tests)::

        bot = SearchBot(plays=5_000, time_share=0.1)
    """

    def __init__(
        self,
        plays: int = DEFAULT_PLAYS,
        time_share: float = DEFAULT_TIME_SHARE,
        rival_bonus: float = RIVAL_BONUS,
        min_deals: int = MIN_DEALS,
        max_deals: int = MAX_DEALS,
    ) -> None:
        if plays < 1:
            raise ValueError(f"plays must be at least 1, not {plays}")
        if not 0 < time_share <= 1:
            raise ValueError(f"time_share must be in (0, 1], not {time_share}")
        self.plays = plays
        self.time_share = time_share
        self.rival_bonus = rival_bonus
        self.min_deals = min_deals
        self.max_deals = max_deals
        self._rng = random.Random(0)
        self._fallback = HeuristicBot()
        #: Deals examined for the last move that was searched (for tests and benchmarks).
        self.last_deals = 0

    def start_game(self, game: GameStart) -> None:
        self._rng = random.Random(game.bot_seed)

    def deals_for(self, view: View) -> int:
        """How many deals to examine for ``view`` when time allows."""
        left = len(view.hand) * len(view.active) - len(view.trick)
        wanted = self.plays // max(1, left * len(view.legal))
        return max(self.min_deals, min(self.max_deals, wanted))

    def play(self, view: View) -> int:
        legal = view.legal
        if len(legal) == 1:
            return legal[0]
        deadline = perf_counter() + self.time_share * view.move_seconds
        preferred = self._fallback.play(view)
        try:
            known = knowledge(view)
        except InconsistentViewError:
            return preferred
        seats = view.active
        position = {seat: i for i, seat in enumerate(seats)}
        me = position[view.seat]
        tricks = trick_after_each_card(view)
        costs = outcome_costs(view, seats, self.rival_bonus)
        totals = dict.fromkeys(legal, 0.0)
        hands: list[list[int]] = [[] for _ in seats]
        wanted = self.deals_for(view)
        deals = 0
        while deals < wanted:
            for seat, cards in sample_hands(known, self._rng).items():
                hands[position[seat]] = cards
            for card in legal:
                copies = [list(h) for h in hands]
                mine = list(view.hand)
                mine.remove(card)
                copies[me] = mine
                end = finish_round(copies, tricks[card], quick_card)
                totals[card] += costs[end.loser][end.card][end.one_in_last]
            deals += 1
            if perf_counter() > deadline:
                break
        self.last_deals = deals
        # On equal cost, trust the heuristic, then the lower card: deterministic either way.
        return min(legal, key=lambda c: (totals[c], c != preferred, c))
