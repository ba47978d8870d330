"""What every game shares: the rules object the engine asks, and the small records it returns.

A game is a :class:`GameRules` subclass in its own module (:mod:`.five_cucumbers`,
:mod:`.concombre`), registered by name (:mod:`.registry`). The engine holds no knowledge of
any one game: it deals, runs the tricks (the shared trick rules of ``rules.md`` are the same
in every game) and asks the rules object at the start and the end of each round. So a
variant is a subclass that changes settings, as in python-chess, and a new game is one
module and a :func:`~cucumbers.games.register` call, as in OpenSpiel.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import ClassVar, NamedTuple

#: The safety cap on the number of rounds in one game (``rules.md``, Placement).
ROUND_CAP = 1000


class UnknownGameError(ValueError):
    """Raised for a game name that is not registered (:func:`~cucumbers.games.registry`)."""


class RoundPenalty(NamedTuple):
    """What the loser of a round pays.

    Attributes:
        points: added to the loser's score (cucumbers in Five Cucumbers, points in Concombre).
        doubled: Five Cucumbers: a 1 was played in the last trick.
    """

    points: int
    doubled: bool


class RoundStart(NamedTuple):
    """Who deals and leads a round, and how many cards each active seat gets.

    Attributes:
        dealer: the round's dealer, or ``None`` in a game without one.
        leader: the seat that leads the round's first trick.
        hand_size: cards dealt to each active seat (= tricks in the round).
    """

    dealer: int | None
    leader: int
    hand_size: int


class Settlement(NamedTuple):
    """A loser's standing once its penalty is scored (:meth:`GameRules.settle`).

    Attributes:
        score: its score now.
        penalty_cards: the penalty cards lying in front of it now.
        eliminated: the score puts it out of the game.
        half: it earned its half-cucumber with this loss.
    """

    score: int
    penalty_cards: tuple[int, ...]
    eliminated: bool
    half: bool


def next_active(active: Sequence[bool], seat: int) -> int:
    """The next seat clockwise from ``seat`` that is still in the game (``active[s]``)."""
    n = len(active)
    for step in range(1, n + 1):
        candidate = (seat + step) % n
        if active[candidate]:
            return candidate
    raise ValueError("no active seat")


class GameRules:
    """The settings and rule hooks of one game. Instances are immutable singletons, one per
    game (:data:`~cucumbers.games.FIVE_CUCUMBERS`, :data:`~cucumbers.games.CONCOMBRE`).

    A subclass sets the class attributes below and, where its rules differ from these
    defaults, overrides :meth:`penalty`, :meth:`first_round`, :meth:`next_round` or
    :meth:`settle`. Every hook is called once per round, never per move.

    Attributes:
        name: the game's name in replays, on the command line and in the registry.
        title: the game's name for people ("Five Cucumbers").
        min_players, max_players: the legal table sizes.
        ranks: the card ranks, lowest first; positive, since the engine takes 0 for "no card
            in the trick yet".
        copies: how many cards of each rank the deck holds.
        first_hand_size: cards dealt to each seat in round 1.
        has_dealer: whether rounds have a dealer (``View.dealer`` is ``None`` otherwise).
        keeps_penalty_cards: the loser keeps its penalty card in front of it, out of the deck
            (``View.penalty_cards`` stays empty otherwise).
        elimination_above: a seat whose score goes above this is eliminated (``None``: no
            such limit).
        half_cucumber_at: a seat reaching this score for the first time earns its
            half-cucumber (it keeps only its highest penalty card, and scores that card's
            rank); reaching it again eliminates it. ``None``: no half-cucumber. Needs
            ``keeps_penalty_cards``.
        unit: what scores count, in words ("cucumbers", "points").
        unit_short: the same in a few letters, where room is short ("cuc.", "pts").
        card_names: how the rules name some ranks (Concombre: 11 is "J"); the other ranks
            are named by their number.
    """

    name: ClassVar[str]
    title: ClassVar[str]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    ranks: ClassVar[tuple[int, ...]]
    copies: ClassVar[int] = 4
    first_hand_size: ClassVar[int] = 7
    has_dealer: ClassVar[bool] = False
    keeps_penalty_cards: ClassVar[bool] = False
    elimination_above: ClassVar[int | None] = None
    half_cucumber_at: ClassVar[int | None] = None
    unit: ClassVar[str] = "points"
    unit_short: ClassVar[str] = "pts"
    card_names: ClassVar[Mapping[int, str]] = MappingProxyType({})

    __slots__ = ()

    @property
    def deck(self) -> tuple[int, ...]:
        """Every card of a full deck, sorted (the order the deal samples from)."""
        return tuple(rank for rank in self.ranks for _ in range(self.copies))

    def check_players(self, num_players: int) -> None:
        """Raise :class:`ValueError` unless ``num_players`` is a legal table size."""
        if type(num_players) is not int or not (
            self.min_players <= num_players <= self.max_players
        ):
            raise ValueError(
                f"{self.name} is played by {self.min_players} to {self.max_players} players,"
                f" not {num_players!r}"
            )

    def card_name(self, card: int) -> str:
        """The card as the rules name it: ``CONCOMBRE.card_name(12) == "Q"``."""
        return self.card_names.get(card, str(card))

    def penalty(self, card: int, last_trick: Sequence[int]) -> RoundPenalty:
        """The penalty for losing a round with ``card``; ``last_trick`` holds the cards of
        the last trick. By default the card's rank in points."""
        return RoundPenalty(card, False)

    def first_round(self, num_players: int) -> RoundStart:
        """Round 1. By default: no dealer, seat 0 leads, :attr:`first_hand_size` cards."""
        return RoundStart(None, 0, self.first_hand_size)

    def next_round(
        self, previous: RoundStart, loser: int, card: int, active: Sequence[bool], available: int
    ) -> RoundStart:
        """The round after ``previous``, whose ``loser`` lost with ``card``. ``active[s]``
        says whether seat ``s`` is still in the game and ``available`` counts the cards the
        deal may use (the deck less the penalty cards lying in front of seats). By default:
        no dealer, the loser leads (or the next active seat when it is out), the same hand
        size every round."""
        leader = loser if active[loser] else next_active(active, loser)
        return RoundStart(None, leader, self.first_hand_size)

    def settle(self, score: int, has_half: bool, penalty_cards: tuple[int, ...]) -> Settlement:
        """The loser's standing after its penalty: ``score`` already counts it and
        ``penalty_cards`` already holds the new card (when :attr:`keeps_penalty_cards`).
        By default :attr:`half_cucumber_at` and :attr:`elimination_above` decide."""
        at = self.half_cucumber_at
        if at is not None and score >= at:
            if has_half:
                return Settlement(score, penalty_cards, True, False)
            kept = max(penalty_cards)
            return Settlement(kept, (kept,), False, True)
        above = self.elimination_above
        return Settlement(score, penalty_cards, above is not None and score > above, False)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"
