"""The game engine: the mutable state of one game of any registered game, exactly as
``rules.md``.

Usage (the match loop in :mod:`cucumbers.match` does this with real bots)::

    state = GameState(FIVE_CUCUMBERS, num_players=4, seed=7)
    while not state.is_terminal:
        state.play(state.legal()[0])
    replay = state.to_replay([{"seat": s, "name": f"bot{s}"} for s in range(4)])

The engine runs the trick rules every game shares and asks the game's
:class:`~cucumbers.games.GameRules` for the rest, once per round: who deals and leads, how
many cards, the penalty, and what the loss does to the loser. Plays of a seat that faulted
this round are made by the engine itself ("auto" plays), so :attr:`GameState.to_move` is
always a seat whose bot must decide.

Speed (``benchmarks/engine.py`` measures it against a tight reference loop): every move
goes through one loop, :meth:`GameState._drive`, which keeps a trick's changing state on
local variables. :meth:`GameState.run` (the match loop) drives a whole game with it;
:meth:`GameState.play` and :meth:`GameState.fault` drive it for one decision and stop at the
next. Each seat's hand is an immutable tuple shared with its views, and beside it the ranks
it holds as the bits of an int, kept up to date play by play: a legal set is then two
shifts and a mask, and the one tuple of that set that every view shares (``LEGAL_SETS``),
never a scan of the hand. Every round is dealt by :class:`cucumbers.deal.Deals`, the one
deal the replay checker re-derives too.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache
from itertools import chain, compress
from operator import itemgetter
from typing import Any

from . import __version__
from .deal import Deals
from .faults import BotFault, Fault, FaultKind, clipped, not_an_int_detail, short_detail
from .games import ROUND_CAP, GameRules, RoundStart
from .legal import LEGAL_SETS, ranks_mask, ranks_of
from .replay import REPLAY_FORMAT
from .round_record import RoundRecord, round_json
from .tracebacks import BotTraceback
from .view import Play, RoundResult, Trick, View

_new_tuple = tuple.__new__  # builds a View without NamedTuple's keyword handling (hot path)
_card_of = itemgetter(1)  # of a Play

#: What :meth:`GameState.run` asks a seat for each decision: ``policy(view)`` returns the
#: card to play, or raises :class:`~cucumbers.faults.BotFault` for a fault of the seat.
Policy = Callable[[View], object]


@cache
def _full_deck(rules: GameRules) -> tuple[int, ...]:
    return rules.deck


@cache
def _play_table(num_players: int, top: int) -> tuple[tuple[Play, ...], ...]:
    """``table[seat][card]``: one shared :class:`Play` per seat and rank. Plays are
    immutable, so every trick of every game can hold the same objects."""
    return tuple(
        tuple(_new_tuple(Play, (seat, card)) for card in range(top + 1))
        for seat in range(num_players)
    )


@cache
def _rotations(num_players: int, seats: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """``rotations[leader]``: the active ``seats`` in playing order from ``leader`` (empty
    for a seat that is out). A table has few sets of active seats, so they are shared."""
    return tuple(
        tuple(s for s in (*seats[seats.index(leader) :], *seats[: seats.index(leader)]))
        if leader in seats
        else ()
        for leader in range(num_players)
    )


#: What a policy of :meth:`GameState._drive` answers to stop the loop at its decision (the
#: stepwise methods do; :meth:`GameState.run` takes it as an illegal move).
_PAUSE: Any = object()


class _Answer:
    """A policy for one decision: it returns ``answer`` (or raises it, a
    :class:`~cucumbers.faults.BotFault`) once, then pauses the loop at the next decision."""

    __slots__ = ("answer",)

    def __init__(self, answer: object) -> None:
        self.answer = answer

    def __call__(self, view: View) -> object:
        answer, self.answer = self.answer, _PAUSE
        if isinstance(answer, BotFault):
            raise answer
        return answer


def _pause_at_once(view: View) -> object:
    return _PAUSE


class IllegalMoveError(ValueError):
    """Raised by :meth:`GameState.play` for a move that is not exactly an ``int`` in
    :meth:`GameState.legal`."""


class GameOverError(RuntimeError):
    """Raised when a move is made in a finished game."""


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
        capped: the game was stopped by the round cap.
        rounds_finished: rounds scored so far (the match loop watches it to send round
            results).
    """

    # Slots: the move path reads a dozen attributes per move, and slot reads are the fastest.
    __slots__ = (
        "_active",
        "_deals",
        "_disqualified",
        "_done_tricks",
        "_eliminated",
        "_faulted",
        "_full_deck",
        "_game_name",
        "_half",
        "_hands",
        "_high",
        "_legal",
        "_masks",
        "_penalty_cards",
        "_plays",
        "_public",
        "_rotations",
        "_round",
        "_round_start",
        "_rounds",
        "_trick_leader",
        "_trick_plays",
        "_winner",
        "capped",
        "faults",
        "num_players",
        "rounds_finished",
        "rules",
        "scores",
        "seed",
        "to_move",
    )

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
        self.rounds_finished = 0
        self._game_name = rules.name
        self._legal: tuple[int, ...] = ()
        self._high = 0
        self._winner = -1
        self._trick_leader = 0
        self._trick_plays: tuple[Play, ...] = ()
        self._done_tricks: tuple[Trick, ...] = ()
        self._rotations: tuple[tuple[int, ...], ...] = ()
        self._public: tuple[Any, ...] = ()
        self._deals = Deals(seed)
        self._full_deck = _full_deck(rules)
        self._plays = _play_table(num_players, rules.ranks[-1])
        self._active = [True] * num_players
        self._eliminated: list[int] = []
        self._disqualified: list[int] = []
        self._faulted = [False] * num_players
        self._half = [False] * num_players
        self._penalty_cards: list[list[int]] = [[] for _ in range(num_players)]
        self._rounds: list[RoundRecord] = []
        self._hands: list[tuple[int, ...]] = [()] * num_players
        self._masks = [0] * num_players
        # This leaves the state at the first decision: no seat has faulted yet, so no play
        # of the engine's comes before it.
        self._start_round(1, rules.first_round(num_players))

    # -- queries -------------------------------------------------------------------------

    @property
    def is_terminal(self) -> bool:
        """True once the game is over (at most one seat active, or the round cap)."""
        return self.to_move is None

    @property
    def round_number(self) -> int:
        """The current round (the last one, once the game is over), from 1."""
        return self._round.number

    @property
    def trick_number(self) -> int:
        """The current trick of the round, from 1 (the last one, once the game is over)."""
        return len(self._round.tricks) + (self.to_move is not None)

    @property
    def active(self) -> tuple[int, ...]:
        """Seats still in the game, sorted."""
        return tuple(s for s in range(self.num_players) if self._active[s])

    def hand(self, seat: int) -> tuple[int, ...]:
        """The sorted cards ``seat`` holds now."""
        return self._hands[seat]

    def legal(self) -> tuple[int, ...]:
        """The distinct cards :attr:`to_move` may play, sorted (empty once the game is over)."""
        return self._legal

    def view(self, seat: int, move_seconds: float = 0.0, bank_seconds: float = 0.0) -> View:
        """The :class:`~cucumbers.view.View` of ``seat``, which must be :attr:`to_move`."""
        if seat != self.to_move:
            raise ValueError(f"seat {seat} is not to move")
        r = self._round
        scores, active, out, dq, dealer, first, half, cards = self._public
        return View(
            self._game_name,
            seat,
            self.num_players,
            self._hands[seat],
            self._legal,
            self._trick_plays,
            self._high or None,
            self._trick_leader,
            len(self._done_tricks) + 1,
            r.number,
            r.hand_size,
            self._done_tricks,
            scores,
            active,
            out,
            dq,
            dealer,
            first,
            half,
            cards,
            move_seconds,
            bank_seconds,
        )

    def round_result(self, index: int = -1) -> RoundResult:
        """The public record of a finished round (by default the last finished one)."""
        r = self._rounds[: self.rounds_finished][index]
        return RoundResult(
            number=r.number,
            dealer=r.dealer,
            leader=r.leader,
            tricks=tuple(r.tricks),
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
        # One test on the usual path: _legal is empty once the game is over.
        if type(card) is not int or card not in self._legal:
            if self.to_move is None:
                raise GameOverError("the game is over")
            raise IllegalMoveError(illegal_move_detail(card, self._legal))
        self._drive([_Answer(card)] * self.num_players, pausable=True)

    def fault(self, kind: FaultKind, detail: str, *, infrastructure: bool = False) -> Fault:
        """Record a fault for :attr:`to_move`: the engine plays its lowest card from now to
        the end of the round, and disqualifies it at the end of the round.
        ``infrastructure``: what runs the bot failed, not the bot (see :class:`Fault`)."""
        if self.to_move is None:
            raise GameOverError("the game is over")
        answer = _Answer(BotFault(kind, detail, infrastructure=infrastructure))
        self._drive([answer] * self.num_players, pausable=True)
        return self.faults[-1]

    def run(
        self,
        policies: Sequence[Policy],
        *,
        move_seconds: float = 0.0,
        banks: Sequence[float] | None = None,
        on_round: Callable[[RoundResult], None] | None = None,
    ) -> None:
        """Play the game to its end: ask ``policies[seat](view)`` for every decision of
        ``seat`` and play the card it returns (the match loop plays through it).

        A card that is not exactly an ``int`` in the view's ``legal`` is an
        ``illegal_move`` fault of the seat, and a :class:`~cucumbers.faults.BotFault` that a
        policy raises is a fault of its kind (:meth:`fault`); any other exception stops the
        game where it is (at that seat's decision, as :meth:`play` would leave it) and
        propagates. The views carry ``move_seconds`` and ``banks[seat]`` (read at each move,
        so the caller may change it); ``on_round`` gets each round's
        :class:`~cucumbers.view.RoundResult` as soon as it is scored.

        The state is brought up to date when a round ends, not after every move: so a
        policy must not read the state while ``run`` goes on; its view is what a decision
        may use.
        """
        if self.to_move is not None:
            self._drive(policies, move_seconds, banks, on_round, pausable=False)

    def _drive(
        self,
        policies: Sequence[Policy],
        move_seconds: float = 0.0,
        banks: Sequence[float] | None = None,
        on_round: Callable[[RoundResult], None] | None = None,
        *,
        pausable: bool,
    ) -> None:
        """The one move loop of the engine, behind :meth:`run`, :meth:`play` and
        :meth:`fault`: ask the policies from :attr:`to_move` on until the game ends, or,
        when ``pausable``, until a policy answers :data:`_PAUSE` (then the state is left
        at that decision).

        A move is what costs here, so a trick's changing state (its plays, high card and
        winner) lives on local variables, and is written back to the attributes only when
        the loop stops; a round's state is reloaded once per round.
        """
        n, game, hands, masks = self.num_players, self._game_name, self._hands, self._masks
        faulted, table = self._faulted, self._plays
        bank = banks if banks is not None else (0.0,) * n
        new, view_type, trick_type, legals = _new_tuple, View, Trick, LEGAL_SETS  # locals: faster
        card: Any  # a policy's answer, then (checked) the card played
        while True:
            record, rotations = self._round, self._rotations
            kept, size, rnd, auto = record.tricks, record.hand_size, record.number, record.auto
            scores, act, out, dq, dealer, first, half, cards = self._public
            done, leader, plays = self._done_tricks, self._trick_leader, self._trick_plays
            high, winner, number = self._high, self._winner, len(self._done_tricks) + 1
            while True:  # the tricks of the round
                order = rotations[leader]
                for seat in order[len(plays) :] if plays else order:
                    hand, mask = hands[seat], masks[seat]
                    if faulted[seat]:
                        card = hand[0]
                        auto.setdefault(number - 1, []).append(len(plays))
                    else:
                        # The ranks from the high card up, and the lowest (rules.md); when
                        # leading, high is 0 and every rank is legal.
                        key = mask >> high << high | mask & -mask
                        try:
                            legal = legals[key]
                        except KeyError:
                            legal = ranks_of(key)
                        view = new(
                            view_type,
                            (game, seat, n, hand, legal, plays, high or None, leader, number,
                             rnd, size, done, scores, act, out, dq, dealer, first, half, cards,
                             move_seconds, bank[seat]),
                        )  # fmt: skip
                        try:
                            card = policies[seat](view)
                        except BotFault as error:
                            self._record_fault(
                                seat,
                                number,
                                error.kind,
                                error.detail,
                                error.infrastructure,
                                error.traceback,
                            )
                            card = hand[0]
                            auto.setdefault(number - 1, []).append(len(plays))
                        except BaseException:
                            self._pause(seat, legal, done, leader, plays, high, winner)
                            raise
                        else:
                            if type(card) is not int or card not in legal:
                                if card is _PAUSE and pausable:
                                    self._pause(seat, legal, done, leader, plays, high, winner)
                                    return
                                detail = illegal_move_detail(card, legal)
                                self._record_fault(seat, number, FaultKind.ILLEGAL_MOVE, detail)
                                card = hand[0]
                                auto.setdefault(number - 1, []).append(len(plays))
                    # The card leaves the hand, and its rank the mask unless a pair stays.
                    if card == hand[0]:  # the lowest card (an auto play's): one slice
                        hands[seat] = rest = hand[1:]
                    else:
                        i = hand.index(card)
                        hands[seat] = rest = hand[:i] + hand[i + 1 :]
                    if card not in rest:
                        masks[seat] = mask ^ 1 << card
                    plays += (table[seat][card],)
                    if card >= high:  # ties go to the card played last
                        high, winner = card, seat
                trick = new(trick_type, (leader, plays, winner))
                kept.append(trick)
                if number == size:
                    break
                done += (trick,)
                leader, plays, high, number = winner, (), 0, number + 1
            over = not self._end_round()
            if on_round is not None:
                on_round(self.round_result())
            if over:
                self.to_move, self._legal = None, ()
                return

    def _pause(
        self,
        seat: int,
        legal: tuple[int, ...],
        done: tuple[Trick, ...],
        leader: int,
        plays: tuple[Play, ...],
        high: int,
        winner: int,
    ) -> None:
        """Write the trick back from :meth:`_drive`'s locals: ``seat`` is to move."""
        self.to_move, self._legal, self._done_tricks = seat, legal, done
        self._trick_leader, self._trick_plays, self._high, self._winner = (
            leader,
            plays,
            high,
            winner,
        )

    def _record_fault(
        self,
        seat: int,
        trick: int,
        kind: FaultKind,
        detail: str,
        infrastructure: bool = False,
        traceback: BotTraceback | None = None,
    ) -> None:
        """``seat`` faulted at ``trick`` of this round: from now on the engine plays for it."""
        number = self._round.number
        fault = Fault(seat, number, trick, kind, short_detail(detail), infrastructure, traceback)
        self.faults.append(fault)
        self._faulted[seat] = True

    # -- rounds --------------------------------------------------------------------------

    def _start_round(self, number: int, start: RoundStart) -> None:
        dealer, leader, hand_size = start
        n = self.num_players
        seats = tuple(compress(range(n), self._active))
        # rules.md, the engine's decisions (f): the deck less the penalty cards lying in
        # front of players, dealt to the active seats in seat order.
        dealt = self._deals.deal(
            self._full_deck, hand_size, len(seats), chain.from_iterable(self._penalty_cards)
        )
        recorded: list[list[int] | None] = [None] * n
        # In place: _drive holds these two lists for the whole game. A played round leaves
        # every hand empty and every mask 0, so only the active seats' are written.
        held, masks = self._hands, self._masks
        for seat, hand in zip(seats, dealt, strict=True):
            recorded[seat] = hand
            held[seat] = tuple(hand)
            masks[seat] = ranks_mask(hand)
        self._round_start = start
        self._round = RoundRecord(number, dealer, leader, hand_size, recorded)
        self._rounds.append(self._round)
        self._rotations = _rotations(n, seats)
        self._public = (
            tuple(self.scores),
            seats,
            tuple(self._eliminated),
            tuple(self._disqualified),
            dealer,
            leader,
            tuple(self._half),
            tuple(map(tuple, self._penalty_cards)),
        )
        self._start_trick(leader)

    def _start_trick(self, leader: int) -> None:
        """The first trick of the round, led by ``leader`` (:meth:`_drive` plays the others
        on its locals)."""
        self._done_tricks = ()
        self._trick_leader = self._winner = self.to_move = leader
        self._trick_plays = ()
        # 0 is below every rank, so the leader's card is always the new high card.
        self._high = 0
        mask = self._masks[leader]
        self._legal = LEGAL_SETS.get(mask) or ranks_of(mask)

    def _end_round(self) -> bool:
        """Score the finished round; start the next one. False when the game is over."""
        rules = self.rules
        r = self._round
        last = r.tricks[-1]
        loser = last.winner
        cards = list(map(_card_of, last.plays))
        card = max(cards)
        penalty = rules.penalty(card, cards)
        r.loser, r.card, r.penalty, r.doubled = loser, card, penalty.points, penalty.doubled
        if rules.keeps_penalty_cards:
            self._penalty_cards[loser].append(card)
        settled = rules.settle(
            self.scores[loser] + penalty.points,
            self._half[loser],
            tuple(self._penalty_cards[loser]),
        )
        self.scores[loser] = settled.score
        self._penalty_cards[loser] = list(settled.penalty_cards)
        if settled.half:
            self._half[loser] = True
            r.half.append(loser)
        # A seat that faulted this round is disqualified instead (rules.md, Faults 3).
        if settled.eliminated and not self._faulted[loser]:
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
        if sum(self._active) <= 1:
            return False
        if r.number >= ROUND_CAP:
            self.capped = True
            return False
        available = len(self._full_deck) - sum(map(len, self._penalty_cards))
        start = rules.next_round(self._round_start, loser, card, self._active, available)
        self._start_round(r.number + 1, start)
        return True

    def _rig_round(
        self,
        hands: Sequence[Sequence[int] | None] | None,
        scores: Sequence[int] | None,
        penalty_cards: Sequence[Sequence[int]] | None,
        half: Sequence[bool] | None,
        round_number: int | None,
    ) -> None:
        """Tests only (``tests/sdk/enginekit.py``): replace parts of the round that has just
        started, before its first card, and rebuild what the engine derives from them."""
        r = self._round
        if hands is not None:
            sizes = {len(hand) for hand in hands if hand is not None}
            if len(sizes) != 1:
                raise ValueError(f"hands of different sizes: {hands}")
            for seat in self.active:
                hand = sorted(hands[seat])  # type: ignore[arg-type]
                r.hands[seat] = hand
                self._hands[seat] = tuple(hand)
                self._masks[seat] = ranks_mask(hand)
            r.hand_size = sizes.pop()
        if scores is not None:
            self.scores[:] = list(scores)
        if penalty_cards is not None:
            self._penalty_cards[:] = [list(cards) for cards in penalty_cards]
        if half is not None:
            self._half[:] = list(half)
        if round_number is not None:
            r.number = round_number
        self._public = (
            tuple(self.scores),
            *self._public[1:6],
            tuple(self._half),
            tuple(tuple(cards) for cards in self._penalty_cards),
        )
        self._start_trick(r.leader)
        self._drive([_pause_at_once] * self.num_players, pausable=True)

    # -- replay --------------------------------------------------------------------------

    def to_replay(self, players: list[dict[str, Any]]) -> dict[str, Any]:
        """The game in the ``cucumbers-replay/1`` format. ``players`` is one entry per seat."""
        if len(players) != self.num_players:
            raise ValueError(f"{len(players)} players given for {self.num_players} seats")
        rounds = [round_json(r) for r in self._rounds if r.loser >= 0]
        return {
            "format": REPLAY_FORMAT,
            "game": self.rules.name,
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
    return f"played {clipped(repr(card))}, not a legal card; legal: {list(legal)}"
