"""Are the leaderboard's 95% intervals honest? Simulated ladders of bots with known true
strengths, rated game by game by the platform's own maths (arena.rating's Elo and
arena.skill's companion), then: how often does the interval hold the truth?

Each run: ``--bots`` bots with true strengths drawn on the Elo scale (σ 200 around 1500),
``--games`` tables of 2 to 6 seats (as the ladder draws them), each table's order drawn
from the Plackett-Luce model of the true strengths (the chance of a bot to come first among
those left is proportional to 10^(strength/400): Elo's own odds). Coverage is counted at
the end, over every bot of every run, strengths compared after removing the mean (a
rating's level is arbitrary): once for the companion's own mean and once for the Elo, the
headline number the page centres the interval on. Also printed: how far the Elo is from
the truth (root mean square, after removing the means) and how well it orders the bots
(Kendall's tau of the Elo order against the true order, mean over the runs). ``--k`` and
``--min-k`` are what-ifs, not the platform (``--min-k`` equal to ``--k``: a fixed K once
established).

Run: ``python benchmarks/rating_calibration.py [--runs N] [--bots N] [--games N] [--k K]
[--min-k K]``.
"""

from __future__ import annotations

import argparse
import itertools
import math
import random
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from arena import skill
from arena.rating import INITIAL_RATING, EloSettings, rate_series


def draw_order(strengths: list[float], rng: random.Random) -> list[int]:
    """Places (1 = best) of one table drawn from Plackett-Luce on Elo odds."""
    left = list(range(len(strengths)))
    places = [0] * len(strengths)
    for place in range(1, len(strengths) + 1):
        weights = [10 ** (strengths[i] / 400) for i in left]
        pick = rng.choices(left, weights)[0]
        places[pick] = place
        left.remove(pick)
    return places


@dataclass(frozen=True, slots=True)
class Ladder:
    """One simulated ladder's figures at its end, a list entry per bot."""

    own: list[bool]  # the truth within the companion's own mean ± margin
    headline: list[bool]  # the truth within Elo ± margin
    ratios: list[float]  # |Elo - truth| / margin
    squared_errors: list[float]  # (Elo - truth)², means removed
    mean_margin: float
    tau: float  # Kendall's tau of the Elo order against the true order


def kendall_tau(a: Sequence[float], b: Sequence[float]) -> float:
    """Concordant minus discordant pairs over all pairs (no ties in continuous draws)."""
    pairs = list(itertools.combinations(range(len(a)), 2))
    signs = (math.copysign(1.0, (a[i] - a[j]) * (b[i] - b[j])) for i, j in pairs)
    return sum(signs) / len(pairs)


def one_run(bots: int, games: int, rng: random.Random, settings: EloSettings) -> Ladder:
    truth = [rng.gauss(INITIAL_RATING, 200) for _ in range(bots)]
    elo = [INITIAL_RATING] * bots
    played = [0] * bots
    skills = [skill.Skill()] * bots
    for _ in range(games):
        table = rng.sample(range(bots), rng.randint(2, 6))
        places = draw_order([truth[b] for b in table], rng)
        (game,) = rate_series(
            [elo[b] for b in table], [played[b] for b in table], [places], settings
        )
        after = skill.rate_game([skills[b] for b in table], places)
        for i, b in enumerate(table):
            elo[b], skills[b] = game.after[i], after[i]
            played[b] += 1
    centre = statistics.fmean(truth)
    mean_elo = statistics.fmean(elo)
    mean_mu = statistics.fmean(s.mu for s in skills)
    errors = [elo[b] - mean_elo - (truth[b] - centre) for b in range(bots)]
    margins = [skill.half_width(s.sigma) for s in skills]
    own_errors = [
        (skills[b].mu - mean_mu) * skill.ELO_PER_SKILL - (truth[b] - centre) for b in range(bots)
    ]
    return Ladder(
        own=[abs(e) <= m for e, m in zip(own_errors, margins, strict=True)],
        headline=[abs(e) <= m for e, m in zip(errors, margins, strict=True)],
        ratios=[abs(e) / m for e, m in zip(errors, margins, strict=True)],
        squared_errors=[e**2 for e in errors],
        mean_margin=statistics.fmean(margins),
        tau=kendall_tau(elo, truth),
    )


def add_k_what_ifs(parser: argparse.ArgumentParser) -> None:
    """``--k`` and ``--min-k``: what-ifs for the K of a version's first established game
    (``ELO_K``) and its floor (``ELO_MIN_K``); the platform's by default."""
    platform = EloSettings()
    parser.add_argument("--k", type=float, default=platform.k, help="what if: ELO_K")
    parser.add_argument(
        "--min-k",
        type=float,
        default=platform.min_k,
        help="what if: ELO_MIN_K, the floor K shrinks to (--k for a fixed K)",
    )


def k_what_if(args: argparse.Namespace) -> EloSettings:
    """The Elo settings of :func:`add_k_what_ifs`' arguments."""
    return EloSettings(k=args.k, min_k=args.min_k)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--bots", type=int, default=30)
    parser.add_argument("--games", type=int, default=3000)
    add_k_what_ifs(parser)
    args = parser.parse_args()
    settings = k_what_if(args)
    rng = random.Random(2026)
    ladders = [one_run(args.bots, args.games, rng, settings) for _ in range(args.runs)]
    per_bot = args.games * 4 / args.bots  # tables of 2-6 seats: 4 seats on average
    print(
        f"{args.runs} ladders of {args.bots} bots, {args.games} tables"
        f" (~{per_bot:.0f} games a bot), K {settings.k:g} shrinking to {settings.min_k:g}"
    )
    own = [hit for ladder in ladders for hit in ladder.own]
    headline = [hit for ladder in ladders for hit in ladder.headline]
    squared = [error for ladder in ladders for error in ladder.squared_errors]
    margin = statistics.fmean(ladder.mean_margin for ladder in ladders)
    print(f"  mean 95% half-width          {margin:7.1f} Elo points")
    print(f"  coverage, companion's mean   {statistics.fmean(own):7.1%}  (target about 95%)")
    print(f"  coverage, Elo (the headline) {statistics.fmean(headline):7.1%}")
    print(f"  Elo's error (RMS)            {math.sqrt(statistics.fmean(squared)):7.1f} Elo points")
    print(
        f"  Kendall tau, Elo order       {statistics.fmean(ladder.tau for ladder in ladders):7.3f}"
    )
    # The scale of the interval at which it would hold the truth 95% of the time here.
    scale = statistics.quantiles([r for ladder in ladders for r in ladder.ratios], n=20)[-1]
    print(
        f"  95th percentile of |Elo - truth| / half-width: {scale:.3f}"
        f" (skill.INTERVAL_SCALE is {skill.INTERVAL_SCALE})"
    )


if __name__ == "__main__":
    main()
