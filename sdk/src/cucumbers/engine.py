"""The game engine: the mutable state of one game of either game, exactly as ``rules.md``.

Usage (the match loop in :mod:`cucumbers.match` does this with real bots)::

    state = GameState(FIVE_CUCUMBERS, num_players=4, seed=7)
    while not state.is_terminal:
        state.play(state.legal()[0])
    replay = state.to_replay([{"seat": s, "name": f"bot{s}"} for s in range(4)])

Plays of a seat that faulted this round are made by the engine itself ("auto" plays), so
:attr:`GameState.to_move` is always a seat whose bot must decide.
"""

from __future__ import annotations

import random
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from . import __version__
from .faults import Fault, FaultKind, not_an_int_detail, short_detail
from .games import ROUND_CAP, ConcombreRules, GameRules
from .replay import REPLAY_FORMAT
from .view import Play, RoundResult, Trick, View

_new_tuple = tuple.__new__  # builds a View without NamedTuple's keyword handling (hot path)


@cache
def _full_deck(rules: GameRules) -> tuple[int, ...]:
    return rules.deck


class IllegalMoveError(ValueError):
    """Raised by :meth:`GameState.play` for a move that is not exactly an ``int`` in
    :meth:`GameState.legal`."""


class GameOverError(RuntimeError):
    """Raised when a move is made in a finished game."""


@dataclass(slots=True)
class _TrickRecord:
    leader: int
    plays: tuple[Play, ...] = ()  # set when the trick is complete
    winner: int = -1
    auto: list[int] = field(default_factory=list)  # positions of the engine's plays


@dataclass(slots=True)
class _RoundRecord:
    number: int
    dealer: int | None
    leader: int
    hand_size: int
    hands: list[list[int] | None]
    tricks: list[_TrickRecord] = field(default_factory=list)
    loser: int = -1
    card: int = 0
    penalty: int = 0
    doubled: bool = False
    scores: list[int] = field(default_factory=list)
    eliminated: list[int] = field(default_factory=list)
    disqualified: list[int] = field(default_factory=list)
    half: list[int] = field(default_factory=list)
    public_tricks: tuple[Trick, ...] = ()


def legal_cards(hand: list[int], high: int | None) -> tuple[int, ...]:
    """The distinct cards of the sorted ``hand`` that may be played on a trick whose highest
    card is ``high`` (``None`` when leading): any card ``>= high``, or the lowest card."""
    if high is None:
        return tuple(dict.fromkeys(hand))
    i = bisect_left(hand, high)
    if i == 0:
        return tuple(dict.fromkeys(hand))
    return tuple(dict.fromkeys([hand[0], *hand[i:]]))


class GameState:
    """One game in progress. Create it with the rules, the table size and a seed; then call
    :meth:`play` (or :meth:`fault`) for :attr:`to_move` until :attr:`is_terminal`.

    Attributes:
        rules: the game's :class:`~cucumbers.games.GameRules`.
        num_players: seats at the table.
        seed: the seed of the deals.
        scores: every seat's score, indexed by seat.
        faults: the faults recorded so far, in order.
        to_move: the seat that must play now, or ``None`` when the game is over.
    """

    def __init__(self, rules: GameRules, num_players: int, seed: int) -> None:
        rules.check_players(num_players)
        if type(seed) is not int:
            raise TypeError(f"seed must be an int, not {type(seed).__name__}")
        self.rules = rules
        self.num_players = num_players
        self.seed = seed
        self.scores = [0] * num_players
        self.faults: list[Fault] = []
        self.to_move: int | None = None
        self.capped = False
        #: Rounds scored so far (the match loop watches it to send round results).
        self.rounds_finished = 0
        self._concombre = isinstance(rules, ConcombreRules)
        self._legal: tuple[int, ...] = ()
        self._high = 0
        self._trick_plays: tuple[Play, ...] = ()
        self._rng = random.Random(seed)
        self._full_deck = _full_deck(rules)
        self._active = [True] * num_players
        self._eliminated: list[int] = []
        self._disqualified: list[int] = []
        self._faulted = [False] * num_players
        self._half = [False] * num_players
        self._penalty_cards: list[list[int]] = [[] for _ in range(num_players)]
        self._rounds: list[_RoundRecord] = []
        self._hands: list[list[int]] = [[] for _ in range(num_players)]
        dealer = num_players - 1 if rules.has_dealer else None
        leader = self._next_active(dealer) if dealer is not None else 0
        self._start_round(1, dealer, leader, rules.first_hand_size)
        self._advance()

    # -- queries -------------------------------------------------------------------------

    @property
    def is_terminal(self) -> bool:
        """True once the game is over (at most one seat active, or the round cap)."""
        return self.to_move is None

    @property
    def round_number(self) -> int:
        return self._round.number

    @property
    def trick_number(self) -> int:
        return len(self._round.tricks)

    @property
    def active(self) -> tuple[int, ...]:
        return tuple(s for s in range(self.num_players) if self._active[s])

    def hand(self, seat: int) -> tuple[int, ...]:
        """The sorted cards ``seat`` holds now."""
        return tuple(self._hands[seat])

    def legal(self) -> tuple[int, ...]:
        """The distinct cards :attr:`to_move` may play, sorted."""
        if self.to_move is None:
            return ()
        return self._legal

    def view(self, seat: int, move_seconds: float = 0.0, bank_seconds: float = 0.0) -> View:
        """The :class:`~cucumbers.view.View` of ``seat``, which must be :attr:`to_move`."""
        if seat != self.to_move:
            raise ValueError(f"seat {seat} is not to move")
        trick = self._trick
        return _new_tuple(
            View,
            (
                self._game_name,
                seat,
                self.num_players,
                tuple(self._hands[seat]),
                self._legal,
                self._trick_plays,
                self._high or None,
                trick.leader,
                len(self._round.tricks),
                self._round.number,
                self._round.hand_size,
                self._done_tricks,
                *self._public,
                move_seconds,
                bank_seconds,
            ),
        )

    def round_result(self, index: int = -1) -> RoundResult:
        """The public record of a finished round (by default the last finished one)."""
        r = self._rounds[: self.rounds_finished][index]
        return RoundResult(
            number=r.number,
            dealer=r.dealer,
            leader=r.leader,
            tricks=r.public_tricks,
            loser=r.loser,
            card=r.card,
            penalty=r.penalty,
            doubled=r.doubled,
            scores=tuple(r.scores),
            eliminated=tuple(r.eliminated),
            disqualified=tuple(r.disqualified),
            half=tuple(r.half),
        )

    def placement(self) -> list[int]:
        """Seats, best first (``rules.md``, Placement). Only meaningful once terminal."""
        remaining = [s for s in range(self.num_players) if self._active[s]]
        if self.capped:
            remaining.sort(key=lambda s: (self.scores[s], s))
        return remaining + self._eliminated[::-1] + self._disqualified[::-1]

    # -- moves ---------------------------------------------------------------------------

    def play(self, card: object) -> None:
        """Play ``card`` for :attr:`to_move`. Raises :class:`IllegalMoveError` unless it is
        exactly an ``int`` (not ``bool``, not a subclass) in :meth:`legal`."""
        # One test on the hot path: _legal is empty once the game is over.
        if type(card) is not int or card not in self._legal:
            if self.to_move is None:
                raise GameOverError("the game is over")
            raise IllegalMoveError(illegal_move_detail(card, self._legal))
        seat = self.to_move
        self._hands[seat].remove(card)  # type: ignore[index]
        self._trick_plays += (_new_tuple(Play, (seat, card)),)
        if card >= self._high:
            self._high = card
            self._trick.winner = seat  # type: ignore[assignment]
        self._position += 1
        self._advance()

    def fault(self, kind: FaultKind, detail: str, *, infrastructure: bool = False) -> Fault:
        """Record a fault for :attr:`to_move`: the engine plays its lowest card from now to
        the end of the round, and disqualifies it at the end of the round.
        ``infrastructure``: what runs the bot failed, not the bot (see :class:`Fault`)."""
        seat = self.to_move
        if seat is None:
            raise GameOverError("the game is over")
        recorded = Fault(
            seat,
            self._round.number,
            len(self._round.tricks),
            kind,
            short_detail(detail),
            infrastructure,
        )
        self.faults.append(recorded)
        self._faulted[seat] = True
        self._advance()
        return recorded

    # -- internals -----------------------------------------------------------------------

    def _next_active(self, seat: int) -> int:
        n = self.num_players
        for step in range(1, n + 1):
            candidate = (seat + step) % n
            if self._active[candidate]:
                return candidate
        raise AssertionError("no active seat")

    def _start_round(self, number: int, dealer: int | None, leader: int, hand_size: int) -> None:
        active = [s for s in range(self.num_players) if self._active[s]]
        deck: Sequence[int] = self._full_deck
        if self._concombre:
            remaining = list(deck)
            for cards in self._penalty_cards:
                for card in cards:
                    remaining.remove(card)
            deck = remaining
        dealt = self._rng.sample(deck, hand_size * len(active))
        hands: list[list[int] | None] = [None] * self.num_players
        for i, seat in enumerate(active):
            hand = sorted(dealt[i * hand_size : (i + 1) * hand_size])
            hands[seat] = hand
            self._hands[seat] = list(hand)
        for seat in range(self.num_players):
            if not self._active[seat]:
                self._hands[seat] = []
        self._round = _RoundRecord(number, dealer, leader, hand_size, hands)
        self._rounds.append(self._round)
        self._order_cache: dict[int, list[int]] = {}
        self._public = (
            tuple(self.scores),
            tuple(active),
            tuple(self._eliminated),
            tuple(self._disqualified),
            dealer,
            leader,
            tuple(self._half),
            tuple(tuple(cards) for cards in self._penalty_cards),
        )
        self._game_name = str(self.rules.name)
        self._done_tricks: tuple[Trick, ...] = ()
        self._start_trick(leader)

    def _start_trick(self, leader: int) -> None:
        order = self._order_cache.get(leader)
        if order is None:
            n = self.num_players
            order = [(leader + k) % n for k in range(n) if self._active[(leader + k) % n]]
            self._order_cache[leader] = order
        self._order = order
        self._position = 0
        self._trick = _TrickRecord(leader)
        self._round.tricks.append(self._trick)
        self._trick_plays = ()
        # 0 is below every rank, so the leader's card is always the new high card.
        self._high = 0
        self.to_move = leader

    def _auto_play(self, seat: int) -> None:
        card = self._hands[seat].pop(0)
        self._trick.auto.append(len(self._trick_plays))
        self._trick_plays += (_new_tuple(Play, (seat, card)),)
        if card >= self._high:
            self._high = card
            self._trick.winner = seat
        self._position += 1

    def _advance(self) -> None:
        """Move to the next seat needing a decision, auto-playing faulted seats and closing
        tricks and rounds on the way."""
        while True:
            order = self._order
            if self._position == len(order):
                trick = self._trick
                trick.plays = self._trick_plays
                self._done_tricks += (_new_tuple(Trick, (trick.leader, trick.plays, trick.winner)),)
                if len(self._round.tricks) == self._round.hand_size:
                    self._round.public_tricks = self._done_tricks
                    if not self._end_round():
                        self.to_move = None
                        self._legal = ()
                        return
                else:
                    self._start_trick(trick.winner)
                continue
            seat = order[self._position]
            if self._faulted[seat]:
                self._auto_play(seat)
                continue
            self.to_move = seat
            # legal_cards() inlined: this runs for every move of every game.
            hand = self._hands[seat]
            i = bisect_left(hand, self._high)
            self._legal = tuple(dict.fromkeys(hand if i == 0 else [hand[0], *hand[i:]]))
            return

    def _end_round(self) -> bool:
        """Score the finished round; start the next one. False when the game is over."""
        r = self._round
        last = r.tricks[-1]
        loser = last.winner
        cards = [play.card for play in last.plays]
        card = max(cards)
        penalty = self.rules.penalty(card, cards)
        r.loser, r.card, r.penalty, r.doubled = loser, card, penalty.points, penalty.doubled
        self.scores[loser] += penalty.points
        out_by_score = False
        if self._concombre:
            self._penalty_cards[loser].append(card)
            if self.scores[loser] >= ConcombreRules.half_cucumber_at:
                if self._half[loser]:
                    out_by_score = True
                else:
                    self._half[loser] = True
                    kept = max(self._penalty_cards[loser])
                    self._penalty_cards[loser] = [kept]
                    self.scores[loser] = kept
                    r.half.append(loser)
        elif self.scores[loser] > 5:
            out_by_score = True
        if out_by_score and not self._faulted[loser]:
            self._active[loser] = False
            self._eliminated.append(loser)
            self._penalty_cards[loser] = []
            r.eliminated.append(loser)
        for fault in self.faults:
            if fault.round == r.number:
                seat = fault.seat
                self._active[seat] = False
                self._disqualified.append(seat)
                self._penalty_cards[seat] = []
                self._faulted[seat] = False
                r.disqualified.append(seat)
        r.scores = list(self.scores)
        self.rounds_finished += 1
        active = sum(self._active)
        if active <= 1:
            return False
        if r.number >= ROUND_CAP:
            self.capped = True
            return False
        if self._concombre:
            dealer = self._next_active(r.dealer if r.dealer is not None else 0)
            leader = self._next_active(dealer)
            available = len(self._full_deck) - sum(len(c) for c in self._penalty_cards)
            hand_size = card
            if hand_size * active > available:
                hand_size = 7 if 7 * active <= available else available // active
            self._start_round(r.number + 1, dealer, leader, hand_size)
        else:
            leader = loser if self._active[loser] else self._next_active(loser)
            self._start_round(r.number + 1, None, leader, self.rules.first_hand_size)
        return True

    # -- replay --------------------------------------------------------------------------

    def to_replay(self, players: list[dict[str, Any]]) -> dict[str, Any]:
        """The game in the ``cucumbers-replay/1`` format. ``players`` is one entry per seat."""
        if len(players) != self.num_players:
            raise ValueError(f"{len(players)} players given for {self.num_players} seats")
        rounds = [_round_json(r) for r in self._rounds if r.loser >= 0]
        return {
            "format": REPLAY_FORMAT,
            "game": str(self.rules.name),
            "seed": self.seed,
            "engine": __version__,
            "players": players,
            "rounds": rounds,
            "faults": [f.to_json() for f in self.faults],
            "placement": self.placement() if self.is_terminal else [],
            "capped": self.capped,
        }


def illegal_move_detail(card: object, legal: tuple[int, ...]) -> str:
    """A short explanation of why ``card`` is not a legal move."""
    if type(card) is not int:
        return not_an_int_detail(repr(card), type(card).__name__, legal)
    shown = repr(card)
    if len(shown) > 40:
        shown = shown[:37] + "..."
    return f"played {shown}, not a legal card; legal: {list(legal)}"


def _round_json(r: _RoundRecord) -> dict[str, Any]:
    return {
        "number": r.number,
        "dealer": r.dealer,
        "leader": r.leader,
        "hand_size": r.hand_size,
        "hands": r.hands,
        "tricks": [
            {
                "leader": t.leader,
                "plays": [
                    {"seat": s, "card": c, "auto": True} if i in t.auto else {"seat": s, "card": c}
                    for i, (s, c) in enumerate(t.plays)
                ],
                "winner": t.winner,
            }
            for t in r.tricks
        ],
        "loser": r.loser,
        "card": r.card,
        "penalty": r.penalty,
        "doubled": r.doubled,
        "scores": r.scores,
        "eliminated": r.eliminated,
        "half": r.half,
    }
