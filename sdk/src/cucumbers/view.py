"""What a bot sees: the per-seat :class:`View` and the notices sent to its hooks.

A view is built for one seat and holds only that seat's information set: its own hand, the
public plays and the public scores. It never holds another seat's hand (OpenSpiel's
per-player observation). Views are immutable named tuples because one is built for every
move of every game and must be cheap.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, NamedTuple


class Play(NamedTuple):
    """One card played to a trick: ``seat`` played ``card``."""

    seat: int
    card: int


class Trick(NamedTuple):
    """A completed trick: who led it, the plays in order, and the seat that won it."""

    leader: int
    plays: tuple[Play, ...]
    winner: int


class View(NamedTuple):
    """Everything seat ``seat`` may know when it is asked for a move.

    Example::

        def play(view: View) -> int:
            if view.high is not None and view.trick_number == view.tricks_per_round:
                return view.legal[0]      # the last trick: duck if we can
            return view.legal[-1]

    Attributes:
        game: the game's name, ``"five-cucumbers"`` or ``"concombre"``;
            ``cucumbers.games.rules_for(view.game)`` gives its rules.
        seat: your seat, ``0..num_players-1``.
        num_players: seats at the table, including seats that are out.
        hand: your cards, sorted, lowest first (equal ranks repeat).
        legal: the distinct cards you may play now, sorted: each rank once, however many
            copies you hold (:meth:`legal_with_copies` repeats them). Return one of these.
        trick: the plays of the current trick so far, in order (empty when you lead).
        high: the highest card in the current trick, or ``None`` when you lead.
        leader: the seat that led (or leads) the current trick.
        trick_number: the current trick, from 1 to ``tricks_per_round``.
        round_number: the current round, from 1.
        tricks_per_round: the number of tricks this round (= cards dealt to each seat).
        tricks: the completed tricks of this round, in order.
        scores: every seat's score (cucumbers or points), indexed by seat.
        active: seats still in the game, sorted.
        eliminated: seats eliminated by score, in the order they went out.
        disqualified: seats disqualified after a fault, in the order they went out.
        dealer: this round's dealer in a game with one (Concombre), else ``None``.
        round_leader: the seat that led this round's first trick.
        half_cucumbers: whether each seat has its half-cucumber (always ``False`` in a game
            without one, such as Five Cucumbers).
        penalty_cards: the penalty cards lying in front of each seat, in a game where the
            loser keeps them (Concombre); else empty.
        move_seconds: the time limit for one move, in seconds.
        bank_seconds: what is left of your time bank for overruns in this game, in seconds.
    """

    game: str
    seat: int
    num_players: int
    hand: tuple[int, ...]
    legal: tuple[int, ...]
    trick: tuple[Play, ...]
    high: int | None
    leader: int
    trick_number: int
    round_number: int
    tricks_per_round: int
    tricks: tuple[Trick, ...]
    scores: tuple[int, ...]
    active: tuple[int, ...]
    eliminated: tuple[int, ...]
    disqualified: tuple[int, ...]
    dealer: int | None
    round_leader: int
    half_cucumbers: tuple[bool, ...]
    penalty_cards: tuple[tuple[int, ...], ...]
    move_seconds: float
    bank_seconds: float

    @property
    def is_leading(self) -> bool:
        """True when you lead the current trick."""
        return not self.trick

    @property
    def is_last_trick(self) -> bool:
        """True during the last trick of the round (the one you want to lose)."""
        return self.trick_number == self.tricks_per_round

    def legal_with_copies(self) -> tuple[int, ...]:
        """The cards of your hand you may play now, sorted, with their copies: ``legal``
        as an engine that counts copies lists it (``hand`` ``(3, 3, 8)`` and ``legal``
        ``(3, 8)`` give ``(3, 3, 8)``). Return any one of them: copies are the same card."""
        legal = self.legal
        return tuple([card for card in self.hand if card in legal])

    def played_this_round(self) -> list[int]:
        """Every card played so far this round (completed tricks and the current one)."""
        cards = [play.card for trick in self.tricks for play in trick.plays]
        cards.extend(play.card for play in self.trick)
        return cards

    def hand_sizes(self) -> tuple[int, ...]:
        """How many cards each seat holds now, indexed by seat (0 for a seat out of the
        game). Every seat in play holds as many as you, or one fewer if it already played
        to the current trick (you are to move, so you have not)."""
        held = len(self.hand)
        played = {play.seat for play in self.trick}
        active = set(self.active)
        return tuple(
            (held - (seat in played)) if seat in active else 0 for seat in range(self.num_players)
        )

    def unseen_cards(self) -> tuple[int, ...]:
        """The cards you have not seen this round, sorted (equal ranks repeat): the deck less
        your hand, the cards played this round and the penalty cards in front of the seats
        (Concombre). The other seats' hands are among them, with any cards not dealt."""
        from .games import rules_for  # cucumbers imports the games lazily

        remaining = Counter(rules_for(self.game).deck)
        remaining.subtract(self.hand)
        remaining.subtract(self.played_this_round())
        for cards in self.penalty_cards:
            remaining.subtract(cards)
        return tuple(sorted(remaining.elements()))

    def to_json(self) -> dict[str, Any]:
        """The view as plain JSON data (the bot host protocol sends it this way)."""
        data = self._asdict()
        data["trick"] = [list(play) for play in self.trick]
        data["tricks"] = [
            {"leader": t.leader, "plays": [list(p) for p in t.plays], "winner": t.winner}
            for t in self.tricks
        ]
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> View:
        """Rebuild a view from :meth:`to_json` data. Raises ``KeyError``, ``TypeError`` or
        ``ValueError`` on malformed data."""
        values = {name: data[name] for name in cls._fields}
        values["hand"] = tuple(data["hand"])
        values["legal"] = tuple(data["legal"])
        values["trick"] = tuple(Play(*p) for p in data["trick"])
        values["tricks"] = tuple(
            Trick(t["leader"], tuple(Play(*p) for p in t["plays"]), t["winner"])
            for t in data["tricks"]
        )
        for name in ("scores", "active", "eliminated", "disqualified", "half_cucumbers"):
            values[name] = tuple(data[name])
        values["penalty_cards"] = tuple(tuple(cards) for cards in data["penalty_cards"])
        return cls(**values)

    @classmethod
    def from_array(cls, data: object) -> View:
        """Rebuild a view from the array JSON makes of the view itself: its fields in order,
        each :class:`Play` and :class:`Trick` an array of its fields likewise (what the bot
        host protocol sends: no keys to write, read or look up). Raises ``TypeError`` or
        ``ValueError`` on malformed data.

        Called in the bot host, so the tuples are made by ``tuple.__new__`` directly (a
        named tuple's own ``__new__`` is Python code): the view's and each trick's fields
        are counted, a play's are not (the runner made them; the host trusts it, and a bot
        gets nothing from a wrong one but its own confusion)."""
        if type(data) is not list:
            raise TypeError("a view must be a JSON array")
        return tuple.__new__(
            cls,
            [
                value if convert is None else convert(value)
                for convert, value in zip(FIELD_FROM_JSON, data, strict=True)
            ],
        )


def plays_from_json(data: Any) -> tuple[Play, ...]:
    """The plays of a trick from their JSON arrays."""
    return tuple([tuple.__new__(Play, play) for play in data])


def tricks_from_json(data: Any) -> tuple[Trick, ...]:
    """Completed tricks from their JSON arrays (each ``[leader, [plays], winner]``)."""
    new = tuple.__new__
    return tuple([new(Trick, (by, plays_from_json(plays), won)) for by, plays, won in data])


def _tuples(data: Any) -> tuple[tuple[int, ...], ...]:
    return tuple(map(tuple, data))


#: How each field of a view is rebuilt from its JSON, in the order of the view's fields
#: (None: as it is): :meth:`View.from_array`, and the bot host protocol's changes.
FIELD_FROM_JSON: tuple[Any, ...] = tuple(
    {
        "hand": tuple,
        "legal": tuple,
        "trick": plays_from_json,
        "tricks": tricks_from_json,
        "scores": tuple,
        "active": tuple,
        "eliminated": tuple,
        "disqualified": tuple,
        "half_cucumbers": tuple,
        "penalty_cards": _tuples,
    }.get(name)
    for name in View._fields
)


def _fields_of(notice: GameStart | RoundResult | GameResult) -> dict[str, Any]:
    """A notice's fields by name, as they are (its tuples hold only scalars and tuples, which
    JSON writes as arrays): ``dataclasses.asdict`` would copy every value, deeply, ten times
    slower, for each bot at each game."""
    return {name: getattr(notice, name) for name in notice.__dataclass_fields__}


@dataclass(frozen=True, slots=True)
class GameStart:
    """Sent to :meth:`Bot.start_game` before each game of a series.

    Attributes:
        game: the game's name (as :attr:`View.game`).
        seat: your seat in this game (seats change between games of a series).
        num_players: seats at the table.
        players: every seat's display name, indexed by seat.
        game_number: 1 for the first game of the series, then 2, 3 ...
        bot_seed: a seed for your own random numbers in this game. It is derived from the
            game's seed one-way, so it tells nothing about the deal; use it to be reproducible.
        move_seconds: the time limit for one move.
        bank_seconds: the time bank for overruns in this game.
    """

    game: str
    seat: int
    num_players: int
    players: tuple[str, ...]
    game_number: int
    bot_seed: int
    move_seconds: float
    bank_seconds: float

    def to_json(self) -> dict[str, Any]:
        return _fields_of(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> GameStart:
        values = dict(data)
        values["players"] = tuple(values["players"])
        return cls(**values)


@dataclass(frozen=True, slots=True)
class RoundResult:
    """Sent to :meth:`Bot.end_round` after every round: the whole public record of the round.

    Every dealt card is played during a round, so the tricks show every hand.

    Attributes:
        number: the round, from 1.
        dealer: the dealer in a game with one (Concombre), else ``None``.
        leader: the seat that led the first trick.
        tricks: the round's tricks, in order.
        loser: the seat that won the last trick.
        card: the loser's winning card (the penalty card).
        penalty: cucumbers or points added to the loser.
        doubled: Five Cucumbers: a 1 was played in the last trick.
        scores: every seat's score after the round.
        eliminated: seats eliminated by score at the end of this round.
        disqualified: seats disqualified at the end of this round.
        half: seats that earned their half-cucumber this round (Concombre).
    """

    number: int
    dealer: int | None
    leader: int
    tricks: tuple[Trick, ...]
    loser: int
    card: int
    penalty: int
    doubled: bool
    scores: tuple[int, ...]
    eliminated: tuple[int, ...]
    disqualified: tuple[int, ...]
    half: tuple[int, ...]

    def to_json(self) -> dict[str, Any]:
        data = _fields_of(self)
        data["tricks"] = [
            {"leader": t.leader, "plays": [list(p) for p in t.plays], "winner": t.winner}
            for t in self.tricks
        ]
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RoundResult:
        values = dict(data)
        values["tricks"] = tuple(
            Trick(t["leader"], tuple(Play(*p) for p in t["plays"]), t["winner"])
            for t in data["tricks"]
        )
        for name in ("scores", "eliminated", "disqualified", "half"):
            values[name] = tuple(values[name])
        return cls(**values)


@dataclass(frozen=True, slots=True)
class GameResult:
    """Sent to :meth:`Bot.end_game` after every game.

    Attributes:
        seat: your seat in this game.
        place: your final place, 1 = best.
        placement: seats, best first.
        scores: every seat's final score.
        capped: the game was stopped by the 1000-round safety cap.
    """

    seat: int
    place: int
    placement: tuple[int, ...]
    scores: tuple[int, ...]
    capped: bool

    def to_json(self) -> dict[str, Any]:
        return _fields_of(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> GameResult:
        values = dict(data)
        values["placement"] = tuple(values["placement"])
        values["scores"] = tuple(values["scores"])
        return cls(**values)
