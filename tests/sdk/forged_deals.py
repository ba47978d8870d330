"""Replays whose deal a forger changed while keeping every play legal (issue 39): what only
the re-derived deal of the seed can tell from a genuine replay. Shared by the SDK's tests
and the arena's report check tests."""

from __future__ import annotations

import random
from typing import Any

from cucumbers.validator import check_replay
from tests.sdk.replay_fixtures import Replay, clone


def without_seed(replay: Replay) -> Replay:
    """``replay`` as a producer that does not deal with the SDK writes it: no ``seed``."""
    return {key: value for key, value in replay.items() if key != "seed"}


def follows_the_rules(replay: Replay) -> bool:
    """The replay passes every check but the deal's: the rules alone, as the validator
    checked them before it re-derived the deal."""
    return check_replay(without_seed(replay)) == []


def is_deal_problem(problem: str) -> bool:
    """A problem the validator reports for a hand the seed does not deal."""
    return "hand is [" in problem and "but the seed deals it [" in problem


def swap_between_hands(
    replay: Replay, rng: random.Random, tries: int = 3000
) -> tuple[Replay, int, tuple[int, int]] | None:
    """A copy of ``replay`` in which two seats of one round have exchanged one card each,
    in their hands and where they played them, such that every play still follows the
    rules; with the round's number and the two seats. None if ``tries`` random exchanges
    find none."""
    rounds = replay["rounds"]
    for _ in range(tries):
        number = rng.randrange(len(rounds)) + 1
        hands = rounds[number - 1]["hands"]
        seats = [seat for seat, hand in enumerate(hands) if hand]
        if len(seats) < 2:
            continue
        a, b = sorted(rng.sample(seats, 2))
        x, y = rng.choice(hands[a]), rng.choice(hands[b])
        if x == y:
            continue
        forged = clone(replay)
        _exchange(forged["rounds"][number - 1], (a, x), (b, y))
        if follows_the_rules(forged):
            return forged, number, (a, b)
    return None


def _exchange(rnd: dict[str, Any], first: tuple[int, int], second: tuple[int, int]) -> None:
    """Seat ``first[0]`` gets ``second[1]`` for its ``first[1]`` and the other way round."""
    for (seat, old), (_, new) in ((first, second), (second, first)):
        hand = rnd["hands"][seat]
        hand[hand.index(old)] = new
        hand.sort()
        play = next(
            p for t in rnd["tricks"] for p in t["plays"] if p["seat"] == seat and p["card"] == old
        )
        play["card"] = new
