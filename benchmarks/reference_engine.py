"""A tight pure-Python Five Cucumbers loop with random bots: the yardstick of the engine's
speed (``benchmarks/engine.py`` plays the same games on both and compares them). Two forms:
:func:`play_game`, the bare loop (its bots are ``rng.random`` calls inline), and
:func:`play_game_asking`, the same loop asking real bots through the bot API (a
:class:`~cucumbers.view.View` per move, a Python call), as any engine must.

It follows ``rules.md`` for Five Cucumbers only and keeps nothing but what decides the game:
no views, no records, no faults, no replay. It deals exactly as the engine does (one
``random.Random(seed)`` per game, one ``sample`` of the sorted deck per round, dealt in
blocks to the active seats in seat order) and its random bots choose exactly as
``builtin:random`` does (``legal[int(rng.random() * len(legal))]`` from
``random.Random(bot_seed)``), so a game here is the engine's game with the same seeds.
"""

from __future__ import annotations

import random
from bisect import bisect_left
from collections.abc import Callable, Sequence

from cucumbers.view import Play, Trick, View

#: Cucumbers by penalty card, index = rank (rules.md: 1 -> 0; 2-5 -> 1; 6-9 -> 2; ...).
CUCUMBERS = (0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 4, 4, 4, 5)
DECK = tuple(rank for rank in range(1, 16) for _ in range(4))
HAND = 7
OUT_ABOVE = 5
ROUND_CAP = 1000

#: What a game comes to: the placement (seats, best first), the final scores and the
#: penalty of every round in order.
Result = tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]


def play_game(seed: int, bot_seeds: Sequence[int]) -> Result:
    """One game between ``len(bot_seeds)`` random bots, seat ``s`` seeded ``bot_seeds[s]``."""
    n = len(bot_seeds)
    sample = random.Random(seed).sample
    choose = [random.Random(bot_seed).random for bot_seed in bot_seeds]
    scores = [0] * n
    active = list(range(n))
    eliminated: list[int] = []
    penalties: list[int] = []
    leader = 0
    rounds = 0
    while len(active) > 1 and rounds < ROUND_CAP:
        rounds += 1
        m = len(active)
        dealt = sample(DECK, HAND * m)
        hands = [sorted(dealt[i * HAND : (i + 1) * HAND]) for i in range(m)]
        first = active.index(leader)  # positions in `active`, not seats
        high = winner = 0
        one = False
        for _ in range(HAND):
            high, one = 0, False
            for k in range(m):
                position = (first + k) % m
                hand = hands[position]
                i = bisect_left(hand, high)
                legal = tuple(dict.fromkeys(hand if i == 0 else [hand[0], *hand[i:]]))
                card = legal[int(choose[active[position]]() * len(legal))]
                hand.remove(card)
                if card >= high:  # ties go to the card played last
                    high, winner = card, position
                if card == 1:
                    one = True
            first = winner
        loser = active[winner]
        penalty = CUCUMBERS[high] * (2 if one else 1)
        penalties.append(penalty)
        scores[loser] += penalty
        if scores[loser] > OUT_ABOVE:
            del active[winner]
            eliminated.append(loser)
            leader = active[winner % len(active)] if active else 0
        else:
            leader = loser
    if rounds == ROUND_CAP and len(active) > 1:
        active.sort(key=lambda s: (scores[s], s))
    return tuple(active + eliminated[::-1]), tuple(scores), tuple(penalties)


def play_game_asking(
    seed: int, bots: Sequence[Callable[[View], object]], move_seconds: float, bank: float
) -> Result:
    """:func:`play_game`, asking ``bots[s](view)`` for seat ``s``'s card: the same loop plus
    what the bot API costs any engine, and no more. Each view is a full, correct
    :class:`View`; so hands are tuples (a view shares them, and what a bot saw must not
    change) and the trick and the round's tricks are kept as ``Play`` and ``Trick`` tuples.
    The answers are trusted (no faults here)."""
    n = len(bots)
    sample = random.Random(seed).sample
    new = tuple.__new__  # as the engine does: no NamedTuple keyword handling
    # One Play per seat and rank, shared by every trick (plays are immutable), as the engine.
    table = [[new(Play, (seat, card)) for card in range(16)] for seat in range(n)]
    no_half, no_cards = (False,) * n, ((),) * n
    scores = [0] * n
    active = list(range(n))
    eliminated: list[int] = []
    penalties: list[int] = []
    leader = 0
    rounds = 0
    while len(active) > 1 and rounds < ROUND_CAP:
        rounds += 1
        m = len(active)
        dealt = sample(DECK, HAND * m)
        hands = [tuple(sorted(dealt[i * HAND : (i + 1) * HAND])) for i in range(m)]
        public_scores, public_active, public_out = tuple(scores), tuple(active), tuple(eliminated)
        first = active.index(leader)  # positions in `active`, not seats
        done: tuple[Trick, ...] = ()
        high = winner = 0
        one = False
        for number in range(1, HAND + 1):
            high, one = 0, False
            plays: tuple[Play, ...] = ()
            trick_leader = active[first]
            for k in range(m):
                position = (first + k) % m
                seat = active[position]
                hand = hands[position]
                i = bisect_left(hand, high)
                legal = tuple(dict.fromkeys(hand if i == 0 else [hand[0], *hand[i:]]))
                view = new(
                    View,
                    ("five-cucumbers", seat, n, hand, legal, plays, high or None, trick_leader,
                     number, rounds, HAND, done, public_scores, public_active, public_out, (),
                     None, leader, no_half, no_cards, move_seconds, bank),
                )  # fmt: skip
                card: int = bots[seat](view)  # type: ignore[assignment]  # trusted
                i = hand.index(card)
                hands[position] = hand[:i] + hand[i + 1 :]
                plays += (table[seat][card],)
                if card >= high:  # ties go to the card played last
                    high, winner = card, position
                if card == 1:
                    one = True
            done += (new(Trick, (trick_leader, plays, active[winner])),)
            first = winner
        loser = active[winner]
        penalty = CUCUMBERS[high] * (2 if one else 1)
        penalties.append(penalty)
        scores[loser] += penalty
        if scores[loser] > OUT_ABOVE:
            del active[winner]
            eliminated.append(loser)
            leader = active[winner % len(active)] if active else 0
        else:
            leader = loser
    if rounds == ROUND_CAP and len(active) > 1:
        active.sort(key=lambda s: (scores[s], s))
    return tuple(active + eliminated[::-1]), tuple(scores), tuple(penalties)
