"""How sure the ladder is of a rating: a Bayesian companion to the Elo (pure functions, no
ORM).

Each bot also carries an OpenSkill rating (Weng-Lin's Plackett-Luce model, the `openskill`
library): a mean and an uncertainty ``sigma``, updated from the same placements, game by
game, as the Elo. Elo stays the headline number; ``sigma`` gives it a 95% interval,
``Elo ± 1.96 sigma`` converted to Elo points (:data:`ELO_PER_SKILL`) and scaled to the
width measured to cover 95% (:data:`INTERVAL_SCALE`). Unlike a fixed-K Elo, the model knows
how much it has seen: ``sigma`` starts wide (an interval of about ±255 points) and narrows
with each game, faster against well-known opponents.

The conversion: at a table of ``n`` well-known bots the model's chance that one places
above another is a logistic of ``(mu_a - mu_b) / c`` with ``c = sqrt(n) beta``; the Elo's
is a logistic of ``(R_a - R_b) ln 10 / 400``. So one unit of skill is
``400 / (sqrt(n) beta ln 10)`` Elo points: 20.8 at the ladder's typical four seats (the
default beta is 25/6). benchmarks/rating_calibration.py measures how often the intervals
hold the truth on simulated ladders (docs/arena.md).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

MODEL = PlackettLuce()
#: Where every bot starts (the model's defaults: 25 and 25/3).
INITIAL_MU: float = MODEL.mu
INITIAL_SIGMA: float = MODEL.sigma
#: The ladder's mean table size (2 to 6 or 7 seats): the model's scale grows with the seats.
TYPICAL_TABLE = 4
#: Elo points per unit of skill (see the module's text).
ELO_PER_SKILL = 400.0 / (math.sqrt(TYPICAL_TABLE) * MODEL.beta * math.log(10.0))
#: The normal quantile of a two-sided 95% interval.
Z95 = 1.959964
#: The interval's width as measured to hold the truth 95% of the time: the page centres it
#: on the Elo, whose errors on simulated ladders (benchmarks/rating_calibration.py, 100
#: ladders of 30 bots) are smaller than ``Z95 sigma`` suggests: at scale 1 it held the truth
#: 99-99.8% of the time; at 0.75, 94.2-99.2% from 40 to 800 games a bot under the Elo's
#: shrinking K (docs/arena.md).
INTERVAL_SCALE = 0.75


@dataclass(frozen=True, slots=True)
class Skill:
    mu: float = INITIAL_MU
    sigma: float = INITIAL_SIGMA


def rate_game(skills: Sequence[Skill], places: Sequence[int]) -> list[Skill]:
    """The skills after one game; ``places[i]`` is bot ``i``'s place (1 = best, ties
    allowed)."""
    if len(skills) < 2 or len(places) != len(skills):
        raise ValueError("a rated game needs at least two bots, each with a place")
    teams = [[MODEL.rating(mu=s.mu, sigma=s.sigma)] for s in skills]
    rated = MODEL.rate(teams, ranks=[float(p) for p in places])
    return [Skill(team[0].mu, team[0].sigma) for team in rated]


def rate_series(skills: Sequence[Skill], placements: Sequence[Sequence[int]]) -> list[Skill]:
    """The skills after the games of a match, in order (as the Elo is rated)."""
    current = list(skills)
    for places in placements:
        current = rate_game(current, places)
    return current


def half_width(sigma: float) -> float:
    """Half the 95% interval, in Elo points."""
    return Z95 * sigma * ELO_PER_SKILL * INTERVAL_SCALE
