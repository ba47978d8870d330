"""The Elo's companion rating (arena.skill): it learns from the same placements, and its
uncertainty, the leaderboard's 95% interval, narrows as a bot plays."""

from __future__ import annotations

import itertools
import random

import pytest

from arena import skill


def test_the_winner_gains_and_everyone_grows_surer() -> None:
    before = [skill.Skill()] * 4
    after = skill.rate_game(before, [1, 2, 3, 4])
    assert after[0].mu > after[1].mu > skill.INITIAL_MU > after[2].mu > after[3].mu
    assert all(a.sigma < skill.INITIAL_SIGMA for a in after)


def test_the_interval_narrows_with_games_from_a_wide_start() -> None:
    rng = random.Random(3)
    bots = [skill.Skill()] * 6
    widths = [skill.half_width(bots[0].sigma)]
    for _ in range(100):
        places = list(range(1, 7))
        rng.shuffle(places)
        bots = skill.rate_game(bots, places)
        widths.append(skill.half_width(bots[0].sigma))
    assert widths[0] == pytest.approx(
        1.959964 * 25 / 3 * skill.ELO_PER_SKILL * skill.INTERVAL_SCALE
    )
    assert widths[0] > 250 > 110 > widths[-1]  # about ±255 at first, ±105 after 100 games
    assert all(b <= a + 1e-9 for a, b in itertools.pairwise(widths))


def test_a_series_is_its_games_in_order() -> None:
    start = [skill.Skill(), skill.Skill(30, 5)]
    games = [[1, 2], [2, 1], [1, 2]]
    step = start
    for places in games:
        step = skill.rate_game(step, places)
    assert skill.rate_series(start, games) == step


def test_a_game_needs_two_bots_with_a_place_each() -> None:
    with pytest.raises(ValueError):
        skill.rate_game([skill.Skill()], [1])
    with pytest.raises(ValueError):
        skill.rate_game([skill.Skill(), skill.Skill()], [1])
