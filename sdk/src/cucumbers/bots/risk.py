"""What losing a round would cost, given the scores: the search bot's objective.

Points are not what a game is won on: placement is, and placement is decided by who is
eliminated when. So the cost of a loss is the penalty measured against the seat's *room*, the
points it can still take before it is out, with an extra charge when the loss would eliminate
it. The same penalty therefore costs more to a seat near the edge than to a fresh one.
"""

from __future__ import annotations

from ..games import GameRules, rules_for
from ..view import View

#: Extra cost of being eliminated, beyond losing all the room left, in a game that
#: eliminates above a score (Five Cucumbers: in cucumbers).
FC_ELIMINATION = 4.0
#: The same in a game with a half-cucumber (Concombre: in points).
CONCOMBRE_ELIMINATION = 12.0
#: What the half-cucumber is worth: roughly the room of a second life, since the score
#: restarts at the kept penalty card (about 10 on average in Concombre).
HALF_CUCUMBER_ROOM = 10.0

#: ``costs[card][doubled]``: the cost of losing with ``card``, with or without a 1 in the
#: last trick. Indexed by rank, from 0 to the game's highest rank.
LossCosts = list[tuple[float, float]]


def penalty_points(game: str, card: int, doubled: bool) -> int:
    """The points a loss with ``card`` adds (``doubled``: a 1 in the last trick)."""
    return rules_for(game).penalty(card, [1] if doubled else []).points


def _settle(rules: GameRules, view: View, seat: int, card: int, doubled: bool) -> bool:
    """Whether the game's own rules eliminate ``seat`` for that loss."""
    cards = view.penalty_cards[seat]
    kept = (*cards, card) if rules.keeps_penalty_cards else cards
    total = view.scores[seat] + rules.penalty(card, [1] if doubled else []).points
    return rules.settle(total, view.half_cucumbers[seat], kept).eliminated


def eliminates(view: View, seat: int, card: int, doubled: bool) -> bool:
    """Whether losing this round with ``card`` would eliminate ``seat``."""
    return _settle(rules_for(view.game), view, seat, card, doubled)


def loss_cost(view: View, seat: int, card: int, doubled: bool) -> float:
    """The cost to ``seat`` of losing this round with ``card``: the room it uses up, plus
    the elimination charge if it goes out."""
    rules = rules_for(view.game)
    score = view.scores[seat]
    points = penalty_points(view.game, card, doubled)
    limit = rules.half_cucumber_at
    if limit is not None:
        half = view.half_cucumbers[seat]
        room = limit - score + (0.0 if half else HALF_CUCUMBER_ROOM)
        if score + points < limit:
            return float(points)
        if half:
            return room + CONCOMBRE_ELIMINATION
        # The half-cucumber: the score restarts at the highest kept card and the second
        # life is used up, so the room left is what the restarted score allows.
        restart = max((card, *view.penalty_cards[seat]))
        return room - (limit - restart)
    above = rules.elimination_above
    if above is not None and score + points > above:
        return above + 1 - score + FC_ELIMINATION
    return float(points)


def outcome_costs(view: View, seats: tuple[int, ...], rival_bonus: float) -> list[LossCosts]:
    """For each of ``seats`` (the seats still in the round), what its losing the round
    costs the viewing seat: its own :func:`loss_cost` for the viewing seat itself; for
    another seat ``-rival_bonus`` when the loss eliminates it (a seat eliminated before us
    always places below us), else nothing."""
    ranks = rules_for(view.game).ranks
    tables: list[LossCosts] = []
    for seat in seats:
        table = [(0.0, 0.0)] * (ranks[-1] + 1)
        for card in ranks:
            if seat == view.seat:
                table[card] = (
                    loss_cost(view, seat, card, False),
                    loss_cost(view, seat, card, True),
                )
            else:
                table[card] = (
                    -rival_bonus if eliminates(view, seat, card, False) else 0.0,
                    -rival_bonus if eliminates(view, seat, card, True) else 0.0,
                )
        tables.append(table)
    return tables
