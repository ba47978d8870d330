"""Are the leaderboard's 95% intervals honest? Simulated ladders of bots with known true
strengths, rated game by game by the platform's own maths (arena.rating's Elo and
arena.skill's companion), then: how often does the interval hold the truth?

Each run: ``--bots`` bots with true strengths drawn on the Elo scale (σ 200 around 1500),
``--games`` tables of 2 to 6 seats (as the ladder draws them), each table's order drawn
from the Plackett-Luce model of the true strengths (the chance of a bot to come first among
those left is proportional to 10^(strength/400): Elo's own odds). Coverage is counted at
the end, over every bot of every run, strengths compared after removing the mean (a
rating's level is arbitrary): once for the companion's own mean and once for the Elo, the
headline number the page centres the interval on.

Run: ``python benchmarks/rating_calibration.py [--runs N] [--bots N] [--games N]``.
"""

from __future__ import annotations

import argparse
import random
import statistics

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


def one_run(
    bots: int, games: int, rng: random.Random
) -> tuple[list[bool], list[bool], float, list[float]]:
    truth = [rng.gauss(INITIAL_RATING, 200) for _ in range(bots)]
    elo = [INITIAL_RATING] * bots
    played = [0] * bots
    skills = [skill.Skill()] * bots
    settings = EloSettings()
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
    own, headline, ratios = [], [], []
    for b in range(bots):
        true = truth[b] - centre
        margin = skill.half_width(skills[b].sigma)
        mu_elo = (skills[b].mu - mean_mu) * skill.ELO_PER_SKILL
        own.append(abs(mu_elo - true) <= margin)
        headline.append(abs(elo[b] - mean_elo - true) <= margin)
        ratios.append(abs(elo[b] - mean_elo - true) / margin)
    return own, headline, statistics.fmean(skill.half_width(s.sigma) for s in skills), ratios


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--bots", type=int, default=30)
    parser.add_argument("--games", type=int, default=3000)
    args = parser.parse_args()
    rng = random.Random(2026)
    own: list[bool] = []
    headline: list[bool] = []
    margins = []
    ratios: list[float] = []
    for _ in range(args.runs):
        o, h, m, r = one_run(args.bots, args.games, rng)
        own += o
        headline += h
        margins.append(m)
        ratios += r
    per_bot = args.games * 4 / args.bots  # tables of 2-6 seats: 4 seats on average
    print(
        f"{args.runs} ladders of {args.bots} bots, {args.games} tables (~{per_bot:.0f} games a bot)"
    )
    print(f"  mean 95% half-width          {statistics.fmean(margins):7.1f} Elo points")
    print(f"  coverage, companion's mean   {statistics.fmean(own):7.1%}  (target about 95%)")
    print(f"  coverage, Elo (the headline) {statistics.fmean(headline):7.1%}")
    # The scale of the interval at which it would hold the truth 95% of the time here.
    scale = statistics.quantiles(ratios, n=20)[-1]
    print(
        f"  95th percentile of |Elo - truth| / half-width: {scale:.3f}"
        f" (skill.INTERVAL_SCALE is {skill.INTERVAL_SCALE})"
    )


if __name__ == "__main__":
    main()
