"""Multiplayer Elo against hand-computed values, and its invariants."""

from __future__ import annotations

import itertools
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.rating import EloSettings, expected, game_deltas, pair_score, rate_series


def test_expected_score_matches_the_textbook_values() -> None:
    assert expected(1500, 1500) == 0.5
    # 1 / (1 + 10^(-200/400)) = 1 / (1 + 0.316228) = 0.759747
    assert expected(1600, 1400) == pytest.approx(0.759747, abs=1e-6)
    assert expected(1400, 1600) == pytest.approx(0.240253, abs=1e-6)
    # 400 points: 10:1 odds
    assert expected(1900, 1500) == pytest.approx(10 / 11)


def test_pair_scores_favour_the_better_place_and_split_ties() -> None:
    assert (pair_score(1, 2), pair_score(2, 1), pair_score(3, 3)) == (1.0, 0.0, 0.5)


def test_a_duel_between_equals_moves_each_by_half_k() -> None:
    assert game_deltas([1500, 1500], [1, 2], [32, 32]) == [16.0, -16.0]


def test_an_upset_moves_ratings_more_than_an_expected_win() -> None:
    # Winner 1400 against 1600, K = 32: 32 * (1 - 0.240253) = 24.312
    upset = game_deltas([1400, 1600], [1, 2], [32, 32])
    assert upset[0] == pytest.approx(24.3119, abs=1e-3)
    assert upset[1] == pytest.approx(-24.3119, abs=1e-3)
    expected_win = game_deltas([1600, 1400], [1, 2], [32, 32])
    assert expected_win[0] == pytest.approx(7.6881, abs=1e-3)


def test_a_three_seat_game_by_hand() -> None:
    # Ratings 1500, 1600, 1400 placed 1st, 2nd, 3rd; K = 30, so K / (n - 1) = 15.
    # Bot 0: (1 - 0.359935) + (1 - 0.640065) = 1.000000 -> +15.0000
    # Bot 1: (0 - 0.640065) + (1 - 0.759747) = -0.399812 -> -5.9972
    # Bot 2: (0 - 0.359935) + (0 - 0.240253) = -0.600188 -> -9.0028
    deltas = game_deltas([1500, 1600, 1400], [1, 2, 3], [30, 30, 30])
    assert deltas == pytest.approx([15.0, -5.99718, -9.00282], abs=1e-4)


def test_a_tie_between_equals_changes_nothing() -> None:
    assert game_deltas([1500, 1500, 1500], [1, 1, 1], [16, 16, 16]) == [0.0, 0.0, 0.0]


def test_provisional_bots_use_the_larger_k() -> None:
    settings = EloSettings(k=16, min_k=16, provisional_k=48, provisional_games=20)
    assert settings.k_for(0) == 48 and settings.k_for(19) == 48 and settings.k_for(20) == 16
    deltas = game_deltas([1500, 1500], [1, 2], [settings.k_for(0), settings.k_for(50)])
    assert deltas == [24.0, -8.0]


def test_an_established_version_s_k_shrinks_like_one_over_the_root_of_its_games() -> None:
    settings = EloSettings(k=16, min_k=4, provisional_k=48, provisional_games=20)
    assert settings.k_for(20) == 16
    assert settings.k_for(80) == pytest.approx(8.0)  # four times the games: half the K
    assert settings.k_for(180) == pytest.approx(16 / 3)
    assert settings.k_for(320) == pytest.approx(4.0)
    assert settings.k_for(10_000) == 4.0  # the floor
    ks = [settings.k_for(g) for g in range(20, 400)]
    assert all(a >= b for a, b in itertools.pairwise(ks))


def test_without_a_provisional_period_k_shrinks_from_the_first_game() -> None:
    settings = EloSettings(k=16, min_k=2, provisional_k=48, provisional_games=0)
    assert [settings.k_for(g) for g in (0, 1, 4, 16, 64, 100)] == [16, 16, 8, 4, 2, 2]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"k": 8, "min_k": 16}, "must not exceed"),
        ({"min_k": 0}, "positive"),
        ({"provisional_k": -1}, "positive"),
        ({"provisional_games": -1}, ">= 0"),
    ],
)
def test_settings_that_make_no_sense_are_refused(kwargs: dict[str, float], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        EloSettings(**kwargs)  # type: ignore[arg-type]


def test_a_series_is_rated_game_by_game_from_the_previous_ratings() -> None:
    settings = EloSettings(k=32, min_k=32, provisional_k=32, provisional_games=0)
    games = rate_series([1500, 1500], [0, 0], [[1, 2], [1, 2]], settings)
    assert games[0].before == (1500, 1500) and games[0].after == (1516, 1484)
    # Game 2 from 1516 vs 1484: E = 1 / (1 + 10^(-0.08)) = 1 / 1.831764 = 0.545922 -> +14.5305
    assert games[1].before == games[0].after
    assert games[1].deltas[0] == pytest.approx(14.5305, abs=1e-4)


def test_a_bot_stops_being_provisional_in_the_middle_of_a_series() -> None:
    settings = EloSettings(k=10, provisional_k=40, provisional_games=1)
    games = rate_series([1500, 1500], [0, 5], [[1, 2], [1, 2]], settings)
    assert games[0].deltas[0] == pytest.approx(20.0)  # 40 * 0.5, still provisional
    assert games[1].deltas[0] < 5.0  # K = 10 from the second game on


def test_it_refuses_a_game_of_one() -> None:
    with pytest.raises(ValueError):
        game_deltas([1500], [1], [16])


ratings = st.floats(min_value=500, max_value=3000, allow_nan=False)


@given(st.lists(ratings, min_size=2, max_size=7), st.randoms(use_true_random=False))
def test_with_one_k_the_deltas_sum_to_zero(values: list[float], rng: object) -> None:
    places = list(range(1, len(values) + 1))
    rng.shuffle(places)  # type: ignore[attr-defined]
    deltas = game_deltas(values, places, [24.0] * len(values))
    assert math.fsum(deltas) == pytest.approx(0.0, abs=1e-9)
    winner = places.index(1)
    loser = places.index(len(values))
    assert deltas[winner] > 0 > deltas[loser]
    assert all(abs(d) <= 24.0 for d in deltas)  # K / (n - 1) per pair, n - 1 pairs
