"""The deal's draw (:func:`cucumbers.deal.sample`) is the standard library's ``sample``."""

from __future__ import annotations

import random

import pytest

from cucumbers.deal import sample
from cucumbers.games import CONCOMBRE, FIVE_CUCUMBERS


@pytest.mark.parametrize(
    ("size", "k"),
    [(60, 28), (60, 42), (52, 49), (52, 4), (40, 5), (30, 2), (72, 42), (21, 21), (5, 0)],
)
def test_it_draws_what_random_sample_draws_and_leaves_the_generator_alike(
    size: int, k: int
) -> None:
    # (52, 4), (40, 5) and (30, 2) take the standard library's set branch, the others its pool.
    population = sorted(random.Random(size).choices(range(1, 16), k=size))
    for seed in range(200):
        ours, theirs = random.Random(seed), random.Random(seed)
        assert sample(ours, population, k) == theirs.sample(population, k)
        assert ours.getstate() == theirs.getstate()


def test_whole_deals_of_both_games_match_over_many_rounds() -> None:
    for deck in (FIVE_CUCUMBERS.deck, CONCOMBRE.deck, list(CONCOMBRE.deck[3:])):
        ours, theirs = random.Random(2026), random.Random(2026)
        for round_number in range(500):
            k = 1 + round_number % len(deck)
            assert sample(ours, deck, k) == theirs.sample(deck, k)


def test_it_refuses_more_cards_than_the_deck_holds() -> None:
    with pytest.raises(ValueError, match="larger than population"):
        sample(random.Random(1), [1, 2, 3], 4)
