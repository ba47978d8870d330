"""The shape half of the replay checker (:mod:`cucumbers.validator`): keys, JSON types and
ranges of every field of ``replay-format.md``, one message per problem, before the rules
are walked. Like the validator, it restates what it needs from the spec instead of importing
the engine's tables.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from cucumbers.faults import FaultKind, clipped
from cucumbers.move_output import check_lines
from cucumbers.tracebacks import BotTraceback

MAX_DETAIL = 500  # replay-format.md, faults[].detail
KINDS = sorted(k.value for k in FaultKind)
_JSON_TYPES = {bool: "boolean", int: "integer", float: "number", str: "string", list: "array",
               dict: "object"}  # fmt: skip


@dataclass(frozen=True, slots=True)
class Game:
    """What the checks need of a game, restated from ``rules.md``."""

    name: str
    min_players: int
    max_players: int
    low: int  # the deck is four cards of each rank low..high
    high: int
    concombre: bool


# The names of rules.md, restated rather than read from the registry of games: the checker
# must not take the engine's word for anything (an import-linter contract keeps it so).
FC, CC = "five-cucumbers", "concombre"
GAMES = {FC: Game(FC, 2, 6, 1, 15, False), CC: Game(CC, 2, 7, 2, 14, True)}


def as_json(value: object) -> str:
    """``value`` spelled as in the replay's JSON (``true``, ``null``), as messages quote it."""
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return repr(value)


def show(value: object) -> str:
    """A wrong value for a message: its JSON type and a short spelling of it."""
    text = clipped(as_json(value))
    kind = _JSON_TYPES.get(type(value))
    return f"{kind} {text}" if kind else text


_Check = Callable[[str, Any], object]  # checks the value at a place named by the str
# Each key of a round, and the _Shape method that checks its value.
_ROUND_SCHEMA = """number:count dealer:maybe_seat leader:seat hand_size:count hands:hands
    tricks:tricks loser:seat card:card penalty:count doubled:boolean scores:scores
    eliminated:seats half:seats"""


def is_int(value: object) -> bool:
    return type(value) is int  # not isinstance: True and False are ints to Python


def check_shape(replay: Mapping[str, Any], out: list[str]) -> Game | None:
    game = GAMES.get(replay["game"]) if isinstance(replay.get("game"), str) else None
    players = replay.get("players")
    if game is None:
        out.append(f"game is {show(replay.get('game'))}, expected one of {', '.join(GAMES)}")
    elif not isinstance(players, list) or not (
        game.min_players <= len(players) <= game.max_players
    ):
        got = len(players) if isinstance(players, list) else show(players)
        limits = f"{game.min_players} to {game.max_players}"
        out.append(f"players: {game.name} is played by {limits} players, got {got}")
    else:
        shape = _Shape(out, len(players), game)
        top = "engine:string players:players rounds:rounds faults:faults"
        top += " placement:seats capped:boolean"
        if "revision" in replay:  # first: it says which per-move facts to expect
            shape.revision("revision", replay["revision"])
        if "seed" in replay:  # optional: without it, the deal cannot be verified
            shape.integer("seed", replay["seed"])
        shape.keys("replay", replay, shape.schema(top))
        return game
    return None


class _Shape:
    """Type and range checks; each appends one line per problem to ``out``."""

    def __init__(self, out: list[str], n: int, game: Game) -> None:
        self.out, self.n, self.low, self.high, self.name = out, n, game.low, game.high, game.name
        self.round_keys = self.schema(_ROUND_SCHEMA)
        self.trick_keys = self.schema("leader:seat plays:plays winner:seat")
        self.fault_keys = self.schema(
            "seat:seat round:integer trick:integer kind:kind detail:detail"
        )
        self.timed = False  # revision 2 and later: every decision's play has its ms

    def schema(self, text: str) -> dict[str, _Check]:
        """``"key:check ..."`` as a mapping from each key to the method checking its value."""
        return {k: getattr(self, c) for k, c in (pair.split(":") for pair in text.split())}

    def need(self, ok: bool, where: str, what: str, value: object) -> bool:
        if not ok:
            self.out.append(f"{where} must be {what}, got {show(value)}")
        return ok

    def keys(self, where: str, value: Any, checks: Mapping[str, _Check]) -> None:
        if not self.need(isinstance(value, dict), where, "an object", value):
            return
        missing = [key for key in checks if key not in value]
        if missing:
            self.out.append(f"{where}: missing keys: {', '.join(missing)}")
        for key, check in checks.items():
            if key in value:
                check(f"{where}: {key}" if where != "replay" else key, value[key])

    def integer(self, where: str, v: object) -> bool:
        return self.need(is_int(v), where, "an integer", v)

    def count(self, where: str, v: Any) -> bool:
        return self.need(is_int(v) and v >= 0, where, "a non-negative integer", v)

    def boolean(self, where: str, v: object) -> bool:
        return self.need(isinstance(v, bool), where, "true or false", v)

    def string(self, where: str, v: object) -> bool:
        return self.need(isinstance(v, str), where, "a string", v)

    def seat(self, where: str, v: Any) -> bool:
        return self.need(is_int(v) and 0 <= v < self.n, where, f"a seat 0..{self.n - 1}", v)

    def maybe_seat(self, where: str, v: object) -> bool:
        return v is None or self.seat(where, v)

    def card(self, where: str, v: Any) -> bool:
        ok = is_int(v) and self.low <= v <= self.high
        return self.need(ok, where, f"a {self.name} card {self.low}..{self.high}", v)

    def kind(self, where: str, v: object) -> bool:
        return self.need(v in KINDS and isinstance(v, str), where, f"one of {KINDS}", v)

    def detail(self, where: str, v: object) -> bool:
        ok = isinstance(v, str) and len(v) <= MAX_DETAIL
        return self.need(ok, where, f"a string of at most {MAX_DETAIL} characters", v)

    def revision(self, where: str, v: Any) -> None:
        if self.need(is_int(v) and v >= 1, where, "an integer >= 1", v):
            self.timed = v >= 2

    def milliseconds(self, where: str, v: object) -> bool:
        ok = type(v) in (int, float) and v >= 0  # type: ignore[operator]
        return self.need(ok, where, "a number of milliseconds >= 0", v)

    def output(self, where: str, v: object) -> None:
        try:
            ok = check_lines(v) == tuple(v)  # type: ignore[arg-type]
        except ValueError:
            ok = False
        self.need(ok, where, "a list of strings within the output limits", v)

    def traceback(self, where: str, v: object) -> None:
        try:
            BotTraceback.from_json(v)
        except ValueError as error:
            self.out.append(f"{where} must be a traceback: {error}")

    def private_and_facts(self, where: str, play: dict[str, Any]) -> None:
        """The optional per-move facts of a play (revision 2)."""
        if "ms" in play:
            self.milliseconds(f"{where}: ms", play["ms"])
        elif self.timed and not play.get("auto"):
            self.out.append(f"{where}: missing keys: ms (a revision 2 replay times each decision)")
        if "output" in play:
            self.output(f"{where}: output", play["output"])

    def listing(self, where: str, v: Any, item: _Check) -> None:
        if self.need(isinstance(v, list), where, "a list", v):
            for i, x in enumerate(v):
                item(f"{where}[{i}]", x)

    def seats(self, where: str, v: object) -> None:
        self.listing(where, v, self.seat)

    def players(self, where: str, v: list[Any]) -> None:
        for i, p in enumerate(v):
            ok = isinstance(p, dict) and is_int(p.get("seat")) and p["seat"] == i
            if self.need(ok, f"players[{i}]", f"an object with seat {i}", p):
                self.string(f"players[{i}]: name", p.get("name"))

    def rounds(self, where: str, v: Any) -> None:
        if self.need(isinstance(v, list) and len(v) > 0, where, "a non-empty list", v):
            for number, rnd in enumerate(v, 1):
                self.keys(f"round {number}", rnd, self.round_keys)

    def faults(self, where: str, v: object) -> None:
        self.listing(where, v, self.fault)

    def fault(self, where: str, v: Any) -> None:
        self.keys(where, v, self.fault_keys)
        if isinstance(v, dict) and "traceback" in v:
            self.traceback(f"{where}: traceback", v["traceback"])

    def scores(self, where: str, v: object) -> None:
        ok = isinstance(v, list) and len(v) == self.n and all(is_int(s) for s in v)
        self.need(ok, where, f"a list of {self.n} integers", v)

    def hands(self, where: str, v: Any) -> None:
        what = f"a list of {self.n} hands (a list of cards, or null for a seat not in play)"
        if self.need(isinstance(v, list) and len(v) == self.n, where, what, v):
            low, high = self.low, self.high
            for seat, hand in enumerate(v):
                if hand is None or (  # the common case, checked fast
                    type(hand) is list
                    and all(type(c) is int for c in hand)
                    and (not hand or (low <= min(hand) and max(hand) <= high))
                ):
                    continue
                self.listing(f"{where}[{seat}]", hand, self.card)

    def tricks(self, where: str, v: Any) -> None:
        if self.need(isinstance(v, list), where, "a list", v):
            n, where = self.n, where.replace(": tricks", " trick")
            for t, trick in enumerate(v, 1):
                if (  # the common case, checked fast
                    type(trick) is dict
                    and type(lead := trick.get("leader")) is int
                    and 0 <= lead < n
                    and type(win := trick.get("winner")) is int
                    and 0 <= win < n
                    and "plays" in trick
                ):
                    self.plays(f"{where} {t}: plays", trick["plays"])
                else:
                    self.keys(f"{where} {t}", trick, self.trick_keys)

    def plays(self, where: str, v: Any) -> None:
        if not self.need(isinstance(v, list) and len(v) > 0, where, "a non-empty list", v):
            return
        n, low, high = self.n, self.low, self.high
        for i, play in enumerate(v, 1):
            if (  # the common case, checked fast
                type(play) is dict
                and type(seat := play.get("seat")) is int
                and 0 <= seat < n
                and type(card := play.get("card")) is int
                and low <= card <= high
                and type(play.get("auto", False)) is bool
                and (type(play.get("ms")) is float or (not self.timed and "ms" not in play))
                and "output" not in play
            ):
                continue
            at = where.replace(": plays", f" play {i}")
            self.keys(at, play, {"seat": self.seat, "card": self.card})
            if isinstance(play, dict) and "auto" in play:
                self.boolean(f"{at}: auto", play["auto"])
            if isinstance(play, dict):
                self.private_and_facts(at, play)
