"""One decision's estimate: every legal card's expected cost from the seat's own view.

The method is the search bot's (``docs/bots.md``, ``search``), with the game's own units as
the cost and the statistics kept:

1. deal the unseen cards to the other seats, uniformly among the deals consistent with what
   the seat has seen (:func:`~cucumbers.bots.sampler.sample_hands`: hand sizes and floors);
2. for each deal, play each legal card and finish the round with a playout policy for every
   seat (:func:`~cucumbers.bots.heuristic.quick_card` by default, in the search bot's
   simulator);
3. a card's cost on a deal is the penalty the seat takes if it loses the round (cucumbers,
   doubled with a 1 in the last trick, or points), and 0 when another seat loses.

Every card is played on the *same* deals (common random numbers), so a difference between two
cards is measured on paired outcomes: the luck of the deal cancels, and its interval comes from
the paired differences, much narrower than the cards' own intervals would give.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from math import sqrt
from statistics import NormalDist

from ..bots.heuristic import quick_card
from ..bots.sampler import knowledge, sample_hands
from ..bots.search import trick_after_each_card
from ..bots.simulator import Policy, finish_round
from ..games import rules_for
from ..view import View

#: The confidence of every interval of a review.
CONFIDENCE = 0.95


@dataclass(frozen=True, slots=True)
class CardEstimate:
    """One legal card at one decision.

    Attributes:
        card: the card.
        cost: its expected cost to the seat this round, in the game's units.
        interval: the 95% interval of ``cost``.
        lose: the share of the deals in which the seat then loses the round.
    """

    card: int
    cost: float
    interval: tuple[float, float]
    lose: float


@dataclass(frozen=True, slots=True)
class Estimate:
    """Every legal card's cost at one decision, and the played card's regret.

    Attributes:
        cards: one estimate per legal card, lowest card first.
        played: the card the seat played.
        best: the card of least expected cost (the played card when it ties for least).
        regret: the played card's expected cost less the best card's (0 when it is best).
        interval: the 95% interval of ``regret``, simultaneous over the comparisons with
            every other card (see :func:`regret_interval`); never below 0.
        deals: the deals every card was played on.
    """

    cards: tuple[CardEstimate, ...]
    played: int
    best: int
    regret: float
    interval: tuple[float, float]
    deals: int


def playout_costs(
    view: View, deals: int, rng: random.Random, policy: Policy = quick_card
) -> tuple[dict[int, list[int]], dict[int, int]]:
    """For each legal card of ``view``, its cost to the seat on each of ``deals`` sampled
    deals, the same deals for every card; and in how many of them the seat lost. Raises
    :class:`~cucumbers.bots.sampler.InconsistentViewError` for a view whose cards do not add
    up (never one of a real game)."""
    rules = rules_for(view.game)
    # penalty[card][doubled]: the points the seat takes when it loses with that card.
    penalty = {
        card: (rules.penalty(card, []).points, rules.penalty(card, [1]).points)
        for card in rules.ranks
    }
    known = knowledge(view)
    position = {seat: i for i, seat in enumerate(view.active)}
    me = position[view.seat]
    tricks = trick_after_each_card(view)
    costs: dict[int, list[int]] = {card: [] for card in view.legal}
    losses = dict.fromkeys(view.legal, 0)
    hands: list[list[int]] = [[] for _ in view.active]
    for _ in range(deals):
        for seat, cards in sample_hands(known, rng).items():
            hands[position[seat]] = cards
        for card in view.legal:
            copies = [list(hand) for hand in hands]
            mine = list(view.hand)
            mine.remove(card)
            copies[me] = mine
            end = finish_round(copies, tricks[card], policy)
            if end.loser == me:
                costs[card].append(penalty[end.card][end.one_in_last])
                losses[card] += 1
            else:
                costs[card].append(0)
    return costs, losses


def mean_interval(values: list[int], z: float) -> tuple[float, float, float]:
    """The mean of ``values`` and its normal interval at ``z`` standard errors."""
    n = len(values)
    mean = sum(values) / n
    if n < 2:
        return mean, mean, mean
    variance = sum((v - mean) ** 2 for v in values) / (n - 1)
    half = z * sqrt(variance / n)
    return mean, mean - half, mean + half


def regret_interval(costs: dict[int, list[int]], played: int) -> tuple[float, float]:
    """The interval of the played card's regret, ``max`` over the other cards ``k`` of
    ``cost(played) - cost(k)`` (and 0).

    Each paired difference gets its interval, widened (Bonferroni) so that all of them hold
    together with 95% confidence; the regret is a maximum of those differences, so when they
    all hold it lies between the maximum of their lower ends and the maximum of their upper
    ends (each maximum taken with 0).
    """
    others = [card for card in costs if card != played]
    if not others:
        return 0.0, 0.0
    z = NormalDist().inv_cdf(1 - (1 - CONFIDENCE) / (2 * len(others)))
    low = high = 0.0
    mine = costs[played]
    for card in others:
        diffs = [a - b for a, b in zip(mine, costs[card], strict=True)]
        _, lo, hi = mean_interval(diffs, z)
        low, high = max(low, lo), max(high, hi)
    return low, high


def estimate(
    view: View, played: int, deals: int, rng: random.Random, policy: Policy = quick_card
) -> Estimate:
    """Every legal card's expected cost at ``view`` over ``deals`` deals drawn from ``rng``,
    and the regret of ``played`` (a card of ``view.legal``)."""
    if played not in view.legal:
        raise ValueError(f"{played} is not a legal card here: {list(view.legal)}")
    costs, losses = playout_costs(view, deals, rng, policy)
    z = NormalDist().inv_cdf(1 - (1 - CONFIDENCE) / 2)
    cards = []
    for card, values in costs.items():
        mean, lo, hi = mean_interval(values, z)
        cards.append(CardEstimate(card, mean, (max(lo, 0.0), hi), losses[card] / deals))
    # Exact integer totals decide the best card, so a tie is a tie; on a tie the played card
    # is best (no regret), then the lower card.
    totals = {card: sum(values) for card, values in costs.items()}
    best = min(costs, key=lambda c: (totals[c], c != played, c))
    regret = (totals[played] - totals[best]) / deals
    return Estimate(tuple(cards), played, best, regret, regret_interval(costs, played), deals)
