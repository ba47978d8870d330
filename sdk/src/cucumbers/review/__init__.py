"""The move review: how much each of a seat's decisions in a game cost it, by estimate.

``cucumbers review REPLAY --seat N`` prints it; :func:`review_json` is the same as plain JSON
data for scripts and the site. For each decision with a choice, every legal card's expected
cost to the seat this round (cucumbers or points), from the seat's own information: deals
consistent with its view, played out by the same fast policy for every seat, the same deals
for every card (:mod:`.estimate`). The played card's *regret* is its expected cost less the
best card's. Method and limits: ``docs/bots.md``, "Reviewing a game".
"""

from __future__ import annotations

from .estimate import CONFIDENCE, CardEstimate, Estimate, estimate
from .game import DEFAULT_DEALS, REVIEW_FORMAT, Decision, GameReview, review_game, review_json

__all__ = [
    "CONFIDENCE",
    "DEFAULT_DEALS",
    "REVIEW_FORMAT",
    "CardEstimate",
    "Decision",
    "Estimate",
    "GameReview",
    "estimate",
    "review_game",
    "review_json",
]
