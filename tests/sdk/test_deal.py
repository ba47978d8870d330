"""The deal's draw (:func:`cucumbers.deal.sample`) is the standard library's ``sample``, and
a game's deals (:class:`cucumbers.deal.Deals`) are what ``rules.md`` (f) says, round after
round."""

from __future__ import annotations

import random

import pytest

from cucumbers.deal import Deals, sample
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


def test_deals_are_rules_f_round_after_round() -> None:
    # rules.md (f), spelled out with the standard library: one generator for the game, one
    # sample per round of the sorted deck less the cards out of it, in blocks by seat.
    for seed in range(50):
        deals, rng = Deals(seed), random.Random(seed)
        for size, seats, out in ((7, 4, ()), (9, 3, (9, 12)), (12, 4, (9, 12, 14)), (0, 2, ())):
            deck = list(CONCOMBRE.deck)
            for card in out:
                deck.remove(card)
            drawn = rng.sample(deck, size * seats)
            expected = [sorted(drawn[i * size : (i + 1) * size]) for i in range(seats)]
            assert deals.deal(CONCOMBRE.deck, size, seats, out) == expected


def test_a_deal_refuses_a_card_out_of_the_deck_that_it_does_not_hold() -> None:
    deals = Deals(4)
    with pytest.raises(ValueError, match="the deck has no card 14 left to take out"):
        deals.deal(CONCOMBRE.deck, 7, 2, [14] * 5)
    # The refusal drew nothing: the next deal is the seed's first.
    assert deals.deal(FIVE_CUCUMBERS.deck, 7, 2) == Deals(4).deal(FIVE_CUCUMBERS.deck, 7, 2)
