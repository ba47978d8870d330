"""A whole game's review for one seat: the views it was shown, rebuilt from the replay, each
decision with a choice estimated (:mod:`.estimate`), and the result as plain JSON data.

>>> result = review_game(load_replay("game.json.gz"), seat=2, seed=0)    # doctest: +SKIP
>>> result.mistakes()[0].regret                                          # doctest: +SKIP
3.812
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ..engine import GameState
from ..faults import FaultKind
from ..games import UnknownGameError, rules_for
from ..repro import ReplayMismatch, recorded_steps
from ..view import View
from .estimate import CONFIDENCE, CardEstimate, Estimate, estimate

#: The JSON's ``format``: what a reader of a review can count on.
REVIEW_FORMAT = "cucumbers-review/1"
#: Deals per decision unless asked otherwise: a regret's interval is then about ±0.1 cucumber
#: (a few tenths of a point in Concombre), and a four-seat game takes seconds.
DEFAULT_DEALS = 1000
#: How the playouts are played, in words (the JSON's ``policy``).
POLICY = "quick_card (builtin:heuristic's core rules) for every seat"


@dataclass(frozen=True, slots=True)
class Decision:
    """One decision of the reviewed seat with more than one legal card.

    Attributes:
        number: its place among the seat's decisions with a choice, in game order, from 1.
        round, trick: where it was (from 1).
        move: the seat's place in the trick (1: it led), so the viewer's position of the
            card on the table is ``#gG-rROUND-tTRICK-pMOVE``.
        view: what the seat saw.
        estimate: every legal card's cost and the played card's regret.
    """

    number: int
    round: int
    trick: int
    move: int
    view: View
    estimate: Estimate

    @property
    def played(self) -> int:
        return self.estimate.played

    @property
    def best(self) -> int:
        return self.estimate.best

    @property
    def regret(self) -> float:
        return self.estimate.regret

    def to_json(self) -> dict[str, Any]:
        e = self.estimate
        return {
            "number": self.number,
            "round": self.round,
            "trick": self.trick,
            "move": self.move,
            "hand": list(self.view.hand),
            "trick_cards": [play.card for play in self.view.trick],
            "played": e.played,
            "best": e.best,
            "regret": _round(e.regret),
            "interval": [_round(v) for v in e.interval],
            "cards": [_card_json(c) for c in e.cards],
        }


@dataclass(frozen=True, slots=True)
class GameReview:
    """A seat's decisions in one game, each with its regret.

    Attributes:
        game: the game's name; ``unit``: what costs count ("cucumbers", "points").
        seat, player: the seat reviewed and its name in the replay.
        seed, deals: the review's seed and the deals per decision.
        decisions: the decisions with a choice, in game order.
        forced: how many moves of the seat had one legal card (not decisions: left out).
        faulted: the seat faulted (its fault's move and the engine's auto plays that follow
            are not the bot's decisions: left out).
    """

    game: str
    unit: str
    seat: int
    player: str
    seed: int
    deals: int
    decisions: tuple[Decision, ...]
    forced: int
    faulted: bool

    @property
    def total_regret(self) -> float:
        return sum(d.regret for d in self.decisions)

    def mistakes(self) -> list[Decision]:
        """The decisions, the biggest regret first (game order among equals)."""
        return sorted(self.decisions, key=lambda d: (-d.regret, d.number))

    def to_json(self) -> dict[str, Any]:
        """The review as plain JSON data: the ``decisions`` list biggest mistakes first."""
        count = len(self.decisions)
        return {
            "format": REVIEW_FORMAT,
            "game": self.game,
            "unit": self.unit,
            "seat": self.seat,
            "player": self.player,
            "seed": self.seed,
            "deals": self.deals,
            "confidence": CONFIDENCE,
            "policy": POLICY,
            "summary": {
                "decisions": count,
                "forced": self.forced,
                "faulted": self.faulted,
                "regret": _round(self.total_regret),
                "regret_per_decision": _round(self.total_regret / count) if count else 0.0,
            },
            "decisions": [d.to_json() for d in self.mistakes()],
        }


def _round(value: float) -> float:
    return round(value, 3) + 0.0  # + 0.0: never "-0.0"


def _card_json(card: CardEstimate) -> dict[str, Any]:
    return {
        "card": card.card,
        "cost": _round(card.cost),
        "interval": [_round(v) for v in card.interval],
        "lose": _round(card.lose),
    }


def seat_views(replay: Mapping[str, Any], seat: int) -> Iterator[tuple[int, int, View, int]]:
    """``(round, trick, view, card)`` for every move the seat chose itself in ``replay``, in
    order: the view it was shown and the card it played (not its fault's move, nor the
    engine's auto plays). Raises :class:`~cucumbers.repro.ReplayMismatch` when the replay
    does not follow from its seed on this engine."""
    try:
        rules = rules_for(str(replay["game"]))
        players = list(replay["players"])
        state = GameState(rules, len(players), replay["seed"])
    except (KeyError, TypeError, ValueError, UnknownGameError) as error:
        raise ReplayMismatch(f"not a replay this engine can play: {error}") from None
    if not 0 <= seat < len(players):
        raise ReplayMismatch(f"no seat {seat}: the game has seats 0 to {len(players) - 1}")
    for step in recorded_steps(replay):
        if state.to_move != step.seat or (step.card is not None and step.card not in state.legal()):
            raise ReplayMismatch(
                f"round {step.round} trick {step.trick}: the record has seat {step.seat}"
                f" {step.describe()}, which this engine does not allow there"
            )
        if step.fault is not None:  # the engine plays for that seat to the end of the round
            state.fault(FaultKind(step.fault["kind"]), str(step.fault["detail"]))
        elif step.card is not None:  # a move that is not a fault always has its card
            if step.seat == seat:
                yield step.round, step.trick, state.view(seat), step.card
            state.play(step.card)


def decision_rng(seed: int, round_number: int, trick: int) -> random.Random:
    """The deals of one decision: from the review's seed and the decision's place alone, so a
    decision's estimate does not depend on the others (nor on the order they are done in).
    A string seed is hashed with SHA-512 by :class:`random.Random`: the same on every machine
    and every run."""
    return random.Random(f"cucumbers-review:{seed}:{round_number}:{trick}")


def review_game(
    replay: Mapping[str, Any],
    seat: int,
    *,
    seed: int = 0,
    deals: int = DEFAULT_DEALS,
    progress: Callable[[int, int], None] | None = None,
) -> GameReview:
    """Review seat ``seat``'s decisions in ``replay``: for each decision with a choice, every
    legal card's expected cost from that seat's view and the played card's regret.

    Deterministic for a replay, seat, seed and ``deals``. ``progress(done, total)`` is called
    after each decision. Raises :class:`~cucumbers.repro.ReplayMismatch` when the replay
    cannot be rebuilt and :class:`ValueError` for ``deals`` below 2.
    """
    if deals < 2:
        raise ValueError(f"deals must be at least 2 (an interval needs two), not {deals}")
    moves = list(seat_views(replay, seat))
    chosen = [(r, t, view, card) for r, t, view, card in moves if len(view.legal) > 1]
    decisions = []
    for number, (rnd, trick, view, card) in enumerate(chosen, start=1):
        rng = decision_rng(seed, rnd, trick)
        result = estimate(view, card, deals, rng)
        decisions.append(Decision(number, rnd, trick, len(view.trick) + 1, view, result))
        if progress is not None:
            progress(number, len(chosen))
    rules = rules_for(str(replay["game"]))
    player = replay["players"][seat]
    return GameReview(
        game=rules.name,
        unit=rules.unit,
        seat=seat,
        player=str(player.get("name", f"seat {seat}")) if isinstance(player, dict) else "?",
        seed=seed,
        deals=deals,
        decisions=tuple(decisions),
        forced=len(moves) - len(chosen),
        faulted=any(f.get("seat") == seat for f in replay.get("faults", [])),
    )


def review_json(
    replay: Mapping[str, Any], seat: int, *, seed: int = 0, deals: int = DEFAULT_DEALS
) -> dict[str, Any]:
    """:func:`review_game` as plain JSON data (what ``cucumbers review --json`` prints): the
    whole job of a review worker, given a replay, a seat, a seed and a budget of deals."""
    return review_game(replay, seat, seed=seed, deals=deals).to_json()
