"""Helpers that steer the engine in tests: rig the deal of a round, play cards, play random
games with injected faults, and re-derive the deals from a seed.

``rig`` calls :meth:`~cucumbers.engine.GameState._rig_round`, the engine's one private hook
for tests, because the engine has no public way to start from a chosen position. It only
works at the start of a round (before the first card), where the engine's round state is
just "the hands, the scores, the penalty cards, the round number"; the engine rebuilds what
it derives from them (the distinct cards, the views' public part).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from cucumbers.engine import GameState
from cucumbers.faults import FaultKind
from cucumbers.games import CONCOMBRE, FIVE_CUCUMBERS, GameRules

GAMES = (FIVE_CUCUMBERS, CONCOMBRE)
GAME_IDS = ("five-cucumbers", "concombre")

#: Every table size of every game.
TABLES = [(rules, n) for rules in GAMES for n in range(rules.min_players, rules.max_players + 1)]
TABLE_IDS = [f"{rules.name}-{n}p" for rules, n in TABLES]


def players(n: int) -> list[dict[str, Any]]:
    """Replay player entries for ``n`` seats."""
    return [{"seat": s, "name": f"p{s}"} for s in range(n)]


def rig(
    state: GameState,
    hands: Sequence[Sequence[int] | None] | None = None,
    *,
    scores: Sequence[int] | None = None,
    penalty_cards: Sequence[Sequence[int]] | None = None,
    half: Sequence[bool] | None = None,
    round_number: int | None = None,
) -> GameState:
    """Replace parts of the round that has just started (no card played yet).

    ``hands`` lists every seat's hand (``None`` for seats out of the game); all must have the
    same size, which becomes the round's hand size. The hands and the penalty cards together
    must fit in the deck, so a rigged position is one the real game could reach.
    """
    assert state.to_move is not None, "the game is over"
    assert state.trick_number == 1, "rig only at the start of a round"
    assert not state.view(state.to_move).trick, "rig only at the start of a round"
    active = state.active
    state._rig_round(hands, scores, penalty_cards, half, round_number)
    used = Counter(c for s in active for c in state._hands[s])
    used.update(c for cards in state._penalty_cards for c in cards)
    deck = Counter(state.rules.deck)
    assert not used - deck, f"rigged cards do not fit in the deck: {dict(used - deck)}"
    return state


def new_game(
    rules: GameRules,
    n: int,
    hands: Sequence[Sequence[int] | None] | None = None,
    *,
    seed: int = 0,
    **kwargs: Any,
) -> GameState:
    """A new game, optionally with round 1 rigged (see :func:`rig`)."""
    state = GameState(rules, n, seed)
    if hands is not None or kwargs:
        rig(state, hands, **kwargs)
    return state


def play(state: GameState, *cards: int) -> GameState:
    """Play ``cards`` in turn, each for whoever is to move."""
    for card in cards:
        assert state.to_move is not None, f"the game is over before {card}"
        state.play(card)
    return state


def lowest(state: GameState) -> int:
    return state.legal()[0]


def finish_round(state: GameState, choose: Callable[[GameState], int] = lowest) -> None:
    """Play until the current round is over (``choose`` picks each card)."""
    number = state.round_number
    while state.to_move is not None and state.round_number == number:
        state.play(choose(state))


def finish_game(state: GameState, choose: Callable[[GameState], int] = lowest) -> None:
    while state.to_move is not None:
        state.play(choose(state))


_FILLER = (2, 2, 2, 2, 3, 3, 3, 3)


def lose_round(state: GameState, loser: int, card: int, **kwargs: Any) -> None:
    """Rig a one-trick round that ``loser`` loses with ``card`` (everyone else holds a 2 or
    a 3, so ``card`` must be 4 or more), and play it."""
    assert card >= 4
    hands: list[list[int] | None] = [None] * state.num_players
    fillers = iter(_FILLER)
    for seat in state.active:
        hands[seat] = [card] if seat == loser else [next(fillers)]
    rig(state, hands, **kwargs)
    finish_round(state)


# -- random games ------------------------------------------------------------------------

FAULT_KINDS = tuple(FaultKind)


def _duck(legal: tuple[int, ...], high: int | None, rng: random.Random) -> int:
    """The highest card that does not take the trick, else the lowest."""
    under = [c for c in legal if high is not None and c < high]
    return under[-1] if under else legal[0]


#: Ways a test bot picks its card: uniformly at random, always the lowest, always the
#: highest, or ducking under the high card.
STYLES: dict[str, Callable[[tuple[int, ...], int | None, random.Random], int]] = {
    "random": lambda legal, high, rng: legal[rng.randrange(len(legal))],
    "lowest": lambda legal, high, rng: legal[0],
    "highest": lambda legal, high, rng: legal[-1],
    "duck": _duck,
}


def random_game(
    rules: GameRules,
    n: int,
    seed: int,
    *,
    move_seed: int | None = None,
    fault_rate: float = 0.0,
    mixed: bool = False,
) -> GameState:
    """A finished game where every decision is a random legal card (from ``move_seed``,
    default ``seed``), and with probability ``fault_rate`` a random fault instead. With
    ``mixed``, each seat plays one of :data:`STYLES`, drawn from ``move_seed``."""
    state = GameState(rules, n, seed)
    rng = random.Random(seed if move_seed is None else move_seed)
    styles = [STYLES[rng.choice(sorted(STYLES))] if mixed else STYLES["random"] for _ in range(n)]
    while (seat := state.to_move) is not None:
        if fault_rate and rng.random() < fault_rate:
            kind = FAULT_KINDS[rng.randrange(len(FAULT_KINDS))]
            state.fault(kind, f"injected {kind} at move of seat {seat}")
        else:
            legal = state.legal()
            high = state.view(seat).high if mixed else None
            state.play(styles[seat](legal, high, rng))
    return state


# -- re-deriving the deal ----------------------------------------------------------------


def expected_deals(replay: dict[str, Any]) -> Iterable[tuple[int, list[list[int] | None]]]:
    """For each round of ``replay``: the round number and the hands the seed must deal
    (docs/rules.md, the engine's decisions (f): one ``random.Random(seed)`` for the game;
    each round ``sample`` of ``hand_size * active`` cards from the sorted deck minus the
    penalty cards lying in front of players, dealt in consecutive blocks to the active seats
    in seat order).

    The bookkeeping of penalty cards and active seats is redone here from the replay's
    recorded results, not taken from the engine."""
    rules = FIVE_CUCUMBERS if replay["game"] == "five-cucumbers" else CONCOMBRE
    n = len(replay["players"])
    rng = random.Random(replay["seed"])
    lying: list[list[int]] = [[] for _ in range(n)]
    active = list(range(n))
    for rnd in replay["rounds"]:
        deck = Counter(rules.deck)
        for cards in lying:
            deck.subtract(cards)
        size = rnd["hand_size"]
        dealt = rng.sample(sorted(deck.elements()), size * len(active))
        hands: list[list[int] | None] = [None] * n
        for i, seat in enumerate(active):
            hands[seat] = sorted(dealt[i * size : (i + 1) * size])
        yield rnd["number"], hands
        if rules is CONCOMBRE:
            lying[rnd["loser"]].append(rnd["card"])
            if rnd["loser"] in rnd["half"]:
                lying[rnd["loser"]] = [max(lying[rnd["loser"]])]
        gone = list(rnd["eliminated"])
        gone += [f["seat"] for f in replay["faults"] if f["round"] == rnd["number"]]
        for seat in gone:
            lying[seat] = []
        active = [s for s in active if s not in gone]
